"""The engine of snippets/engine/engine.py, drawn from its run.

`diamond`: the diamond's graph, each value numbered by its place in the two orders the run
walked it in, breadth-first (`bfs_order`) and backward's (`right_order`). `order`: the tiny
network's graph as the engine built it, each value numbered by its place in the order the
run's backward() walked it (`net_order`), with the value and the gradient the run left in it.
`losses`: the loss at every step of the engine's fit and of PyTorch's.
"""

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from docpipe.run.figures import ink, number

BOX_W, BOX_H = 1.25, 0.9  # data units: one column is 1.7 wide, one row 1.15 high


def _columns(order):
    """Each value's column: its longest distance from the output (the output at 0)."""
    depth = {order[0]: 0}
    for v in order:  # backward order: a value comes after every value made from it
        for parent in v.parents:
            depth[parent] = max(depth.get(parent, 0), depth[v] + 1)
    return depth


def _same_values(a, b, pairs):
    """Pair the values of two graphs built the same way, parent by parent."""
    pairs[id(a)] = b
    for pa, pb in zip(a.parents, b.parents, strict=True):
        _same_values(pa, pb, pairs)
    return pairs


def diamond(ns):
    walked, bfs = ns["right_order"], ns["bfs_order"]
    # the run walked two graphs built alike: the first breadth-first, the second in order
    twin = _same_values(bfs[0], walked[0], {})
    bfs_place = {id(twin[id(v)]): i for i, v in enumerate(bfs, start=1)}
    names = {id(ns["x"]): "x", id(ns["h"]): "h = x + 1"}
    depth = _columns(walked)
    deepest = max(depth.values())
    rows, where = {}, {}
    for v in sorted(walked, key=lambda v: (not v.parents, v is not ns["x"])):  # ops on top
        col = depth[v]
        row = rows.get(col, 0)
        rows[col] = row + 1
        where[id(v)] = ((deepest - col) * 1.7, -row * 1.15)
    fig, ax = plt.subplots(figsize=(8.4, 2.7), layout="constrained")
    for v in walked:
        x0, y0 = where[id(v)]
        for parent in v.parents:  # forward arrow: from the parent to the value made from it
            x1, y1 = where[id(parent)]
            skip = round((x0 - x1) / 1.7) > 1  # the short branch bends over the long one
            ax.annotate(
                "",
                xy=(x0 - BOX_W / 2, y0 + (0.3 if skip else 0)),
                xytext=(x1 + BOX_W / 2, y1 + (0.3 if skip else 0)),
                arrowprops={
                    "arrowstyle": "->",
                    "color": "C2" if skip else ink("muted"),
                    "lw": 1.2,
                    "connectionstyle": "arc3,rad=-0.25" if skip else "arc3",
                },
            )
    for step, v in enumerate(walked, start=1):
        x0, y0 = where[id(v)]
        ax.add_patch(
            FancyBboxPatch(
                (x0 - BOX_W / 2, y0 - BOX_H / 2),
                BOX_W,
                BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor="none",
                edgecolor="C0" if v.parents else ink("muted"),
                lw=1.6,
            )
        )
        label = names.get(id(v)) or v.op or number(v.data)
        ax.text(
            x0,
            y0 + 0.24,
            label,
            ha="center",
            va="center",
            color=ink(),
            fontsize=11,
            fontweight="bold",
        )
        ax.text(
            x0, y0 - 0.02, f"backward {step}", ha="center", va="center", color="C0", fontsize=9.5
        )
        ax.text(
            x0,
            y0 - 0.26,
            f"breadth-first {bfs_place[id(v)]}",
            ha="center",
            va="center",
            color="C3",
            fontsize=9.5,
        )
    ax.set_xlim(-BOX_W / 2 - 0.1, deepest * 1.7 + BOX_W / 2 + 0.1)
    lowest = max(rows.values()) - 1
    ax.set_ylim(-lowest * 1.15 - BOX_H / 2 - 0.1, BOX_H / 2 + 0.75)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def order(ns):
    walked = ns["net_order"]
    names = {id(ns["nw"]): "w", id(ns["nx"]): "x", id(ns["nb"]): "b", id(ns["ny"]): "y"}
    depth = _columns(walked)
    deepest = max(depth.values())
    rows = {}
    where = {}
    for v in walked:
        col = depth[v]
        row = rows.get(col, 0)
        rows[col] = row + 1
        where[id(v)] = ((deepest - col) * 1.7, -row * 1.15)
    fig, ax = plt.subplots(figsize=(8.4, 2.6), layout="constrained")
    for v in walked:
        x0, y0 = where[id(v)]
        for parent in v.parents:  # forward arrow: from the parent to the value made from it
            x1, y1 = where[id(parent)]
            ax.annotate(
                "",
                xy=(x0 - BOX_W / 2, y0),
                xytext=(x1 + BOX_W / 2, y1),
                arrowprops={"arrowstyle": "->", "color": ink("muted"), "lw": 1.2},
            )
    for step, v in enumerate(walked, start=1):
        x0, y0 = where[id(v)]
        ax.add_patch(
            FancyBboxPatch(
                (x0 - BOX_W / 2, y0 - BOX_H / 2),
                BOX_W,
                BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor="none",
                edgecolor="C0" if v.parents else ink("muted"),
                lw=1.6,
            )
        )
        label = v.op if v.parents else names.get(id(v), "leaf")
        ax.text(
            x0,
            y0 + 0.24,
            f"{step}.  {label}",
            ha="center",
            va="center",
            color=ink(),
            fontsize=11.5,
            fontweight="bold",
        )
        ax.text(
            x0,
            y0 - 0.02,
            f"value {number(v.data)}",
            ha="center",
            va="center",
            color="C0",
            fontsize=10,
        )
        ax.text(
            x0,
            y0 - 0.26,
            f"grad {number(v.grad)}",
            ha="center",
            va="center",
            color="C1",
            fontsize=10,
        )
    ax.set_xlim(-BOX_W / 2 - 0.1, deepest * 1.7 + BOX_W / 2 + 0.1)
    lowest = max(rows.values()) - 1
    ax.set_ylim(-lowest * 1.15 - BOX_H / 2 - 0.1, BOX_H / 2 + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def losses(ns):
    engine, torch_ = ns["engine_losses"], ns["torch_losses"]
    fig, ax = plt.subplots(figsize=(7.2, 3.2), layout="constrained")
    ax.plot(range(len(torch_)), torch_, color="C0", lw=4, alpha=0.55, label="PyTorch")
    ax.plot(range(len(engine)), engine, color="C1", lw=1.6, ls="--", label="the engine")
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("loss (mean squared error)")
    ax.grid(color=ink("grid"), lw=0.6)
    ax.legend(loc="upper right")
    return fig


FIGURES = {"diamond": diamond, "order": order, "losses": losses}

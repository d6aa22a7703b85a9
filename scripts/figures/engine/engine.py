"""The engine of snippets/engine/engine.py, drawn from its run.

`diamond`: the diamond's graph, each value numbered by its place in the two orders the run
walked it in, breadth-first (`bfs_order`) and backward's (`right_order`). `order`: the tiny
network's graph as the engine built it, each value numbered by its place in the order the
run's backward() walked it (`net_order`), with the value and the gradient the run left in it.
`losses`: the loss at every step of the engine's fit and of PyTorch's.
"""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, node_box, number

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


def _box(ax, xy, lines, v):
    """A value's box: its edge C0 where an operation made it, muted for a leaf."""
    edge = "C0" if v.parents else ink("muted")
    node_box(ax, xy, lines, width=BOX_W, height=BOX_H, edge=edge, lw=1.6)


def _arrow(ax, start, end, over=False):
    """A forward arrow from a parent's box to the box of the value made from it; `over`: in C2,
    bending over the row (a short branch passing a long one)."""
    lift = 0.3 if over else 0
    ax.annotate(
        "",
        xy=(end[0] - BOX_W / 2, end[1] + lift),
        xytext=(start[0] + BOX_W / 2, start[1] + lift),
        arrowprops={
            "arrowstyle": "->",
            "color": "C2" if over else ink("muted"),
            "lw": 1.2,
            "connectionstyle": "arc3,rad=-0.25" if over else "arc3",
        },
    )


def _graph(walked, rows_in, height, top, lines, over=lambda start, end: False):
    """The values of `walked` (an order the run walked them in), each in the column of its
    distance from the output, rows from the top in the order `rows_in`; a forward arrow from
    each parent (`over(start, end)`: bending over the row); and each value's box, holding
    `lines(step, v)` for its place `step` in `walked`."""
    depth = _columns(walked)
    deepest = max(depth.values())
    rows, where = {}, {}
    for v in rows_in:
        col = depth[v]
        row = rows.get(col, 0)
        rows[col] = row + 1
        where[id(v)] = ((deepest - col) * 1.7, -row * 1.15)
    fig, ax = plt.subplots(figsize=(8.4, height), layout="constrained")
    for v in walked:
        end = where[id(v)]
        for parent in v.parents:
            start = where[id(parent)]
            _arrow(ax, start, end, over(start, end))
    for step, v in enumerate(walked, start=1):
        _box(ax, where[id(v)], lines(step, v), v)
    ax.set_xlim(-BOX_W / 2 - 0.1, deepest * 1.7 + BOX_W / 2 + 0.1)
    lowest = max(rows.values()) - 1
    ax.set_ylim(-lowest * 1.15 - BOX_H / 2 - 0.1, BOX_H / 2 + top)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def diamond(ns):
    walked, bfs = ns["right_order"], ns["bfs_order"]
    # the run walked two graphs built alike: the first breadth-first, the second in order
    twin = _same_values(bfs[0], walked[0], {})
    bfs_place = {id(twin[id(v)]): i for i, v in enumerate(bfs, start=1)}
    names = {id(ns["x"]): "x", id(ns["h"]): "h = x + 1"}

    def lines(step, v):
        label = names.get(id(v)) or v.op or number(v.data)
        return [
            (0.24, label, {"fontsize": 11, "fontweight": "bold"}),
            (-0.02, f"backward {step}", {"color": "C0", "fontsize": 9.5}),
            (-0.26, f"breadth-first {bfs_place[id(v)]}", {"color": "C3", "fontsize": 9.5}),
        ]

    def over(start, end):  # the short branch bends over the long one
        return round((end[0] - start[0]) / 1.7) > 1

    ops_on_top = sorted(walked, key=lambda v: (not v.parents, v is not ns["x"]))
    return _graph(walked, ops_on_top, 2.7, 0.75, lines, over)


def order(ns):
    walked = ns["net_order"]
    names = {id(ns["nw"]): "w", id(ns["nx"]): "x", id(ns["nb"]): "b", id(ns["ny"]): "y"}

    def lines(step, v):
        label = v.op if v.parents else names.get(id(v), "leaf")
        return [
            (0.24, f"{step}.  {label}", {"fontsize": 11.5, "fontweight": "bold"}),
            (-0.02, f"value {number(v.data)}", {"color": "C0", "fontsize": 10}),
            (-0.26, f"grad {number(v.grad)}", {"color": "C1", "fontsize": 10}),
        ]

    return _graph(walked, walked, 2.6, 0.1, lines)


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

"""x * x.detach() at the run's x: two paths forward, one way back.

The product is made from x along two paths: straight, and through x.detach(). The
backward pass comes back to x along the first only; the second was cut by detach(),
so x.grad is the one factor's share, as the run left it.
"""

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from docpipe.run.figures import ink, number

BOX_W, BOX_H = 1.7, 1.0  # inches


def _box(ax, xy, lines, edge):
    x, y = xy
    ax.add_patch(
        FancyBboxPatch(
            (x - BOX_W / 2, y - BOX_H / 2),
            BOX_W,
            BOX_H,
            boxstyle="round,pad=0,rounding_size=0.08",
            facecolor="none",
            edgecolor=edge,
            linewidth=1.2,
        )
    )
    for dy, (text, colour, bold) in zip((0.3, 0.08, -0.14, -0.35), lines, strict=False):
        ax.text(
            x,
            y + dy,
            text,
            ha="center",
            va="center",
            color=colour,
            fontsize=10.5,
            fontweight="bold" if bold else "normal",
        )


def _arrow(ax, start, end, colour, style="-|>", ls="-"):
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={"arrowstyle": style, "color": colour, "lw": 1.4, "ls": ls},
    )


def cut(ns):
    x = ns["x"]
    size = (7.2, 2.7)
    fig = plt.figure(figsize=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, size[0])
    ax.set_ylim(0, size[1])
    ax.axis("off")
    left, middle, right = (1.0, 1.85), (3.6, 0.75), (6.1, 1.85)
    _box(
        ax,
        left,
        [
            ("x", ink(), True),
            ("leaf", ink(), False),
            (f"value {number(x.item())}", "C0", False),
            (f"grad {number(x.grad.item())}", "C1", False),
        ],
        ink("muted"),
    )
    _box(
        ax,
        middle,
        [
            ("x.detach()", ink(), True),
            ("no grad_fn", ink(), False),
            (f"value {number(x.item())}", "C0", False),
            ("a constant", ink("muted"), False),
        ],
        ink("muted"),
    )
    _box(
        ax,
        right,
        [("x * x.detach()", ink(), True), ("MulBackward0", ink(), False)],
        ink("muted"),
    )
    half = BOX_W / 2
    # the straight path: forward above, backward below, with the local slope
    _arrow(ax, (left[0] + half, left[1] + 0.12), (right[0] - half, right[1] + 0.12), "C0")
    _arrow(ax, (right[0] - half, right[1] - 0.12), (left[0] + half, left[1] - 0.12), "C1")
    ax.text(
        (left[0] + right[0]) / 2,
        left[1] - 0.32,
        f"\u00d7{number(x.item())}",
        ha="center",
        va="center",
        color="C1",
        fontsize=11,
    )
    # the detached path: forward only; nothing comes back along it
    _arrow(ax, (left[0] + 0.2, left[1] - BOX_H / 2), (middle[0] - half, middle[1]), "C0")
    _arrow(ax, (middle[0] + half, middle[1]), (right[0] - 0.2, right[1] - BOX_H / 2), "C0")
    ax.text(
        (left[0] + middle[0]) / 2 - 0.35,
        (left[1] + middle[1]) / 2 - 0.35,
        "\u2715 no way back",
        ha="center",
        va="center",
        color="C3",
        fontsize=10.5,
    )
    ax.text(
        0.1,
        size[1] - 0.15,
        "forward: values \u2192",
        ha="left",
        va="center",
        fontsize=10,
        color="C0",
    )
    ax.text(
        size[0] - 0.1,
        size[1] - 0.15,
        "\u2190 backward: gradients",
        ha="right",
        va="center",
        fontsize=10,
        color="C1",
    )
    return fig


FIGURES = {"cut": cut}

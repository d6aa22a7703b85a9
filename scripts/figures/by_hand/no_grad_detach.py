"""x * x.detach() at the run's x: two paths forward, one way back.

The product is made from x along two paths: straight, and through x.detach(). The
backward pass comes back to x along the first only; the second was cut by detach(),
so x.grad is the one factor's share, as the run left it.
"""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, node_box, number

BOX_W, BOX_H = 1.7, 1.0  # inches


def _box(ax, xy, title, kind, *more):
    """A box: its title in bold, what it is, then up to two more (text, colour) lines."""
    lines = [(title, ink(), "bold"), (kind, ink(), "normal")]
    lines += [(text, colour, "normal") for text, colour in more]
    rows = [
        (dy, text, {"color": colour, "fontweight": weight})
        for dy, (text, colour, weight) in zip((0.3, 0.08, -0.14, -0.35), lines, strict=False)
    ]
    node_box(ax, xy, rows, width=BOX_W, height=BOX_H, edge=ink("muted"), pad=0, fontsize=10.5)


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
    value = (f"value {number(x.item())}", "C0")
    _box(ax, left, "x", "leaf", value, (f"grad {number(x.grad.item())}", "C1"))
    _box(ax, middle, "x.detach()", "no grad_fn", value, ("a constant", ink("muted")))
    _box(ax, right, "x * x.detach()", "MulBackward0")
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
    # which way each colour runs, in the top corners
    for at, words, side, colour in (
        (0.1, "forward: values \u2192", "left", "C0"),
        (size[0] - 0.1, "\u2190 backward: gradients", "right", "C1"),
    ):
        ax.text(at, size[1] - 0.15, words, ha=side, va="center", fontsize=10, color=colour)
    return fig


FIGURES = {"cut": cut}

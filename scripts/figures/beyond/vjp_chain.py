"""backward(gradient=v) through the chain x -> a = x² -> b = cumsum(a) -> y = 2·b of
snippets/beyond/vjp_chain.py: v entering at y, and the vector each node passed back, read
from the run's .grad of every result (the snippet kept them with retain_grad()).

The box is this module's own (the pattern of scripts/figures/beyond/used_twice.py): a rounded
frame with a title, the node that made the tensor, and its value.
"""

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from docpipe.run.figures import ink, number

BOX_W, BOX_H = 1.52, 0.9  # inches
TEXT = 10.5  # font size in points
LIFT = 0.09  # inches between an edge's forward and backward arrow


def _vector(t):
    return "[" + ", ".join(number(e) for e in t.detach().tolist()) + "]"


def _box(ax, centre, lines):
    """A rounded frame around lines of (text, colour, font family), top to bottom."""
    x, y = centre
    ax.add_patch(
        FancyBboxPatch(
            (x - BOX_W / 2, y - BOX_H / 2), BOX_W, BOX_H,
            boxstyle="round,pad=0,rounding_size=0.08",
            facecolor="none", edgecolor=ink("muted"), linewidth=1.2,
        )
    )  # fmt: skip
    for dy, (text, colour, family) in zip((0.26, 0.04, -0.2), lines, strict=True):
        ax.text(x, y + dy, text, ha="center", va="center", fontsize=TEXT, color=colour,
                family=family)  # fmt: skip


def _arrow(ax, start, end, colour):
    style = {"arrowstyle": "-|>", "lw": 1.4, "shrinkA": 0, "shrinkB": 0, "color": colour}
    ax.annotate("", xy=end, xytext=start, arrowprops=style)


def chain(ns):
    x, a, b, y = ns["x"], ns["a"], ns["b"], ns["y"]
    # the nodes the titles name, as the run recorded them
    assert a.grad_fn.next_functions[0][0].variable is x
    assert a.grad_fn.name() == "PowBackward0"
    assert b.grad_fn.next_functions[0][0] is a.grad_fn
    assert y.grad_fn.next_functions[0][0] is b.grad_fn

    width, height, gap = 9.0, 2.4, 0.92
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    ax.text(0.08, height - 0.2, "forward: values \u2192", ha="left", va="center",
            fontsize=TEXT, color="C0")  # fmt: skip
    ax.text(width - 0.08, height - 0.2,
            "\u2190 backward: each node passes on vᵀJ, the vector it received times its Jacobian",
            ha="right", va="center", fontsize=TEXT, color="C1")  # fmt: skip

    row = 1.0
    left = 0.1 + BOX_W / 2
    centres = [(left + i * (BOX_W + gap), row) for i in range(4)]
    boxes = [
        ("x (leaf)", "", x, ("x.grad " + _vector(x.grad), "C1", "sans-serif")),
        ("a = x²", a.grad_fn.name(), a, None),
        ("b = cumsum(a)", b.grad_fn.name(), b, None),
        ("y = 2 · b", y.grad_fn.name(), y, None),
    ]
    for centre, (title, node, tensor, last) in zip(centres, boxes, strict=True):
        value = ("value " + _vector(tensor), "C0", "sans-serif")
        if last is None:
            lines = [(title, ink(), "sans-serif"), (node, ink(), "monospace"), value]
        else:
            lines = [(title, ink(), "sans-serif"), value, last]
        _box(ax, centre, lines)

    # between two boxes: forward above, backward below, labelled with the vector the node
    # of the right-hand box passed back to the left-hand one
    passed = [(x.grad, a.grad_fn), (a.grad, b.grad_fn), (b.grad, y.grad_fn)]
    for i, (vector, node) in enumerate(passed):
        x0, x1 = centres[i][0] + BOX_W / 2, centres[i + 1][0] - BOX_W / 2
        _arrow(ax, (x0, row + 0.2 + LIFT), (x1, row + 0.2 + LIFT), "C0")
        _arrow(ax, (x1, row - 0.2 - LIFT), (x0, row - 0.2 - LIFT), "C1")
        ax.text((x0 + x1) / 2, row - 0.47, _vector(vector), ha="center", va="center",
                fontsize=TEXT, color="C1")  # fmt: skip
        ax.text((x0 + x1) / 2, row - 0.7, f"passed by {node.name()}", ha="center", va="center",
                fontsize=TEXT - 2, color=ink("muted"))  # fmt: skip

    # v enters at the output, from above
    top = (centres[-1][0], row + BOX_H / 2)
    _arrow(ax, (top[0], top[1] + 0.42), top, "C1")
    ax.text(top[0] - 0.08, top[1] + 0.24, "v = " + _vector(y.grad), ha="right", va="center",
            fontsize=TEXT, color="C1")  # fmt: skip
    return fig


FIGURES = {"chain": chain}

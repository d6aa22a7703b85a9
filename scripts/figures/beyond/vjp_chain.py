"""backward(gradient=v) through the chain x -> a = x² -> b = cumsum(a) -> y = 2·b of
snippets/beyond/vjp_chain.py: v entering at y, and the vector each node passed back, read
from the run's .grad of every result (the snippet kept them with retain_grad()).

Each box is docpipe.run.figures.node_box: a rounded frame around a title, the node that made
the tensor, and its value.
"""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, node_box, number

BOX_W, BOX_H = 1.5, 0.9  # inches
TEXT = 11  # font size in points; a node's name, in monospace, is a point smaller
ROW = 0.82  # the height of the boxes' centres, in inches


def _vector(t):
    return "[" + ", ".join(number(e) for e in t.detach().tolist()) + "]"


def _box(ax, centre, lines):
    """A rounded frame around lines of (text, colour, font family), top to bottom."""
    node_box(
        ax,
        centre,
        [
            (dy, text, {"color": colour, "family": family,
                        "fontsize": TEXT - 1 if family == "monospace" else TEXT})
            for dy, (text, colour, family) in zip((0.25, 0.03, -0.21), lines, strict=True)
        ],
        width=BOX_W, height=BOX_H, edge=ink("muted"), pad=0,
    )  # fmt: skip


def _arrow(ax, start, end, colour):
    style = {"arrowstyle": "-|>", "lw": 1.4, "shrinkA": 0, "shrinkB": 0, "color": colour}
    ax.annotate("", xy=end, xytext=start, arrowprops=style)


def chain(ns):
    x, a, b, y = ns["x"], ns["a"], ns["b"], ns["y"]
    # the chain the titles describe, as the run recorded it
    assert a.grad_fn.next_functions[0][0].variable is x
    assert b.grad_fn.next_functions[0][0] is a.grad_fn
    assert y.grad_fn.next_functions[0][0] is b.grad_fn

    gap = 0.7
    width, height = 0.2 + 4 * BOX_W + 3 * gap, 2.27
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    ax.text(0.1, height - 0.18, "forward: values \u2192", ha="left", va="center",
            fontsize=TEXT, color="C0")  # fmt: skip
    ax.text(0.1, height - 0.43,
            "\u2190 backward: each node passes on vᵀJ, the vector it received times its Jacobian",
            ha="left", va="center", fontsize=TEXT, color="C1")  # fmt: skip

    centres = [(0.1 + BOX_W / 2 + i * (BOX_W + gap), ROW) for i in range(4)]
    value = [("value " + _vector(t), "C0", "sans-serif") for t in (x, a, b, y)]
    titles = ("x (leaf)", "a = x²", "b = cumsum(a)", "y = 2 · b")
    title = [(text, ink(), "sans-serif") for text in titles]
    node = [(t.grad_fn.name(), ink(), "monospace") for t in (a, b, y)]
    _box(ax, centres[0], [title[0], value[0], ("x.grad " + _vector(x.grad), "C1", "sans-serif")])
    for i in range(1, 4):
        _box(ax, centres[i], [title[i], node[i - 1], value[i]])

    # between two boxes: forward above, backward below, labelled under the boxes with the
    # vector the node of the right-hand box passed back to the left-hand one
    for i, vector in enumerate((x.grad, a.grad, b.grad)):
        x0, x1 = centres[i][0] + BOX_W / 2, centres[i + 1][0] - BOX_W / 2
        _arrow(ax, (x0, ROW + 0.27), (x1, ROW + 0.27), "C0")
        _arrow(ax, (x1, ROW - 0.27), (x0, ROW - 0.27), "C1")
        ax.text((x0 + x1) / 2, ROW - 0.6, _vector(vector), ha="center", va="center",
                fontsize=TEXT, color="C1")  # fmt: skip

    # v enters at the output, from above
    top = (centres[-1][0], ROW + BOX_H / 2)
    _arrow(ax, (top[0], top[1] + 0.42), top, "C1")
    ax.text(top[0] - 0.08, top[1] + 0.22, "v = " + _vector(y.grad), ha="right", va="center",
            fontsize=TEXT, color="C1")  # fmt: skip
    return fig


FIGURES = {"chain": chain}

"""A value used twice: the recorded graphs of x·x and x·y + x, with the gradient backward
sent along each edge and the sum that arrived at the shared leaf x.

`observe()` watches the snippet while it runs: every operation whose result has a
`grad_fn` is noted with its forward value, and hooks record, during the snippet's own
`backward()`, the gradient each node sent to each of its inputs (one per edge) and the
gradient that arrived at each node (at a leaf's AccumulateGrad node: the sum over its
edges). The hooks only read; they return None, so results are unchanged. The drawings walk
`grad_fn.next_functions`, as the snippet does.
"""

import math

import matplotlib.pyplot as plt
import torch
from torch.overrides import TorchFunctionMode

from docpipe.run.figures import ink, node_box, number

FORWARD = {}  # node -> the value of the tensor it made
SENT = {}  # node -> the gradient it sent to each input, in next_functions order
ARRIVED = {}  # node -> the gradient that arrived at it (a leaf's: summed over its edges)


def _watch_arrivals(node):
    if node in ARRIVED:
        return
    ARRIVED[node] = None

    def before(grad_outputs):
        ARRIVED[node] = grad_outputs[0].detach().clone()

    node.register_prehook(before)


class _Recorder(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        node = getattr(out, "grad_fn", None) if torch.is_tensor(out) else None
        if node is not None and node not in FORWARD:
            FORWARD[node] = out.detach().clone()

            def after(grad_inputs, grad_outputs, node=node):
                SENT[node] = [None if g is None else g.detach().clone() for g in grad_inputs]

            node.register_hook(after)
            _watch_arrivals(node)
            for parent, _ in node.next_functions:
                if parent is not None:
                    _watch_arrivals(parent)
        return out


def observe():
    return _Recorder()


# ----------------------------------------------------------------------------
# Drawing, in inches: one axes fills the figure, one data unit is one inch.

BOX_W, BOX_H = 1.75, 1.0
TEXT = 11  # font size in points
LIFT = 0.08  # inches between an edge's forward and backward arrow


def _canvas(width, height):
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    ax.text(0.1, height - 0.2, "forward: values \u2192", ha="left", va="center",
            fontsize=TEXT - 0.5, color="C0")  # fmt: skip
    ax.text(width - 0.1, height - 0.2, "\u2190 backward: the gradient sent along each edge",
            ha="right", va="center", fontsize=TEXT - 0.5, color="C1")  # fmt: skip
    return fig, ax


def _value(node):
    if type(node).__name__ == "AccumulateGrad":
        return node.variable
    return FORWARD[node]


def _sum_text(node):
    """The gradient that arrived at node: as a sum of its edges' when there are several."""
    parts = [  # in the order the forward pass recorded the consumers
        SENT[consumer][i]
        for consumer in FORWARD
        if consumer in SENT
        for i, (parent, _) in enumerate(consumer.next_functions)
        if parent is node
    ]
    total = number(ARRIVED[node])
    if len(parts) < 2:
        return f"grad {total}"
    return f"grad {' + '.join(number(p) for p in parts)} = {total}"


def _box(ax, xy, title, node):
    rows = [
        (0.32, title, ink(), "sans-serif"),
        (0.11, type(node).__name__, ink(), "monospace"),
        (-0.12, f"value {number(_value(node))}", "C0", "sans-serif"),
        (-0.33, _sum_text(node), "C1", "sans-serif"),
    ]
    lines = [(dy, text, {"color": colour, "family": family}) for dy, text, colour, family in rows]
    node_box(ax, xy, lines, width=BOX_W, height=BOX_H, edge=ink("muted"), pad=0, fontsize=TEXT)


def _edge(ax, start, end, sent, bend=0.0, side=-1):
    """One recorded edge: a forward arrow (C0) from the input's box to the consumer's,
    and beside it, on `side` (-1: right of the forward direction, 1: left), a backward
    arrow (C1) labelled with the gradient sent back along it. bend > 0 curves the edge
    to the left of its forward direction."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    nx, ny = -(y1 - y0) / length, (x1 - x0) / length  # unit normal, to the left
    style = {"arrowstyle": "-|>", "lw": 1.4, "shrinkA": 0, "shrinkB": 0}
    for offset, colour, (a, b), rad in (
        (-side * LIFT, "C0", (start, end), -bend),
        (side * LIFT, "C1", (end, start), bend),  # reversed: the same side needs -rad
    ):
        ax.annotate(
            "",
            xy=(b[0] + offset * nx, b[1] + offset * ny),
            xytext=(a[0] + offset * nx, a[1] + offset * ny),
            arrowprops={**style, "color": colour, "connectionstyle": f"arc3,rad={rad}"},
        )
    # An arc3 curve's midpoint lies bend * length / 2 off the chord.
    away = bend * length / 2 + side * (LIFT + 0.17)
    ax.text((x0 + x1) / 2 + away * nx, (y0 + y1) / 2 + away * ny, number(sent),
            ha="center", va="center", fontsize=TEXT, color="C1")  # fmt: skip


def _right(xy, dy=0.0):
    return (xy[0] + BOX_W / 2, xy[1] + dy)


def _left(xy, dy=0.0):
    return (xy[0] - BOX_W / 2, xy[1] + dy)


def square(ns):
    """square = x * x: both inputs of the multiplication lead to x's one node."""
    mul = ns["square"].grad_fn
    (leaf, _), (same_leaf, _) = mul.next_functions
    assert leaf is same_leaf, "the snippet's x * x no longer records one node for x"
    fig, ax = _canvas(7.6, 2.6)
    at = {"x": (1.3, 1.1), "square": (6.3, 1.1)}
    _box(ax, at["x"], "x (leaf)", leaf)
    _box(ax, at["square"], "square = x · x", mul)
    upper = (_right(at["x"], 0.22), _left(at["square"], 0.22))
    lower = (_right(at["x"], -0.22), _left(at["square"], -0.22))
    _edge(ax, *upper, SENT[mul][0], bend=0.12, side=1)
    _edge(ax, *lower, SENT[mul][1], bend=-0.12, side=-1)
    return fig


def two_paths(ns):
    """z = x * y + x: x reaches z directly and through the product."""
    add = ns["z"].grad_fn
    (mul, _), (x_leaf, _) = add.next_functions
    (x_again, _), (y_leaf, _) = mul.next_functions
    assert x_leaf is x_again, "the snippet's x no longer has one node in both paths"
    fig, ax = _canvas(7.6, 3.4)
    at = {"y": (1.15, 2.45), "x": (1.15, 0.75), "product": (3.8, 2.45), "z": (6.45, 0.75)}
    _box(ax, at["y"], "y (leaf)", y_leaf)
    _box(ax, at["x"], "x (leaf)", x_leaf)
    _box(ax, at["product"], "product = x · y", mul)
    _box(ax, at["z"], "z = product + x", add)
    _edge(ax, _right(at["y"]), _left(at["product"]), SENT[mul][1])
    _edge(ax, _right(at["x"], 0.3), _left(at["product"], -0.3), SENT[mul][0])
    _edge(ax, _right(at["product"], -0.3), _left(at["z"], 0.3), SENT[add][0], side=1)
    _edge(ax, _right(at["x"], -0.1), _left(at["z"], -0.1), SENT[add][1])
    return fig


FIGURES = {"square": square, "two_paths": two_paths}

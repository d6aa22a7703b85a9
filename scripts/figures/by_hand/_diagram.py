"""Value diagrams for the backprop-by-hand page, shared by its figure modules.

A diagram is a few boxes, one per tensor of a recorded run: the forward value in
colour C0 and the gradient that reached it in colour C1. Forward arrows run left
to right; backward arrows run right to left, labelled with the local slope on
that edge. An edge may bring its local slope from the run (for h = w*x + b the
slope towards w is x, towards b it is 1); otherwise it is the gradient at its
start divided by the gradient at its end, where that ratio is defined.
"""

from __future__ import annotations

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, node_box, number

BOX_W, BOX_H = 1.3, 1.04  # inches; a box grows to fit a long op name
PAD = 0.1  # inches of room left and right of a box's widest line
LABEL, OP, NUMBER, LEGEND = 11.5, 10.5, 11, 10.5  # font sizes in points


def node(label, tensor, where, op=None):
    """One box: its label, the tensor it shows, its (x, y) centre, op name."""
    if op is None and tensor.grad_fn is not None:
        op = tensor.grad_fn.name()
    return {
        "label": label,
        "value": tensor.item(),
        "grad": tensor.grad.item(),
        "xy": where,
        "op": op or "leaf",
    }


def _box(ax, n):
    """Draw one node's lines; return the box width that fits them."""
    lines = [
        (0.34, n["label"], LABEL, ink()),
        (0.12, n["op"], OP, ink()),
        (-0.13, f"value {number(n['value'])}", NUMBER, "C0"),
        (-0.35, f"grad {number(n['grad'])}", NUMBER, "C1"),
    ]
    rows = [(dy, text, {"fontsize": size, "color": colour}) for dy, text, size, colour in lines]
    return node_box(ax, n["xy"], rows, width=BOX_W, height=BOX_H, edge=ink("muted"), pad=0, fit=PAD)


def draw(nodes, edges, size=(7, 2.6), note=None):
    """nodes: name -> node(...); edges: (source, target) or
    (source, target, local slope) triples."""
    width, height = size
    fig = plt.figure(figsize=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")

    for n in nodes.values():
        n["width"] = _box(ax, n)

    for source, target, *given in edges:
        s, t = nodes[source], nodes[target]
        (sx, sy), (tx, ty) = s["xy"], t["xy"]
        start = (sx + s["width"] / 2, sy)
        end = (tx - t["width"] / 2, ty + max(-0.3, min(0.3, sy - ty)))
        lift = 0.1
        forward = dict(arrowstyle="-|>", color="C0", lw=1.4, shrinkA=2, shrinkB=2)
        backward = dict(arrowstyle="-|>", color="C1", lw=1.4, shrinkA=2, shrinkB=2)
        ax.annotate(
            "", xy=(end[0], end[1] + lift), xytext=(start[0], start[1] + lift), arrowprops=forward
        )
        ax.annotate(
            "", xy=(start[0], start[1] - lift), xytext=(end[0], end[1] - lift), arrowprops=backward
        )
        if given:
            slope = given[0]
        elif t["grad"] != 0:
            slope = s["grad"] / t["grad"]
        else:
            continue
        mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        ax.text(
            mid[0],
            mid[1] - lift - 0.19,
            f"\u00d7{number(slope)}",
            ha="center",
            va="center",
            fontsize=NUMBER,
            color="C1",
        )

    ax.text(
        0.1,
        height - 0.2,
        "forward: values \u2192",
        ha="left",
        va="center",
        fontsize=LEGEND,
        color="C0",
    )
    ax.text(
        width - 0.1,
        height - 0.2,
        "\u2190 backward: gradients (\u00d7 local slope)",
        ha="right",
        va="center",
        fontsize=LEGEND,
        color="C1",
    )
    if note:
        ax.text(width / 2, 0.14, note, ha="center", va="center", fontsize=LEGEND, color=ink())
    return fig


def network(ns, activation="ReLU", note=None):
    """The tiny network of the page: w and b into h, then a, then the loss.

    h = w*x + b is drawn as one box (autograd records a multiply and an
    add); its local slopes towards w and b are x and 1, taken from the run.
    """
    y = 1.22  # room between the boxes for a LeakyReluBackward0 box
    nodes = {
        "w": node("w", ns["w"], (0.75, 1.78)),
        "b": node("b", ns["b"], (0.75, 0.62)),
        "h": node("h = w·x + b", ns["h"], (2.78, y)),
        "a": node(f"a = {activation}(h)", ns["a"], (5.05, y)),
        "L": node("L = (a − y)²", ns["loss"], (7.38, y)),
    }
    edges = [
        ("w", "h", ns["x"].item()),
        ("b", "h", 1.0),
        ("h", "a"),
        ("a", "L"),
    ]
    return draw(nodes, edges, size=(8.14, 2.95), note=note)

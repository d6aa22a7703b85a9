"""Value diagrams for the backprop-by-hand page, shared by its figure modules.

A diagram is a few boxes, one per tensor of a recorded run: the forward value in
colour C0 and the gradient that reached it in colour C1. Forward arrows run left
to right; backward arrows run right to left, labelled with the local slope
autograd applied on that edge (the gradient at its start divided by the
gradient at its end), where that ratio is defined.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

from docpipe.figures import ink

BOX_W, BOX_H = 1.24, 0.92


def number(value: float) -> str:
    return f"{value:g}".replace("-", "\u2212")


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


def draw(nodes, edges, size=(7, 2.6), note=None):
    """nodes: name -> node(...); edges: (source name, target name) pairs."""
    width, height = size
    fig = plt.figure(figsize=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")

    for n in nodes.values():
        x, y = n["xy"]
        ax.add_patch(
            FancyBboxPatch(
                (x - BOX_W / 2, y - BOX_H / 2),
                BOX_W,
                BOX_H,
                boxstyle="round,pad=0,rounding_size=0.08",
                facecolor="none",
                edgecolor=ink("muted"),
                linewidth=1.2,
            )
        )
        ax.text(x, y + 0.29, n["label"], ha="center", va="center", fontsize=10.5, color=ink())
        ax.text(x, y + 0.08, n["op"], ha="center", va="center", fontsize=7.5, color=ink("muted"))
        ax.text(
            x,
            y - 0.13,
            f"value {number(n['value'])}",
            ha="center",
            va="center",
            fontsize=10,
            color="C0",
        )
        ax.text(
            x,
            y - 0.33,
            f"grad {number(n['grad'])}",
            ha="center",
            va="center",
            fontsize=10,
            color="C1",
        )

    for source, target in edges:
        s, t = nodes[source], nodes[target]
        (sx, sy), (tx, ty) = s["xy"], t["xy"]
        start = (sx + BOX_W / 2, sy)
        end = (tx - BOX_W / 2, ty + max(-0.3, min(0.3, sy - ty)))
        lift = 0.1
        forward = dict(arrowstyle="-|>", color="C0", lw=1.4, shrinkA=2, shrinkB=2)
        backward = dict(arrowstyle="-|>", color="C1", lw=1.4, shrinkA=2, shrinkB=2)
        ax.annotate(
            "", xy=(end[0], end[1] + lift), xytext=(start[0], start[1] + lift), arrowprops=forward
        )
        ax.annotate(
            "", xy=(start[0], start[1] - lift), xytext=(end[0], end[1] - lift), arrowprops=backward
        )
        if t["grad"] != 0:
            slope = s["grad"] / t["grad"] + 0.0  # + 0.0: no signed zero
            mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
            ax.text(
                mid[0],
                mid[1] - lift - 0.17,
                f"\u00d7{number(slope)}",
                ha="center",
                va="center",
                fontsize=10,
                color="C1",
            )

    ax.text(
        0.1,
        height - 0.2,
        "forward: values \u2192",
        ha="left",
        va="center",
        fontsize=9.5,
        color="C0",
    )
    ax.text(
        width - 0.1,
        height - 0.2,
        "\u2190 backward: gradients (\u00d7 local slope)",
        ha="right",
        va="center",
        fontsize=9.5,
        color="C1",
    )
    if note:
        ax.text(width / 2, 0.14, note, ha="center", va="center", fontsize=9, color=ink("muted"))
    return fig


def network(ns, activation="ReLU", note=None):
    """The tiny network of the page: w and b into h, then a, then the loss."""
    y = 1.15
    nodes = {
        "w": node("w", ns["w"], (0.72, 1.62)),
        "b": node("b", ns["b"], (0.72, 0.56)),
        "h": node("h = w·x + b", ns["h"], (2.6, y)),
        "a": node(f"a = {activation}(h)", ns["a"], (4.45, y)),
        "L": node("L = (a − y)²", ns["loss"], (6.28, y)),
    }
    edges = [("w", "h"), ("b", "h"), ("h", "a"), ("a", "L")]
    return draw(nodes, edges, size=(7, 2.75), note=note)

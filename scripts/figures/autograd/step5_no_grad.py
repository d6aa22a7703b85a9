"""Step 5: what each way of keeping work out of the graph leaves behind, drawn from the run.

Three panels, one per result of snippets/autograd/step5_no_grad.py: `out` (recorded: its
node and what the node saved), `out_no_grad` (made inside `torch.no_grad()`: no node) and
`reused` (`detached @ weight`: a node whose way back through `detached` is cut, while the
way to `weight` stays). Every name, shape and link is read from the tensors the run made.
"""

import functools

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, node_box

# a node of the graph: one line of text, monospace, in a box 2.3 by 0.62 unless a call says
_box = functools.partial(node_box, width=2.3, height=0.62, fontsize=9.5, family="monospace")


def _arrow(ax, start, end, color, dashed=False):
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={
            "arrowstyle": "-|>",
            "color": color,
            "lw": 1.4,
            "ls": "--" if dashed else "-",
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )


def _node_name(tensor):
    return "grad_fn=None" if tensor.grad_fn is None else tensor.grad_fn.name()


def _leaf_of(node):
    """The AccumulateGrad node among a node's next_functions, and the index of a None."""
    leaf, missing = None, None
    for index, (child, _) in enumerate(node.next_functions):
        if child is None:
            missing = index
        elif child.name().endswith("AccumulateGrad"):
            leaf = child
    return leaf, missing


def cuts(ns):
    out, out_no_grad, reused = ns["out"], ns["out_no_grad"], ns["reused"]
    detached, weight = ns["detached"], ns["weight"]
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 4.0), layout="constrained")
    for ax in axes:
        ax.set_xlim(-0.25, 3.25)
        ax.set_ylim(-1.1, 3.5)
        ax.axis("off")

    # 1. recorded: the node, what it saved, and its way to the weight
    left = axes[0]
    left.set_title("recorded: out = inputs @ weight", fontsize=10, color=ink())
    _box(left, (1.5, 3.0), "out")
    saved = tuple(out.grad_fn._saved_self.shape)
    _box(left, (1.5, 1.75), f"{_node_name(out)}\nsaved: {saved}", width=2.6, height=0.8)
    _arrow(left, (1.5, 2.69), (1.5, 2.15), "C0")
    leaf, missing = _leaf_of(out.grad_fn)
    assert leaf is not None and leaf.variable is weight and missing is not None
    _box(left, (1.5, 0.4), f"{leaf.name().split('::')[-1]}\nweight.grad")
    _arrow(left, (1.5, 1.35), (1.5, 0.71), "C0")
    left.text(1.5, -0.45, "inputs: no node (None)", ha="center", fontsize=9, color=ink("muted"))

    # 2. inside no_grad: no node at all, nothing saved
    middle = axes[1]
    middle.set_title("inside torch.no_grad()", fontsize=10, color=ink())
    _box(middle, (1.5, 3.0), "out_no_grad")
    middle.text(
        1.5,
        1.75,
        f"{_node_name(out_no_grad)}\nno node, nothing saved",
        ha="center",
        va="center",
        fontsize=9.5,
        color=ink("muted"),
        family="monospace",
    )

    # 3. detach: the way back into out's graph is cut, the way to weight stays
    right = axes[2]
    right.set_title("reused = detached @ weight", fontsize=10, color=ink())
    _box(right, (1.5, 3.0), "reused")
    _box(right, (1.5, 1.75), _node_name(reused), width=2.0)
    _arrow(right, (1.5, 2.69), (1.5, 2.06), "C0")
    leaf, missing = _leaf_of(reused.grad_fn)
    assert leaf is not None and leaf.variable is weight and missing is not None
    _box(right, (2.3, 0.4), f"{leaf.name().split('::')[-1]}\nweight.grad", width=1.55)
    _arrow(right, (1.8, 1.44), (2.2, 0.71), "C0")
    # next_functions holds None where detached would link: no way back through it
    _box(right, (0.55, 0.4), f"detached\n{_node_name(detached)}", width=1.35, faded=True)
    _arrow(right, (1.2, 1.44), (0.7, 0.71), ink("muted"), dashed=True)
    right.text(0.8, 1.15, "None", ha="right", va="center", fontsize=9, color=ink("muted"))
    # and detached itself has no history: out's graph is cut off
    _box(right, (0.55, -0.6), f"out's {_node_name(out)}", width=1.85, faded=True, dashed=True)
    right.plot([0.55, 0.55], [0.09, -0.29], color="C3", lw=1.4, ls="--")
    right.text(0.55, -0.1, "\u2715", ha="center", va="center", fontsize=15, color="C3")
    right.text(0.75, -0.1, "cut by .detach()", ha="left", va="center", fontsize=9, color="C3")
    return fig


FIGURES = {"cuts": cuts}

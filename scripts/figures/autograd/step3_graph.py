"""Step 3: the graph autograd recorded for the snippet's loss, drawn from the run.

`observe()` watches the snippet while it runs: every operation whose result has a
`grad_fn` is noted (the node, its forward value, the tensors it saved), and hooks on
each node record the gradients that pass through it during the snippet's own
`loss.backward()`. The hooks only read; they return None, so results are unchanged.
The figures then walk `loss.grad_fn` and its `next_functions`, as the snippet does.
"""

import functools

import matplotlib.pyplot as plt
import torch
from torch.overrides import TorchFunctionMode

from docpipe.run.figures import ink, node_box, number

FORWARD = {}  # node -> the value of the tensor it made
SAVED = {}  # node -> {attribute: tensor} saved for backward, read at creation
GRAD_OUT = {}  # node -> dL/d(its output), as it arrived in backward
GRAD_IN = {}  # node -> dL/d(each input), as it left


def _watch(node):
    if node in GRAD_OUT or node in _HOOKED:
        return
    _HOOKED.add(node)

    def before(grad_outputs):
        GRAD_OUT[node] = grad_outputs[0].detach().clone()

    node.register_prehook(before)
    if type(node).__name__ != "AccumulateGrad":

        def after(grad_inputs, grad_outputs):
            GRAD_IN[node] = [None if g is None else g.detach().clone() for g in grad_inputs]

        node.register_hook(after)


_HOOKED = set()


class _Recorder(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        node = getattr(out, "grad_fn", None) if torch.is_tensor(out) else None
        if node is not None and node not in FORWARD:
            FORWARD[node] = out.detach().clone()
            SAVED[node] = {
                name[len("_saved_") :]: getattr(node, name)
                for name in dir(node)
                if name.startswith("_saved_") and torch.is_tensor(getattr(node, name))
            }
            _watch(node)
            for parent, _ in node.next_functions:
                if parent is not None:
                    _watch(parent)
        return out


def observe():
    return _Recorder()


# ----------------------------------------------------------------------------
# Layout: columns by distance from the loss (forward runs left to right).


def _nodes(root):
    """Every node reachable from root, with its longest distance from root."""
    depth, order, edges = {root: 0}, [root], []
    stack = [root]
    while stack:
        node = stack.pop(0)
        for parent, _ in node.next_functions:
            if parent is None:
                continue
            if (parent, node) not in edges:
                edges.append((parent, node))
            if parent not in depth:
                order.append(parent)
            if depth.get(parent, -1) < depth[node] + 1:
                depth[parent] = depth[node] + 1
                stack.append(parent)
    return order, depth, edges


def _layout(root):
    order, depth, edges = _nodes(root)
    deepest = max(depth.values())
    rows = {}
    pos = {}
    for node in order:
        col = deepest - depth[node]
        pos[node] = (col, rows.get(col, 0))  # extra rows go above
        rows[col] = rows.get(col, 0) + 1
    return order, pos, edges


def _name_in(ns, tensor):
    for key, value in ns.items():
        if value is tensor and not key.startswith("_"):
            return key
    return None


# a node of the graph: one line of text, monospace, in a box 1.18 by 0.36 unless a call says
_box = functools.partial(node_box, width=1.18, height=0.36, fontsize=10.5, family="monospace")


def _arrow(ax, start, end, color, shrink=0.62, lw=1.4, offset=0.0):
    (x0, y0), (x1, y1) = start, end
    ax.annotate(
        "",
        xy=(x1 - shrink if x1 > x0 else x1 + shrink, y1 + offset),
        xytext=(x0 + shrink if x1 > x0 else x0 - shrink, y0 + offset),
        arrowprops={
            "arrowstyle": "-|>",
            "color": color,
            "lw": lw,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )


def _made_name(ns, node):
    """The snippet's name for a node's result, or its operands ("w·x")."""
    for key, value in ns.items():
        if torch.is_tensor(value) and value.grad_fn is node:
            return key
    operands = [
        _name_in(ns, parent.variable)
        for parent, _ in node.next_functions
        if type(parent).__name__ == "AccumulateGrad"
    ]
    operands += [_name_in(ns, tensor) for tensor in SAVED[node].values()]
    if type(node).__name__ == "MulBackward0" and all(operands):
        return "·".join(operands)
    return "out"


def _label(ns, node):
    """Box text, forward value text and gradient text for one node."""
    kind = type(node).__name__
    if kind == "AccumulateGrad":
        leaf = _name_in(ns, node.variable)
        return (
            "AccumulateGrad",
            f"{leaf} = {number(node.variable)}",
            f"{leaf}.grad = {number(node.variable.grad)}",
        )
    made = _made_name(ns, node)
    value = f"{made} = {number(FORWARD[node])}"
    wrt = f"({made})" if "·" in made else made
    grad = f"∂L/∂{wrt} = {number(GRAD_OUT[node])}"
    if node is ns["loss"].grad_fn:
        grad = f"∂L/∂L = {number(GRAD_OUT[node])}"
    return kind, value, grad


def graph(ns):
    root = ns["loss"].grad_fn
    order, pos, edges = _layout(root)
    fig, ax = plt.subplots(figsize=(7.6, 3.3), layout="constrained")
    ax.set_axis_off()
    gap, width, height = 1.5, 1.3, 0.62
    place = {n: (c * gap, r * 1.35) for n, (c, r) in pos.items()}
    for node in order:
        box, value, grad = _label(ns, node)
        x, y = place[node]
        _box(ax, (x, y + 0.1), "", width=width, height=height)
        ax.text(
            x, y + 0.2, box, ha="center", va="center", fontsize=10.5,
            family="monospace", color=ink(),
        )  # fmt: skip
        ax.text(
            x, y - 0.06, value, ha="center", va="center", color="C0",
            fontsize=11.5,
        )  # fmt: skip
        ax.text(x, y - 0.3, grad, ha="center", va="top", color="C1", fontsize=11)
    for parent, child in edges:
        (x0, y0), (x1, y1) = place[parent], place[child]
        if y0 == y1:
            tail, tip = (x0 + width / 2, y0 + 0.1), (x1 - width / 2, y1 + 0.1)
        else:  # a leaf joining from the row above
            tail = (x0 + width / 2, y0 + 0.1)
            tip = (x1 - width / 4, y1 + 0.1 + height / 2)
        ax.annotate(
            "",
            xy=tip,
            xytext=tail,
            arrowprops={"arrowstyle": "-|>", "color": ink("muted"), "lw": 1.4},
        )
    xs = [p[0] for p in place.values()]
    ys = [p[1] for p in place.values()]
    ax.set_xlim(min(xs) - width / 2 - 0.05, max(xs) + width / 2 + 0.05)
    ax.set_ylim(min(ys) - 0.65, max(ys) + 0.5)
    return fig


def explainer(ns):
    root = ns["loss"].grad_fn
    order, pos, edges = _layout(root)
    fig, axes = plt.subplots(3, 1, figsize=(7.6, 6.6), layout="constrained")
    gap, width, height = 1.5, 1.22, 0.36
    place = {n: (c * gap, r * 0.95) for n, (c, r) in pos.items()}
    xs = [p[0] for p in place.values()]
    ys = [p[1] for p in place.values()]
    titles = [
        "1  Forward: each operation records a node and saves what it needs",
        "2  Backward: start from ∂L/∂L = 1, multiply by local derivatives",
        "3  After backward(): .grad on the leaves, saved values freed",
    ]
    freed = _freed(root)
    colors = ["C0", "C1", "C2"]
    for panel, (ax, title) in enumerate(zip(axes, titles, strict=True)):
        ax.set_axis_off()
        ax.set_title(title, loc="left", fontsize=12, color=ink())
        ax.set_xlim(min(xs) - width / 2 - 0.05, max(xs) + width / 2 + 0.05)
        ax.set_ylim(min(ys) - 0.62, max(ys) + 0.3)
        for node in order:
            leaf = type(node).__name__ == "AccumulateGrad"
            text = type(node).__name__
            if leaf:
                text = f"{_name_in(ns, node.variable)} (leaf)"
            faded = panel == 2 and not leaf
            _box(
                ax, place[node], text, width=width, height=height,
                dashed=faded, faded=faded,
            )  # fmt: skip
            x, y = place[node]
            color = colors[panel] if leaf or panel < 2 else ink("muted")
            ax.text(
                x, y - 0.24, _note(ns, node, panel, freed), ha="center",
                va="top", fontsize=10.5, color=color,
            )  # fmt: skip
        if panel == 2:
            continue
        for parent, child in edges:
            (x0, y0), (x1, y1) = place[parent], place[child]
            if y0 == y1:
                tail, tip = (x0 + width / 2, y0), (x1 - width / 2, y1)
                middle = ((x0 + x1) / 2, y0 + 0.32)
            else:  # a leaf joining from the row above
                tail = (x0 + width / 2, y0)
                tip = (x1 - width / 4, y1 + height / 2)
                middle = ((tail[0] + tip[0]) / 2 + 0.08, (y0 + y1) / 2)
            if panel == 1:
                tail, tip = tip, tail
            ax.annotate(
                "",
                xy=tip,
                xytext=tail,
                arrowprops={
                    "arrowstyle": "-|>", "color": colors[panel], "lw": 1.4,
                    "shrinkA": 0, "shrinkB": 0,
                },
            )  # fmt: skip
            if panel == 1:
                ax.text(
                    *middle, f"×{_factor(parent, child)}", ha="left"
                    if y0 != y1 else "center", va="center", fontsize=10.5,
                    color="C1",
                )  # fmt: skip
    axes[2].text(
        max(xs) + width / 2,
        max(ys),
        "the next forward pass\nrecords a new graph",
        ha="right",
        va="center",
        fontsize=10.5,
        color=ink("muted"),
    )
    return fig


def _factor(parent, child):
    """Local derivative d(child's output)/d(parent's output), read from hooks."""
    index = [p for p, _ in child.next_functions].index(parent)
    ratio = (GRAD_IN[child][index] / GRAD_OUT[child]).item()
    text = f"{ratio:g}".replace("-", "−")
    return f"({text})" if ratio < 0 else text


def _note(ns, node, panel, freed):
    kind = type(node).__name__
    if kind == "AccumulateGrad":
        name = _name_in(ns, node.variable)
        if panel == 0:
            return f"{name} = {number(node.variable)}"
        if panel == 1:
            return f"receives {number(GRAD_OUT[node])}"
        return f"{name}.grad += {number(GRAD_OUT[node])}\n→ {number(node.variable.grad)}"
    if panel == 0:
        saved = SAVED[node]
        if not saved:
            return "saves no tensor"
        parts = []
        for tensor in saved.values():
            label = _name_in(ns, tensor) or "a tensor"
            parts.append(f"saves {label} = {number(tensor)}")
        return "\n".join(parts)
    if panel == 1:
        return f"gets {number(GRAD_OUT[node])}"
    return "saved values freed" if node in freed else "nothing saved"


def _freed(root):
    """Nodes whose saved tensors are gone after backward (access raises)."""
    gone = set()
    order, _, _ = _nodes(root)
    for node in order:
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    getattr(node, name)
                except RuntimeError:
                    gone.add(node)
    return gone


FIGURES = {"graph": graph, "explainer": explainer}

# Backward twice through one graph: freed saved values, and retain_graph.
# --8<-- [start:twice]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3  # the power node saves x for its backward
y.backward()
print("first backward:  x.grad =", x.grad.item())

try:
    y.backward()  # the saved x was freed by the first call
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:twice]


# --8<-- [start:saved_nothing]
def walk_twice(make):
    """Build a graph from a fresh leaf, then call backward() on it twice."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = make(w)
    out.backward()
    try:
        out.backward()  # no retain_graph
    except RuntimeError:
        return "raised", None
    return "ran", w.grad.tolist()


graphs = {  # what each graph's nodes saved for their backward
    "w.sum()": lambda w: w.sum(),  # Sum: nothing
    "(w + 1).sum()": lambda w: (w + 1).sum(),  # Add, Sum: nothing
    "(w * w).sum()": lambda w: (w * w).sum(),  # Mul: both factors
    "(w ** 2).sum()": lambda w: (w**2).sum(),  # Pow: w
}
outcomes = {}
for code, make in graphs.items():
    outcomes[code] = walk_twice(make)
    result, grad = outcomes[code]
    after = f", w.grad = {grad}" if grad else ""
    print(f"{code:<15} second backward {result}{after}")
# --8<-- [end:saved_nothing]

# --8<-- [start:claim-saved-nothing]
# graphs whose nodes saved no tensor can be walked again; each walk adds
for case in ("w.sum()", "(w + 1).sum()"):
    assert outcomes[case] == ("ran", [2.0, 2.0, 2.0])
# graphs with a node that saved a tensor raise
for case in ("(w * w).sum()", "(w ** 2).sum()"):
    assert outcomes[case] == ("raised", None)


def saved_tensors(root):
    """The names of the tensors the nodes of a graph saved for backward."""
    found, todo, seen = [], [root], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                value = getattr(node, name)
                values = value if isinstance(value, (tuple, list)) else [value]
                if any(isinstance(v, torch.Tensor) for v in values):
                    found.append(f"{type(node).__name__}.{name}")
        todo.extend(n for n, _ in node.next_functions)
    return found


# over more operations: a second walk raises exactly when a node saved a tensor
more = {
    **graphs,
    "w.mean()": lambda w: w.mean(),
    "(-w).sum()": lambda w: (-w).sum(),
    "(w - 3).sum()": lambda w: (w - 3).sum(),
    "w[0]": lambda w: w[0],
    "w.view(3, 1).sum()": lambda w: w.view(3, 1).sum(),
    "torch.cat([w, w]).sum()": lambda w: torch.cat([w, w]).sum(),
    "(w * 2).sum()": lambda w: (w * 2).sum(),
    "(w / 2).sum()": lambda w: (w / 2).sum(),
    "w.exp().sum()": lambda w: w.exp().sum(),
    "w.relu().sum()": lambda w: w.relu().sum(),
    "w.sin().sum()": lambda w: w.sin().sum(),
    "w @ w": lambda w: w @ w,
}
kinds = set()
for case, build in more.items():
    saved = saved_tensors(build(torch.ones(3, requires_grad=True)).grad_fn)
    outcome, _grad = walk_twice(build)
    assert (outcome == "raised") == bool(saved), case
    kinds.add(bool(saved))
assert kinds == {True, False}  # both kinds were tried
# --8<-- [end:claim-saved-nothing]

# --8<-- [start:retain]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.backward(retain_graph=True)  # keep the saved values for another pass
first = x.grad.item()
print("first backward:  x.grad =", first)
y.backward()  # works, and adds into .grad again
print("second backward: x.grad =", x.grad.item())
# --8<-- [end:retain]

# --8<-- [start:claim-retain-adds]
assert x.grad.item() == 2 * first  # the second pass added the same again
# --8<-- [end:claim-retain-adds]

# --8<-- [start:claim-retain-graph]
# for graphs whose nodes saved values, with each spelling of a backward pass:
# a second pass raises by default, since the first freed the saved values;
# retain_graph=True on the first call keeps them and the second pass runs;
# retain_graph=True on the second call only comes too late. autograd.grad's
# retain_graph defaults to create_graph, so create_graph=True keeps them too
FREED = "backward through the graph a second time"


def pass_with(spelling, root, leaf, **options):
    """One backward pass over root, spelled one way; the gradient of leaf."""
    if spelling == "root.backward()":
        leaf.grad = None
        root.backward(**options)
        return leaf.grad
    if spelling == "torch.autograd.backward(root)":
        leaf.grad = None
        torch.autograd.backward(root, **options)
        return leaf.grad
    return torch.autograd.grad(root, leaf, **options)[0]


def second_pass_error(spelling, build, first, second):
    """The error text of a second pass, or None; the two gradients."""
    leaf = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    root = build(leaf)
    grads = [pass_with(spelling, root, leaf, **first)]
    try:
        grads.append(pass_with(spelling, root, leaf, **second))
    except RuntimeError as error:
        return str(error), grads
    return None, grads


saving = {  # each graph has a node that saved a tensor
    "(w ** 3).sum()": lambda w: (w**3).sum(),
    "(w * w).sum()": lambda w: (w * w).sum(),
    "w.sin().sum()": lambda w: w.sin().sum(),
    "w.exp().sum()": lambda w: w.exp().sum(),
    "w.sigmoid().sum()": lambda w: w.sigmoid().sum(),
}
spellings = (
    "root.backward()",
    "torch.autograd.backward(root)",
    "torch.autograd.grad(root, w)",
)
for spelling in spellings:
    for code, build in saving.items():
        error, _ = second_pass_error(spelling, build, {}, {})
        assert error is not None and FREED in error, (spelling, code)
        late = {"retain_graph": True}
        error, _ = second_pass_error(spelling, build, {}, late)
        assert error is not None and FREED in error, (spelling, code)
        error, grads = second_pass_error(spelling, build, late, {})
        assert error is None, (spelling, code)
        assert torch.equal(grads[0], grads[1]), (spelling, code)
        if spelling == "torch.autograd.grad(root, w)":
            kept = {"create_graph": True}
            error, _ = second_pass_error(spelling, build, kept, {})
            assert error is None, code
            dropped = {"create_graph": True, "retain_graph": False}
            error, _ = second_pass_error(spelling, build, dropped, {})
            assert error is not None and FREED in error, code
# graphs whose nodes saved nothing never raise, whatever the spelling
for spelling in spellings:
    for code in ("w.sum()", "(w + 1).sum()"):
        error, grads = second_pass_error(spelling, graphs[code], {}, {})
        assert error is None and torch.equal(grads[0], grads[1]), code
# --8<-- [end:claim-retain-graph]


# --8<-- [start:claim-carried-over]
# a second backward() that reaches a part of a graph an earlier backward()
# walked raises; each pattern with its fix, which does not
SECOND_TIME = "backward through the graph a second time"


def backward_error(pattern, fixed):
    """The RuntimeError's text for a few steps of a pattern, or None."""
    w = torch.tensor(0.5, requires_grad=True)
    carried = torch.tensor(0.0)
    try:
        for _ in range(2):
            if pattern == "two losses":  # sharing h, each its own backward
                h = torch.tanh(w * 3.0)
                loss_a, loss_b = (h**2).sum(), (h - 1).abs().sum()
                if fixed:
                    (loss_a + loss_b).backward()
                else:
                    loss_a.backward()
                    loss_b.backward()
            elif pattern == "hidden state":  # as in a recurrent network
                carried = torch.tanh(w * carried + 1.0)
                (carried**2).backward()
                carried = carried.detach() if fixed else carried
            else:  # "a total backpropagated", each step
                carried = carried + (w * 3.0 - 1.0) ** 2
                carried.backward()
                carried = carried.item() if fixed else carried
    except RuntimeError as error:
        return str(error)
    return None


for pattern in ("two losses", "hidden state", "a total backpropagated"):
    message = backward_error(pattern, fixed=False)
    assert message is not None and SECOND_TIME in message, pattern
    assert backward_error(pattern, fixed=True) is None, pattern


# the usual running total, total += loss after loss.backward(): no error,
# but the total keeps a reference to every step's graph; loss.item() keeps
# none
def graph_nodes(root):
    """The nodes reachable from root."""
    found, todo = set(), [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.add(node)
            todo.extend(n for n, _ in node.next_functions)
    return found


def add_new(running, step_loss):
    return running + step_loss


def add_in_place(running, step_loss):
    running += step_loss  # the page's spelling: in place once a tensor
    return running


for steps in (1, 3, 10):
    for add in (add_new, add_in_place):
        weight_t = torch.tensor(0.5, requires_grad=True)
        total, total_item = 0.0, 0.0
        for _ in range(steps):
            step_loss = (weight_t * 3.0 - 1.0) ** 2
            step_loss.backward()  # raises nothing: no backward walks total
            total = add(total, step_loss)
            total_item += step_loss.item()
        kinds = [type(n).__name__ for n in graph_nodes(total.grad_fn)]
        assert kinds.count("PowBackward0") == steps  # one graph per step
        assert isinstance(total_item, float)  # a plain number holds none
        assert abs(total.item() - total_item) < 1e-6
# --8<-- [end:claim-carried-over]

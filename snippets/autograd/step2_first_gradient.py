# A first gradient: y = x**2 + 2x at x = 3.
# --8<-- [start:forward]
import torch

x = torch.tensor(3.0, requires_grad=True)  # record every operation on x
y = x**2 + 2 * x
print(y)
# --8<-- [end:forward]

# --8<-- [start:backward]
y.backward()  # compute dy/dx and store it in x.grad
print(x.grad)
print("x is a leaf:", x.is_leaf, "   y is a leaf:", y.is_leaf)
# --8<-- [end:backward]

# --8<-- [start:claim-plain-leaf]
# tensors that need no gradient, made in several ways: each is a leaf, and
# a backward() through a product with it stores nothing in its .grad
plain = (
    torch.tensor(2.0),  # made by you, without requires_grad
    torch.zeros(3),
    torch.arange(3),  # integers
    torch.ones(2, 2) * 5,  # computed, but from tensors that need no gradient
    torch.randn(3, requires_grad=True).detach(),
)
for c in plain:
    assert c.is_leaf and not c.requires_grad
    k = torch.tensor(1.0, requires_grad=True)
    (c * k).sum().backward()
    assert c.grad is None  # a leaf that needs no gradient is given none
    assert k.grad is not None  # while the one that needs it got its gradient
# --8<-- [end:claim-plain-leaf]

# --8<-- [start:claim-result-node]
# while recording is on, every result of an operation on a tensor that
# requires a gradient has a grad_fn linked to the nodes of its inputs
a = torch.tensor([1.0, 2.0], requires_grad=True)
h = a * 2  # a result, not a leaf
operations = {
    "add": lambda t: t + a,
    "sub": lambda t: t - 1,
    "mul": lambda t: t * a,
    "div": lambda t: t / 3,
    "pow": lambda t: t**2,
    "sin": torch.sin,
    "exp": torch.exp,
    "sum": torch.sum,
    "matmul": lambda t: t @ a,
}

leaf_node = h.grad_fn.next_functions[0][0]  # the node of the leaf a
assert leaf_node.variable is a
for name, op in operations.items():
    for t, node in ((a, leaf_node), (h, h.grad_fn)):
        result = op(t)
        assert result.grad_fn is not None, name
        assert node in [n for n, _ in result.grad_fn.next_functions], name
        with torch.no_grad():  # recording off: no node
            assert op(t).grad_fn is None, name
# --8<-- [end:claim-result-node]

# --8<-- [start:claim-weights-are-leaves]
# what model.parameters() returns are nn.Parameter leaves that require a
# gradient, for several kinds of model, and that is why backward() stores
# their gradients in their .grad
import warnings  # noqa: E402  (a claim section, left out of the page)

from torch.nn.utils import parametrizations  # noqa: E402

features = torch.randn(4, 2)
layer = torch.nn.Linear(2, 3)
models = {
    "Linear": layer,
    "layers in a row": torch.nn.Sequential(
        torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)
    ),
    "Bilinear": torch.nn.Bilinear(2, 2, 3),
    "weight_norm": parametrizations.weight_norm(torch.nn.Linear(2, 3)),
    "spectral_norm": parametrizations.spectral_norm(torch.nn.Linear(2, 3)),
}
for name, model in models.items():
    parameters = list(model.parameters())
    assert len(parameters) > 0, name
    for p in parameters:
        assert isinstance(p, torch.nn.Parameter), name
        assert p.is_leaf and p.requires_grad and p.grad_fn is None, name
    output = (
        model(features, features) if name == "Bilinear" else model(features)
    )
    output.pow(2).mean().backward()
    for p in parameters:
        assert p.grad is not None and p.grad.shape == p.shape, name
# with a parametrization, the layer's .weight is computed from its
# parameters on each use: it is not a leaf, and not one of the parameters
for name in ("weight_norm", "spectral_norm"):
    weight = models[name].weight
    assert not weight.is_leaf and weight.grad_fn is not None, name
    assert all(weight is not p for p in models[name].parameters()), name
# a weight made by an operation is not a leaf: backward() passes through it
# and stores nothing in its .grad (reading it warns, and gives None)
for make in (lambda t: t * 1, lambda t: t.clone(), lambda t: t + 0):
    base_weight = torch.randn(3, 2, requires_grad=True)
    made_weight = make(base_weight)
    (features @ made_weight.T).pow(2).mean().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        made_grad = made_weight.grad
    assert not made_weight.is_leaf and made_grad is None
    assert base_weight.grad is not None  # the leaf behind it got it
# --8<-- [end:claim-weights-are-leaves]

# --8<-- [start:claim-reach]
# from a result, a walk along next_functions reaches the leaf of every input
# that requires a gradient, and no node at all for one that needs none


def leaves_reached(node):
    """The tensors whose AccumulateGrad nodes a walk from node arrives at."""
    found, todo, seen = [], [node], set()
    while todo:
        current = todo.pop()
        if current is None or current in seen:
            continue
        seen.add(current)
        if type(current).__name__ == "AccumulateGrad":
            found.append(current.variable)
        todo.extend(n for n, _ in current.next_functions)
    return found


tracked = torch.tensor(3.0, requires_grad=True)
other = torch.tensor(-1.0, requires_grad=True)
constant = torch.tensor(2.0)  # needs no gradient
cases = (  # a result, and the inputs it used that require a gradient
    (tracked**2 + constant * tracked, [tracked]),
    (torch.sin(tracked * constant) * other, [tracked, other]),
    ((tracked + other) / constant, [tracked, other]),
    (other.exp() - constant, [other]),
)
for result, wanted in cases:
    reached = leaves_reached(result.grad_fn)
    assert {id(t) for t in reached} == {id(t) for t in wanted}
    assert not any(r is constant for r in reached)
# --8<-- [end:claim-reach]

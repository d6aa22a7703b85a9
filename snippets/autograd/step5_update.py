# The update step: refused outside no_grad, done inside it.
# --8<-- [start:update]
import torch

w = torch.tensor(3.0, requires_grad=True)
loss = (2 * w - 1) ** 2
loss.backward()  # fills w.grad
lr = 0.1
try:
    w -= lr * w.grad  # outside no_grad: refused
except RuntimeError as error:
    print("RuntimeError:", error)

with torch.no_grad():
    w -= lr * w.grad  # inside no_grad: done, and not recorded
print(f"w = {w.item():g}   is a leaf: {w.is_leaf}   grad_fn: {w.grad_fn}")
# --8<-- [end:update]

# --8<-- [start:claim-inplace-leaf-raises]
import inspect  # noqa: E402  (a claim section, left out of the page)

assert w.is_leaf and w.grad_fn is None  # the update under no_grad left a leaf


def fresh_leaf():
    """A leaf that requires a gradient and has one, like w above."""
    leaf = torch.tensor([3.0], requires_grad=True)
    ((2 * leaf - 1) ** 2).sum().backward()
    return leaf


def refusal(change, leaf):
    """PyTorch's error message if it refuses the change, else ''."""
    try:
        change(leaf)
    except RuntimeError as caught:
        return str(caught)
    return ""


def subtract_in_place(t):
    t -= lr * t.grad  # the operator spelling, as the page writes it


def assign_part(t):
    t[0] = 0.0  # an assignment to a part of the leaf


changes = (
    subtract_in_place,
    assign_part,
    lambda t: t.sub_(lr * t.grad),  # what w -= lr * w.grad calls
    lambda t: t[0].add_(1),  # an in-place method on a part of the leaf
    lambda t: torch.nn.functional.relu(t, inplace=True),
    lambda t: t.sub_(1),
    lambda t: t.add_(1),
    lambda t: t.mul_(2),
    lambda t: t.zero_(),
    lambda t: t.copy_(torch.tensor(0.0)),
    lambda t: t.clamp_(min=0),
    lambda t: t.uniform_(),
    lambda t: t.normal_(),
    lambda t: t.fill_(0),
    lambda t: t.set_(torch.zeros(1)),  # new memory for the leaf
)
modes_off = (
    torch.no_grad,
    lambda: torch.set_grad_enabled(False),
    torch.inference_mode,
)
for change in changes:
    # grad mode on: refused, and the leaf keeps its value
    leaf = fresh_leaf()
    message = refusal(change, leaf)
    # "a leaf Variable ...", or "a view of a leaf Variable ..." for a part
    assert "leaf Variable that requires grad is being used in an in-place" in (
        message
    )
    assert leaf.item() == 3.0
    # grad mode off, by any of its switches: done, and still a leaf
    for mode_off in modes_off:
        leaf = fresh_leaf()
        with mode_off():
            message = refusal(change, leaf)
        assert message == "" and leaf.is_leaf and leaf.grad_fn is None
assert torch.is_grad_enabled()
# the out= spelling is refused too, with a message of its own
leaf = fresh_leaf()
assert "out=... arguments don't support automatic differentiation" in refusal(
    lambda t: torch.sub(t, 1, out=t), leaf
)
assert leaf.item() == 3.0
# torch.nn.init's functions switch grad mode off themselves: with grad mode
# on, each of them changes a layer's weight, a leaf, all the same
initializers = [
    function
    for name, function in inspect.getmembers(torch.nn.init, inspect.isfunction)
    if name.endswith("_") and not name.startswith("_")
]
assert len(initializers) > 10 and torch.nn.init.zeros_ in initializers
for initializer in initializers:
    shape = (4, 4, 3)  # dirac_ fills 3-D to 5-D weights
    extra = ()
    if initializer in (torch.nn.init.eye_, torch.nn.init.sparse_):
        shape = (4, 4)  # they fill a matrix only
    if initializer in (torch.nn.init.constant_, torch.nn.init.sparse_):
        extra = (0.5,)  # the value, or the share of zeros
    weight = torch.nn.Parameter(torch.full(shape, 3.0))  # a leaf
    assert refusal(lambda t, f=initializer, a=extra: f(t, *a), weight) == ""
    assert not bool((weight == 3.0).all()), initializer  # changed
    assert weight.is_leaf and weight.grad_fn is None, initializer
assert torch.is_grad_enabled()
# --8<-- [end:claim-inplace-leaf-raises]


# --8<-- [start:claim-alias-not-refused]
# the refusal looks at the leaf and its parts only: the same in-place
# changes made through a tensor that shares its memory, .data or .detach(),
# go through with grad mode on, and the leaf stays a leaf
def through(alias, change):
    """Make change through alias(leaf): (error text or '', leaf after)."""
    leaf = fresh_leaf()
    step = lr * leaf.grad
    shared = alias(leaf)
    assert shared.data_ptr() == leaf.data_ptr()  # the same memory
    return refusal(lambda t: change(t, step), shared), leaf


def subtract_through(t, step):
    t -= step


def assign_through(t, step):
    t[0] = 0.0


alias_changes = (
    subtract_through,
    assign_through,
    lambda t, step: t.sub_(step),
    lambda t, step: t[0].add_(1),
    lambda t, step: t.mul_(2),
    lambda t, step: t.zero_(),
    lambda t, step: t.fill_(0),
    lambda t, step: torch.nn.functional.relu(t.neg_(), inplace=True),
)
for alias in (lambda t: t.data, lambda t: t.detach()):
    for change in alias_changes:
        message, leaf = through(alias, change)
        assert message == ""
        assert leaf.item() != 3.0  # the leaf's value changed
        assert leaf.is_leaf and leaf.grad_fn is None and leaf.requires_grad
assert torch.is_grad_enabled()
# --8<-- [end:claim-alias-not-refused]

# --8<-- [start:claim-update-keeps-leaf]
# the update under no_grad changed w's number and left it a leaf that
# requires a gradient, with no grad_fn
assert w.item() != 3.0
assert w.is_leaf and w.grad_fn is None and w.requires_grad
# --8<-- [end:claim-update-keeps-leaf]

# --8<-- [start:claim-optimizers-keep-leaves]
import inspect  # noqa: E402  (a claim section, left out of the page)


def step_once(cls):
    """One step() of optimizer class cls, default settings, outside no_grad."""
    p = torch.ones(2, 2, requires_grad=True)  # a leaf, as a weight is
    optimizer = cls([p])
    gradient = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    sparse = cls is torch.optim.SparseAdam  # it takes sparse gradients only

    def closure():  # LBFGS asks for the loss again; the others ignore it
        p.grad = gradient.to_sparse() if sparse else gradient.clone()
        return (p * gradient).sum()

    optimizer.step(closure)  # step() switches recording off itself
    return p


optimizers = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
assert len(optimizers) > 10 and torch.optim.SGD in optimizers
for cls in optimizers:  # every optimizer in torch.optim
    p = step_once(cls)
    assert not torch.equal(p.detach(), torch.ones(2, 2)), cls  # p moved
    assert p.is_leaf and p.grad_fn is None and p.requires_grad, cls
# --8<-- [end:claim-optimizers-keep-leaves]

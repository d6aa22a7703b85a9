# Only leaf tensors keep their gradient, unless you ask for more.
# --8<-- [start:leaf_only]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
z = 5 * y

grad_y_hand = 5.0  # by hand: z = 5y, so dz/dy = 5
grad_x_hand = 15 * x.item() ** 2  # and dz/dx = 5 * 3x**2 = 15x**2
print(f"by hand:  dz/dy = {grad_y_hand:g}   dz/dx = {grad_x_hand:g}")

z.backward()
print("autograd: x.grad =", x.grad)
# --8<-- [end:leaf_only]

# --8<-- [start:non_leaf]
y_grad = y.grad  # y is not a leaf: PyTorch warns
# --8<-- [end:non_leaf]

# --8<-- [start:non_leaf_value]
print("y.grad without retain_grad():", y_grad)
# --8<-- [end:non_leaf_value]

# --8<-- [start:retain]

x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.retain_grad()  # ask autograd to keep this intermediate's gradient
z = 5 * y
z.backward()
print("y.grad with retain_grad():   ", y.grad)
print("x.grad, as before:           ", x.grad)
# --8<-- [end:retain]

# --8<-- [start:claim-only-leaves-keep-grad]
import warnings  # noqa: E402  (a claim section, left out of the page)

assert y_grad is None  # without retain_grad(), the intermediate kept nothing
assert x.is_leaf and x.grad is not None  # the leaf kept its gradient
# a longer chain: a gradient arrives at every intermediate during backward()
# (a hook sees it), but only the leaf stores one
leaf = torch.tensor(0.5, requires_grad=True)
chain = [leaf]
for op in (torch.sin, lambda t: t**3, torch.exp, lambda t: 5 * t):
    chain.append(op(chain[-1]))
arrived = []
for t in chain[1:-1]:
    t.register_hook(lambda g, t=t: arrived.append(t))
chain[-1].backward()
assert leaf.grad is not None
with warnings.catch_warnings():  # reading a non-leaf's .grad warns
    warnings.simplefilter("ignore")
    for t in chain[1:]:
        assert not t.is_leaf and t.grad is None
assert all(any(t is a for a in arrived) for t in chain[1:-1])
# --8<-- [end:claim-only-leaves-keep-grad]

# --8<-- [start:claim-optimizer-reads-parameters]
import inspect  # noqa: E402  (a claim section, left out of the page)

scale = torch.tensor([[1.0, -2.0], [0.5, 3.0]])


def first_step(cls, retain):
    """The first step of optimizer class cls, with or without an intermediate's
    gradient kept by retain_grad()."""
    p = torch.ones(2, 2, requires_grad=True)
    takes_lr = "lr" in inspect.signature(cls).parameters
    optimizer = cls([p], lr=0.1) if takes_lr else cls([p])
    # the optimizer holds the parameter it was given, and nothing else
    held = [q for group in optimizer.param_groups for q in group["params"]]
    assert len(held) == 1 and held[0] is p

    def closure():
        optimizer.zero_grad()
        intermediate = p * scale
        if retain:
            intermediate.retain_grad()
        loss = (intermediate**2).sum()
        loss.backward()
        if cls is torch.optim.SparseAdam:  # it takes sparse gradients only
            p.grad = p.grad.to_sparse()
        return loss

    optimizer.step(closure)
    return p.detach().clone()


classes = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
assert len(classes) > 10
# every optimizer in torch.optim takes the same step whether the intermediate
# kept its gradient or not: it reads only the parameters' gradients
for cls in classes:
    assert torch.equal(first_step(cls, True), first_step(cls, False)), cls
# --8<-- [end:claim-optimizer-reads-parameters]

# --8<-- [start:claim-agrees]
assert y.grad.item() == grad_y_hand  # retained: the dz/dy worked out by hand
assert x.grad.item() == grad_x_hand
# --8<-- [end:claim-agrees]

# --8<-- [start:claim-hook-sees-and-changes]
# a hook on an intermediate result sees the gradient arriving there, and
# that gradient is not stored; a hook that returns another tensor changes
# the gradient passed on behind it, here for several starting points
import warnings  # noqa: E402  (a claim section, left out of the page)

for at in (2.0, -1.0, 0.5):
    # a hook that only looks
    base = torch.tensor(at, requires_grad=True)
    cubed = base**3
    looked = []
    cubed.register_hook(lambda g, looked=looked: looked.append(g.item()))
    (5 * cubed).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # .grad of a non-leaf
        stored = cubed.grad
    assert looked == [5.0] and stored is None
    assert base.grad.item() == 15 * at**2
    # a hook that doubles the gradient: the leaf behind it gets twice as much
    base = torch.tensor(at, requires_grad=True)
    cubed = base**3
    cubed.register_hook(lambda g: 2 * g)
    (5 * cubed).backward()
    assert base.grad.item() == 2 * 15 * at**2
# --8<-- [end:claim-hook-sees-and-changes]

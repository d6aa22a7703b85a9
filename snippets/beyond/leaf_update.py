# Updating a weight in place: only outside the graph, in torch.no_grad().
# --8<-- [start:update]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w**2).sum()
loss.backward()

try:
    w -= 0.1 * w.grad  # recorded: autograd would have to differentiate it
except RuntimeError as e:
    print(f"RuntimeError: {e}")

with torch.no_grad():
    w -= 0.1 * w.grad  # not recorded: a plain update of the numbers
print("after the update:", w)
print("still a leaf:", w.is_leaf, "  grad_fn:", w.grad_fn)
# --8<-- [end:update]

# --8<-- [start:claim-update-keeps-leaf]
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

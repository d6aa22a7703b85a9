# The first step of plain gradient descent (SGD) and of Adam, one gradient.
# --8<-- [start:compare]
import torch

# steep along one weight, nearly flat along the other
gradient = torch.tensor([10.0, 0.1])
lr = 0.1
steps = {}
for name, make in (("SGD", torch.optim.SGD), ("Adam", torch.optim.Adam)):
    p = torch.zeros(2, requires_grad=True)  # two weights, starting at 0
    optimizer = make([p], lr=lr)
    (p * gradient).sum().backward()  # a loss whose gradient is `gradient`
    optimizer.step()
    steps[name] = p.detach().clone()  # where the weights went from 0
    change = (steps[name] * gradient).sum()  # how the (linear) loss changed
    first, second = steps[name].tolist()
    print(f"{name:>4} step: [{first:+.4f}, {second:+.4f}]", end="   ")
    print(f"loss changed by {change:+.4f}")
# --8<-- [end:compare]

# --8<-- [start:claim-sgd-along-gradient]
# plain gradient descent: exactly against the gradient
assert torch.allclose(steps["SGD"], -lr * gradient)
# --8<-- [end:claim-sgd-along-gradient]

# --8<-- [start:claim-adam-not-along-gradient]
# Adam rescales each weight's share: its step points elsewhere...
against = torch.nn.functional.cosine_similarity(
    steps["Adam"], -gradient, dim=0
)
assert against < 0.9
# --8<-- [end:claim-adam-not-along-gradient]

# --8<-- [start:claim-both-lower]
# in this example both steps lower the (linear) loss
assert all((step * gradient).sum() < 0 for step in steps.values())
# --8<-- [end:claim-both-lower]

# --8<-- [start:claim-each-uses-gradient]
import inspect  # noqa: E402  (a claim section, left out of the page)


def first_step(cls, grad):
    """The first step of optimizer class cls on a 2x2 weight, for grad."""
    w = torch.ones(2, 2, requires_grad=True)
    takes_lr = "lr" in inspect.signature(cls).parameters
    optimizer = cls([w], lr=lr) if takes_lr else cls([w])
    sparse = cls is torch.optim.SparseAdam  # it takes sparse gradients only

    def closure():  # LBFGS asks for the loss again; the others ignore it
        w.grad = grad.to_sparse() if sparse else grad.clone()
        return (w * grad).sum()

    optimizer.step(closure)
    return w.detach() - 1


classes = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
assert len(classes) > 10 and torch.optim.Adam in classes
one, other = (
    torch.tensor([[1.0, -2.0], [0.5, 3.0]]),
    torch.tensor([[-1.0, 2.0], [0.5, 3.0]]),
)
for (
    cls
) in classes:  # every optimizer in torch.optim: another gradient, another step
    assert not torch.equal(first_step(cls, one), first_step(cls, other)), cls
# a gradient pointing the same way but larger: Rprop takes the very same
# first step at every size; Adagrad, whose first step is lr * g / (|g| + eps),
# nearly the same one (within 2 %) exactly while each entry is at least 100
# times its eps; plain gradient descent takes a larger one
adagrad_eps = torch.optim.Adagrad([torch.zeros(1)]).defaults["eps"]
for size in (1e-12, 1e-10, 1e-9, 1e-7, 1e-6, 1e-3, 1.0, 1e3, 1e6):
    assert torch.equal(
        first_step(torch.optim.Rprop, size * one),
        first_step(torch.optim.Rprop, 10 * size * one),
    ), size
    small = first_step(torch.optim.Adagrad, size * one)
    large = first_step(torch.optim.Adagrad, 10 * size * one)
    expected = lr * size * one / (size * one.abs() + adagrad_eps)
    assert bool(((small + expected).abs() <= 1e-3 * small.abs()).all()), size
    near = bool(((small - large).abs() <= 0.02 * large.abs()).all())
    assert near == (size * one.abs().min().item() >= 100 * adagrad_eps), size
assert torch.equal(  # at the sizes of the page's gradient, the very same
    first_step(torch.optim.Adagrad, one),
    first_step(torch.optim.Adagrad, 10 * one),
)
sgd_small = first_step(torch.optim.SGD, one)
sgd_large = first_step(torch.optim.SGD, 10 * one)
assert bool((sgd_large.abs() > sgd_small.abs()).all())
# --8<-- [end:claim-each-uses-gradient]

# --8<-- [start:tiny]
p = torch.zeros(2, requires_grad=True)
optimizer = torch.optim.Adam([p], lr=lr)
# eps: added to Adam's divisor, so that it does not divide by 0
eps = optimizer.defaults["eps"]
p.grad = torch.tensor([10.0, 1e-9])  # the second entry is far below eps
optimizer.step()
tiny = p.detach().clone()
print(f"Adam's eps = {eps:g}")
print(
    f"first step for the gradient [10, 1e-9]: [{tiny[0]:+.4f}, {tiny[1]:+.4f}]"
)
# --8<-- [end:tiny]

# --8<-- [start:claim-adam-tiny]
# the same size along both only while each entry is far above eps
assert torch.allclose(steps["Adam"].abs(), torch.full((2,), lr))
assert (
    torch.isclose(tiny[0].abs(), torch.tensor(lr)) and tiny[1].abs() < lr / 2
)
# over many sizes of gradient: the first step is lr * |g| / (|g| + eps), which
# is lr (within 2 %) exactly when |g| is at least 100 times eps
for size in (1e-12, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e4):
    q = torch.zeros(1, requires_grad=True)
    first_adam = torch.optim.Adam([q], lr=lr)
    q.grad = torch.tensor([size])
    first_adam.step()
    moved = abs(q.item())
    assert abs(moved - lr * size / (size + eps)) <= 1e-3 * moved, size
    assert (abs(moved - lr) <= 0.02 * lr) == (size >= 100 * eps), size
# --8<-- [end:claim-adam-tiny]

# --8<-- [start:claim-adam-state]
# Adam keeps two tensors of each weight's shape, besides the weight and .grad
state = optimizer.state[p]
assert [k for k, v in state.items() if v.shape == p.shape] == [
    "exp_avg",
    "exp_avg_sq",
]
# --8<-- [end:claim-adam-state]

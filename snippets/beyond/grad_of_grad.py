# autograd.grad returns gradients; create_graph=True records its work too.
# --8<-- [start:grad]
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3

(dy_dx,) = torch.autograd.grad(y, x)  # one gradient per input, returned
print("returned:", dy_dx)
print("x.grad:  ", x.grad)
# --8<-- [end:grad]

# --8<-- [start:claim-grad-returns]
assert x.grad is None  # autograd.grad added nothing into .grad
assert dy_dx.item() == 3 * x.item() ** 2  # what it returned: 3x², by hand
# over graphs with another leaf, not asked for, and a non-leaf that called
# retain_grad(): the leaves' .grad stay None; the retained one's is filled
for power in (1, 2, 3):
    asked = torch.tensor(3.0, requires_grad=True)
    other = torch.tensor(2.0, requires_grad=True)  # a leaf not asked for
    kept = asked * other
    kept.retain_grad()
    (returned,) = torch.autograd.grad(kept**power, asked)
    assert asked.grad is None and other.grad is None
    assert returned.item() == power * kept.item() ** (power - 1) * other.item()
    assert kept.grad.item() == power * kept.item() ** (power - 1)
# a retained tensor fills its .grad only if it lies on the way from the
# output to an input asked for (an input asked for counts): one on a branch
# that leads only to another leaf keeps .grad None
for power in (1, 2, 3):
    asked = torch.tensor(3.0, requires_grad=True)
    other = torch.tensor(2.0, requires_grad=True)
    on_path = asked * 2
    off_path = other * 4  # leads only to other, not asked for
    on_path.retain_grad()
    off_path.retain_grad()
    torch.autograd.grad((on_path * off_path) ** power, asked)
    assert on_path.grad is not None and off_path.grad is None
    as_input = asked * 2
    as_input.retain_grad()
    (returned,) = torch.autograd.grad(as_input**power, as_input)
    assert torch.equal(as_input.grad, returned)
    assert returned.item() == power * as_input.item() ** (power - 1)
# --8<-- [end:claim-grad-returns]

# --8<-- [start:trap]
w = torch.tensor(1.0, requires_grad=True)
for call in (1, 2):
    (gw,) = torch.autograd.grad((w - 3) ** 2, w)
    print(f"autograd.grad call {call}: returned {gw}, w.grad = {w.grad}")
for call in (1, 2):
    ((w - 3) ** 2).backward()
    print(f"backward() call {call}:     w.grad = {w.grad}")
# --8<-- [end:trap]

# --8<-- [start:step]
w = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
(gw,) = torch.autograd.grad((w - 3) ** 2, w)
optimizer.step()  # reads w.grad, which is None: nothing to do
print("after step() with the returned gw:", w)
w.grad = gw  # hand the returned gradient to the optimizer
optimizer.step()
print("after w.grad = gw and step():    ", w)
# --8<-- [end:step]

# --8<-- [start:claim-trap]
# autograd.grad returns the same gradient at every call and never fills
# .grad; backward() adds each call's gradient into .grad
cases = (
    (lambda u: (u - 3) ** 2, lambda u: 2 * (u - 3)),
    (torch.sin, torch.cos),
    (lambda u: u * u * u, lambda u: 3 * u**2),
)
for f, derivative in cases:
    leaf = torch.tensor(1.0, requires_grad=True)
    by_hand = derivative(leaf.detach().clone())
    for _ in range(3):
        (returned,) = torch.autograd.grad(f(leaf), leaf)
        assert torch.allclose(returned, by_hand) and leaf.grad is None
    for calls in (1, 2, 3):
        f(leaf).backward()
        assert torch.allclose(leaf.grad, calls * by_hand)
# an optimizer's step() updates from .grad: after autograd.grad alone it
# leaves the parameter as it was; with the returned gradient put into .grad
# it takes the same step as after backward()
makers = (
    lambda ps: torch.optim.SGD(ps, lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: torch.optim.Adam(ps, lr=0.1),
    lambda ps: torch.optim.AdamW(ps, lr=0.1),
    lambda ps: torch.optim.RMSprop(ps, lr=0.1),
    lambda ps: torch.optim.Adagrad(ps, lr=0.1),
)
for make in makers:
    a = torch.tensor([1.0, -2.0], requires_grad=True)
    b = torch.tensor([1.0, -2.0], requires_grad=True)
    opt_a, opt_b = make([a]), make([b])
    (g_a,) = torch.autograd.grad(((a - 3) ** 2).sum(), a)
    opt_a.step()
    assert torch.equal(a.detach(), torch.tensor([1.0, -2.0]))
    a.grad = g_a
    opt_a.step()
    ((b - 3) ** 2).sum().backward()
    opt_b.step()
    assert not torch.equal(a.detach(), torch.tensor([1.0, -2.0]))
    assert torch.equal(a.detach(), b.detach())
# --8<-- [end:claim-trap]

# --8<-- [start:second]
y = x**3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)  # record it
print("dy/dx   =", dy_dx)  # it has a grad_fn: a graph you can walk again
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print("d2y/dx2 =", d2y_dx2)
print(f"by hand: 3x² = {3 * x.item() ** 2:g}   6x = {6 * x.item():g}")
# --8<-- [end:second]

# --8<-- [start:claim-create-graph]
assert dy_dx.grad_fn is not None  # create_graph=True recorded the backward
# autograd's first and second derivatives are the hand 3x² and 6x
assert dy_dx.item() == 3 * x.item() ** 2 and d2y_dx2.item() == 6 * x.item()
cube = x**3
assert torch.autograd.grad(cube, x)[0].grad_fn is None  # without it: a number
# the same for other functions: without create_graph the gradient has no
# history and cannot be differentiated again; with it, it can
for f in (lambda u: u**3, torch.sin, torch.exp, lambda u: u * u + u):
    (g,) = torch.autograd.grad(f(x), x)
    assert g.grad_fn is None and not g.requires_grad
    try:
        torch.autograd.grad(g, x)
        again = True
    except RuntimeError:
        again = False
    assert not again
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    assert g.grad_fn is not None
    assert torch.autograd.grad(g, x)[0].grad_fn is None
# --8<-- [end:claim-create-graph]


# --8<-- [start:claim-constant-derivative]
# a first derivative that does not depend on x: even with create_graph=True
# it has no grad_fn, and differentiating it again raises, instead of giving 0
def second_grad_error(first):
    """The RuntimeError autograd.grad(first, x) raises, or None."""
    try:
        torch.autograd.grad(first, x)
    except RuntimeError as error:
        return str(error)
    return None


linear = (lambda u: 2 * u, lambda u: u + 1, lambda u: u.sum(), lambda u: -u)
for f in linear:
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    assert g.grad_fn is None and not g.requires_grad
    message = second_grad_error(g)
    assert message is not None and "does not require grad" in message
# while one that depends on x, even through a product, has a grad_fn
(g,) = torch.autograd.grad(x * x, x, create_graph=True)
assert g.grad_fn is not None and second_grad_error(g) is None
# one that does not depend on x but on another tensor that requires a
# gradient (the derivative of w * x is w) has a grad_fn; its gradient with
# respect to x raises another error; allow_unused=True gives None, and
# materialize_grads=True a zero
other_leaf = torch.tensor(5.0, requires_grad=True)
layer = torch.nn.Linear(1, 1)
on_other = (
    lambda u: other_leaf * u,
    lambda u: other_leaf * u + u,
    lambda u: layer(u.reshape(1, 1)).sum(),
)
for f in on_other:
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    assert g.grad_fn is not None and g.requires_grad
    message = second_grad_error(g)
    assert message is not None and "not have been used in the graph" in message
    assert torch.autograd.grad(g, x, allow_unused=True) == (None,)
    (zero,) = torch.autograd.grad(g, x, materialize_grads=True)
    assert torch.equal(zero, torch.zeros_like(x))
# --8<-- [end:claim-constant-derivative]

# --8<-- [start:claim-piecewise]
# piecewise-linear functions: their first derivative varies with x, a fixed
# factor on each piece. Those whose backward picks the factor with a mask
# (clamp, maximum, minimum, where) return it without a grad_fn even with
# create_graph=True, and its gradient raises as for a constant (so does
# materialize_grads=True); relu, leaky_relu, hardtanh and abs return it with
# a grad_fn, and its gradient is zeros
points = torch.tensor([-1.5, 0.5, 2.0], requires_grad=True)
zeros = torch.zeros(3)
masked = (
    lambda u: u.clamp(min=0),
    lambda u: torch.clamp(u, min=0),
    lambda u: u.clamp_min(0),
    lambda u: u.clamp(-1, 1),
    lambda u: torch.maximum(u, zeros),
    lambda u: torch.minimum(u, zeros),
    lambda u: torch.where(u > 0, u, 0.1 * u),
    lambda u: torch.where(u > 0, u, 0.0),
)
recorded = (
    torch.relu,
    torch.nn.functional.relu,
    torch.nn.ReLU(),
    lambda u: torch.nn.functional.leaky_relu(u, 0.1),
    torch.nn.functional.hardtanh,
    torch.abs,
)
for f in masked + recorded:
    (first,) = torch.autograd.grad(f(points).sum(), points, create_graph=True)
    assert len(set(first.tolist())) > 1  # it varies with x: not a constant
    if f in masked:
        assert first.grad_fn is None and not first.requires_grad
        for options in ({}, {"materialize_grads": True}):
            try:
                torch.autograd.grad(first.sum(), points, **options)
                message = None
            except RuntimeError as error:
                message = str(error)
            assert message is not None and "does not require grad" in message
    else:
        assert first.grad_fn is not None
        (second,) = torch.autograd.grad(first.sum(), points)
        assert torch.equal(second, torch.zeros(3))
# --8<-- [end:claim-piecewise]

# --8<-- [start:curves]
xs = torch.linspace(-3.5, 3.5, 141, requires_grad=True)
ys = xs**3
# Each ys[i] depends on xs[i] only, so the gradient of the sum holds
# every dys[i]/dxs[i] at once.
(slopes,) = torch.autograd.grad(ys.sum(), xs, create_graph=True)
(curvatures,) = torch.autograd.grad(slopes.sum(), xs)
at = 130  # the index of x = 3 on this grid
print(f"at x = {xs[at].item():g}: y = {ys[at].item():g}, ", end="")
print(f"dy/dx = {slopes[at].item():g}, d2y/dx2 = {curvatures[at].item():g}")
# --8<-- [end:curves]

# --8<-- [start:claim-grid]
# one pass gave every dy_i/dx_i = 3x_i² on the grid, and every 6x_i
assert torch.allclose(slopes, 3 * xs.detach() ** 2)
assert torch.allclose(curvatures, 6 * xs.detach())
# --8<-- [end:claim-grid]

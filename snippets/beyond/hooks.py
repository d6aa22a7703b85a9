# Hooks see, and may replace, the gradient flowing through a tensor.
# --8<-- [start:watch]
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = x**3
loss = (y**2).sum()


def show(grad):
    print(
        "the gradient arriving at y:", grad.tolist()
    )  # returns None: unchanged


handle = y.register_hook(show)
loss.backward()
plain_grad = x.grad  # kept, to compare with the clipped run below
print("x.grad:", plain_grad.tolist())
handle.remove()  # the hook stays on y until removed
# --8<-- [end:watch]

# --8<-- [start:claim-hook-stores-nothing]
import warnings  # noqa: E402  (a claim section, left out of the page)

assert not y.retains_grad  # the hook saw y's gradient; nothing kept it
# hooks that watch or replace, on every tensor of a chain: none stores it
for hook in (lambda g: None, lambda g: g * 2, lambda g: g.clamp(-1, 1)):
    base = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    middle = [base**3]
    middle.append(torch.sin(middle[-1]))
    middle.append(middle[-1] * 2)
    for t in middle:
        t.register_hook(hook)
    middle[-1].sum().backward()
    with warnings.catch_warnings():  # reading a non-leaf's .grad warns
        warnings.simplefilter("ignore")
        assert all(not t.retains_grad and t.grad is None for t in middle)
# --8<-- [end:claim-hook-stores-nothing]

# --8<-- [start:claim-hook-watches]
# what a watching hook receives is dL/dy = 2y, and it changes nothing:
# x.grad is the derivative of sum((x³)²), 6x⁵, as without a hook
received = []
x_again = x.detach().clone().requires_grad_()
y_again = x_again**3
y_again.register_hook(received.append)  # append returns None
(y_again**2).sum().backward()
assert torch.equal(received[0], 2 * y_again.detach())
assert torch.allclose(plain_grad, 6 * x.detach() ** 5)
assert torch.equal(x_again.grad, plain_grad)
# --8<-- [end:claim-hook-watches]

# --8<-- [start:claim-hook-in-place]
# a hook that returns None but edits its argument in place, which the docs of
# register_hook forbid, changes the gradient that goes on; one that returns
# None and leaves it alone changes nothing


def hook_returning_none(action):
    """A hook that applies action to the gradient and returns None."""

    def hook(g):
        action(g)

    return hook


edits_in_place = (
    lambda g: g.clamp_(-1, 1),
    lambda g: g.mul_(0.5),
    lambda g: g.zero_(),
)
left_alone = (
    lambda g: None,
    lambda g: g.sum(),
    lambda g: g.clone().zero_(),  # edits a copy
)
for action in edits_in_place + left_alone:
    base = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    cubed = base**3
    cubed.register_hook(hook_returning_none(action))
    (cubed**2).sum().backward()
    unchanged = torch.equal(base.grad, plain_grad)
    assert unchanged == (action in left_alone), action
# a hook that returns a tensor: that tensor goes on in place of the gradient,
# here times d(cubed)/d(base) = 3 base²
for replace in (lambda g: g * 2, lambda g: g.clamp(-1, 1), torch.zeros_like):
    base = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    cubed = base**3
    cubed.register_hook(replace)
    (cubed**2).sum().backward()
    expected = replace(2 * cubed.detach()) * 3 * base.detach() ** 2
    assert torch.equal(base.grad, expected), replace
# --8<-- [end:claim-hook-in-place]

# --8<-- [start:clip]
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = x**3
loss = (y**2).sum()
limit = 1.0  # clip y's gradient to [-limit, limit]
y.register_hook(lambda grad: grad.clamp(-limit, limit))  # returns a new one
loss.backward()
clipped = f"[-{limit:g}, {limit:g}]"
print(f"x.grad, y's gradient clipped to {clipped}:", x.grad.tolist())
# --8<-- [end:clip]

# --8<-- [start:claim-clip]
# inside [-limit, limit], dL/dy = 2y was left alone by the clip; outside, not
inside = (2 * y.detach()).abs() <= limit
assert torch.equal(x.grad[inside], plain_grad[inside])
assert not torch.equal(x.grad[~inside], plain_grad[~inside])
# --8<-- [end:claim-clip]

# --8<-- [start:claim-clip-tools]
# after backward, on the .grad of parameters: clip_grad_value_ clamps each
# entry to [-limit, limit], as the hook did; clip_grad_norm_ scales all of
# them by one factor when their norm is above the limit, entries inside the
# limit included
torch.manual_seed(0)
layers = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
params = list(layers.parameters())
for bound in (0.25, 0.5, 1.0):
    layers.zero_grad()
    layers(torch.randn(5, 3)).pow(2).sum().backward()
    grads = [q.grad.clone() for q in params]
    torch.nn.utils.clip_grad_value_(params, bound)
    for q, g in zip(params, grads, strict=True):
        assert torch.equal(q.grad, g.clamp(-bound, bound))
    for q, g in zip(params, grads, strict=True):
        q.grad = g.clone()
    norm = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))
    assert norm > bound  # so clip_grad_norm_ scales
    torch.nn.utils.clip_grad_norm_(params, bound)
    scale = bound / (norm + 1e-6)  # its factor
    for q, g in zip(params, grads, strict=True):
        assert torch.allclose(q.grad, g * scale, rtol=1e-5, atol=1e-9)
    before_clip = torch.cat([g.flatten() for g in grads])
    after = torch.cat([q.grad.flatten() for q in params])
    inside = (before_clip.abs() <= bound) & (before_clip != 0)
    assert inside.any()
    assert torch.all(after[inside].abs() < before_clip[inside].abs())
# at the limit it scales too, since its factor divides by norm + 1e-6; when
# norm + 1e-6 is below the limit, it leaves the gradients as they were
for given in ([3.0, 4.0], [0.6, 0.8], [6.0, 8.0]):
    held = torch.zeros(2, requires_grad=True)
    held.grad = torch.tensor(given)
    at_norm = torch.linalg.vector_norm(held.grad).item()
    for bound, should_scale in (
        (at_norm, True),
        (at_norm + 1e-5, False),  # norm + 1e-6 below the limit
        (2 * at_norm, False),
    ):
        held.grad = torch.tensor(given)
        torch.nn.utils.clip_grad_norm_([held], bound)
        changed = not torch.equal(held.grad, torch.tensor(given))
        assert changed == should_scale
        if should_scale:  # just below the limit, by the factor above
            scaled = torch.tensor(given) * bound / (at_norm + 1e-6)
            assert torch.allclose(held.grad, scaled, rtol=1e-6, atol=0.0)
            assert (held.grad < torch.tensor(given)).all()  # scaled down
# --8<-- [end:claim-clip-tools]

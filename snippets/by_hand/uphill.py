# A step need not lower the loss: a step too large, and Adam after a sign flip.
# --8<-- [start:overshoot]
import torch

start = 1.0
losses = {}  # learning rate: (loss before the step, loss after it)
for lr in (0.1, 1.5):
    w = torch.tensor(start, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=lr)
    loss = w**2  # its gradient is 2w
    loss.backward()
    optimizer.step()  # w -= lr * 2w
    losses[lr] = (loss.item(), (w**2).item())
    print(f"SGD, lr = {lr:g}: w becomes {w.item():g},", end=" ")
    print(f"loss {losses[lr][0]:g} -> {losses[lr][1]:g}")
# --8<-- [end:overshoot]

# --8<-- [start:flip]
p = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.Adam([p], lr=0.1)
flips = []  # (gradient, step) for each step
for gradient in (10.0, -1.0):  # the gradient changes sign between the steps
    before = p.item()
    p.grad = torch.tensor([gradient])  # set the gradient directly
    optimizer.step()
    flips.append((gradient, p.item() - before))
    print(f"gradient {gradient:+g}: Adam's step {flips[-1][1]:+.4f}")
# --8<-- [end:flip]

# --8<-- [start:claim-small-step-lowers]
# where the loss is smooth and its gradient is not zero, a small enough step
# of plain gradient descent lowers it: several losses, several starting
# points
smooth_losses = {
    "w**2": lambda v: (v**2).sum(),
    "(w - 3)**4 + w": lambda v: ((v - 3) ** 4 + v).sum(),
    "sin(w) * w": lambda v: (torch.sin(v) * v).sum(),
    "exp(w) - 2w": lambda v: (torch.exp(v) - 2 * v).sum(),
    "log(1 + w**2)": lambda v: torch.log1p(v**2).sum(),
}
starts = ([-2.0], [-0.5], [0.7], [2.5], [1.0, -1.0, 0.3])
for name, loss_of in smooth_losses.items():
    for start_at in starts:
        v = torch.tensor(start_at, dtype=torch.float64, requires_grad=True)
        loss_v = loss_of(v)
        loss_v.backward()
        assert v.grad.abs().sum() > 0, (name, start_at)
        with torch.no_grad():
            assert loss_of(v - 1e-4 * v.grad) < loss_v, (name, start_at)
# at a corner (relu, abs, clamp at 0) autograd reports a number that is not
# a slope, and a step against it raises the loss however small it is
corner_losses = {
    "abs(w) + w/2": lambda v: v.abs() + 0.5 * v,
    "relu(w) - w/2": lambda v: torch.relu(v) - 0.5 * v,
    "clamp(w, min=0) - w/2": lambda v: v.clamp(min=0) - 0.5 * v,
}
for name, loss_of in corner_losses.items():
    v = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    loss_v = loss_of(v)
    loss_v.backward()
    assert v.grad != 0, name
    for small_lr in (1e-1, 1e-4, 1e-8):
        with torch.no_grad():
            assert loss_of(v - small_lr * v.grad) > loss_v, (name, small_lr)
# --8<-- [end:claim-small-step-lowers]

# --8<-- [start:claim-no-promise]
# a small step of gradient descent lowered the loss; a large one raised it
assert losses[0.1][1] < losses[0.1][0] and losses[1.5][1] > losses[1.5][0]
# Adam's second step goes the way the gradient points: uphill
flip_gradient, flip_step = flips[1]
assert flip_gradient < 0 and flip_step < 0 and flip_gradient * flip_step > 0
# --8<-- [end:claim-no-promise]

# Fit a straight line with nothing but tensors and autograd.
# --8<-- [start:data]
import torch

torch.manual_seed(0)  # the same noise on every run

# n points on the line y = 2x - 1, plus noise of standard deviation 0.1
n, noise = 100, 0.1
true_w, true_b = 2.0, -1.0  # the line the fit should find
x = torch.linspace(-1, 1, n)
y = true_w * x + true_b + noise * torch.randn(n)

# Two parameters to learn: leaves that record every operation on them
w = torch.randn(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1  # the learning rate: how far each step moves
# --8<-- [end:data]

# --8<-- [start:loop]
history = []  # (w, b, loss) at every step, kept so we can plot the fit
for step in range(201):
    prediction = w * x + b  # forward: the model's guess for every point
    loss = ((prediction - y) ** 2).mean()  # mean squared error
    history.append((w.item(), b.item(), loss.item()))
    if step % 40 == 0:
        print(
            f"step {step:3d}  loss {loss.item():.4f}"
            f"  w {w.item():.3f}  b {b.item():.3f}"
        )

    loss.backward()  # fills w.grad and b.grad

    with torch.no_grad():  # the update itself must not be recorded
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()  # reset, or the next backward adds onto these
    b.grad.zero_()

print(f"learned line: y = {w.item():.3f} x + ({b.item():.3f})")
# --8<-- [end:loop]

# --8<-- [start:snapshots]
snapshots = (0, 10, 80)  # three moments of the fit, drawn in the figure below
for step in snapshots:
    w_then, b_then, loss_then = history[step]
    print(f"line at step {step:2d}: y = {w_then:.3f} x + ({b_then:.3f})")
# --8<-- [end:snapshots]

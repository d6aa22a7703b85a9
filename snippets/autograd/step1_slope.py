# The loss of the Step 6 data as a function of one weight.
# --8<-- [start:data]
import torch

torch.manual_seed(0)  # the same data as snippets/examples/fit_line.py

# 100 points on the line y = 2x - 1, plus noise of std 0.1
true_w, true_b = 2.0, -1.0
x = torch.linspace(-1, 1, 100)
y = true_w * x + true_b + 0.1 * torch.randn(100)
b = true_b  # the intercept, held at its true value so that only w varies


def loss_at(w):
    """Mean squared error of the line w * x + b over the points."""
    return ((w * x + b - y) ** 2).mean()


# --8<-- [end:data]

# --8<-- [start:slope]
w = torch.tensor(3.6, requires_grad=True)  # a deliberately poor slope
loss = loss_at(w)
loss.backward()  # Step 2 explains this line: it puts dL/dw in w.grad
print(f"at w = {w.item():.1f}:  loss {loss.item():.4f}")
print(f"slope dL/dw:  {w.grad.item():.4f}")
# --8<-- [end:slope]

# --8<-- [start:step]
lr = 0.5  # the learning rate: how far to move per unit of slope
new_w = w.item() - lr * w.grad.item()  # one step of gradient descent
new_loss = loss_at(torch.tensor(new_w))
print(f"one step to w = {new_w:.4f}:  loss {new_loss.item():.4f}")
# --8<-- [end:step]

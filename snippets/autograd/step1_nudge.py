# Check autograd's slope without autograd: nudge w and watch the loss.
# --8<-- [start:nudge]
import torch

torch.manual_seed(0)  # the data of Step 1 (and Step 6) once more
true_w, true_b = 2.0, -1.0
x = torch.linspace(-1, 1, 100)
y = true_w * x + true_b + 0.1 * torch.randn(100)
b = true_b


def loss_at(w):
    return ((w * x + b - y) ** 2).mean()


w = torch.tensor(3.6, requires_grad=True)
loss_at(w).backward()  # autograd's slope, in w.grad

h = 0.001  # a small nudge, both ways
with torch.no_grad():
    nudged = (loss_at(w + h) - loss_at(w - h)) / (2 * h)
print(f"(L(w + h) - L(w - h)) / 2h = {nudged.item():.4f}   with h = {h:g}")
print(f"autograd's slope, w.grad   = {w.grad.item():.4f}")
# --8<-- [end:nudge]

# --8<-- [start:claim-finite-difference]
# float32 keeps about 7 digits of the loss; dividing by 2h magnifies
# its rounding error to about 1e-4 here
assert abs(nudged.item() - w.grad.item()) < 1e-3
# --8<-- [end:claim-finite-difference]

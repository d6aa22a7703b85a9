# Check autograd's slope without autograd: nudge w and watch the loss.
# --8<-- [start:nudge]
import math

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

# --8<-- [start:float64]
# The same nudges in 64-bit floats, which keep more digits than 32-bit ones
x64, y64 = x.double(), y.double()
w64 = torch.tensor(3.6, dtype=torch.float64, requires_grad=True)
((w64 * x64 + b - y64) ** 2).mean().backward()
with torch.no_grad():
    nudged64 = (
        ((w64 + h) * x64 + b - y64) ** 2 - ((w64 - h) * x64 + b - y64) ** 2
    ).mean() / (2 * h)
gap32 = abs(nudged.item() - w.grad.item())
gap64 = abs(nudged64.item() - w64.grad.item())
print(f"gap to autograd's slope: float32 {gap32:.1e}   float64 {gap64:.1e}")
eps32 = torch.finfo(torch.float32).eps  # the gap between 1 and the next float
print(f"float32: eps = {eps32:.2e}, about {-math.log10(eps32):.0f} digits")
# --8<-- [end:float64]

# --8<-- [start:claim-finite-difference]
# the nudges give autograd's slope to the digits printed
assert round(nudged.item(), 4) == round(w.grad.item(), 4)
# with more digits the gap all but vanishes: in float32 it is rounding
assert gap64 < 1e-9 < gap32 < 1e-3
# --8<-- [end:claim-finite-difference]

# --8<-- [start:claim-smaller-h-worse]
# in float32, shrinking the nudge helps only down to a point; in float64 the
# same nudges stay close to autograd's slope
gaps32, gaps64 = {}, {}
for nudge in (1e-1, 1e-3, 1e-5, 1e-7):
    with torch.no_grad():
        central32 = (loss_at(w + nudge) - loss_at(w - nudge)) / (2 * nudge)
        central64 = (
            ((w64 + nudge) * x64 + b - y64) ** 2
            - ((w64 - nudge) * x64 + b - y64) ** 2
        ).mean() / (2 * nudge)
    gaps32[nudge] = abs(central32.item() - w.grad.item())
    gaps64[nudge] = abs(central64.item() - w64.grad.item())
assert gaps32[1e-7] > gaps32[1e-5] > gaps32[1e-3] > gaps32[1e-1]
assert max(gaps64.values()) < 1e-6
assert all(gaps64[nudge] < gaps32[nudge] / 10 for nudge in gaps32)
# --8<-- [end:claim-smaller-h-worse]

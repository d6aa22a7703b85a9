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

h = 0.1  # a nudge, both ways (on this loss, small is not more exact)
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
# The gaps' last digits depend on the order in which the CPU adds up the
# terms of the mean, so print only whether they stay below a bound
tol32, tol64 = 1e-5, 1e-12
print(f"gap to autograd's slope below {tol32:g} in float32: {gap32 < tol32}")
print(f"gap to autograd's slope below {tol64:g} in float64: {gap64 < tol64}")
eps32 = torch.finfo(torch.float32).eps  # the gap between 1 and the next float
print(f"float32: eps = {eps32:.2e}, about {-math.log10(eps32):.0f} digits")
# --8<-- [end:float64]

# --8<-- [start:claim-finite-difference]
# the nudges give autograd's slope to the digits printed
assert round(nudged.item(), 4) == round(w.grad.item(), 4)
# both gaps stay below their bounds, the float64 one far below: for this
# quadratic loss the central difference is exact, and the gap is rounding
assert gap32 < tol32
assert gap64 < tol64
# the same float32 terms added in another order give other last digits
with torch.no_grad():
    terms = ((w.detach() - h) * x + b - y) ** 2
one_by_one = terms.cumsum(0)[-1]
by_halves = terms.view(2, -1).cumsum(1)[:, -1].cumsum(0)[-1]
assert one_by_one != by_halves
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
# on a loss that is not quadratic (the 4th power of the errors) a smaller
# nudge first helps, then the rounding takes over and it hurts
w_quartic = torch.tensor(3.6, requires_grad=True)
((w_quartic * x + b - y) ** 4).mean().backward()
gaps_quartic = {}
for nudge in (1e-1, 1e-2, 1e-5, 1e-7):
    with torch.no_grad():
        up = ((w_quartic + nudge) * x + b - y) ** 4
        down = ((w_quartic - nudge) * x + b - y) ** 4
        central = (up.mean() - down.mean()) / (2 * nudge)
    gaps_quartic[nudge] = abs(central.item() - w_quartic.grad.item())
assert gaps_quartic[1e-2] < gaps_quartic[1e-1] / 10
assert gaps_quartic[1e-2] < gaps_quartic[1e-5] / 10
assert gaps_quartic[1e-5] < gaps_quartic[1e-7]
# --8<-- [end:claim-smaller-h-worse]

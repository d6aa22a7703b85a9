# The same closed case with LeakyReLU, which keeps a small slope below 0.
# --8<-- [start:leaky]
import inspect

import torch
import torch.nn.functional as F

x = torch.tensor(-1.0)
y = torch.tensor(2.0)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)
# LeakyReLU's slope for negative inputs, when you pass none: its default
slope = inspect.signature(F.leaky_relu).parameters["negative_slope"].default
print("default negative_slope:", slope)

h = w * x + b
a = F.leaky_relu(h)  # with the default slope
loss = (a - y) ** 2
print(f"h = {h.item():g}   a = {a.item():g}   loss = {loss.item():g}")

# By hand: as before, but below 0 the local slope is `slope`, not 0
grad_a_hand = 2 * (a.item() - y.item())
leaky_slope = 1.0 if h.item() > 0 else slope
grad_h_hand = grad_a_hand * leaky_slope
grad_w_hand = grad_h_hand * x.item()
grad_b_hand = grad_h_hand * 1.0

for node in (h, a, loss):
    node.retain_grad()
loss.backward()

print(f"dL/da   by hand: {grad_a_hand:g}   autograd: {a.grad.item():g}")
print(f"dL/dh   by hand: {grad_h_hand:g}   autograd: {h.grad.item():g}")
print(f"dL/dw   by hand: {grad_w_hand:g}   autograd: {w.grad.item():g}")
print(f"dL/db   by hand: {grad_b_hand:g}   autograd: {b.grad.item():g}")
# --8<-- [end:leaky]

# --8<-- [start:claim-agrees]
import math  # noqa: E402  (a claim section, left out of the page)

assert torch.nn.LeakyReLU().negative_slope == slope  # the module's default too
# by hand (in Python's 64-bit floats) and autograd (in 32-bit) agree
assert math.isclose(a.item(), slope * h.item(), rel_tol=1e-6)  # a = slope * h
assert math.isclose(a.grad.item(), grad_a_hand, rel_tol=1e-6)
assert math.isclose(h.grad.item(), grad_h_hand, rel_tol=1e-6)
assert math.isclose(w.grad.item(), grad_w_hand, rel_tol=1e-6)
assert math.isclose(b.grad.item(), grad_b_hand, rel_tol=1e-6)
# --8<-- [end:claim-agrees]

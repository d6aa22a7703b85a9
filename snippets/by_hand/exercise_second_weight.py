# Exercise 2: the tiny network with a second weight after the ReLU.
# --8<-- [start:check]
import torch

x = torch.tensor(2.0)
y = torch.tensor(2.0)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)
w2 = torch.tensor(0.5, requires_grad=True)  # the new weight

h = w * x + b
a = torch.relu(h)
o = w2 * a
loss = (o - y) ** 2
print(f"h = {h.item():g}   a = {a.item():g}   o = {o.item():g}")
print(f"loss = {loss.item():g}")

# By hand: one factor per node between the loss and the weight
grad_o_hand = 2 * (o.item() - y.item())  # L = (o - y)**2
relu_slope = 1.0 if h.item() > 0 else 0.0
grad_w_hand = grad_o_hand * w2.item() * relu_slope * x.item()
grad_w2_hand = grad_o_hand * a.item()  # o = w2 * a, so do/dw2 = a

loss.backward()
print(f"dL/dw  by hand: {grad_w_hand:g}  autograd: {w.grad.item():g}")
print(f"dL/dw2 by hand: {grad_w2_hand:g}  autograd: {w2.grad.item():g}")
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
assert w.grad.item() == grad_w_hand  # both hand results are autograd's
assert w2.grad.item() == grad_w2_hand
# and the first factor, dL/do, asked of autograd directly
at = o.detach().requires_grad_()
(grad_o,) = torch.autograd.grad((at - y) ** 2, at)
assert grad_o.item() == grad_o_hand
# --8<-- [end:claim-agrees]

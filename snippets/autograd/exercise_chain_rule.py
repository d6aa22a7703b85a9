# Exercise: Step 3's model at another data point, by hand and by autograd.
# --8<-- [start:check]
import torch

w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
x, y = torch.tensor(-1.0), torch.tensor(2.0)  # the new data point

prediction = w * x + b
loss = (prediction - y) ** 2
loss.backward()

# By hand: the chain rule of Step 3, with this point's numbers
error_hand = w.item() * x.item() + b.item() - y.item()
grad_w_hand = 2 * error_hand * x.item()  # dL/dw = 2 * error * x
grad_b_hand = 2 * error_hand * 1.0  # dL/db = 2 * error * 1
print(f"error = {error_hand:g}   loss = {loss.item():g}")
print(f"dL/dw  by hand: {grad_w_hand:g}   autograd: {w.grad.item():g}")
print(f"dL/db  by hand: {grad_b_hand:g}   autograd: {b.grad.item():g}")
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
# the hand results are the run's own, on this run's numbers
assert error_hand == (prediction - y).item()
assert grad_w_hand == w.grad.item()
assert grad_b_hand == b.grad.item()
# --8<-- [end:claim-agrees]

# One neuron, one ReLU, one squared error: forward, then backward.
# --8<-- [start:forward]
import torch

x = torch.tensor(2.0)  # the input
y = torch.tensor(2.0)  # the target
w = torch.tensor(3.0, requires_grad=True)  # the weight
b = torch.tensor(-1.0, requires_grad=True)  # the bias

h = w * x + b
a = torch.relu(h)
loss = (a - y) ** 2
print(f"h = {h.item():g}   a = {a.item():g}   loss = {loss.item():g}")
# --8<-- [end:forward]

# --8<-- [start:by_hand]
# By hand: the chain rule, from the loss back to w and b
grad_a_hand = 2 * (a.item() - y.item())  # L = (a - y)**2
relu_slope = 1.0 if h.item() > 0 else 0.0  # open: 1, closed: 0
grad_h_hand = grad_a_hand * relu_slope
grad_w_hand = grad_h_hand * x.item()  # h = w*x + b, so dh/dw = x
grad_b_hand = grad_h_hand * 1.0  # and dh/db = 1
# --8<-- [end:by_hand]

# --8<-- [start:backward]
for node in (h, a, loss):
    node.retain_grad()  # keep the gradient that arrives here too
loss.backward()

print(f"dL/da   by hand: {grad_a_hand:g}   autograd: {a.grad.item():g}")
print(f"dL/dh   by hand: {grad_h_hand:g}   autograd: {h.grad.item():g}")
print(f"dL/dw   by hand: {grad_w_hand:g}   autograd: {w.grad.item():g}")
print(f"dL/db   by hand: {grad_b_hand:g}   autograd: {b.grad.item():g}")
# --8<-- [end:backward]

# --8<-- [start:claim-agrees]
# every line: the gradient at each intermediate result and at the parameters
assert a.grad.item() == grad_a_hand and h.grad.item() == grad_h_hand
assert w.grad.item() == grad_w_hand and b.grad.item() == grad_b_hand
# --8<-- [end:claim-agrees]

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

# --8<-- [start:backward]
for node in (h, a, loss):
    node.retain_grad()  # keep the gradient that arrives here too
loss.backward()

print(f"dL/da = {a.grad.item():g}")
print(f"dL/dh = {h.grad.item():g}")
print(f"dL/dw = {w.grad.item():g}")
print(f"dL/db = {b.grad.item():g}")
# --8<-- [end:backward]

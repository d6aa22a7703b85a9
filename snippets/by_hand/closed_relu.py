# The tiny network with an input that shuts the ReLU.
# --8<-- [start:closed]
import torch

x = torch.tensor(-1.0)  # a new input; target, weight and bias as before
y = torch.tensor(2.0)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)

h = w * x + b
a = torch.relu(h)
loss = (a - y) ** 2
for node in (h, a, loss):
    node.retain_grad()
loss.backward()

print(f"h = {h.item():g}   a = {a.item():g}   loss = {loss.item():g}")
print(f"dL/da = {a.grad.item():g}   dL/dh = {h.grad.item():g}")
print(f"dL/dw = {w.grad.item():g}   dL/db = {b.grad.item():g}")
# --8<-- [end:closed]

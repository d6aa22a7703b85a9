# The same closed case with LeakyReLU, which keeps a small slope below 0.
# --8<-- [start:leaky]
import torch
import torch.nn.functional as F

x = torch.tensor(-1.0)
y = torch.tensor(2.0)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)
slope = 0.01  # LeakyReLU's slope for negative inputs (PyTorch's default)

h = w * x + b
a = F.leaky_relu(h, negative_slope=slope)
loss = (a - y) ** 2
for node in (h, a, loss):
    node.retain_grad()
loss.backward()

print(f"h = {h.item():g}   a = {a.item():g}   loss = {loss.item():g}")
print(f"dL/da = {a.grad.item():g}   dL/dh = {h.grad.item():g}")
print(f"dL/dw = {w.grad.item():g}   dL/db = {b.grad.item():g}")
# --8<-- [end:leaky]

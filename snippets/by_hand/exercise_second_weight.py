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
o.retain_grad()
a.retain_grad()
h.retain_grad()
loss.backward()

print(f"h = {h.item():g}   a = {a.item():g}   o = {o.item():g}", end="")
print(f"   loss = {loss.item():g}")
print(f"dL/do = {o.grad.item():g}   dL/da = {a.grad.item():g}", end="")
print(f"   dL/dh = {h.grad.item():g}")
print(f"dL/dw = {w.grad.item():g}   dL/db = {b.grad.item():g}", end="")
print(f"   dL/dw2 = {w2.grad.item():g}")
# --8<-- [end:check]

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
for node in (h, a, o):
    node.retain_grad()  # keep the gradients on the way for the check
loss.backward()

print(f"h = {h.item():g}   a = {a.item():g}   o = {o.item():g}")
print(f"loss = {loss.item():g}")
for name, t in [("o", o), ("a", a), ("h", h), ("w", w), ("b", b), ("w2", w2)]:
    print(f"dL/d{name} = {t.grad.item():g}")
# --8<-- [end:check]

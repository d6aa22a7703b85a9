# A first gradient: y = x**2 + 2x at x = 3.
# --8<-- [start:forward]
import torch

x = torch.tensor(3.0, requires_grad=True)  # record every operation on x
y = x**2 + 2 * x
print(y)
# --8<-- [end:forward]

# --8<-- [start:backward]
y.backward()  # compute dy/dx and store it in x.grad
print(x.grad)
print("x is a leaf:", x.is_leaf, "   y is a leaf:", y.is_leaf)
# --8<-- [end:backward]

# --8<-- [start:claim-plain-leaf]
c = torch.tensor(2.0)  # made by you, without requires_grad
assert c.is_leaf and not c.requires_grad
(c * torch.tensor(1.0, requires_grad=True)).backward()
assert c.grad is None  # a leaf that needs no gradient is given none
# --8<-- [end:claim-plain-leaf]

# --8<-- [start:claim-weights-are-leaves]
# a layer's weights are nn.Parameter leaves that require a gradient
layer = torch.nn.Linear(2, 3)
for p in layer.parameters():
    assert isinstance(p, torch.nn.Parameter)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
# --8<-- [end:claim-weights-are-leaves]

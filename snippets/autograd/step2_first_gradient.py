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

# When a value reaches the result along two paths, their contributions add.
# --8<-- [start:two_paths]
import torch

x = torch.tensor(3.0, requires_grad=True)
z = x * x  # x reaches z twice: as the left and as the right factor
z.backward()

# By hand: each path contributes its local derivative, the other factor
left = x.item()  # d(x * c)/dx with the right factor held fixed
right = x.item()  # d(c * x)/dx with the left factor held fixed
print(f"by hand:  {left:g} + {right:g} = {left + right:g}")
print(f"autograd: x.grad = {x.grad.item():g}")
# --8<-- [end:two_paths]

# --8<-- [start:claim-paths-add]
# the sum over both paths, not the product along one
assert x.grad.item() == left + right
assert x.grad.item() != left * right
# --8<-- [end:claim-paths-add]

# Only leaf tensors keep their gradient, unless you ask for more.
# --8<-- [start:leaf_only]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
z = 5 * y
z.backward()
print("x.grad:", x.grad)
# --8<-- [end:leaf_only]

# --8<-- [start:non_leaf]
y_grad = y.grad  # y is not a leaf: PyTorch warns
# --8<-- [end:non_leaf]

# --8<-- [start:retain]
print("y.grad without retain_grad():", y_grad)

x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.retain_grad()  # ask autograd to keep this intermediate's gradient
z = 5 * y
z.backward()
print("y.grad with retain_grad():   ", y.grad)
print("x.grad, unchanged:           ", x.grad)
# --8<-- [end:retain]

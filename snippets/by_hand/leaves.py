# Only leaf tensors keep their gradient, unless you ask for more.
# --8<-- [start:leaf_only]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
z = 5 * y
z.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:leaf_only]

# --8<-- [start:retain]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.retain_grad()  # ask autograd to keep this intermediate's gradient
z = 5 * y
z.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)
# --8<-- [end:retain]

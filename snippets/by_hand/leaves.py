# Only leaf tensors keep their gradient, unless you ask for more.
# --8<-- [start:leaf_only]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
z = 5 * y

grad_y_hand = 5.0  # by hand: z = 5y, so dz/dy = 5
grad_x_hand = 15 * x.item() ** 2  # and dz/dx = 5 * 3x**2 = 15x**2
print(f"by hand:  dz/dy = {grad_y_hand:g}   dz/dx = {grad_x_hand:g}")

z.backward()
print("autograd: x.grad =", x.grad)
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
print("x.grad, as before:           ", x.grad)
# --8<-- [end:retain]

# --8<-- [start:claim-only-leaves-keep-grad]
assert y_grad is None  # without retain_grad(), the intermediate kept nothing
assert x.is_leaf and x.grad is not None  # the leaf kept its gradient
# --8<-- [end:claim-only-leaves-keep-grad]

# --8<-- [start:claim-agrees]
assert y.grad.item() == grad_y_hand  # retained: the dz/dy worked out by hand
assert x.grad.item() == grad_x_hand
# --8<-- [end:claim-agrees]

# Exercise 1: the slope of y = x**3 - 2x at x = 4.
# --8<-- [start:check]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = x**3 - 2 * x
grad_x_hand = 3 * x.item() ** 2 - 2  # by hand: dy/dx = 3x**2 - 2

y.backward()
print(f"y = {y.item():g}")
print(f"by hand:  3x**2 - 2 = {grad_x_hand:g}")
print(f"autograd: x.grad    = {x.grad.item():g}")
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
assert x.grad.item() == grad_x_hand  # autograd's slope is the hand one
# --8<-- [end:claim-agrees]

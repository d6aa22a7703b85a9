# What the square's node keeps from the forward pass.
# --8<-- [start:saved]
import torch

x = torch.tensor(3.0, requires_grad=True)
s = x**2

print(s.grad_fn.name())
print("saved input:   ", s.grad_fn._saved_self)
print("saved exponent:", s.grad_fn._saved_exponent)
# --8<-- [end:saved]

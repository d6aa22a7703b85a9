# What the square's node keeps from the forward pass.
# --8<-- [start:saved]
import torch

x = torch.tensor(3.0, requires_grad=True)
s = x**2

print(s.grad_fn.name())
print("saved input:   ", s.grad_fn._saved_self)
print("saved exponent:", s.grad_fn._saved_exponent)
# --8<-- [end:saved]

# --8<-- [start:claim-saved-until-backward]
t = torch.tensor(3.0, requires_grad=True)
square = t**2
# kept from the forward pass: a reference to t itself, not a copy...
assert square.grad_fn._saved_self.data_ptr() == t.data_ptr()
square.backward()
# ...until backward() has used it
try:
    square.grad_fn._saved_self.item()
    kept = True
except RuntimeError as error:
    kept = "freed" not in str(error)
assert not kept
# --8<-- [end:claim-saved-until-backward]

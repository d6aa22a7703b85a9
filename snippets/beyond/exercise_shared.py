# Exercise: one weight used in three terms.
# --8<-- [start:check]
import torch

a, b = 2.0, 5.0
w = torch.tensor(3.0, requires_grad=True)
z = w * a + w * b + w * w  # w is in every term, and twice in w * w

# By hand, one contribution per use of w: a, b, and w twice (for w * w)
uses = [a, b, w.item(), w.item()]
grad_hand = sum(uses)
z.backward()
print(f"by hand:  a + b + 2w = {grad_hand:g}")
print(f"autograd: w.grad     = {w.grad.item():g}")
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
assert w.grad.item() == grad_hand  # the sum over the paths
# --8<-- [end:claim-agrees]

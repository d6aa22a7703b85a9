# Exercise: what detach() does to a gradient.
# --8<-- [start:check]
import torch

w = torch.tensor(3.0, requires_grad=True)
f = w * (w.detach() + 1)  # the second factor is a constant to autograd
f.backward()
print("autograd: w.grad =", w.grad)

full_hand = 2 * w.item() + 1  # d(w * (w + 1))/dw = 2w + 1, both factors
held_hand = w.item() + 1  # d(w * c)/dw = c, with c = w + 1 held fixed
print(f"by hand: {full_hand:g} without detach, {held_hand:g} with it")
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
assert w.grad.item() == held_hand  # the detached factor is a constant
# without detach(), autograd gives the other hand result
u = torch.tensor(w.item(), requires_grad=True)
f_full = u * (u + 1)
f_full.backward()
assert u.grad.item() == full_hand
assert full_hand != held_hand  # so the two gradients differ here
# while the two values of f are the same: detach() changed only the gradient
assert f.item() == f_full.item()
# --8<-- [end:claim-agrees]

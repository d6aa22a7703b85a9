# Updating a weight in place: only outside the graph, in torch.no_grad().
# --8<-- [start:update]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w**2).sum()
loss.backward()

try:
    w -= 0.1 * w.grad  # recorded: autograd would have to differentiate it
except RuntimeError as e:
    print(f"RuntimeError: {e}")

with torch.no_grad():
    w -= 0.1 * w.grad  # not recorded: a plain update of the numbers
print("after the update:", w)
print("still a leaf:", w.is_leaf, "  grad_fn:", w.grad_fn)
# --8<-- [end:update]

# --8<-- [start:claim-update-keeps-leaf]
assert w.is_leaf and w.grad_fn is None and w.requires_grad
# --8<-- [end:claim-update-keeps-leaf]

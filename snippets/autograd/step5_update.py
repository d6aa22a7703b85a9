# The update step: refused outside no_grad, done inside it.
# --8<-- [start:update]
import torch

w = torch.tensor(3.0, requires_grad=True)
loss = (2 * w - 1) ** 2
loss.backward()  # fills w.grad
lr = 0.1
try:
    w -= lr * w.grad  # outside no_grad: refused
except RuntimeError as error:
    print("RuntimeError:", error)

with torch.no_grad():
    w -= lr * w.grad  # inside no_grad: done, and not recorded
print(f"w = {w.item():g}   is a leaf: {w.is_leaf}   grad_fn: {w.grad_fn}")
# --8<-- [end:update]

# --8<-- [start:claim-inplace-leaf-raises]
try:
    w -= lr * w.grad
    refused = ""
except RuntimeError as error:
    refused = str(error)
assert refused.startswith(
    "a leaf Variable that requires grad is being used in an in-place operation"
)
assert w.is_leaf and w.grad_fn is None  # the update under no_grad left a leaf
# not only -=: every in-place change of such a leaf is refused
for change in (
    lambda t: t.sub_(1),
    lambda t: t.add_(1),
    lambda t: t.mul_(2),
    lambda t: t.zero_(),
    lambda t: t.copy_(torch.tensor(0.0)),
    lambda t: t.clamp_(min=0),
):
    try:
        change(w)
        refused = ""
    except RuntimeError as error:
        refused = str(error)
    assert refused.startswith("a leaf Variable that requires grad"), change
# --8<-- [end:claim-inplace-leaf-raises]

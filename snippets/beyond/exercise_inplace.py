# Exercise: read an in-place error, find the edit, fix it.
# --8<-- [start:broken]
import torch

w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])
h = torch.sigmoid(w * x)
h *= 2  # scale the activations
loss = h.sum()
try:
    loss.backward()
except RuntimeError as error:
    message = str(error)
    print(f"RuntimeError: {message}")
# --8<-- [end:broken]

# --8<-- [start:claim-broken]
assert "output 0 of Sigmoid," in message  # the node that saved h, its output
assert "is at version 1; expected version 0" in message  # one edit since
assert w.grad is None  # the failed backward filled nothing
# --8<-- [end:claim-broken]

# --8<-- [start:fixed]
h = torch.sigmoid(w * x)
h = h * 2  # a new tensor: the sigmoid's saved output stays as it was
h.sum().backward()
s = torch.sigmoid(w * x).detach()
grad_hand = 2 * s * (1 - s) * x  # by hand: 2 σ(wx)(1 - σ(wx)) x
print("autograd:", w.grad)
print("by hand: ", grad_hand)
# --8<-- [end:fixed]

# --8<-- [start:claim-agrees]
assert torch.allclose(w.grad, grad_hand)
# --8<-- [end:claim-agrees]

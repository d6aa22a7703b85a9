# torch.autograd.grad returns a gradient instead of adding it into .grad.
# --8<-- [start:grad]
import torch

w = torch.tensor(2.0, requires_grad=True)
for call in range(1, 4):
    loss = w**3
    (grad_w,) = torch.autograd.grad(loss, [w])  # d(loss)/dw = 3 * w**2
    print(f"call {call}: returned {grad_w.item()}, w.grad = {w.grad}")
# --8<-- [end:grad]

# --8<-- [start:claim-returns-not-stores]
# for several inputs, also when .grad already holds a value: grad() returns
# the derivative of each, and leaves every .grad as it was
for start in (-1.5, 0.0, 2.0, 4.0):
    a = torch.tensor(start, requires_grad=True)
    b = torch.tensor([1.0, -2.0], requires_grad=True)
    b.grad = torch.tensor([7.0, 7.0])  # a value from an earlier backward()
    out = (a**3 * b).sum()
    grad_a, grad_b = torch.autograd.grad(out, [a, b])
    assert grad_a.item() == 3 * start**2 * (1.0 - 2.0)
    assert torch.equal(grad_b, torch.tensor([start**3, start**3]))
    assert a.grad is None  # nothing stored
    assert torch.equal(b.grad, torch.tensor([7.0, 7.0]))  # nothing added
# --8<-- [end:claim-returns-not-stores]

# Exercise: a safe log that still gives NaN gradients, and its fix.
# --8<-- [start:broken]
import torch

x = torch.tensor([0.0, 2.0], requires_grad=True)
y = torch.where(x > 0, x * torch.log(x), 0.0)  # x log x, taken as 0 at 0
y.sum().backward()
print("broken: y =", y.tolist(), "  x.grad =", x.grad.tolist())
broken_grad = x.grad.clone()
# --8<-- [end:broken]

# --8<-- [start:fixed]
x.grad = None
safe = torch.where(x > 0, x, 1.0)  # log never sees the 0
y_fixed = torch.where(x > 0, safe * torch.log(safe), 0.0)
y_fixed.sum().backward()
print("fixed:  y =", y_fixed.tolist(), "  x.grad =", x.grad.tolist())
by_hand = [0.0, torch.log(torch.tensor(2.0)).item() + 1.0]  # log x + 1
print("by hand:           x.grad =", by_hand)
# --8<-- [end:fixed]

# --8<-- [start:claim-fixed]
assert torch.isnan(broken_grad[0])  # 0 * log(0) = 0 * -inf in backward
assert not torch.isnan(x.grad).any() and y_fixed.tolist() == y.tolist()
assert torch.allclose(x.grad, torch.tensor(by_hand))
# --8<-- [end:claim-fixed]

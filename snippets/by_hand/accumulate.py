# backward() adds into .grad; it never overwrites it.
# --8<-- [start:accumulate]
import torch

x = torch.tensor(3.0, requires_grad=True)
calls = 3
for call in range(calls):
    y = x**2
    y.backward()
    print(f"after backward call {call + 1}: x.grad = {x.grad.item():g}")

per_call = 2 * x.item()  # by hand: each call's dy/dx is 2x
total_hand = calls * per_call  # and the calls add up
print(f"by hand: {calls} calls * {per_call:g} = {total_hand:g}")
accumulated = x.grad.item()
# --8<-- [end:accumulate]

# --8<-- [start:zero]
w = torch.tensor(3.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
compared = []  # (by hand, autograd) at each step
for step in range(3):
    optimizer.zero_grad()  # forget the previous step's gradient
    loss = w**2
    loss.backward()
    by_hand = 2 * w.item()  # d(w**2)/dw = 2w
    grad = w.grad.item()
    compared.append((by_hand, grad))
    print(f"step {step}: w = {w.item():g}")
    print(f"  by hand: {by_hand:g}   autograd: w.grad = {grad:g}")
    optimizer.step()  # w -= 0.1 * w.grad
# --8<-- [end:zero]

# --8<-- [start:claim-agrees]
assert accumulated == total_hand  # the calls added up, as by hand
# in the loop with zero_grad(), each step's gradient is 2w for that step's w
assert all(by_hand == grad for by_hand, grad in compared)
# --8<-- [end:claim-agrees]

# --8<-- [start:claim-zero-grad-none]
# by default zero_grad() removes .grad; it does not store zeros
optimizer.zero_grad()
assert w.grad is None
# and it does so for all the parameters it was given, in one call
several = [torch.ones(2, requires_grad=True) for _ in range(3)]
sum((p**2).sum() for p in several).backward()
assert all(p.grad is not None for p in several)
torch.optim.SGD(several, lr=0.1).zero_grad()
assert all(p.grad is None for p in several)
# so the next backward() starts from nothing
(w**2).backward()
assert w.grad.item() == 2 * w.item()
# --8<-- [end:claim-zero-grad-none]

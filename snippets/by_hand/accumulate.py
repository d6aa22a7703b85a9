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
# by default zero_grad() removes .grad; it does not store zeros, and it does
# so for all the parameters it was given, in one call, in every optimizer
import inspect  # noqa: E402  (a claim section, left out of the page)

optimizer_classes = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
assert len(optimizer_classes) > 10 and torch.optim.SGD in optimizer_classes
for cls in optimizer_classes:
    several = [torch.ones(2, 2, requires_grad=True) for _ in range(3)]
    sum((q**2).sum() for q in several).backward()
    assert all(q.grad is not None for q in several)
    cls(several).zero_grad()
    assert all(q.grad is None for q in several), cls
    # so the next backward() starts from nothing
    (several[0] ** 2).sum().backward()
    assert torch.equal(several[0].grad, 2 * several[0].detach()), cls
# --8<-- [end:claim-zero-grad-none]

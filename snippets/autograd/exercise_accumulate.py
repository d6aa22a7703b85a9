# Exercise: two backward() calls without a reset, then one after it.
# --8<-- [start:check]
import torch

w = torch.tensor(2.0, requires_grad=True)
calls = 2
for _ in range(calls):
    (w**3).backward()  # no reset in between
print(f"after {calls} calls:  w.grad =", w.grad)
after_calls = w.grad.item()  # kept, to compare with the hand result

w.grad = None  # what optimizer.zero_grad() does
(w**3).backward()
print("after the reset:  w.grad =", w.grad)

per_call_hand = 3 * w.item() ** 2  # by hand: d(w**3)/dw = 3w**2
total_hand = calls * per_call_hand
print(f"by hand: one call {per_call_hand:g}, {calls} calls {total_hand:g}")
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
assert after_calls == total_hand  # the calls added up, as worked out by hand
assert w.grad.item() == per_call_hand  # after the reset: one call's gradient
# --8<-- [end:claim-agrees]

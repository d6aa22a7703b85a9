# backward() adds into .grad; it does not overwrite it.
# --8<-- [start:accumulate]
import torch

w = torch.tensor(1.0, requires_grad=True)
rate = 3.0  # L = rate * w, so dL/dw = rate, whatever w is
calls = 3
seen = []  # w.grad after each call, to quote below
for call in range(1, calls + 1):
    loss = rate * w
    loss.backward()
    seen.append(w.grad.item())
    print(f"after backward call {call}: w.grad = {w.grad.item()}")
# --8<-- [end:accumulate]

# --8<-- [start:claim-backward-adds]
assert seen == [rate * call for call in range(1, calls + 1)]  # a running sum
# --8<-- [end:claim-backward-adds]

# --8<-- [start:claim-same-loss-twice-raises]
# backward() a second time on the very same loss tensor raises, because
# the multiplication node's saved value was freed by the first walk
v = torch.tensor(1.0, requires_grad=True)
same_loss = rate * v
assert same_loss.grad_fn._saved_other.item() == rate  # saved: dL/dv = rate
same_loss.backward()
try:
    saved = same_loss.grad_fn._saved_other  # read the value the node saved
    freed = False
except RuntimeError as e:
    freed = "freed" in str(e)
assert freed
try:
    same_loss.backward()
    raised = False
except RuntimeError as e:
    raised = "backward through the graph a second time" in str(e)
assert raised
# that first walk was a plain backward(): one with retain_graph=True keeps
# the saved value, and the second backward() runs
u = torch.tensor(1.0, requires_grad=True)
kept_loss = rate * u
kept_loss.backward(retain_graph=True)
assert kept_loss.grad_fn._saved_other.item() == rate
kept_loss.backward()
assert u.grad.item() == 2 * rate
# --8<-- [end:claim-same-loss-twice-raises]

# --8<-- [start:reset]
# what an optimizer's zero_grad() achieves for every parameter
w.grad.zero_()
print(f"after w.grad.zero_():     w.grad = {w.grad.item()}")
# --8<-- [end:reset]

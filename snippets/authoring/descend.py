# Five steps of gradient descent on loss = (w - target)**2, from w = 0.
# --8<-- [start:setup]
import torch

target = 3.0
w = torch.tensor(0.0, requires_grad=True)
lr = 0.25
history = [w.item()]  # w before the first step, then after each step
# --8<-- [end:setup]

# --8<-- [start:descend]
for step in range(1, 6):
    loss = (w - target) ** 2
    loss.backward()  # fills w.grad with 2 * (w - target)
    with torch.no_grad():
        w -= lr * w.grad
    w.grad.zero_()
    history.append(w.item())
    print(f"step {step}: w = {w.item():.4f}")
# --8<-- [end:descend]

# --8<-- [start:claim-halves]
# From other starts too, one step leaves half the distance to the target.
for start in (0.0, -4.0, 10.0):
    v = torch.tensor(start, requires_grad=True)
    ((v - target) ** 2).backward()
    with torch.no_grad():
        after = v - lr * v.grad
    assert abs(after.item() - target) == abs(start - target) / 2
# --8<-- [end:claim-halves]

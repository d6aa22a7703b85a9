# backward() adds into .grad; it never overwrites it.
# --8<-- [start:accumulate]
import torch

x = torch.tensor(3.0, requires_grad=True)
for call in range(3):
    y = x**2
    y.backward()
    print(f"after backward call {call + 1}: x.grad = {x.grad.item():g}")
# --8<-- [end:accumulate]

# --8<-- [start:zero]
w = torch.tensor(3.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    optimizer.zero_grad()  # forget the previous step's gradient
    loss = w**2
    loss.backward()
    print(f"step {step}: w = {w.item():g}   w.grad = {w.grad.item():g}")
    optimizer.step()  # w -= 0.1 * w.grad
# --8<-- [end:zero]

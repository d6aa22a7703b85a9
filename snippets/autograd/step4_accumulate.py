# backward() adds into .grad; it does not overwrite it.
# --8<-- [start:accumulate]
import torch

w = torch.tensor(1.0, requires_grad=True)
seen = []  # w.grad after each call, to quote below
for call in range(1, 4):
    loss = 3 * w  # dL/dw = 3, whatever w is
    loss.backward()
    seen.append(w.grad.item())
    print(f"after backward call {call}: w.grad = {w.grad.item()}")
# --8<-- [end:accumulate]

# --8<-- [start:reset]
# what an optimizer's zero_grad() achieves for every parameter
w.grad.zero_()
print(f"after w.grad.zero_():     w.grad = {w.grad.item()}")
# --8<-- [end:reset]

# Backward twice through one graph: freed saved values, and retain_graph.
# --8<-- [start:twice]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3  # the power node saves x for its backward
y.backward()
print("first backward:  x.grad =", x.grad.item())

try:
    y.backward()  # the saved x was freed by the first call
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:twice]

# --8<-- [start:retain]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.backward(retain_graph=True)  # keep the saved values for another pass
first = x.grad.item()
print("first backward:  x.grad =", first)
y.backward()  # works, and adds into .grad again
print("second backward: x.grad =", x.grad.item())
# --8<-- [end:retain]

# --8<-- [start:claim-retain-adds]
assert x.grad.item() == 2 * first  # the second pass added the same again
# --8<-- [end:claim-retain-adds]

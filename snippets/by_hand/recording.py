# Recording is switched on per tensor, with requires_grad=True.
# --8<-- [start:opt_in]
import torch

data = torch.tensor([1.0, 2.0, 3.0])  # input data: never adjusted
w = torch.tensor(0.5, requires_grad=True)  # a parameter: adjusted

print("data.requires_grad:", data.requires_grad)
print("w.requires_grad:   ", w.requires_grad)

doubled = data * 2  # only data involved: nothing is recorded
scaled = w * data  # w involved: the multiplication is recorded
print("doubled.grad_fn:", doubled.grad_fn)
print("scaled.grad_fn: ", scaled.grad_fn.name())
# --8<-- [end:opt_in]

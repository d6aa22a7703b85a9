# Exercise 1: the slope of y = x**3 - 2x at x = 4.
# --8<-- [start:check]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = x**3 - 2 * x
y.backward()
print(f"y = {y.item():g}   x.grad = {x.grad.item():g}")
# --8<-- [end:check]

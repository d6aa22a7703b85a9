# The slope of y = x**2 at three points, asked of autograd.
# --8<-- [start:slope]
import torch

points = [3.0, -2.0, 0.0]
slopes = []
for point in points:
    x = torch.tensor(point, requires_grad=True)
    y = x**2
    y.backward()  # fills x.grad with dy/dx at this point
    slopes.append(x.grad.item())
    print(f"x = {point:2g}   y = {y.item():g}   x.grad = {x.grad.item():g}")
# --8<-- [end:slope]

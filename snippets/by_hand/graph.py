# The graph autograd records for z = 2x**2 + 1 at x = 3, and the walk back.
# --8<-- [start:forward]
import torch

x = torch.tensor(3.0, requires_grad=True)
s = x**2  # the square
u = 2 * s  # times 2
z = u + 1  # plus 1

print(f"x = {x.item():2g}   grad_fn: {x.grad_fn}")
print(f"s = {s.item():2g}   grad_fn: {s.grad_fn.name()}")
print(f"u = {u.item():2g}   grad_fn: {u.grad_fn.name()}")
print(f"z = {z.item():2g}   grad_fn: {z.grad_fn.name()}")
# --8<-- [end:forward]

# --8<-- [start:backward]
for node in (s, u, z):
    node.retain_grad()  # keep the gradient that arrives at s, u and z too
z.backward()

print(f"dz/dz = {z.grad.item():2g}")
print(f"dz/du = {u.grad.item():2g}")
print(f"dz/ds = {s.grad.item():2g}")
print(f"dz/dx = {x.grad.item():2g}")
# --8<-- [end:backward]

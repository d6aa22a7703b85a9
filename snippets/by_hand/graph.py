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

# --8<-- [start:by_hand]
# By hand: start at z with 1, multiply by each node's local slope
slope_add = 1.0  # z = u + 1, so dz/du = 1
slope_mul = 2.0  # u = 2 * s, so du/ds = 2
slope_square = 2 * x.item()  # s = x**2, so ds/dx = 2x
grad_z_hand = 1.0
grad_u_hand = grad_z_hand * slope_add
grad_s_hand = grad_u_hand * slope_mul
grad_x_hand = grad_s_hand * slope_square
# --8<-- [end:by_hand]

# --8<-- [start:backward]
for node in (s, u, z):
    node.retain_grad()  # keep the gradient that arrives at s, u and z too
z.backward()

print(f"dz/dz  by hand: {grad_z_hand:2g}  autograd: {z.grad.item():2g}")
print(f"dz/du  by hand: {grad_u_hand:2g}  autograd: {u.grad.item():2g}")
print(f"dz/ds  by hand: {grad_s_hand:2g}  autograd: {s.grad.item():2g}")
print(f"dz/dx  by hand: {grad_x_hand:2g}  autograd: {x.grad.item():2g}")
# --8<-- [end:backward]

# --8<-- [start:claim-agrees]
# each step of the hand walk is autograd's, node by node
assert all(
    node.grad.item() == hand
    for node, hand in (
        (z, grad_z_hand),
        (u, grad_u_hand),
        (s, grad_s_hand),
        (x, grad_x_hand),
    )
)
# --8<-- [end:claim-agrees]

# Exercise: the Jacobian of f(x, y) = (x*y, x + y**2) at (2, 3).
# --8<-- [start:check]
import torch
from torch.func import jacrev


def f(p):
    x, y = p
    return torch.stack([x * y, x + y**2])


point = torch.tensor([2.0, 3.0])
x, y = point.tolist()
# By hand: row i holds the partial derivatives of output i
J_hand = [[y, x], [1.0, 2 * y]]
J = jacrev(f)(point)
print("by hand: ", J_hand)
print("autograd:", J.tolist())
# --8<-- [end:check]

# --8<-- [start:claim-agrees]
assert torch.equal(J, torch.tensor(J_hand))  # jacrev's matrix is the hand one
# --8<-- [end:claim-agrees]

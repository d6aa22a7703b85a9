# Whole Jacobians with torch.func.jacrev, and what backward(gradient=v) is.
# --8<-- [start:diagonal]
import torch
from torch.func import jacrev


def square(t):
    return t**2


t = torch.tensor([1.0, 2.0, 3.0])
J = jacrev(square)(t)  # J[i, j] = d square(t)[i] / d t[j]
print(J)
same = torch.autograd.functional.jacobian(square, t)  # the older API
print("autograd.functional.jacobian agrees:", torch.equal(J, same))
# --8<-- [end:diagonal]

# --8<-- [start:vjp]
v = torch.tensor([1.0, 0.1, 0.01])
t.requires_grad_(True)
square(t).backward(gradient=v)  # what backward computes: v @ J
print("backward(gradient=v):", t.grad)
print("v @ J:               ", v @ J)
# --8<-- [end:vjp]

# --8<-- [start:claim-diagonal]
assert torch.equal(J, torch.diag(2 * t))  # diagonal, with 2t on the diagonal
assert torch.equal(J, same)  # the older interface gives the same matrix
# --8<-- [end:claim-diagonal]

# --8<-- [start:claim-vjp]
assert torch.allclose(t.grad, v @ J)  # backward(gradient=v) computes vᵀJ
# --8<-- [end:claim-vjp]


# --8<-- [start:softmax]
def softmax(z):
    return torch.softmax(z, dim=0)  # probabilities that sum to 1


logits = torch.tensor([2.0, 1.0, 0.1, -1.0])
probs = softmax(logits)
J_softmax = jacrev(softmax)(logits)
print("probs:", probs.round(decimals=3))
print(J_softmax.round(decimals=3))
column_sums = J_softmax.sum(dim=0)
sums_to_zero = torch.allclose(column_sums, torch.zeros(4), atol=1e-6)
print("every column sums to 0 (up to rounding):", sums_to_zero)
# --8<-- [end:softmax]

# --8<-- [start:claim-softmax-columns]
# The probabilities always sum to 1, so no nudge of a logit changes the sum.
assert torch.allclose(column_sums, torch.zeros(4), atol=1e-6)
# --8<-- [end:claim-softmax-columns]

# --8<-- [start:claim-softmax-entries]
# p_i (1 - p_i) on the diagonal, -p_i p_j off it: diag(p) - p pᵀ
assert torch.allclose(J_softmax, torch.diag(probs) - torch.outer(probs, probs))
# --8<-- [end:claim-softmax-entries]

# --8<-- [start:claim-rows-are-vjps]
# row i of the Jacobian is the vector-Jacobian product with v = 1 at output i
_, vjp_of = torch.func.vjp(softmax, logits)
for i, one_hot in enumerate(torch.eye(len(logits))):
    (row,) = vjp_of(one_hot)
    assert torch.allclose(row, J_softmax[i])
# --8<-- [end:claim-rows-are-vjps]

# --8<-- [start:claim-vjp-no-jacobian]
# backward never builds J: for an input of 200,000 numbers, J would hold
# 4e10 entries (160 GB in float32), yet backward(gradient=v) runs, and the
# gradient passing each tensor of the chain has that tensor's shape: a vector
big = torch.linspace(-1.0, 1.0, 200_000, requires_grad=True)
chain = [big]
for op in (
    torch.sin,
    lambda u: u * 2 + 1,
    torch.exp,
    lambda u: u.cumsum(0),  # each entry depends on all before it
    torch.tanh,
):
    chain.append(op(chain[-1]))
passing = []
for u in chain[1:]:
    u.register_hook(lambda g, u=u: passing.append((g.shape, u.shape)))
chain[-1].backward(gradient=torch.ones(200_000))
assert len(passing) == len(chain) - 1
assert all(g == shape == big.shape for g, shape in passing)
assert big.grad.shape == big.shape
# --8<-- [end:claim-vjp-no-jacobian]

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
assert torch.equal(torch.func.jacfwd(square)(t.detach()), J)  # and jacfwd
# jacfwd works in forward mode, by columns: on a function whose forward-mode
# rule (jvp) and backward are watched, it calls jvp and never backward, and
# column j of its result is the forward-mode product with the one-hot
# tangent of input j
calls_forward, calls_back = [], []


class ForwardWatched(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(matrix, u):
        return matrix @ u

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.matrix = inputs[0]

    @staticmethod
    def jvp(ctx, matrix_tangent, u_tangent):
        calls_forward.append(1)
        return ctx.matrix @ u_tangent

    @staticmethod
    def backward(ctx, grad_output):
        calls_back.append(1)
        return None, ctx.matrix.T @ grad_output


for outputs, inputs in ((2, 3), (3, 3), (4, 2)):
    calls_forward.clear()
    A = torch.arange(outputs * inputs, dtype=torch.float)
    A = A.reshape(outputs, inputs) - 2
    point = torch.ones(inputs)
    J_fwd = torch.func.jacfwd(lambda u, A=A: ForwardWatched.apply(A, u))(point)
    assert len(calls_forward) >= 1 and not calls_back
    assert torch.equal(J_fwd, A)
    for j, tangent in enumerate(torch.eye(inputs)):
        _, column = torch.func.jvp(
            lambda u, A=A: ForwardWatched.apply(A, u), (point,), (tangent,)
        )
        assert torch.equal(J_fwd[:, j], column)
assert not calls_back
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

# and that is how jacrev builds it: watched in the backward of f(x) = A x,
# jacrev calls backward once, with a batch (vmap) of grad_outputs that is
# the one-hot vector of each output, and the rows it returns are J = A
handed_batches = []


class Mix(torch.autograd.Function):
    generate_vmap_rule = True  # so that torch.func can batch it

    @staticmethod
    def forward(matrix, u):
        return matrix @ u

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (matrix,) = ctx.saved_tensors
        # the batch vmap runs the backward over, unwrapped (internal API)
        # (with chunk_size=1, jacrev runs no vmap: a batch of one)
        if torch._C._functorch.is_batchedtensor(grad_output):
            batch = torch._C._functorch.get_unwrapped(grad_output)
        else:
            batch = grad_output.unsqueeze(0)
        handed_batches.append(batch)
        return None, matrix.T @ grad_output


for outputs in (1, 3, 5):
    handed_batches.clear()
    A = torch.arange(outputs * 4, dtype=torch.float).reshape(outputs, 4)
    J_mix = jacrev(lambda u, A=A: Mix.apply(A, u))(torch.ones(4))
    assert len(handed_batches) == 1  # one batched backward
    assert torch.equal(handed_batches[0], torch.eye(outputs))  # one-hot rows
    assert torch.equal(J_mix, A)
# that is jacrev's default, chunk_size=None; with chunk_size=k it calls
# backward once per k outputs (the last batch may be smaller), and the
# batches together are still the one-hot vector of each output
for outputs in (1, 3, 5):
    for chunk in (1, 2, 3):
        handed_batches.clear()
        A = torch.arange(outputs * 4, dtype=torch.float).reshape(outputs, 4)
        J_mix = jacrev(lambda u, A=A: Mix.apply(A, u), chunk_size=chunk)(
            torch.ones(4)
        )
        assert len(handed_batches) == -(-outputs // chunk)  # rounded up
        assert max(len(batch) for batch in handed_batches) <= chunk
        assert torch.equal(torch.cat(handed_batches), torch.eye(outputs))
        assert torch.equal(J_mix, A)
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

# --8<-- [start:claim-one-pass]
# one backward pass runs each node of the graph once, whatever the number of
# inputs, and gives the gradient for every input
for size in (1, 10, 1000, 200_000):
    inputs_here = torch.linspace(-1.0, 1.0, size, requires_grad=True)
    # u * u + u: the node of u feeds three edges, and still runs once
    ops = [torch.sin, lambda u: u * u + u, torch.exp, torch.tanh]
    out_here = inputs_here
    for op in ops:
        out_here = op(out_here)
    root = out_here.sum()
    runs, todo, nodes = [], [root.grad_fn], []
    while todo:
        node = todo.pop()
        if node is not None and node not in nodes:
            nodes.append(node)
            node.register_prehook(lambda g, n=node, r=runs: r.append(n))
            todo.extend(n for n, _ in node.next_functions)
    root.backward()
    assert sorted(map(id, runs)) == sorted(map(id, nodes)), size
    assert inputs_here.grad.shape == inputs_here.shape
# --8<-- [end:claim-one-pass]

# --8<-- [start:claim-jacobian-cost]
import math  # noqa: E402  (a claim section, left out of the page)

# torch.autograd.functional.jacobian makes one backward pass per output
backward_calls = []


class Watched(torch.autograd.Function):
    @staticmethod
    def forward(ctx, matrix, u):
        ctx.save_for_backward(matrix)
        return matrix @ u

    @staticmethod
    def backward(ctx, grad_output):
        backward_calls.append(grad_output.clone())
        (matrix,) = ctx.saved_tensors
        return None, matrix.T @ grad_output


for outputs in (1, 3, 5):
    backward_calls.clear()
    A = torch.arange(outputs * 4, dtype=torch.float).reshape(outputs, 4)
    J_watched = torch.autograd.functional.jacobian(
        lambda u, A=A: Watched.apply(A, u), torch.ones(4)
    )
    assert len(backward_calls) == outputs  # one per output
    assert torch.equal(torch.stack(backward_calls), torch.eye(outputs))
    assert torch.equal(J_watched, A)
    # that is its default, vectorize=False; with vectorize=True it calls
    # backward once, for all the outputs together
    backward_calls.clear()
    J_watched = torch.autograd.functional.jacobian(
        lambda u, A=A: Watched.apply(A, u), torch.ones(4), vectorize=True
    )
    assert len(backward_calls) == 1
    assert torch.equal(J_watched, A)
# for a function with one number out, the Jacobian is the gradient, in the
# shape of the input, as .grad has
for shape in ((3,), (2, 3)):
    point = torch.linspace(-1.0, 1.0, 6)[: math.prod(shape)].reshape(shape)
    row_J = jacrev(lambda u: (u**3).sum())(point)
    leaf = point.clone().requires_grad_()
    (leaf**3).sum().backward()
    assert row_J.shape == point.shape and torch.equal(row_J, leaf.grad)
# --8<-- [end:claim-jacobian-cost]

# backward(gradient=v) through a chain of three operations, node by node.
# --8<-- [start:chain]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = x**2  # recorded by a PowBackward0 node
b = a.cumsum(0)  # CumsumBackward0: b[i] = a[0] + ... + a[i]
y = 2 * b  # MulBackward0
for t in (y, b, a):
    t.retain_grad()  # keep the vector that reaches this result in its .grad

v = torch.tensor([1.0, -1.0, 2.0])
y.backward(gradient=v)
print("v reaches y:                ", y.grad)
print("MulBackward0 passes to b:   ", b.grad)
print("CumsumBackward0 passes to a:", a.grad)
print("PowBackward0 passes to x:   ", x.grad)
# --8<-- [end:chain]

# --8<-- [start:claim-node-by-node]
# Watched with hooks on the nodes themselves, each node receives one vector
# and passes on that vector times its own Jacobian (vᵀJ), the Jacobian
# computed another way (torch.autograd.functional.jacobian); the first node
# receives v, each node receives what the one after it passed, and the last
# vector is x.grad. Here, and for other x and v.
from torch.autograd.functional import jacobian  # noqa: E402

operations = [lambda u: u**2, lambda u: u.cumsum(0), lambda u: 2 * u]
names = ["PowBackward0", "CumsumBackward0", "MulBackward0"]
generator = torch.Generator().manual_seed(0)
cases = [(x.detach(), v)] + [
    (torch.randn(n, generator=generator), torch.randn(n, generator=generator))
    for n in (1, 3, 5)
]
for start, weights in cases:
    leaf = start.clone().requires_grad_()
    results = [leaf]
    for op in operations:
        results.append(op(results[-1]))
    seen = {}  # node -> (vector received, vector passed on)
    for result in results[1:]:
        node = result.grad_fn

        def watch(passed, received, node=node, seen=seen):
            seen[node] = (received[0].clone(), passed[0].clone())

        node.register_hook(watch)
    assert [r.grad_fn.name() for r in results[1:]] == names
    results[-1].backward(gradient=weights)
    arriving = weights
    steps = zip(operations, results[:-1], results[1:], strict=True)
    for op, before, after in reversed(list(steps)):
        received, passed = seen[after.grad_fn]
        assert torch.equal(received, arriving)  # what the node after it passed
        J = jacobian(op, before.detach())
        assert torch.allclose(passed, arriving @ J)  # vᵀJ
        arriving = passed
    assert torch.equal(arriving, leaf.grad)  # the last vector is x.grad
# the vectors the run printed are the ones the nodes passed
assert torch.equal(y.grad, v)
assert torch.equal(b.grad, y.grad @ jacobian(operations[2], b.detach()))
assert torch.equal(a.grad, b.grad @ jacobian(operations[1], a.detach()))
assert torch.equal(x.grad, a.grad @ jacobian(operations[0], x.detach()))
# --8<-- [end:claim-node-by-node]

# --8<-- [start:claim-retain-grad]
# Without retain_grad(), an intermediate result keeps no .grad (reading it
# warns); with it, its .grad holds the vector that reached it, the same as
# torch.autograd.grad returns for that result. The leaf keeps its .grad
# either way.
import warnings  # noqa: E402


def three_steps(leaf):
    steps = [leaf**2]
    steps.append(steps[-1].cumsum(0))
    steps.append(2 * steps[-1])
    return steps


# on a chain of its own: torch.autograd.grad would also fill a retained .grad
fresh = three_steps(x.detach().clone().requires_grad_())
expected = torch.autograd.grad(fresh[-1], fresh, v)
for keep in (False, True):
    leaf = x.detach().clone().requires_grad_()
    steps = three_steps(leaf)
    if keep:
        for t in steps:
            t.retain_grad()
    steps[-1].backward(gradient=v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept = [t.grad for t in steps]
    if keep:
        pairs = zip(kept, expected, strict=True)
        assert all(torch.equal(k, e) for k, e in pairs)
        assert not caught
    else:
        assert all(k is None for k in kept)
        assert len(caught) == len(steps)
    assert torch.equal(leaf.grad, x.grad)
# --8<-- [end:claim-retain-grad]

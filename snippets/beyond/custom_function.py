# A custom autograd Function: softplus with a stable forward and backward.
# --8<-- [start:naive]
import torch
import torch.nn.functional as F
from torch.autograd.gradcheck import GradcheckError

x = torch.tensor([0.0, 1.0, 100.0], requires_grad=True)
naive = torch.log(1 + torch.exp(x))  # exp(100) overflows float32 to inf
naive.sum().backward()
naive_grad = x.grad
print("naive softplus:", naive)
print("its gradient:  ", naive_grad)
# --8<-- [end:naive]


# --8<-- [start:stable]
def stable_softplus(x):
    # log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|)), and exp(-|x|) <= 1
    return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))


x = torch.tensor([0.0, 1.0, 100.0], requires_grad=True)
stable = stable_softplus(x)
stable.sum().backward()
stable_grad = x.grad
print("stable softplus:", stable)
print("its gradient:   ", stable_grad)
print("F.softplus:     ", F.softplus(x))
true_grad = torch.sigmoid(x.detach())  # d/dx log(1 + exp(x))
print("sigmoid(x), the true derivative:", true_grad)
# --8<-- [end:stable]

# --8<-- [start:claim-stable]
assert torch.isfinite(stable).all()  # the stable formula fixed the overflow
assert torch.allclose(stable, F.softplus(x))  # and gives F.softplus's values
# autograd through it is right except at the corner of max(x, 0), at 0
assert x[0].item() == 0 and stable_grad[0].item() == 1.0
assert true_grad[0].item() == 0.5
assert torch.allclose(stable_grad[1:], true_grad[1:])
# at 0, each operation's own convention: clamp(min=0) passes the gradient on
# (factor 1), abs gives 0; the sum of the two terms' slopes is clamp's 1.
# max(x, 0) spelled otherwise: relu gives 0, maximum splits the tie (0.5)
spellings = {
    "clamp": lambda u: u.clamp(min=0),
    "abs": torch.abs,
    "relu": torch.relu,
    "maximum": lambda u: torch.maximum(u, torch.zeros_like(u)),
}
corner_grads, whole_grads = {}, {}
for spelling, corner_op in spellings.items():
    at_zero = torch.zeros(1, requires_grad=True)
    corner_op(at_zero).sum().backward()
    corner_grads[spelling] = at_zero.grad.item()
    # the whole stable formula with this spelling of its first term
    whole = torch.zeros(1, requires_grad=True)
    tail = torch.log1p(torch.exp(-whole.abs()))
    (corner_op(whole) + tail).sum().backward()
    whole_grads[spelling] = whole.grad.item()
assert corner_grads["clamp"] == stable_grad[0].item() == 1.0
assert corner_grads["abs"] == 0.0
assert corner_grads["relu"] == 0.0 and whole_grads["relu"] == 0.0
assert corner_grads["maximum"] == 0.5 == whole_grads["maximum"]
assert whole_grads["maximum"] == true_grad[0].item()  # right, by its rule
assert whole_grads["clamp"] == stable_grad[0].item()
# maximum splits the tie: its other input, the zeros, gets the other half
tied = torch.zeros(1, requires_grad=True)
zeros_in = torch.zeros(1, requires_grad=True)
torch.maximum(tied, zeros_in).sum().backward()
assert tied.grad.item() == zeros_in.grad.item() == corner_grads["maximum"]
# the autograd notes' general rule for a convex corner: the sub-gradient of
# smallest size, the point of [left slope, right slope] nearest 0; relu
# follows it, clamp and maximum do not (each spelling is convex here)
for spelling, corner_op in spellings.items():
    sides = torch.tensor([-1.0, 1.0], requires_grad=True)
    corner_op(sides).sum().backward()
    left, right = sides.grad.tolist()
    smallest = min(max(0.0, left), right)  # nearest 0 in [left, right]
    follows = corner_grads[spelling] == smallest
    assert follows == (spelling in ("relu", "abs"))
assert corner_grads["relu"] == 0.0 != corner_grads["clamp"]
# --8<-- [end:claim-stable]


# --8<-- [start:function]
class Softplus(torch.autograd.Function):
    """log(1 + exp(x)), computed without overflow."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # backward needs x itself
        return stable_softplus(x)  # the stable formula, not recorded here

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # d/dx log(1 + exp(x)) = exp(x) / (1 + exp(x)) = sigmoid(x)
        return grad_output * torch.sigmoid(x)  # one gradient per input


x = torch.tensor([0.0, 1.0, 100.0], requires_grad=True)
out = Softplus.apply(x)  # apply, never forward() directly
out.sum().backward()
print("Softplus:      ", out)
print("its gradient:  ", x.grad)
# --8<-- [end:function]

# --8<-- [start:claim-custom-node]
assert type(out.grad_fn).__name__ == "SoftplusBackward"  # our backward
assert torch.isfinite(out).all() and torch.isfinite(x.grad).all()
# the hand-written derivative: sigmoid(x), 0.5 at 0, the same as F.softplus's
reference = x.detach().clone().requires_grad_()
F.softplus(reference).sum().backward()
assert torch.equal(x.grad, torch.sigmoid(x)) and x.grad[0].item() == 0.5
assert torch.allclose(x.grad, reference.grad)
# --8<-- [end:claim-custom-node]

# --8<-- [start:claim-apply]
# apply records one node and runs forward with recording off: inside it,
# grad mode is off and what forward computes has no grad_fn; ctx carries
# what forward saved to backward
seen = {}


class Probe(Softplus):
    @staticmethod
    def forward(ctx, x):
        seen["recording"] = torch.is_grad_enabled()
        inner = stable_softplus(x)
        seen["inner_grad_fn"] = inner.grad_fn
        ctx.save_for_backward(x)
        return inner

    @staticmethod
    def backward(ctx, grad_output):
        (saved,) = ctx.saved_tensors
        seen["saved"] = saved
        return grad_output * torch.sigmoid(saved)


for start in ([0.0, 1.0, 100.0], [-3.0], [[1.0, 2.0], [3.0, 4.0]]):
    seen.clear()
    probe_in = torch.tensor(start, requires_grad=True)
    probe_out = Probe.apply(probe_in)
    assert seen["recording"] is False and seen["inner_grad_fn"] is None
    assert type(probe_out.grad_fn).__name__ == "ProbeBackward"
    probe_out.sum().backward()
    assert torch.equal(seen["saved"], probe_in.detach())
# a Function written this way (forward takes ctx, no setup_context) cannot
# go through the torch.func transforms: they raise and ask for setup_context
for transform in (
    lambda: torch.func.vmap(Softplus.apply)(torch.randn(3, 2)),
    lambda: torch.func.grad(lambda u: Softplus.apply(u).sum())(torch.randn(3)),
    lambda: torch.func.jacrev(Softplus.apply)(torch.randn(3)),
):
    try:
        transform()
        message = None
    except RuntimeError as error:
        message = str(error)
    assert message is not None and "setup_context" in message
# --8<-- [end:claim-apply]

# --8<-- [start:gradcheck]
torch.manual_seed(0)
points = torch.randn(4, dtype=torch.double, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(Softplus.apply, (points,)))
# --8<-- [end:gradcheck]


# --8<-- [start:wrong]
class ForgetfulSoftplus(Softplus):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return torch.sigmoid(x)  # wrong: the factor grad_output is missing


try:
    torch.autograd.gradcheck(ForgetfulSoftplus.apply, (points,))
except GradcheckError as e:  # a subclass of RuntimeError
    print(f"GradcheckError: {e}")
# --8<-- [end:wrong]

# --8<-- [start:claim-forgetful-columns]
# watch what gradcheck hands to backward, for inputs of several sizes: one
# call per output with grad_output 1 there and 0 elsewhere, that whole round
# made twice, then calls with zeros (the check of claim-zero-grad-output)
handed = []


class WatchedCalls(Softplus):
    @staticmethod
    def backward(ctx, grad_output):
        handed.append(grad_output.clone())
        return Softplus.backward(ctx, grad_output)


for size in (1, 2, 4, 6):
    handed.clear()
    at = torch.linspace(-2.0, 2.0, size, dtype=torch.double)
    assert torch.autograd.gradcheck(WatchedCalls.apply, (at.requires_grad_(),))
    one_hots = list(torch.eye(size, dtype=torch.double))
    assert len(handed) > 2 * size
    pairs = zip(handed[: 2 * size], one_hots * 2, strict=True)
    assert all(torch.equal(h, e) for h, e in pairs)
    assert all(torch.all(h == 0) for h in handed[2 * size :])

# the forgetful backward, watched: for every one-hot grad_output it returns
# the same sigmoids, so every column of its Jacobian is that list
returned = []


class WatchedForgetful(ForgetfulSoftplus):
    @staticmethod
    def backward(ctx, grad_output):
        handed.append(grad_output.clone())
        returned.append(ForgetfulSoftplus.backward(ctx, grad_output))
        return returned[-1]


def gradcheck_error(function, inputs):
    """The GradcheckError gradcheck raises, or None if it passes."""
    try:
        torch.autograd.gradcheck(function, inputs)
    except GradcheckError as error:
        return error
    return None


handed.clear()
forgetful_error = gradcheck_error(WatchedForgetful.apply, (points,))
assert isinstance(forgetful_error, RuntimeError)  # a kind of RuntimeError
eye = list(torch.eye(points.numel(), dtype=torch.double))
assert len(handed) == 2 * points.numel()  # twice round, then the mismatch
assert all(torch.equal(h, e) for h, e in zip(handed, eye * 2, strict=True))
assert all(torch.equal(r, torch.sigmoid(points.detach())) for r in returned)
# why twice: a backward whose result drifts from one call to the next, though
# close enough to the numbers each time, fails on the two rounds differing
drift = []


class Drifting(Softplus):
    @staticmethod
    def backward(ctx, grad_output):
        drift.append(grad_output)
        return Softplus.backward(ctx, grad_output) * (1 + 1e-3 * len(drift))


loose = dict(atol=0.1, rtol=0.1)  # the Jacobians compared: close enough
drift_error = None
try:
    torch.autograd.gradcheck(Drifting.apply, (points,), **loose)
except GradcheckError as error:
    drift_error = error
assert drift_error is not None and "not reentrant" in str(drift_error)
assert "analytical gradient matches numerical" in str(drift_error)
# --8<-- [end:claim-forgetful-columns]

# --8<-- [start:one_point]
one_point = torch.tensor([0.5], dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(ForgetfulSoftplus.apply, (one_point,))
except GradcheckError as e:
    print(f"GradcheckError: {e}")
# --8<-- [end:one_point]

# --8<-- [start:claim-zero-grad-output]
seen = []  # every grad_output gradcheck hands to backward


class WatchedSoftplus(Softplus):
    @staticmethod
    def backward(ctx, grad_output):
        seen.append(grad_output.clone())
        return Softplus.backward(ctx, grad_output)


assert torch.autograd.gradcheck(WatchedSoftplus.apply, (one_point,))
assert any(torch.all(g == 0) for g in seen)  # one of them was all zeros
assert any(torch.all(g == 1) for g in seen)  # and one a one-hot 1
# at one point, the forgetful backward's Jacobian is the right one: comparing
# Jacobians alone would pass it
forgetful = ForgetfulSoftplus.apply(one_point)
(column,) = torch.autograd.grad(
    forgetful, one_point, torch.ones(1, dtype=torch.double)
)
assert torch.equal(column, torch.sigmoid(one_point.detach()))
# --8<-- [end:claim-zero-grad-output]


# --8<-- [start:claim-one-saved-tensor]
def operation_nodes(root):
    """The nodes of the graph ending at root, without the leaves' nodes."""
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is None or node in found:
            continue
        found.append(node)
        todo.extend(n for n, _ in node.next_functions)
    return [n for n in found if type(n).__name__ != "AccumulateGrad"]


def tensors_saved(node):
    names = (a for a in dir(node) if a.startswith("_saved_"))
    return [a for a in names if isinstance(getattr(node, a), torch.Tensor)]


# the custom node: one node, one saved tensor
custom = Softplus.apply(points)
assert operation_nodes(custom.grad_fn) == [custom.grad_fn]
assert len(custom.grad_fn.saved_tensors) == 1
# autograd on the stable forward: a node for each of its six operations
recorded = operation_nodes(stable_softplus(points).grad_fn)
names = sorted(type(n).__name__.rstrip("0123456789") for n in recorded)
operations = ["AbsBackward", "AddBackward", "ClampBackward"]
operations += ["ExpBackward", "Log1PBackward", "NegBackward"]
assert names == operations
# and what each of them saves: four tensors between them
assert sum(len(tensors_saved(n)) for n in recorded) == 4
# --8<-- [end:claim-one-saved-tensor]

# --8<-- [start:claim-diagonal-symmetric]
# the Jacobian of softplus, and of other element-wise functions, at the
# gradcheck points is diagonal, so it equals its transpose: a layout and its
# transpose print the same matrix
for elementwise in (Softplus.apply, torch.sigmoid, torch.tanh, torch.exp):
    J_points = torch.autograd.functional.jacobian(elementwise, points.detach())
    assert torch.equal(J_points, torch.diag(J_points.diagonal())), elementwise
    assert torch.equal(J_points, J_points.T), elementwise
# --8<-- [end:claim-diagonal-symmetric]

# --8<-- [start:claim-gradcheck-nudges]
# gradcheck's numerical Jacobian: it runs forward at the point, and at the
# point with one entry moved a tiny step down and up, for each entry in turn
forward_inputs = []


class WatchedForward(Softplus):
    @staticmethod
    def forward(ctx, x):
        forward_inputs.append(x.detach().clone())
        return Softplus.forward(ctx, x)


for size in (1, 3, 4):
    forward_inputs.clear()
    at = torch.linspace(-1.0, 1.0, size, dtype=torch.double)
    assert torch.autograd.gradcheck(
        WatchedForward.apply, (at.requires_grad_(),)
    )
    moves = [seen_x - at.detach() for seen_x in forward_inputs]
    nudges = [m for m in moves if torch.any(m != 0)]
    assert len(nudges) == 2 * size  # one step down and one up per entry
    for entry in range(size):
        down, up = nudges[2 * entry], nudges[2 * entry + 1]
        others = [i for i in range(size) if i != entry]
        assert torch.all(down[others] == 0) and torch.all(up[others] == 0)
        assert -1e-5 < down[entry].item() < 0 < up[entry].item() < 1e-5
# and it compares the two Jacobians: a backward off by a factor fails


class OffByAFactor(Softplus):
    @staticmethod
    def backward(ctx, grad_output):
        return 1.01 * Softplus.backward(ctx, grad_output)


assert gradcheck_error(OffByAFactor.apply, (points,)) is not None
# --8<-- [end:claim-gradcheck-nudges]

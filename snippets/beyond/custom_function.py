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
# gradcheck's analytical Jacobian, one column per output: backward called with
# a one-hot grad_output for each output gives the same sigmoids every time
columns = [
    torch.autograd.grad(ForgetfulSoftplus.apply(points), points, one_hot)[0]
    for one_hot in torch.eye(points.numel(), dtype=torch.double)
]
assert all(torch.equal(c, torch.sigmoid(points.detach())) for c in columns)
assert issubclass(GradcheckError, RuntimeError)  # a kind of RuntimeError
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

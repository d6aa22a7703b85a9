# Forward mode pushes a direction through; reverse mode pulls a gradient back.
# --8<-- [start:jvp]
import torch
from torch.func import jacfwd, jacrev, jvp, vjp

torch.manual_seed(0)  # the same matrix and point on every run
matrix = torch.randn(3, 4)


def f(x):  # 4 inputs, 3 outputs
    return torch.tanh(matrix @ x)


x = torch.randn(4)
v = torch.tensor([1.0, 0.0, 0.0, 0.0])  # a direction in the input space
value, j_times_v = jvp(f, (x,), (v,))  # f(x) and J v, in one forward pass
print("J v with jvp:          ", j_times_v)
print("first column of jacrev:", jacrev(f)(x)[:, 0])
# --8<-- [end:jvp]

# --8<-- [start:jacobians]
forward_built = jacfwd(f)(x)  # forward mode: every column J v at once
reverse_built = jacrev(f)(x)  # reverse mode: every row at once
print("J is", tuple(forward_built.shape), " the same both ways:", end=" ")
print(torch.allclose(forward_built, reverse_built))
# --8<-- [end:jacobians]

# --8<-- [start:claim-jvp]
assert torch.allclose(j_times_v, reverse_built @ v)  # jvp gives J v
assert torch.allclose(value, f(x))
assert torch.allclose(forward_built, reverse_built)
# --8<-- [end:claim-jvp]

# --8<-- [start:claim-jac-once]
# jacfwd and jacrev run the function once, not once per column or row, for
# f and for a function with more inputs and outputs; by default jacrev
# handles every row in a single vmap over vjp, as its documentation says,
# and jacfwd every column in a single vmap over jvp, as its source shows
import inspect  # noqa: E402  (a claim section, left out of the page)

from torch._functorch import eager_transforms  # noqa: E402

f_runs = [0]


def counted_f(point):
    f_runs[0] += 1
    return f(point)


wide_matrix = torch.randn(7, 5)
wide_runs = [0]


def counted_wide(point):
    wide_runs[0] += 1
    return torch.sin(wide_matrix @ point)


for build in (jacfwd, jacrev):
    f_runs[0] = wide_runs[0] = 0
    assert build(counted_f)(x).shape == (3, 4) and f_runs[0] == 1
    assert build(counted_wide)(torch.ones(5)).shape == (7, 5)
    assert wide_runs[0] == 1
jacrev_doc = " ".join(jacrev.__doc__.split())
assert "equivalent to doing a single vmap over vjp" in jacrev_doc
jacfwd_source = inspect.getsource(eager_transforms.jacfwd)
assert (
    "results = vmap(push_jvp, randomness=randomness)(basis)" in jacfwd_source
)
# --8<-- [end:claim-jac-once]


# --8<-- [start:passes]
def passes(fn, point):
    """Build fn's Jacobian pass by pass, counting the passes of each mode."""
    outputs = fn(point).numel()
    columns = [  # forward mode: one jvp per input direction
        jvp(fn, (point,), (direction,))[1]
        for direction in torch.eye(point.numel())
    ]
    _, pull_back = vjp(fn, point)  # reverse mode: one vjp per output
    rows = [pull_back(direction)[0] for direction in torch.eye(outputs)]
    jacobian = torch.stack(columns, dim=1).reshape(outputs, -1)
    same = torch.allclose(jacobian, torch.stack(rows).reshape(outputs, -1))
    return len(columns), len(rows), same


weights = torch.randn(1000)
data, target = torch.randn(1000), torch.tensor(1.0)


def loss(w):  # a loss: 1000 weights in, one number out
    return ((w * data).sum() - target).pow(2).reshape(1)


print("             forward passes  reverse passes  same J")
pass_rows = []  # (name, forward passes, reverse passes), drawn below
for name, fn, point in [("f", f, x), ("loss", loss, weights)]:
    forward_passes, reverse_passes, same = passes(fn, point)
    pass_rows.append((name, forward_passes, reverse_passes))
    print(f"{name:6s} {forward_passes:21d} {reverse_passes:15d}  {same}")
# --8<-- [end:passes]

# --8<-- [start:claim-passes]
assert passes(f, x) == (4, 3, True)
assert passes(loss, weights) == (1000, 1, True)
# one reverse pass gives the whole gradient of the loss, as backward() does
w = weights.clone().requires_grad_()
loss(w).sum().backward()
assert torch.allclose(w.grad, jacrev(loss)(weights)[0])
# --8<-- [end:claim-passes]


# --8<-- [start:claim-reverse]
# one backward() from one output fills the gradient of every input that
# requires one, as forward mode (jacfwd) finds it input by input
def three_inputs(a, b, c):
    return (torch.tanh(matrix @ a) * b[:3]).sum() + (c**2).sum()


starts = [torch.linspace(-1.0, 1.0, 4) * (k + 1) for k in range(3)]
leaves = [start.clone().requires_grad_() for start in starts]
three_inputs(*leaves).backward()
by_forward = jacfwd(three_inputs, argnums=(0, 1, 2))(*starts)
for leaf, expected in zip(leaves, by_forward, strict=True):
    assert leaf.grad is not None and torch.allclose(leaf.grad, expected)
# --8<-- [end:claim-reverse]

# One gradient per example: torch.func.vmap over torch.func.grad.
# --8<-- [start:setup]
import torch
from torch.func import grad, vmap

torch.manual_seed(0)
inputs = torch.randn(5, 3)  # five examples, three features each
targets = torch.randn(5)
w = torch.randn(3)  # the weights of a linear model


def example_loss(w, x, target):
    """The squared error of the model on one example."""
    return (x @ w - target) ** 2


# --8<-- [end:setup]

# --8<-- [start:vmap]
# grad(example_loss) differentiates with respect to its first argument, w;
# vmap runs it once per row of inputs and targets (in_dims=0), w shared.
per_example_grad = vmap(grad(example_loss), in_dims=(None, 0, 0))
per_example = per_example_grad(w, inputs, targets)
print("vmap(grad(...)), one row per example:")
print(per_example)
# --8<-- [end:vmap]

# --8<-- [start:loop]
rows = []
for x, target in zip(inputs, targets, strict=True):
    w_leaf = w.clone().requires_grad_(True)
    example_loss(w_leaf, x, target).backward()
    rows.append(w_leaf.grad)
looped = torch.stack(rows)
print(
    "a Python loop of backward() agrees:", torch.allclose(per_example, looped)
)

# One backward() on the mean loss gives only the average of the rows
w_leaf = w.clone().requires_grad_(True)
((inputs @ w_leaf - targets) ** 2).mean().backward()
print("mean-loss gradient:       ", w_leaf.grad)
print("average of the rows above:", per_example.mean(dim=0))
# --8<-- [end:loop]

# --8<-- [start:claim-vmap-matches-loop]
assert torch.allclose(per_example, looped)  # vmap(grad) = one backward each
assert torch.allclose(w_leaf.grad, per_example.mean(dim=0))  # batch = mean
# --8<-- [end:claim-vmap-matches-loop]

# --8<-- [start:claim-one-batched-pass]
# vmap runs the loss function once for the whole batch; the loop, once per
# example, with one backward() each
calls = []


def counted_loss(w, x, target):
    calls.append(1)
    return example_loss(w, x, target)


for batch in (1, 5, 32):
    some_inputs, some_targets = torch.ones(batch, 3), torch.zeros(batch)
    calls.clear()
    grads = vmap(grad(counted_loss), in_dims=(None, 0, 0))(
        w, some_inputs, some_targets
    )
    assert len(calls) == 1 and grads.shape == (batch, 3)
    calls.clear()
    for one, target_one in zip(some_inputs, some_targets, strict=True):
        counted_loss(w.clone().requires_grad_(), one, target_one).backward()
    assert len(calls) == batch

# and on the backward side: an operation whose backward is watched is run
# backward once under vmap(grad(...)), for the whole batch; the loop runs
# one backward per example
backward_runs = []


class WatchedSquare(torch.autograd.Function):
    generate_vmap_rule = True  # so that vmap can batch it

    @staticmethod
    def forward(u):
        return u**2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        backward_runs.append(1)
        (u,) = ctx.saved_tensors
        return 2 * u * grad_output


def watched_loss(w, x, target):
    return WatchedSquare.apply(x @ w - target)


for batch in (1, 5, 32):
    some_inputs, some_targets = torch.ones(batch, 3), torch.zeros(batch)
    backward_runs.clear()
    grads = vmap(grad(watched_loss), in_dims=(None, 0, 0))(
        w, some_inputs, some_targets
    )
    assert len(backward_runs) == 1 and grads.shape == (batch, 3)
    expected = 2 * (some_inputs @ w - some_targets)[:, None] * some_inputs
    assert torch.allclose(grads, expected)
    backward_runs.clear()
    for one, target_one in zip(some_inputs, some_targets, strict=True):
        watched_loss(w.clone().requires_grad_(), one, target_one).backward()
    assert len(backward_runs) == batch
# --8<-- [end:claim-one-batched-pass]

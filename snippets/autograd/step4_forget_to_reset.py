# The same training run twice: resetting the gradients, and forgetting.
# --8<-- [start:data]
import torch

torch.manual_seed(0)  # the data of Step 6: the line y = 2x - 1, plus noise
true_w, true_b = 2.0, -1.0
x = torch.linspace(-1, 1, 100)
y = true_w * x + true_b + 0.1 * torch.randn(100)
# --8<-- [end:data]

# --8<-- [start:train]
steps = 60  # both runs: the same number of steps
lr = 0.1  # and the same learning rate


def train(reset):
    """Fit y = w * x + b; return (loss, w) at every step, to plot."""
    torch.manual_seed(1)  # both runs start from the same random w
    w = torch.randn(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    history = []
    for _ in range(steps + 1):
        loss = ((w * x + b - y) ** 2).mean()
        history.append((loss.item(), w.item()))
        loss.backward()
        with torch.no_grad():  # Step 5 explains this line
            w -= lr * w.grad
            b -= lr * b.grad
        if reset:
            w.grad.zero_()
            b.grad.zero_()
    return history


with_reset = train(reset=True)
without_reset = train(reset=False)
# --8<-- [end:train]

# --8<-- [start:compare]
print("step   loss with reset   loss without reset")
for step in range(0, steps + 1, 15):
    print(
        f"{step:4d}   {with_reset[step][0]:15.4f}"
        f"   {without_reset[step][0]:18.4f}"
    )
# --8<-- [end:compare]

# --8<-- [start:claim-settles-or-swings]
from itertools import pairwise  # noqa: E402  (a claim section, left out of the page)

reset_losses = [loss for loss, _ in with_reset]
kept_losses = [loss for loss, _ in without_reset]
# with resetting, the loss is lower after every step than before it
assert all(after < before for before, after in pairwise(reset_losses))
# without, it falls, rises, and falls again, turning round again and again
rising = [after > before for before, after in pairwise(kept_losses)]
turns = sum(now != then for then, now in pairwise(rising))
assert not rising[0] and turns >= 10
# the run without resetting again, from fresh tensors, to look at w: each
# update uses the running sum of all the gradients so far
torch.manual_seed(1)
w_replay = torch.randn(1, requires_grad=True)
b_replay = torch.zeros(1, requires_grad=True)
replay = []  # (w before the update, this step's gradient, the sum used)
for _ in range(steps + 1):
    replay_loss = ((w_replay * x + b_replay - y) ** 2).mean()
    (this_step,) = torch.autograd.grad(
        replay_loss, w_replay, retain_graph=True
    )
    replay_loss.backward()
    replay.append((w_replay.item(), this_step.item(), w_replay.grad.item()))
    with torch.no_grad():
        w_replay -= lr * w_replay.grad
        b_replay -= lr * b_replay.grad
assert [w_then for w_then, _, _ in replay] == [w for _, w in without_reset]
running = 0.0
for _, this_step_grad, used in replay:
    running += this_step_grad
    assert abs(used - running) < 1e-4 * max(1.0, abs(running))
# after w passes true_w its own gradient points back, yet the old gradients
# in the sum keep pushing it onwards, at several steps
onwards = [
    (w_then - true_w) * this_grad > 0 and (w_then - true_w) * used < 0
    for w_then, this_grad, used in replay
]
assert sum(onwards) >= 3
# w overshoots, turns back, and overshoots again: it crosses true_w again
# and again, on both sides
sides = [w_then > true_w for w_then, _, _ in replay]
crossings = sum(now != then for then, now in pairwise(sides))
assert crossings >= 3 and any(sides) and not all(sides)
# --8<-- [end:claim-settles-or-swings]

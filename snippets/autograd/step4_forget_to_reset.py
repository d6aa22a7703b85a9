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
# --8<-- [end:claim-settles-or-swings]

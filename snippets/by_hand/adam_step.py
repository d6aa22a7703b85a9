# The first step of plain gradient descent (SGD) and of Adam, one gradient.
# --8<-- [start:compare]
import torch

# steep along one weight, nearly flat along the other
gradient = torch.tensor([10.0, 0.1])
lr = 0.1
steps = {}
for name, make in (("SGD", torch.optim.SGD), ("Adam", torch.optim.Adam)):
    p = torch.zeros(2, requires_grad=True)  # two weights, starting at 0
    optimizer = make([p], lr=lr)
    (p * gradient).sum().backward()  # a loss whose gradient is `gradient`
    optimizer.step()
    steps[name] = p.detach().clone()  # where the weights went from 0
    change = (steps[name] * gradient).sum()  # how the (linear) loss changed
    first, second = steps[name].tolist()
    print(f"{name:>4} step: [{first:+.4f}, {second:+.4f}]", end="   ")
    print(f"loss changed by {change:+.4f}")
# --8<-- [end:compare]

# --8<-- [start:claim-sgd-along-gradient]
# plain gradient descent: exactly against the gradient
assert torch.allclose(steps["SGD"], -lr * gradient)
# --8<-- [end:claim-sgd-along-gradient]

# --8<-- [start:claim-adam-not-along-gradient]
# Adam rescales each weight's share: its step points elsewhere...
against = torch.nn.functional.cosine_similarity(
    steps["Adam"], -gradient, dim=0
)
assert against < 0.9
# ...yet, like SGD's, it lowers the loss
assert all((step * gradient).sum() < 0 for step in steps.values())
# --8<-- [end:claim-adam-not-along-gradient]

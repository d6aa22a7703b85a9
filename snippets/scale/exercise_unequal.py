# Exercise: accumulate micro-batches of unequal size to the whole gradient.
# --8<-- [start:setup]
import torch

torch.manual_seed(0)  # the same data and weights on every run
inputs = torch.randn(32, 3)
targets = inputs @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 * torch.randn(32)
model = torch.nn.Linear(3, 1)
sizes = [5, 11, 16]


def gradient():
    return torch.cat([p.grad.flatten() for p in model.parameters()])


model.zero_grad()
torch.nn.functional.mse_loss(model(inputs).squeeze(1), targets).backward()
whole = gradient()
# --8<-- [end:setup]

# --8<-- [start:solution]
model.zero_grad()
for x, y in zip(inputs.split(sizes), targets.split(sizes), strict=True):
    # the sum of this part's squared errors, over the whole batch's count
    part = torch.nn.functional.mse_loss(
        model(x).squeeze(1), y, reduction="sum"
    )
    (part / len(inputs)).backward()
accumulated = gradient()
print("whole batch: ", whole)
print("accumulated: ", accumulated)
# --8<-- [end:solution]

# --8<-- [start:claim-solution]
assert torch.allclose(accumulated, whole, rtol=0, atol=1e-6)
# --8<-- [end:claim-solution]

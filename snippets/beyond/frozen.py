# Freezing the first layer: no gradient, and the optimizer leaves it alone.
# --8<-- [start:freeze]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
model[0].requires_grad_(False)  # freeze the first layer's weight and bias
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = {name: p.detach().clone() for name, p in model.named_parameters()}

inputs, targets = torch.randn(8, 2), torch.randn(8, 1)
loss = nn.functional.mse_loss(model(inputs), targets)
loss.backward()
optimizer.step()
# --8<-- [end:freeze]

# --8<-- [start:report]
for name, p in model.named_parameters():
    grad = "None" if p.grad is None else f"shape {tuple(p.grad.shape)}"
    moved = not torch.equal(p, before[name])
    print(f"{name:<9} requires_grad={p.requires_grad!s:<5}  ", end="")
    print(f"grad: {grad:<11}  moved by step(): {moved}")
# --8<-- [end:report]

# --8<-- [start:claim-frozen-untouched]
for name, p in model.named_parameters():
    frozen = name.startswith("0.")
    assert (p.grad is None) == frozen  # only trained ones get a .grad
    assert torch.equal(p, before[name]) == frozen  # and only they move
assert model[0](inputs).grad_fn is None  # the frozen layer is not recorded
# --8<-- [end:claim-frozen-untouched]

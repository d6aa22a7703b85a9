# One backward() call fills the .grad of every parameter the loss used.
# --8<-- [start:two]
import torch

x = torch.tensor(3.0)
target = torch.tensor(5.0)
w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)

y = w * x + b
loss = (y - target) ** 2
loss.backward()
print(f"y = {y.item():g}   loss = {loss.item():g}")
print(f"w.grad = {w.grad.item():g}   b.grad = {b.grad.item():g}")
# --8<-- [end:two]

# --8<-- [start:million]
model = torch.nn.Sequential(
    torch.nn.Linear(1000, 1000),
    torch.nn.ReLU(),
    torch.nn.Linear(1000, 1),
)
inputs = torch.randn(8, 1000)
model_loss = model(inputs).pow(2).mean()
model_loss.backward()  # one call

parameters = list(model.parameters())
count = sum(p.numel() for p in parameters)
filled = sum(p.grad is not None for p in parameters)
print(f"{count:,} numbers in {len(parameters)} parameter tensors")
print(f"tensors with a .grad after one backward(): {filled}")
# --8<-- [end:million]

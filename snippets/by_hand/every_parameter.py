# One backward() call fills the .grad of every parameter the loss used.
# --8<-- [start:two]
import torch

x = torch.tensor(3.0)
target = torch.tensor(5.0)
w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)

prediction = w * x + b
loss = (prediction - target) ** 2
print(f"prediction = {prediction.item():g}   loss = {loss.item():g}")

# By hand: both gradients share the factor 2(prediction - target)
grad_prediction_hand = 2 * (prediction.item() - target.item())
grad_w_hand = grad_prediction_hand * x.item()  # d(prediction)/dw = x
grad_b_hand = grad_prediction_hand * 1.0  # d(prediction)/db = 1

loss.backward()  # one call fills both
print(f"dL/dw  by hand: {grad_w_hand:g}   autograd: {w.grad.item():g}")
print(f"dL/db  by hand: {grad_b_hand:g}   autograd: {b.grad.item():g}")
# --8<-- [end:two]

# --8<-- [start:million]
torch.manual_seed(0)  # the same random weights and inputs on every run
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

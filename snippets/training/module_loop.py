# The main page's line fit, written with nn.Linear and torch.optim.SGD.
# --8<-- [start:model]
import torch

model = torch.nn.Linear(1, 1)  # y = weight * x + bias, one input, one output
for name, parameter in model.named_parameters():
    print(f"{name}: shape {tuple(parameter.shape)}", end="  ")
    print(f"leaf {parameter.is_leaf}  requires_grad {parameter.requires_grad}")
# --8<-- [end:model]

# --8<-- [start:claim-parameters-leaves]
# every parameter of the model is a leaf that requires a gradient
parameters = list(model.parameters())
assert len(parameters) == 2
assert all(
    p.is_leaf and p.requires_grad and p.grad is None for p in parameters
)
# --8<-- [end:claim-parameters-leaves]

# --8<-- [start:data]
torch.manual_seed(0)  # the main page's data, made the same way
n, noise = 100, 0.1
x = torch.linspace(-1, 1, n)
y = 2.0 * x - 1.0 + noise * torch.randn(n)
start_w = torch.randn(1)
lr, steps = 0.1, 201

with torch.no_grad():  # start from the main page's weight and bias
    model.weight.fill_(start_w.item())
    model.bias.zero_()
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
# --8<-- [end:data]

# --8<-- [start:loop]
inputs, targets = x.unsqueeze(1), y.unsqueeze(1)  # a column: 100 examples
module_losses = []
for step in range(steps):
    optimizer.zero_grad()  # every .grad back to None
    loss = ((model(inputs) - targets) ** 2).mean()
    loss.backward()  # fills model.weight.grad and model.bias.grad
    if step == 0:  # kept for the check below
        first_grads = [p.grad.clone() for p in model.parameters()]
        before = [p.detach().clone() for p in model.parameters()]
    optimizer.step()  # weight -= lr * weight.grad, the same for the bias
    if step == 0:
        after = [p.detach().clone() for p in model.parameters()]
    module_losses.append(loss.item())
print(f"module:   y = {model.weight.item():.4f} x + ({model.bias.item():.4f})")
# --8<-- [end:loop]

# --8<-- [start:by_hand]
w = start_w.clone().requires_grad_()  # the main page's loop, as it is there
b = torch.zeros(1, requires_grad=True)
hand_losses = []
for _ in range(steps):
    loss = ((w * x + b - y) ** 2).mean()
    hand_losses.append(loss.item())
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
print(f"by hand:  y = {w.item():.4f} x + ({b.item():.4f})")
# the largest gap between the two loss curves, as a share of the loss
gap = max(
    abs(m - h) / h for m, h in zip(module_losses, hand_losses, strict=True)
)
bound = 1e-5  # printed instead of the gap, whose digits are rounding
below = gap < bound
print(f"the loss curves differ by less than {bound:.0e} of the loss: {below}")
# --8<-- [end:by_hand]

# --8<-- [start:claim-step-and-zero]
import inspect  # noqa: E402  (a claim section, left out of the page)

# backward filled both .grad; step moved the weight by lr * grad
for grad, old, new in zip(first_grads, before, after, strict=True):
    assert torch.allclose(new, old - lr * grad)
# zero_grad sets every .grad to None (on a model of the claim's own)
spare = torch.nn.Linear(1, 1)
spare(torch.ones(1, 1)).sum().backward()
spare_grads = [p.grad is not None for p in spare.parameters()]
torch.optim.SGD(spare.parameters(), lr=lr).zero_grad()
assert all(spare_grads)  # each had a gradient before
assert all(p.grad is None for p in spare.parameters())  # set to None
zero_grad = inspect.signature(torch.optim.Optimizer.zero_grad)
assert zero_grad.parameters["set_to_none"].default is True  # the default
# --8<-- [end:claim-step-and-zero]

# --8<-- [start:claim-same-fit]
import math  # noqa: E402  (a claim section, left out of the page)

# the module loop and the hand-written one: the same losses, the same line
assert gap < bound
assert all(
    math.isclose(m, h, rel_tol=1e-5)
    for m, h in zip(module_losses, hand_losses, strict=True)
)
assert abs(model.weight.item() - w.item()) < 1e-5
assert abs(model.bias.item() - b.item()) < 1e-5
# --8<-- [end:claim-same-fit]

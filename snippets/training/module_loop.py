# The main page's line fit, written with nn.Linear and torch.optim.SGD.
# --8<-- [start:model]
import torch

model = torch.nn.Linear(1, 1)  # y = weight * x + bias, one input, one output
for name, parameter in model.named_parameters():
    print(f"{name}: shape {tuple(parameter.shape)}", end="  ")
    print(f"leaf {parameter.is_leaf}  requires_grad {parameter.requires_grad}")
# --8<-- [end:model]

# --8<-- [start:claim-parameters-leaves]
# every parameter of the model is a leaf that requires a gradient, made by
# the layer as a torch.nn.Parameter
parameters = list(model.parameters())
assert len(parameters) == 2
assert all(
    p.is_leaf and p.requires_grad and p.grad is None for p in parameters
)
assert all(type(p) is torch.nn.Parameter for p in parameters)
# --8<-- [end:claim-parameters-leaves]

# --8<-- [start:claim-parameters-registered]
# parameters() lists the Parameters set as attributes of a module, and only
# them: a plain tensor that requires a gradient, stored the same way, is left
# out, and an optimizer built from that list never moves it, whatever the
# optimizer (with momentum, weight decay, or Adam), and nothing warns
import warnings  # noqa: E402  (a claim section, left out of the page)


class TwoWeights(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.plain = torch.ones(1, requires_grad=True)  # a leaf, not listed
        self.registered = torch.nn.Parameter(torch.ones(1))

    def forward(self, inputs):
        return self.plain * inputs + self.registered * inputs


optimizers = [
    lambda ps: torch.optim.SGD(ps, lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: torch.optim.SGD(ps, lr=0.1, weight_decay=0.1),
    lambda ps: torch.optim.Adam(ps, lr=0.1),
]
# a module lists an attribute as a parameter exactly when it is a Parameter
for attribute in [
    torch.ones(1),
    torch.ones(1, requires_grad=True),
    torch.nn.Parameter(torch.ones(1)),
    torch.nn.Parameter(torch.ones(1), requires_grad=False),
]:
    holder = torch.nn.Module()
    holder.weight = attribute
    listed = [q is attribute for q in holder.parameters()] == [True]
    assert listed == isinstance(attribute, torch.nn.Parameter)
for make_optimizer in optimizers:
    two = TwoWeights()
    assert two.plain.is_leaf and two.plain.requires_grad
    assert list(two.parameters()) == [two.registered]
    two_optimizer = make_optimizer(two.parameters())
    with warnings.catch_warnings(record=True) as two_warnings:
        warnings.simplefilter("always")
        for _repeat in range(3):
            two_optimizer.zero_grad()
            (two(torch.tensor([2.0])) - 1.0).pow(2).sum().backward()
            two_optimizer.step()
    assert two.plain.grad is not None and two.plain.grad.item() != 0.0
    assert two.plain.item() == 1.0 and two.registered.item() != 1.0
    assert len(two_warnings) == 0
# --8<-- [end:claim-parameters-registered]

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

# the module loop and the hand-written one: the same losses, the same line,
# after steps updates each
assert gap < bound
assert all(
    math.isclose(m, h, rel_tol=1e-5)
    for m, h in zip(module_losses, hand_losses, strict=True)
)
assert abs(model.weight.item() - w.item()) < 1e-5
assert abs(model.bias.item() - b.item()) < 1e-5
assert len(module_losses) == len(hand_losses) == steps
step_counts = [0]  # optimizer.step() calls, counted on a fresh run of the loop


def count_step(optimizer, args, kwargs):
    step_counts[0] += 1


counted_model = torch.nn.Linear(1, 1)
counted_optimizer = torch.optim.SGD(counted_model.parameters(), lr=lr)
counted_optimizer.register_step_post_hook(count_step)
for _repeat in range(steps):
    counted_optimizer.zero_grad()
    ((counted_model(inputs) - targets) ** 2).mean().backward()
    counted_optimizer.step()
assert step_counts[0] == steps
# where the two differ: at the first step the predictions, the loss and the
# gradient with respect to the predictions are the same to the last bit, and
# so is the bias's gradient; the weight's gradient is not, because the layer
# adds up the examples' contributions with a matrix product (gradient^T @
# inputs) and the hand loop with a sum of products
first_layer = torch.nn.Linear(1, 1)
with torch.no_grad():
    first_layer.weight.fill_(start_w.item())
    first_layer.bias.zero_()
first_w = start_w.clone().requires_grad_()
first_b = torch.zeros(1, requires_grad=True)
layer_out = first_layer(inputs)
hand_out = first_w * x + first_b
assert torch.equal(layer_out.squeeze(1), hand_out)
layer_loss = ((layer_out - targets) ** 2).mean()
hand_loss = ((hand_out - y) ** 2).mean()
assert layer_loss.item() == hand_loss.item() == module_losses[0]
layer_out.retain_grad()
hand_out.retain_grad()
layer_loss.backward()
hand_loss.backward()
assert torch.equal(layer_out.grad.squeeze(1), hand_out.grad)
assert torch.equal(first_layer.bias.grad, first_b.grad)
assert not torch.equal(first_layer.weight.grad.reshape(1), first_w.grad)
# "in its last bits": the two differ by a few float32 steps (spacing of
# float32 numbers near the gradient), at most 16 of them
ulp = torch.finfo(torch.float32).eps * first_w.grad.abs()
weight_gap = (first_layer.weight.grad.reshape(1) - first_w.grad).abs()
assert (weight_gap <= 16 * ulp).all()
assert torch.equal(first_layer.weight.grad, layer_out.grad.T @ inputs)
assert torch.equal(first_w.grad, (hand_out.grad * x).sum().reshape(1))
assert torch.equal(first_layer.weight.grad, first_grads[0])  # the loop's
# --8<-- [end:claim-same-fit]

# The tiny network with an input that shuts the ReLU.
# --8<-- [start:closed]
import torch

x = torch.tensor(-1.0)  # a new input; target, weight and bias as before
y = torch.tensor(2.0)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)

h = w * x + b
a = torch.relu(h)
loss = (a - y) ** 2
print(f"h = {h.item():g}   a = {a.item():g}   loss = {loss.item():g}")

# By hand: the same chain rule as before
grad_a_hand = 2 * (a.item() - y.item())
relu_slope = 1.0 if h.item() > 0 else 0.0
grad_h_hand = grad_a_hand * relu_slope
grad_w_hand = grad_h_hand * x.item()
grad_b_hand = grad_h_hand * 1.0

for node in (h, a, loss):
    node.retain_grad()
loss.backward()

print(f"dL/da   by hand: {grad_a_hand:g}   autograd: {a.grad.item():g}")
print(f"dL/dh   by hand: {grad_h_hand:g}   autograd: {h.grad.item():g}")
print(f"dL/dw   by hand: {grad_w_hand:g}   autograd: {w.grad.item():g}")
print(f"dL/db   by hand: {grad_b_hand:g}   autograd: {b.grad.item():g}")
# --8<-- [end:closed]

# --8<-- [start:at_zero]
# At exactly 0 the ReLU has a corner, where no slope is defined
corner = torch.tensor(0.0, requires_grad=True)
torch.relu(corner).backward()
print(f"slope of the ReLU at h = 0: {corner.grad.item():g}")

# The same function, max(0, h), written two other ways
other_ways = {
    "h.clamp(min=0)": lambda h: h.clamp(min=0),
    "torch.maximum(h, 0)": lambda h: torch.maximum(h, torch.zeros_like(h)),
}
corner_slopes = {}
for label, same_function in other_ways.items():
    at_corner = torch.tensor(0.0, requires_grad=True)
    same_function(at_corner).backward()
    corner_slopes[label] = at_corner.grad.item()
    print(f"slope of {label} at h = 0: {corner_slopes[label]:g}")
# --8<-- [end:at_zero]

# --8<-- [start:claim-relu-slope-at-zero]
# at the corner the gradient stops, as if the ReLU were closed, for each way
# of calling PyTorch's ReLU
import torch.nn.functional as F  # noqa: E402  (a claim section)

for relu_of in (torch.relu, F.relu, torch.nn.ReLU()):
    at_zero = torch.tensor([0.0, 0.0], requires_grad=True)
    relu_of(at_zero).sum().backward()
    assert torch.equal(at_zero.grad, torch.zeros(2))
assert corner.grad.item() == 0.0
# written as clamp or maximum, the same function gets another number there
assert corner_slopes == {"h.clamp(min=0)": 1.0, "torch.maximum(h, 0)": 0.5}
# --8<-- [end:claim-relu-slope-at-zero]

# --8<-- [start:claim-agrees]
# by hand and in autograd, both gradients are zero
assert w.grad.item() == grad_w_hand == 0 and b.grad.item() == grad_b_hand == 0
assert a.grad.item() == grad_a_hand and h.grad.item() == grad_h_hand
# --8<-- [end:claim-agrees]

# --8<-- [start:claim-signed-zero]
import math  # noqa: E402  (a claim section, left out of the page)

zeros = torch.tensor([-0.0, 0.0])
assert zeros[0].item() == zeros[1].item()  # a signed zero equals zero
assert str(zeros[0].item()) == "-0.0"  # while it keeps its sign
# the hand zeros and autograd's are equal numbers, whatever their signs
assert grad_h_hand == h.grad.item() == 0 and grad_w_hand == w.grad.item() == 0
signs = {math.copysign(1, v) for v in (grad_h_hand, h.grad.item())}
assert signs == {-1.0, 1.0}  # the two zeros at h carry different signs
# --8<-- [end:claim-signed-zero]

# --8<-- [start:claim-zero-slope-stops]
# a local slope of 0 stops the gradient for everything behind it: a closed
# ReLU, a clamp below its floor, a rounding, each after two layers
for stop in (torch.relu, lambda t: t.clamp(min=-5.0), torch.round):
    w1, w2, b2 = (
        torch.tensor(v, requires_grad=True) for v in (2.0, 3.0, -10.0)
    )
    before = w2 * torch.tanh(w1 * x) + b2  # negative: the ReLU is closed
    assert before.item() < -5.0
    ((stop(before) - y) ** 2).backward()
    assert all(p.grad.item() == 0 for p in (w1, w2, b2)), stop
# but only along the paths through it: with a second path around the
# closed ReLU (a skip connection), what lies behind it gets a gradient
for stop in (torch.relu, lambda t: t.clamp(min=-5.0), torch.round):
    w1, w2, b2 = (
        torch.tensor(v, requires_grad=True) for v in (2.0, 3.0, -10.0)
    )
    before = w2 * torch.tanh(w1 * x) + b2
    ((stop(before) + 0.1 * before - y) ** 2).backward()
    assert all(p.grad.item() != 0 for p in (w1, w2, b2)), stop
# --8<-- [end:claim-zero-slope-stops]

# --8<-- [start:claim-other-zero-slopes]
# a clamp passes the gradient up to its limit, and stops it beyond the limit
for value, slope in ((0.5, 1.0), (1.0, 1.0), (1.5, 0.0)):
    t = torch.tensor(value, requires_grad=True)
    t.clamp(max=1.0).backward()
    assert t.grad.item() == slope, value
# rounding steps pass back only zeros (not None), wherever the input lies
for rounding in (torch.round, torch.floor, torch.ceil, torch.trunc):
    t = torch.tensor([0.3, 1.7, -2.4, 2.5], requires_grad=True)
    rounding(t).sum().backward()
    assert torch.equal(t.grad, torch.zeros(4)), rounding
# --8<-- [end:claim-other-zero-slopes]

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
inputs = torch.randn(8, 1000)  # a batch of 8 examples
hidden = model[0](inputs)  # the intermediate results, one by one
activated = model[1](hidden)
outputs = model[2](activated)
squared = outputs.pow(2)
model_loss = squared.mean()
model_loss.backward()  # one call

parameters = list(model.parameters())
count = sum(p.numel() for p in parameters)
filled = sum(p.grad is not None for p in parameters)
intermediates = [hidden, activated, outputs, squared, model_loss]
in_between = sum(t.numel() for t in intermediates)
print(f"{count:,} numbers in {len(parameters)} parameter tensors")
print(f"tensors with a .grad after one backward(): {filled}")
print(f"{in_between:,} numbers in the intermediate results")
# --8<-- [end:million]

# --8<-- [start:claim-one-call-fills]
# by hand, the two results are autograd's
assert grad_w_hand == w.grad.item() and grad_b_hand == b.grad.item()
# and so is the shared factor, dL/d(prediction), asked of autograd directly
at = prediction.detach().requires_grad_()
(grad_prediction,) = torch.autograd.grad((at - target) ** 2, at)
assert grad_prediction_hand == grad_prediction.item()
# one backward() filled the .grad of every parameter of the network
assert filled == len(parameters)
assert all(p.grad.shape == p.shape for p in parameters)


# but only of the parameters the loss was computed from: a layer the forward
# pass did not use keeps .grad at None, in networks of several sizes
class WithSpareHead(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.used = torch.nn.Linear(width, 1)
        self.spare = torch.nn.Linear(width, 1)  # this loss does not use it

    def forward(self, batch):
        return self.used(batch)


for width in (1, 3, 50):
    net = WithSpareHead(width)
    net(torch.randn(4, width)).pow(2).mean().backward()
    for name, parameter in net.named_parameters():
        used = name.startswith("used.")
        assert (parameter.grad is not None) == used, name
# a parameter the loss used, through a ReLU closed for every example, gets
# a .grad full of zeros, not None
closed = torch.nn.Linear(2, 1)
with torch.no_grad():
    closed.bias.fill_(-100.0)
torch.relu(closed(torch.randn(4, 2))).sum().backward()
assert torch.equal(closed.weight.grad, torch.zeros(1, 2))
# a parameter the loss uses only through a comparison or a .detach() is not
# reached by recorded operations: its .grad stays None
layer = torch.nn.Linear(2, 1)
gate = torch.nn.Parameter(torch.tensor(1.0))
scale = torch.nn.Parameter(torch.tensor(2.0))
out = layer(torch.randn(4, 2)) * (gate > 0) * scale.detach()
out.pow(2).mean().backward()
assert layer.weight.grad is not None
assert gate.grad is None and scale.grad is None
# --8<-- [end:claim-one-call-fills]


# --8<-- [start:claim-each-node-once]
import collections  # noqa: E402  (a claim section, left out of the page)


def nodes_of(root):
    """Every node of the graph that ends at root, found by walking it."""
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return found


again = model[2](model[1](model[0](inputs))).pow(2).mean()  # a fresh graph
calls = collections.Counter()  # how often each node ran during backward
graph = nodes_of(again.grad_fn)
for node in graph:
    node.register_hook(lambda *_, node=node: calls.update([node]))
weights = torch.autograd.grad(again, parameters)  # one walk; .grad untouched
# each node computed its gradient exactly once, for all the weights behind it
inner = [n for n in graph if type(n).__name__ != "AccumulateGrad"]
assert set(calls) == set(inner) and set(calls.values()) == {1}
assert [g.shape for g in weights] == [p.shape for p in parameters]
# --8<-- [end:claim-each-node-once]


# --8<-- [start:claim-gradient-at-result]
# a result used by two later operations: each of them sends back its share,
# autograd adds the shares, and the node that made the result receives the
# sum once and turns it into the gradients at its own inputs
for start_value in (0.3, 2.0, -1.5):
    weight_fresh = torch.tensor(start_value, requires_grad=True)
    made = weight_fresh * 3  # made by a MulBackward0
    total = torch.sin(made) + made.exp()  # used by SinBackward0, ExpBackward0
    sent = {}  # what each user of the result sent back
    received = []  # what the node that made the result received
    for user in (n for n, _ in total.grad_fn.next_functions):
        user.register_hook(
            lambda grad_in, grad_out, user=user, sent=sent: sent.__setitem__(
                user.name(), grad_in[0]
            )
        )
    made.grad_fn.register_prehook(
        lambda grad_out, received=received: received.append(grad_out[0])
    )
    total.backward()
    assert set(sent) == {"SinBackward0", "ExpBackward0"} and len(received) == 1
    assert torch.allclose(
        received[0], sent["SinBackward0"] + sent["ExpBackward0"], rtol=1e-6
    )
    assert torch.allclose(
        received[0], torch.cos(made) + made.exp(), rtol=1e-6, atol=0
    )
    assert torch.allclose(weight_fresh.grad, 3 * received[0], rtol=1e-6)
# --8<-- [end:claim-gradient-at-result]

# --8<-- [start:claim-backward-cost]
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

# the multiply-adds of the matrix products, counted by PyTorch's own counter,
# of the forward and of the backward pass of networks of many sizes
for width in (10, 100, 1000):
    for depth in (1, 2, 3):
        layers = []
        for _ in range(depth):
            layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
        net = torch.nn.Sequential(*layers, torch.nn.Linear(width, 1))
        forward_count = FlopCounterMode(display=False)
        with forward_count:
            net_loss = net(torch.randn(8, width)).pow(2).mean()
        backward_count = FlopCounterMode(display=False)
        with backward_count:
            net_loss.backward()
        forward_flops = forward_count.get_total_flops()
        backward_flops = backward_count.get_total_flops()
        assert 0 < forward_flops <= backward_flops <= 2 * forward_flops
# --8<-- [end:claim-backward-cost]

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

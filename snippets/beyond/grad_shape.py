# .grad has the shape of its tensor, whatever the shape of the output.
# --8<-- [start:shape]
import torch

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = (x**3).sum()  # x0³ + x1³ + x2³: one number
y.backward()
grad_hand = [3 * value**2 for value in x.tolist()]  # by hand: dy/dx = 3x²
print("y =", y.item())
print("by hand:  3x²    =", grad_hand)
print("autograd: x.grad =", x.grad.tolist())
print("shapes:", tuple(x.shape), tuple(x.grad.shape))
# --8<-- [end:shape]

# --8<-- [start:matrix]
W = torch.ones(2, 3, requires_grad=True)  # a weight matrix
inputs = torch.tensor([1.0, 2.0, 3.0])
(W @ inputs).sum().backward()
print("W.grad, one entry per weight:")
print(W.grad)
# --8<-- [end:matrix]

# --8<-- [start:claim-grad-shape]
assert x.grad.tolist() == grad_hand  # autograd agrees with the hand result
assert x.grad.shape == x.shape  # .grad has the shape of its tensor
assert W.grad.shape == W.shape
assert torch.equal(W.grad, inputs.expand(2, 3))  # each row is the input
# and for tensors of other shapes, 0 to 4 dimensions
for shape in ((), (1,), (4,), (2, 5), (3, 1, 2), (2, 2, 2, 2)):
    t = torch.ones(shape, requires_grad=True)
    (t.sin() * 3).sum().backward()
    assert t.grad.shape == t.shape, shape
# --8<-- [end:claim-grad-shape]

# --8<-- [start:claim-rows-are-upstream]
# why: output i is the dot product of the input with row i, so row i of the
# gradient is the input times the gradient arriving at output i; .sum() sends
# 1 to each output, .mean() 1/2, a weighted sum its weights
reductions = {
    "sum": lambda o: o.sum(),
    "mean": lambda o: o.mean(),
    "weighted": lambda o: o[0] + 5 * o[1],
}
arriving = {}
for name, reduce in reductions.items():
    weights = torch.ones(2, 3, requires_grad=True)
    outputs = weights @ inputs
    (arriving[name],) = torch.autograd.grad(
        reduce(outputs), outputs, retain_graph=True
    )
    reduce(outputs).backward()
    assert torch.equal(weights.grad, torch.outer(arriving[name], inputs))
assert torch.equal(arriving["sum"], torch.ones(2))  # so rows = the input
assert torch.equal(arriving["mean"], torch.full((2,), 0.5))
assert not torch.equal(arriving["weighted"][0], arriving["weighted"][1])
# --8<-- [end:claim-rows-are-upstream]

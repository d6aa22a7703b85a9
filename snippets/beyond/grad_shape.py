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

# backward() starts from one number: a vector output needs a reduction or v.
# --8<-- [start:outputs]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2  # three outputs, one per element of x
print("y =", y)
# --8<-- [end:outputs]

# --8<-- [start:error]
try:
    y.backward()  # which of the three outputs should it differentiate?
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:error]

# --8<-- [start:claim-no-scalar-no-grad]
assert x.grad is None  # the failed call stored nothing
# --8<-- [end:claim-no-scalar-no-grad]

# --8<-- [start:reduce]
y.sum().backward()  # fix 1: reduce to one number first
grad_sum = x.grad
print("y.sum().backward():  x.grad =", grad_sum)

x.grad = None  # start the next gradient from nothing
y = x**2  # a fresh graph: backward freed the saved values of the old one
y.mean().backward()
grad_mean = x.grad
print("y.mean().backward(): x.grad =", grad_mean)
# --8<-- [end:reduce]

# --8<-- [start:vector]
x.grad = None
y = x**2
v = torch.tensor([1.0, 0.1, 0.01])  # one weight per output
y.backward(gradient=v)  # fix 2: say how to weight the outputs
grad_v = x.grad
print("y.backward(gradient=v): x.grad =", grad_v)
# --8<-- [end:vector]

# --8<-- [start:claim-sum-is-ones]
x.grad = None
(x**2).backward(gradient=torch.ones(3))
with_ones = x.grad.clone()
x.grad = None
(x**2).sum().backward()
assert torch.equal(x.grad, with_ones)  # .sum() is the case v = ones
# --8<-- [end:claim-sum-is-ones]

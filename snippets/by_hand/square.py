# The slope of y = x**2: at one point, then at three, by hand and by autograd.
# --8<-- [start:first]
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()  # autograd fills x.grad with dy/dx at x = 3
print("x.grad =", x.grad)
# --8<-- [end:first]

# --8<-- [start:claim-first]
# backward() stored in x.grad a tensor of x's shape and dtype that holds the
# slope 2x of x**2 at x = 3: exactly 6
first = (x.item(), x.grad.item())
assert x.grad.shape == x.shape and x.grad.dtype == x.dtype
assert first == (3.0, 2 * 3.0)
# --8<-- [end:claim-first]

# --8<-- [start:slope]
points = [3.0, -2.0, 0.0]
hand_slopes, autograd_slopes = [], []
for point in points:
    by_hand = 2 * point  # by hand: the slope of x**2 is 2x
    hand_slopes.append(by_hand)

    x = torch.tensor(point, requires_grad=True)
    y = x**2
    y.backward()  # autograd fills x.grad with dy/dx at this point
    grad = x.grad.item()
    autograd_slopes.append(grad)
    print(f"x = {point:2g}  by hand: {by_hand:2g}  autograd: {grad:2g}")
# --8<-- [end:slope]

# --8<-- [start:claim-agrees]
# the same slopes, point by point
assert all(
    grad == by_hand
    for by_hand, grad in zip(hand_slopes, autograd_slopes, strict=True)
)
# --8<-- [end:claim-agrees]

# --8<-- [start:claim-built-in-rule]
# the graph of x**2 is one node, PowBackward0, and its built-in rule for
# powers (exponent times x to the exponent minus one) gives the slope 2x
for at in points:
    base = torch.tensor(at, requires_grad=True)
    square_of_base = base**2
    node = square_of_base.grad_fn
    assert node.name() == "PowBackward0"
    assert [type(n).__name__ for n, _ in node.next_functions] == [
        "AccumulateGrad"
    ]
    assert node._saved_exponent == 2 and node._saved_self.item() == at
    upstream = torch.tensor(1.5)  # any gradient arriving at the node
    returned = node(upstream)  # run the node's rule by itself
    assert returned.item() == upstream.item() * 2 * at
# --8<-- [end:claim-built-in-rule]

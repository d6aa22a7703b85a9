# A value used twice: its gradient is the sum over both paths.
# --8<-- [start:square]
import torch

x = torch.tensor(3.0, requires_grad=True)
square = x * x  # x enters the multiplication twice
first, second = square.grad_fn.next_functions  # where each input came from
print("first input from: ", type(first[0]).__name__)
print("second input from:", type(second[0]).__name__)
print("the same node:    ", first[0] is second[0])

# By hand: each factor's local slope is the other factor, x
paths_hand = [x.item(), x.item()]
square.backward()
print(f"by hand:  {paths_hand[0]:g} + {paths_hand[1]:g} = {sum(paths_hand):g}")
print(f"autograd: x.grad = {x.grad.item():g}")
# --8<-- [end:square]

# --8<-- [start:claim-both-edges-one-node]
assert first[0] is second[0]  # both inputs of x * x lead to x's one node
assert x.grad.item() == sum(paths_hand)  # the two contributions were added
# --8<-- [end:claim-both-edges-one-node]

# --8<-- [start:two_paths]
x = torch.tensor(3.0, requires_grad=True)
y = torch.tensor(4.0, requires_grad=True)
product = x * y
z = product + x  # x reaches z directly and through the product

# By hand: through the product, 1 * y; directly, 1
through_product, direct = y.item(), 1.0
z.backward()
print(f"by hand:  dz/dx = y + 1 = {through_product + direct:g}")
print(f"autograd: x.grad = {x.grad.item():g}   y.grad = {y.grad.item():g}")
# --8<-- [end:two_paths]

# --8<-- [start:claim-two-paths-add]
# the contributions of the two paths, added: y + 1 for x; x for y
assert x.grad.item() == through_product + direct
assert y.grad.item() == x.item()
# --8<-- [end:claim-two-paths-add]

# --8<-- [start:claim-adds-before-passing]
# an intermediate result used three times: its node runs once, with the total
x3 = torch.tensor(3.0, requires_grad=True)
u = x3 * 2
z3 = u * u + u  # u reaches z3 twice through u * u and once directly
arrived = []  # the gradient handed to u's node, at each call of it


def record(grad_inputs, grad_outputs):
    arrived.append(grad_outputs[0].item())


u.grad_fn.register_hook(record)
z3.backward()
assert arrived == [2 * u.item() + 1]  # one call, with the sum of the three
assert x3.grad.item() == (2 * u.item() + 1) * 2  # then passed on to x3
# --8<-- [end:claim-adds-before-passing]

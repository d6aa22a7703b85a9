# One weight, one bias, one data point: the graph autograd records.
# --8<-- [start:forward]
import torch

w = torch.tensor(0.5, requires_grad=True)  # the weight
b = torch.tensor(0.0, requires_grad=True)  # the bias
x, y = torch.tensor(2.0), torch.tensor(3.0)  # one data point

prediction = w * x + b
error = prediction - y
loss = error**2
print("prediction:", prediction.item())
print("error:     ", error.item())
print("loss:      ", loss.item())
# --8<-- [end:forward]


# --8<-- [start:walk]
def walk(node, depth=0):
    """Print a node and (indented) the nodes it passes gradients to."""
    label = type(node).__name__  # the class of the node
    if label == "AccumulateGrad":  # a leaf: its gradient goes to .grad
        label += " -> w.grad" if node.variable is w else " -> b.grad"
    print("    " * depth + label)
    for next_node, _ in node.next_functions:
        if next_node is not None:  # None: an input needing no gradient
            walk(next_node, depth + 1)


walk(loss.grad_fn)
# --8<-- [end:walk]

# --8<-- [start:claim-data-no-node]
# the node that computed w * x, and the nodes it passes gradients to
multiply = prediction.grad_fn.next_functions[0][0]
assert type(multiply).__name__ == "MulBackward0"
# w has a node (AccumulateGrad); x has none (None)
passes_to = [type(node).__name__ for node, _ in multiply.next_functions]
assert passes_to == ["AccumulateGrad", "NoneType"]
# the same for y, in the node that subtracted it
subtract = error.grad_fn
assert type(subtract).__name__ == "SubBackward0"
assert subtract.next_functions[1][0] is None
# --8<-- [end:claim-data-no-node]

# --8<-- [start:claim-mul-saves-x]
# the node kept x: w's local derivative is x
assert torch.equal(multiply._saved_other, x)
# --8<-- [end:claim-mul-saves-x]

# --8<-- [start:backward]
loss.backward()
print(f"autograd: w.grad = {w.grad.item()}   b.grad = {b.grad.item()}")

# The chain rule by hand: multiply the local derivatives along each path
dloss_derror = 2 * error.item()  # loss = error**2
derror_dprediction = 1.0  # error = prediction - y
by_hand_w = dloss_derror * derror_dprediction * x.item()  # dpred/dw = x
by_hand_b = dloss_derror * derror_dprediction * 1.0  # dpred/db = 1
print(f"by hand:  dL/dw  = {by_hand_w}   dL/db  = {by_hand_b}")
# --8<-- [end:backward]

# --8<-- [start:claim-by-hand-matches]
assert by_hand_w == w.grad.item() and by_hand_b == b.grad.item()  # exactly
# --8<-- [end:claim-by-hand-matches]

# --8<-- [start:claim-data-gets-no-grad]
# x and y are leaves (you made them) that need no gradient: none is stored
assert x.is_leaf and y.is_leaf
assert x.grad is None and y.grad is None
# --8<-- [end:claim-data-gets-no-grad]

# --8<-- [start:claim-saved-freed]
grads_before = (w.grad.item(), b.grad.item())
try:
    torch.equal(multiply._saved_other, x)  # read the x the node saved
    freed = False
except RuntimeError as e:
    freed = "freed" in str(e)
assert freed  # backward() has released what the graph saved
try:
    loss.backward()  # a second walk would need the freed values
    walked_twice = True
except RuntimeError as e:
    walked_twice = "backward through the graph a second time" not in str(e)
assert not walked_twice
assert (w.grad.item(), b.grad.item()) == grads_before  # and nothing was added
# --8<-- [end:claim-saved-freed]

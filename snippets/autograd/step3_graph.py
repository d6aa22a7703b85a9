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
# The same graph again, built from fresh tensors, to watch when each node's
# saved values are freed during backward().
w_fresh = torch.tensor(0.5, requires_grad=True)
b_fresh = torch.tensor(0.0, requires_grad=True)
error_fresh = w_fresh * x + b_fresh - y
loss_fresh = error_fresh**2
pow_node = loss_fresh.grad_fn  # saved the error
mul_node = error_fresh.grad_fn.next_functions[0][0].next_functions[0][0]
assert type(mul_node).__name__ == "MulBackward0"  # saved x


def saved_freed(node, attribute):
    """Whether reading a node's saved tensor raises the 'freed' error."""
    try:
        getattr(node, attribute)
    except RuntimeError as caught:
        return "freed" in str(caught)
    return False


# the nodes that saved a tensor, and the name of what each saved
saving = {pow_node: "_saved_self", mul_node: "_saved_other"}
order = []  # the nodes in the order backward() runs them
state = []  # at each node's start: which saved tensors are freed


def at_start(node):
    def hook(grad_outputs):
        order.append(node)
        state.append({n: saved_freed(n, a) for n, a in saving.items()})

    return hook


todo = [loss_fresh.grad_fn]
while todo:  # every node of the graph except the leaves' AccumulateGrad
    node = todo.pop()
    node.register_prehook(at_start(node))
    todo += [
        n
        for n, _ in node.next_functions
        if n is not None and type(n).__name__ != "AccumulateGrad"
    ]
at_leaf = {}


def before_leaf(grad):  # runs before w's gradient is added to w_fresh.grad
    at_leaf.update({n: saved_freed(n, a) for n, a in saving.items()})
    at_leaf["grad still None"] = w_fresh.grad is None


w_fresh.register_hook(before_leaf)
loss_fresh.backward()
assert len(order) == len(set(order)) == 4  # Pow, Sub, Add, Mul: once each
for node in saving:
    ran_at = order.index(node)
    # its saved values are there when it starts, and gone at every later
    # node's start: it frees them as soon as it has used them
    assert not state[ran_at][node]
    assert all(later[node] for later in state[ran_at + 1 :])
    assert at_leaf[node]  # gone before the leaf receives its gradient
assert order.index(mul_node) == len(order) - 1  # so the check above ran
assert state[order.index(mul_node)][pow_node]  # the error freed before x
assert at_leaf["grad still None"] and w_fresh.grad is not None


def second_walk_refused(root):
    """Whether a second backward() through a freed graph is refused."""
    try:
        root.backward()
    except RuntimeError as caught:
        return "backward through the graph a second time" in str(caught)
    return False


grad_after_first = w_fresh.grad.clone()
assert second_walk_refused(loss_fresh)
assert torch.equal(w_fresh.grad, grad_after_first)  # nothing was added
# what is freed is the saved tensors: a saved number that is not a tensor,
# the power node's exponent, stays readable
assert pow_node._saved_exponent == 2


# that is the default: for each way to run a backward pass, a plain call
# frees the saved tensors, and retain_graph=True keeps them for a second
# walk through the same graph, which adds to .grad once more
def run_backward(how, root, leaves, **options):
    if how == "loss.backward()":
        root.backward(**options)
    elif how == "torch.autograd.backward":
        torch.autograd.backward(root, **options)
    else:  # torch.autograd.grad returns the gradients instead of adding
        for leaf, gradient in zip(
            leaves, torch.autograd.grad(root, leaves, **options), strict=True
        ):
            leaf.grad = gradient if leaf.grad is None else leaf.grad + gradient


for how in (
    "loss.backward()",
    "torch.autograd.backward",
    "torch.autograd.grad",
):
    for retain in (False, True):
        w_again = torch.tensor(0.5, requires_grad=True)
        b_again = torch.tensor(0.0, requires_grad=True)
        error_again = w_again * x + b_again - y
        loss_again = error_again**2
        options = {"retain_graph": True} if retain else {}
        run_backward(how, loss_again, [w_again, b_again], **options)
        first_grad = w_again.grad.clone()
        assert saved_freed(loss_again.grad_fn, "_saved_self") is not retain
        mul_again = error_again.grad_fn.next_functions[0][0].next_functions[0][
            0
        ]
        assert saved_freed(mul_again, "_saved_other") is not retain
        try:
            run_backward(how, loss_again, [w_again, b_again])
            refused = False
        except RuntimeError as caught:
            refused = "backward through the graph a second time" in str(caught)
        assert refused is not retain, (how, retain)
        expected = first_grad if not retain else 2 * first_grad
        assert torch.equal(w_again.grad, expected), (how, retain)
# --8<-- [end:claim-saved-freed]

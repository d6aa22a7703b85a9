# A detached tensor shares its memory with the tensor it came from.
# --8<-- [start:shared]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
out = w.exp()  # exp's node saves its result, out itself, for backward
detached = out.detach()
detached.zero_()  # an in-place edit of the detached tensor
print("out after detached.zero_():", out)
try:
    out.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", error)
# --8<-- [end:shared]

# --8<-- [start:claim-detach-shares]
# for several operations, the detached tensor is the same memory: an
# in-place edit of it changes the original; when the operation saved its
# result for backward, backward() then raises the in-place error and stores
# nothing; when it saved nothing, backward() still runs
SAVED_CHANGED = "modified by an inplace operation"


def edit_then_backward(op):
    """(original changed, error text or '', leaf's grad) after the edit."""
    leaf = torch.tensor([0.5, 1.5, -2.0], requires_grad=True)
    result = op(leaf)
    before = result.detach().clone()
    result.detach().mul_(3.0)
    changed = not torch.equal(result.detach(), before)
    try:
        result.sum().backward()
    except RuntimeError as caught:
        return changed, str(caught), leaf.grad
    return changed, "", leaf.grad


for saves_result in (torch.exp, torch.sigmoid, torch.tanh, torch.sqrt):
    edited, message, grad = edit_then_backward(
        lambda t, f=saves_result: f(t.abs())
    )
    assert edited
    assert SAVED_CHANGED in message
    assert grad is None
for saves_nothing in (lambda t: t + 1.0, lambda t: t * 2.0):
    edited, message, grad = edit_then_backward(saves_nothing)
    assert edited
    assert message == ""
    assert grad is not None
# a clone of the detached tensor is new memory: editing it changes nothing,
# and backward() runs
kept_leaf = torch.tensor([0.5, 1.5], requires_grad=True)
kept = kept_leaf.exp()
kept_before = kept.detach().clone()
kept.detach().clone().zero_()
assert torch.equal(kept.detach(), kept_before)
kept.sum().backward()
assert torch.equal(kept_leaf.grad, kept_before)
# the page's run: out was changed and backward refused
assert torch.equal(out.detach(), torch.zeros(2))
assert w.grad is None
# --8<-- [end:claim-detach-shares]


# --8<-- [start:claim-error-comes-late]
# the error comes when the walk reaches the node that saved the edited
# tensor: leaves the walk reached before it may already hold a gradient,
# and no gradient passes through that node to the leaves behind it
def late_error(build):
    """build() -> (loss, leaves behind the node, other leaves); after the
    failed backward(): (the error text, whether each leaf got a .grad)."""
    loss, behind, others = build()
    try:
        loss.backward()
    except RuntimeError as caught:
        message = str(caught)
    else:
        message = ""
    return (
        message,
        [leaf.grad is not None for leaf in behind],
        [leaf.grad is not None for leaf in others],
    )


def branch_after():  # the untouched branch is built after the edited one
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    k = torch.tensor(1.0, requires_grad=True)
    result = v.exp()
    result.detach().zero_()
    return result.sum() + 3 * k, [v], [k]


def branch_before():  # the untouched branch is built first
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    k = torch.tensor(1.0, requires_grad=True)
    first = 3 * k
    result = v.exp()
    result.detach().zero_()
    return first + result.sum(), [v], [k]


def both_sides():  # v also reaches the loss by a path that avoids exp
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    k = torch.tensor(1.0, requires_grad=True)
    result = v.exp()
    result.detach().zero_()
    return result.sum() + 3 * v.sum() + 3 * k, [v], [k]


def network(edit_layer):
    """Three linear layers with sigmoids; the output of one sigmoid, which
    its node saved, is changed in place through .detach()."""
    torch.manual_seed(0)
    layers = [torch.nn.Linear(3, 3) for _ in range(3)]
    h = torch.randn(2, 3)
    for index, layer in enumerate(layers):
        h = torch.sigmoid(layer(h))
        if index == edit_layer:
            h.detach().mul_(2.0)
    behind = [
        q for layer in layers[: edit_layer + 1] for q in layer.parameters()
    ]
    others = [
        q for layer in layers[edit_layer + 1 :] for q in layer.parameters()
    ]
    return h.sum(), behind, others


message, behind_got, others_got = late_error(branch_after)
assert SAVED_CHANGED in message and behind_got == [False]
assert others_got == [True]  # reached before the error: k.grad is filled
message, behind_got, others_got = late_error(branch_before)
assert SAVED_CHANGED in message and behind_got == [False]
assert others_got == [False]  # not reached yet: "may" already hold one
message, behind_got, others_got = late_error(both_sides)
assert SAVED_CHANGED in message and behind_got == [False]  # not even a part
assert others_got == [True]
for edit_layer in (0, 1):
    message, behind_got, others_got = late_error(
        lambda e=edit_layer: network(e)
    )
    assert SAVED_CHANGED in message
    assert not any(behind_got) and others_got and all(others_got)
# --8<-- [end:claim-error-comes-late]

# --8<-- [start:claim-other-routes-unseen]
# .data and a NumPy array share the memory too, but an edit through them
# escapes the check: backward() runs and returns a wrong gradient
for edit in (
    lambda t: t.data.mul_(3.0),
    lambda t: t.detach().numpy().__imul__(3.0),
):
    for saves_result in (torch.exp, torch.sigmoid, torch.tanh, torch.sqrt):
        leaf = torch.tensor([0.5, 1.5, -2.0], requires_grad=True)
        result = saves_result(leaf.abs())
        right = torch.autograd.grad(result.sum(), leaf, retain_graph=True)[0]
        edit(result)
        result.sum().backward()  # no error
        assert not torch.equal(leaf.grad, right)
# --8<-- [end:claim-other-routes-unseen]

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

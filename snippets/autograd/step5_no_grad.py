# Keeping work out of the graph: no_grad(), .detach(), @no_grad().
# --8<-- [start:setup]
import torch

torch.manual_seed(0)
inputs = torch.randn(64, 256)  # a batch: 64 examples, 256 features each
weight = torch.randn(256, 256, requires_grad=True)


def describe(label, t):
    """Print whether a tensor is recorded, and the node that made it."""
    node = t.grad_fn.name() if t.grad_fn is not None else None
    grad = f"requires_grad={t.requires_grad!s:<5}"
    print(f"{label:<17} {grad}  grad_fn={node}")


# --8<-- [end:setup]

# --8<-- [start:recorded]
out = inputs @ weight
describe("recorded", out)
# The node keeps the input: it needs it for weight's gradient.
# (_saved_self is an internal attribute, read here only to peek.)
print("saved for backward:", tuple(out.grad_fn._saved_self.shape))
# --8<-- [end:recorded]

# --8<-- [start:off]
with torch.no_grad():
    out_no_grad = inputs @ weight
describe("no_grad", out_no_grad)

detached = out.detach()  # the same numbers, with no history
describe("detach", detached)
print("shares memory with out:", detached.data_ptr() == out.data_ptr())
describe("detached @ weight", detached @ weight)  # weight still records


@torch.no_grad()
def predict(batch):
    return batch @ weight


describe("decorated", predict(inputs))
# --8<-- [end:off]

# --8<-- [start:claim-no-grad-records-nothing]
assert out_no_grad.grad_fn is None and not out_no_grad.requires_grad
# the decorator does the same, call after call, whatever the batch
for batch in (inputs, inputs[:1], torch.randn(3, 256), inputs):
    result = predict(batch)
    assert result.grad_fn is None and not result.requires_grad
assert torch.is_grad_enabled()  # and recording is on again after each call
# --8<-- [end:claim-no-grad-records-nothing]

# --8<-- [start:claim-detach-no-history]
assert detached.grad_fn is None and not detached.requires_grad
# the same memory, not a copy
assert detached.data_ptr() == out.data_ptr()
# detach() leaves the record that made out alone
assert out.grad_fn is not None
# --8<-- [end:claim-detach-no-history]


# --8<-- [start:claim-detach-keeps-recording]
def reaches(node, target):
    """Whether a backward walk from node can arrive at target."""
    following = (n for n, _ in node.next_functions if n is not None)
    return node is target or any(reaches(n, target) for n in following)


# recorded, because weight requires grad...
product = detached @ weight
assert product.grad_fn is not None
# ...but with no way back into out's history, as there is from out itself
assert not reaches(product.grad_fn, out.grad_fn)
assert reaches((out @ weight).grad_fn, out.grad_fn)
# the same for other computations from the detached tensor: to them it is a
# constant, and a backward() through them gives weight a gradient, not out
uses = (
    lambda d: d @ weight,
    lambda d: (d * 2 + 1) @ weight,
    lambda d: torch.tanh(d).sum() * weight.sum(),
    lambda d: (d.T @ d).mean() * weight.mean(),
)
for use in uses:
    weight.grad = None
    result = use(detached)
    assert result.grad_fn is not None
    assert not reaches(result.grad_fn, out.grad_fn)
    assert reaches(use(out).grad_fn, out.grad_fn)
    result.sum().backward()
    assert weight.grad is not None
weight.grad = None
# --8<-- [end:claim-detach-keeps-recording]

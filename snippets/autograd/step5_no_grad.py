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
    print(f"{label:<12} {grad}  grad_fn={node}")


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

detached = out.detach()  # the same numbers, cut out of the graph
describe("detach", detached)
print("shares memory with out:", detached.data_ptr() == out.data_ptr())


@torch.no_grad()
def predict(batch):
    return batch @ weight


describe("decorated", predict(inputs))
# --8<-- [end:off]

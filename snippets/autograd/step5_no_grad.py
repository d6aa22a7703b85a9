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
# the input the node keeps for weight's gradient (internal: read to peek)
print("saved for backward:", tuple(out.grad_fn._saved_self.shape))
# --8<-- [end:recorded]

# --8<-- [start:off]
with torch.no_grad():
    out_no_grad = inputs @ weight
describe("no_grad", out_no_grad)

detached = out.detach()  # the same numbers, with no history
describe("detach", detached)
print("shares memory with out:", detached.data_ptr() == out.data_ptr())
reused = detached @ weight  # weight still requires a gradient: recorded
describe("detached @ weight", reused)


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
# other operations on a tensor that requires a gradient: none is recorded,
# under the block, the decorator, or set_grad_enabled(False) as a function
layer = torch.nn.Linear(256, 4)
operations = (
    lambda t: t @ weight,
    lambda t: torch.relu(t @ weight).sum(),
    lambda t: (t @ weight).T + 1,
    lambda t: layer(t @ weight),
    lambda t: weight.exp().mean() * t,
)
quiet_results = []
for operation in operations:
    with torch.no_grad():
        quiet_results.append(operation(inputs))
    quiet_results.append(torch.no_grad()(operation)(inputs))
    torch.set_grad_enabled(False)
    quiet_results.append(operation(inputs))
    torch.set_grad_enabled(True)
    assert operation(inputs).grad_fn is not None  # recorded outside
assert len(quiet_results) == 3 * len(operations)
for quiet in quiet_results:
    assert quiet.grad_fn is None and not quiet.requires_grad
# the two exceptions: a tensor created with requires_grad=True (so also a
# layer built inside the block), and a block inside it that switches grad
# mode back on with enable_grad()
with torch.no_grad():
    created = torch.zeros(3, requires_grad=True)
    built = torch.nn.Linear(2, 2)
    with torch.enable_grad():
        inner = inputs @ weight
    after_inner = inputs @ weight  # off again once the inner block ends
assert created.requires_grad and created.is_leaf and created.grad_fn is None
assert built.weight.requires_grad and built.bias.requires_grad
assert inner.grad_fn is not None and inner.requires_grad
assert after_inner.grad_fn is None
assert torch.is_grad_enabled()
# requires_grad_() inside the block switches it on too; and an in-place
# operation there changes a tensor that exists already, which keeps its
# requires_grad (the update w -= lr * w.grad relies on it)
existing = torch.ones(3, requires_grad=True)
with torch.no_grad():
    switched = torch.zeros(3).requires_grad_()
    changed = existing.sub_(0.5)
assert switched.requires_grad
assert changed is existing and changed.requires_grad
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
    result = use(detached)
    assert result.grad_fn is not None
    assert not reaches(result.grad_fn, out.grad_fn)
    assert reaches(use(out).grad_fn, out.grad_fn)
# a backward() through such a computation fills a weight's gradient and
# never reaches out: shown with fresh tensors, made the same way
weight_fresh = weight.detach().clone().requires_grad_()
out_fresh = inputs @ weight_fresh
reached_out = []
out_fresh.register_hook(lambda g: reached_out.append(g))
for use in (
    lambda d: d @ weight_fresh,
    lambda d: (d * 2 + 1) @ weight_fresh,
    lambda d: torch.tanh(d).sum() * weight_fresh.sum(),
    lambda d: (d.T @ d).mean() * weight_fresh.mean(),
):
    weight_fresh.grad = None
    use(out_fresh.detach()).sum().backward()
    assert weight_fresh.grad is not None and not reached_out
# --8<-- [end:claim-detach-keeps-recording]

# --8<-- [start:claim-no-grad-keeps-nothing]
import weakref  # noqa: E402  (a claim section, left out of the page)

second_weight = torch.randn(256, 4)
kept_alive = []  # a weak reference to each run's hidden result
saved_bytes = []  # the bytes of the distinct storages a run's graph saved


def two_layers(batch):
    hidden = torch.relu(batch @ weight)  # freed on return, unless saved
    kept_alive.append(weakref.ref(hidden))
    return hidden @ second_weight


def run(batch, recording):
    storages = {}

    def pack(t):  # called for every tensor a node saves
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.set_grad_enabled(recording):
            prediction = two_layers(batch)
    saved_bytes.append(sum(storages.values()))
    return prediction


for batch in (inputs[:1], inputs[:8], inputs):
    recorded_prediction = run(batch, True)
    quiet_prediction = run(batch, False)
    # recording keeps the hidden result alive after the function returned,
    # and saves at least it and the batch; without recording nothing is
    # saved, and the hidden result is freed at once
    assert kept_alive[-2]() is not None and kept_alive[-1]() is None
    hidden_bytes = batch.shape[0] * weight.shape[1] * 4
    assert saved_bytes[-2] >= hidden_bytes + batch.nbytes
    assert saved_bytes[-1] == 0
    assert torch.equal(recorded_prediction.detach(), quiet_prediction)
# --8<-- [end:claim-no-grad-keeps-nothing]

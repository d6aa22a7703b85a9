# What backward keeps: the saved tensors, counted; and checkpointing.
# --8<-- [start:model]
import warnings

import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)  # the same weights and batch on every run
width, depth = 256, 6
layers = [
    torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.Tanh())
    for _ in range(depth)
]
model = torch.nn.Sequential(*layers)
batch = torch.randn(64, width)
weights = {p.untyped_storage().data_ptr() for p in model.parameters()}

forward_calls = [0]  # how often a layer's forward ran, in total


def count_call(layer, inputs):
    forward_calls[0] += 1


for layer in layers:
    layer.register_forward_pre_hook(count_call)  # runs before each forward
# --8<-- [end:model]


# --8<-- [start:measure]
def measure(run):
    """Forward and backward; count what the graph holds, the forward calls."""
    saves, held = [0], {}  # held: bytes of each memory block, counted once

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:  # the weights exist anyway
            saves[0] += 1  # a tensor two nodes need is handed over twice
            held[storage.data_ptr()] = storage.nbytes()
        return tensor

    model.zero_grad()
    forward_calls[0] = 0
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = run(batch).pow(2).mean()
    loss.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    return len(held), sum(held.values()), forward_calls[0], grads, saves[0]


def segments(inputs):
    """The same model, each half a checkpointed segment."""
    half = depth // 2
    first = torch.nn.Sequential(*layers[:half])
    second = torch.nn.Sequential(*layers[half:])
    middle = checkpoint(first, inputs, use_reentrant=False)
    return checkpoint(second, middle, use_reentrant=False)


plain = measure(model)
checkpointed = measure(segments)
for name, (count, size, calls, _, handed) in [
    ("plain", plain),
    ("checkpoint", checkpointed),
]:
    print(f"{name:10s}  {handed:2d} saves of {count} tensors,", end="")
    print(f" {size / 1024:4.0f} KiB   layer forwards: {calls}")
# --8<-- [end:measure]


# --8<-- [start:default]
def segments_default(inputs):
    """segments() as it reads without the flag."""
    half = depth // 2
    first = torch.nn.Sequential(*layers[:half])
    second = torch.nn.Sequential(*layers[half:])
    return checkpoint(second, checkpoint(first, inputs))


model.zero_grad()  # no layer has a gradient
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")  # collect the warnings, to print them here
    output = segments_default(batch)
for warning in caught:
    print(
        "warning:", str(warning.message).split(". ")[0]
    )  # its first sentence
print("output requires_grad:", output.requires_grad)
try:
    output.pow(2).mean().backward()
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")
got = sum(layer[0].weight.grad is not None for layer in layers)
print(f"layers with a gradient: {got} of {depth}")
# --8<-- [end:default]

# --8<-- [start:claim-checkpoint]
# fewer bytes kept, the same gradients, more forward computation
assert checkpointed[1] < plain[1]
assert checkpointed[0] < plain[0] < plain[4]  # distinct, fewer than saves
assert all(
    torch.equal(a, b) for a, b in zip(plain[3], checkpointed[3], strict=True)
)
assert plain[2] == depth and checkpointed[2] == 2 * depth
# kept: each segment's input, and what the loss's pow saved, nothing else
assert checkpointed[0] == 2 + 1
# without checkpointing: the batch, and each layer's tanh output, which its
# TanhBackward0 saves and the next layer's AddmmBackward0 saves again (the
# last one: the loss's pow), each held once
assert plain[0] == 1 + depth and plain[4] == 1 + 2 * depth
activation_bytes = batch.numel() * batch.element_size()  # same shape: 64x256
assert plain[1] == (1 + depth) * activation_bytes
assert checkpointed[1] == 3 * activation_bytes
# --8<-- [end:claim-checkpoint]

# --8<-- [start:claim-use-reentrant]
# without use_reentrant, this version warns: pass it, and False is advised
import warnings  # noqa: E402  (a claim section, left out of the page)

reentrant_input = torch.randn(2, width, requires_grad=True)
with warnings.catch_warnings(record=True) as reentrant_warnings:
    warnings.simplefilter("always")
    checkpoint(torch.nn.Linear(width, width), reentrant_input)
reentrant_text = " ".join(str(w.message) for w in reentrant_warnings)
assert "use_reentrant parameter should be passed explicitly" in reentrant_text
assert "use_reentrant=False is recommended" in reentrant_text
with warnings.catch_warnings(record=True) as explicit_warnings:
    warnings.simplefilter("always")
    checkpoint(
        torch.nn.Linear(width, width), reentrant_input, use_reentrant=False
    )
assert not any("use_reentrant" in str(w.message) for w in explicit_warnings)


# left out, the flag acts as use_reentrant=True, the older implementation:
# it records a segment only when one of its inputs requires a gradient, so
# with none (as this page's batch), no layer gets a gradient and backward()
# raises; use_reentrant=False records the segment either way
def checkpointed_grads(flag, needs_grad, two_inputs=False):
    """The layers' gradients after backward, or None if backward raised."""
    torch.manual_seed(1)
    lin_a, lin_b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
    x = torch.randn(3, 4, requires_grad=needs_grad)
    other = torch.randn(3, 4, requires_grad=True)
    flag_kwargs = {} if flag is None else {"use_reentrant": flag}
    with warnings.catch_warnings(record=True) as grads_warnings:
        warnings.simplefilter("always")
        if two_inputs:  # x and another input that requires a gradient
            out = checkpoint(
                lambda u, v: lin_b(lin_a(u) + v), x, other, **flag_kwargs
            )
        else:
            out = checkpoint(
                lambda u: lin_b(torch.tanh(lin_a(u))), x, **flag_kwargs
            )
    none_needs = not needs_grad and not two_inputs
    warned = any(
        "None of the inputs" in str(w.message) for w in grads_warnings
    )
    assert warned == (flag is not False and none_needs)
    try:
        out.pow(2).sum().backward()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
        assert out.grad_fn is None
        return None
    return [lin.weight.grad.clone() for lin in (lin_a, lin_b)]


for flag in (None, True):
    assert checkpointed_grads(flag, needs_grad=False) is None
    with_input = checkpointed_grads(flag, needs_grad=True)
    one_of_two = checkpointed_grads(flag, needs_grad=False, two_inputs=True)
    for got_grads, reference in [
        (with_input, checkpointed_grads(False, needs_grad=True)),
        (
            one_of_two,
            checkpointed_grads(False, needs_grad=False, two_inputs=True),
        ),
    ]:
        assert all(
            torch.equal(a, b)
            for a, b in zip(got_grads, reference, strict=True)
        )
for needs_grad in (False, True):
    assert checkpointed_grads(False, needs_grad) is not None
# the shown run: the default recorded nothing, warned so for each half, and
# no layer got a gradient
assert got == 0 and not output.requires_grad
none_warned = [w for w in caught if "None of the inputs" in str(w.message)]
assert len(none_warned) == 2
# --8<-- [end:claim-use-reentrant]

# --8<-- [start:claim-memory-parts]
# the graph's saved tensors come on top of the parameters, their gradients
# and the optimizer's state: with Adam, on a model like the one above, none
# of the saved tensors (the weights left out, as in measure) shares memory
# with those, and those hold more bytes than the saved tensors
torch.manual_seed(2)
parts_model = torch.nn.Sequential(
    *[
        torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.Tanh())
        for _ in range(depth)
    ]
)
parts_optimizer = torch.optim.Adam(parts_model.parameters(), lr=1e-3)
parts_weights = {
    p.untyped_storage().data_ptr() for p in parts_model.parameters()
}
parts_batch = torch.randn(64, width)
parts_saved = {}  # bytes of each saved memory block, for one step
parts_alive = []  # saved tensors kept alive: nothing later reuses their memory


def keep_saved(tensor):
    storage = tensor.untyped_storage()
    if storage.data_ptr() not in parts_weights:
        parts_saved[storage.data_ptr()] = storage.nbytes()
        parts_alive.append(tensor)
    return tensor


for parts_step in range(2):  # the second step has optimizer state already
    parts_saved.clear()
    parts_alive.clear()
    parts_optimizer.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(keep_saved, lambda t: t):
        parts_loss = parts_model(parts_batch).pow(2).mean()
    parts_loss.backward()
    parts_optimizer.step()
    others = list(parts_model.parameters())
    others += [p.grad for p in parts_model.parameters()]
    others += [
        value
        for state in parts_optimizer.state.values()
        for value in state.values()
        if value.dim() > 0  # exp_avg and exp_avg_sq; not the step count
    ]
    other_storages = {t.untyped_storage().data_ptr(): t for t in others}
    assert len(other_storages) == len(others) == 4 * 2 * depth  # all distinct
    assert not set(parts_saved) & set(other_storages)
    other_bytes = sum(t.untyped_storage().nbytes() for t in others)
    assert 0 < sum(parts_saved.values()) < other_bytes
    assert parts_step == 0 or len(parts_optimizer.state) == 2 * depth
# --8<-- [end:claim-memory-parts]

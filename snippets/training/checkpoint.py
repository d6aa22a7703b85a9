# What backward keeps: the saved tensors, counted; and checkpointing.
# --8<-- [start:model]
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
# --8<-- [end:claim-use-reentrant]

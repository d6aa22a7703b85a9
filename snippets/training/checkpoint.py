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
    """Forward and backward; count what was saved and the forward calls."""
    saved = []

    def pack(tensor):
        if tensor.untyped_storage().data_ptr() not in weights:
            saved.append(tensor.numel() * tensor.element_size())
        return tensor  # the weights exist anyway: count the rest

    model.zero_grad()
    forward_calls[0] = 0
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = run(batch).pow(2).mean()
    loss.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    return len(saved), sum(saved), forward_calls[0], grads


def segments(inputs):
    """The same model, each half a checkpointed segment."""
    half = depth // 2
    first = torch.nn.Sequential(*layers[:half])
    second = torch.nn.Sequential(*layers[half:])
    middle = checkpoint(first, inputs, use_reentrant=False)
    return checkpoint(second, middle, use_reentrant=False)


plain = measure(model)
checkpointed = measure(segments)
for name, (count, size, calls, _) in [
    ("plain", plain),
    ("checkpoint", checkpointed),
]:
    print(
        f"{name:10s}  {count:2d} tensors saved, {size / 1024:5.0f} KiB", end=""
    )
    print(f"   layer forwards: {calls}")
# --8<-- [end:measure]

# --8<-- [start:claim-checkpoint]
# fewer bytes kept, the same gradients, more forward computation
assert checkpointed[1] < plain[1]
assert all(
    torch.equal(a, b) for a, b in zip(plain[3], checkpointed[3], strict=True)
)
assert plain[2] == depth and checkpointed[2] == 2 * depth
# kept: each segment's input, and what the loss's pow saved, nothing else
assert checkpointed[0] == 2 + 1
# --8<-- [end:claim-checkpoint]

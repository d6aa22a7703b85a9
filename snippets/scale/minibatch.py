# Mini-batches: the mean of per-example gradients, noise, and epochs.
# --8<-- [start:data]
import torch
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)  # the same data and weights on every run
n, features = 256, 3
inputs = torch.randn(n, features)  # one example per row
targets = inputs @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 * torch.randn(n)
print("inputs:", tuple(inputs.shape), " targets:", tuple(targets.shape))
# --8<-- [end:data]

# --8<-- [start:setup]
model = torch.nn.Linear(features, 1)
batch_x, batch_y = inputs[:8], targets[:8]  # a batch: the first 8 examples
loss = torch.nn.functional.mse_loss(model(batch_x).squeeze(1), batch_y)
loss.backward()
print("the batch's gradient:", model.weight.grad, model.bias.grad)
# --8<-- [end:setup]


# --8<-- [start:mean]


def batch_gradient(x, y):
    """The gradient of the mean squared error over a batch, as a vector."""
    model.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x).squeeze(1), y)
    loss.backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def example_loss(params, x, y):
    """The model's squared error, with these parameters, on one example."""
    out = functional_call(model, params, (x.unsqueeze(0),))
    return (out.squeeze() - y) ** 2


params = {name: p.detach() for name, p in model.named_parameters()}
per_example = vmap(grad(example_loss), in_dims=(None, 0, 0))(
    params, batch_x, batch_y
)
rows = torch.cat([g.flatten(1) for g in per_example.values()], dim=1)
print("per-example gradients (weight 1-3, bias), first 8 examples:")
print(rows)
print("their mean:       ", rows.mean(dim=0))
print("batch's gradient: ", batch_gradient(batch_x, batch_y))
# --8<-- [end:mean]

# --8<-- [start:spread]
full = batch_gradient(inputs, targets)  # the gradient over all the data
draws = torch.Generator().manual_seed(1)  # which examples each batch takes
sizes = [1, 4, 16, 64]
spread = {}
for size in sizes:
    errors = []
    for _ in range(200):
        pick = torch.randperm(n, generator=draws)[:size]
        errors.append(batch_gradient(inputs[pick], targets[pick]) - full)
    # root mean square distance from the full gradient
    spread[size] = torch.stack(errors).norm(dim=1).pow(2).mean().sqrt().item()
    print(f"batch size {size:3d}: distance from the full gradient ", end="")
    print(f"{spread[size]:.3f}")
# --8<-- [end:spread]

# --8<-- [start:epoch]
# twelve examples, each with its number, so that the batches show which
examples = torch.utils.data.TensorDataset(
    torch.arange(12), inputs[:12], targets[:12]
)
order = torch.Generator().manual_seed(2)  # seeded: your run draws these too
loader = torch.utils.data.DataLoader(
    examples, batch_size=4, shuffle=True, generator=order
)
seen = []
for epoch in range(2):
    for numbers, _x, _y in loader:  # a training step would use _x and _y
        seen.append(numbers.tolist())
    print(f"epoch {epoch}: batches of examples {seen[-3:]}")
# --8<-- [end:epoch]

# --8<-- [start:claim-mean]
# the mean of the per-example gradients is the batch's gradient (here, and
# for batches of other sizes and places, by a loop)
for mean_start, mean_size in [(0, 8), (8, 1), (20, 5), (100, 64), (0, n)]:
    mean_x = inputs[mean_start : mean_start + mean_size]
    mean_y = targets[mean_start : mean_start + mean_size]
    mean_rows = vmap(grad(example_loss), in_dims=(None, 0, 0))(
        params, mean_x, mean_y
    )
    mean_flat = torch.cat([g.flatten(1) for g in mean_rows.values()], dim=1)
    assert torch.allclose(
        mean_flat.mean(dim=0), batch_gradient(mean_x, mean_y), atol=1e-6
    )
# --8<-- [end:claim-mean]

# --8<-- [start:claim-spread]
# larger batches: closer to the full gradient, at every size shown
for smaller, larger in zip(sizes, sizes[1:], strict=False):
    assert spread[larger] < spread[smaller]
# a batch of all the data is the full gradient
assert torch.equal(batch_gradient(inputs, targets), full)
# --8<-- [end:claim-spread]

# --8<-- [start:claim-epoch]
# each epoch takes every example once, in batches; the orders differ
epoch_count = len(examples) // 4
for epoch_batches in [seen[:epoch_count], seen[epoch_count:]]:
    assert sorted(i for b in epoch_batches for i in b) == list(range(12))
assert seen[:epoch_count] != seen[epoch_count:]
# the same generator seed gives the same batches again
again_loader = torch.utils.data.DataLoader(
    examples,
    batch_size=4,
    shuffle=True,
    generator=torch.Generator().manual_seed(2),
)
again = [b.tolist() for _ in range(2) for b, _, _ in again_loader]
assert again == seen
# --8<-- [end:claim-epoch]

# --8<-- [start:claim-spread-law]
# the spread shrinks like sigma / sqrt(m) for independent samples; batches
# drawn without replacement (randperm) follow the finite-population law,
# sigma / sqrt(m) * sqrt((n - m) / (n - 1)): at the largest size the
# measured spread is clearly below the first and close to the second
law_rows = vmap(grad(example_loss), in_dims=(None, 0, 0))(
    params, inputs, targets
)
law_g = torch.cat([g.flatten(1) for g in law_rows.values()], dim=1)
law_sigma = (law_g - law_g.mean(0)).pow(2).sum(1).mean().sqrt().item()
for law_m in sizes:
    law_independent = law_sigma / law_m**0.5
    law_without = law_independent * ((n - law_m) / (n - 1)) ** 0.5
    assert abs(spread[law_m] - law_without) < 0.1 * law_without
law_m = sizes[-1]
assert spread[law_m] < 0.9 * law_sigma / law_m**0.5
assert (
    abs(
        spread[law_m] - law_sigma / law_m**0.5 * ((n - law_m) / (n - 1)) ** 0.5
    )
    < 0.03 * spread[law_m]
)
# --8<-- [end:claim-spread-law]

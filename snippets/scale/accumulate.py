# Gradient accumulation: k micro-batches, one step.
# --8<-- [start:setup]
import torch

torch.manual_seed(0)  # the same data and weights on every run
inputs = torch.randn(32, 3)
targets = inputs @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 * torch.randn(32)
model = torch.nn.Linear(3, 1)


def loss_on(x, y):
    return torch.nn.functional.mse_loss(model(x).squeeze(1), y)


def gradient():
    return torch.cat([p.grad.flatten() for p in model.parameters()])


model.zero_grad()
loss_on(inputs, targets).backward()  # the whole batch at once
full = gradient()
print("whole batch:           ", full)
# --8<-- [end:setup]

# --8<-- [start:accumulate]
k = 4  # micro-batches of 8 examples each
model.zero_grad()
for x, y in zip(inputs.chunk(k), targets.chunk(k), strict=True):
    (loss_on(x, y) / k).backward()  # .grad adds up the k parts
accumulated = gradient()
print("4 micro-batches, / k:  ", accumulated)
largest = (accumulated - full).abs().max().item()
bound = 1e-6  # float rounding stays below this (asserted below)
print("every entry within", bound, "of the whole batch's:", largest < bound)

model.zero_grad()
for x, y in zip(inputs.chunk(k), targets.chunk(k), strict=True):
    loss_on(x, y).backward()  # the division forgotten
forgot = gradient()
print("4 micro-batches, no / k:", forgot)
print("ratio to the whole batch:", forgot / full)
# --8<-- [end:accumulate]

# --8<-- [start:unequal]
sizes = [24, 8]  # what is left at the end of the data is often smaller
parts = list(zip(inputs.split(sizes), targets.split(sizes), strict=True))
model.zero_grad()
for x, y in parts:
    (loss_on(x, y) / len(parts)).backward()  # each mean counts the same
naive = gradient()
model.zero_grad()
for x, y in parts:
    (loss_on(x, y) * len(x) / len(inputs)).backward()  # weighted by size
weighted = gradient()
print("sizes 24 and 8, / 2:    ", naive)
print("sizes 24 and 8, weighted:", weighted)
# --8<-- [end:unequal]


# --8<-- [start:claim-accumulate]
# dividing by k: the whole batch's gradient, up to rounding; forgetting it:
# k times that gradient; for several k that divide the batch
def acc_gradient(acc_k, divide):
    acc_model = torch.nn.Linear(3, 1)
    acc_model.load_state_dict(model.state_dict())
    for acc_x, acc_y in zip(
        inputs.chunk(acc_k), targets.chunk(acc_k), strict=True
    ):
        acc_loss = torch.nn.functional.mse_loss(
            acc_model(acc_x).squeeze(1), acc_y
        )
        (acc_loss / acc_k if divide else acc_loss).backward()
    return torch.cat([p.grad.flatten() for p in acc_model.parameters()])


for acc_k in [1, 2, 4, 8, 32]:
    assert torch.allclose(acc_gradient(acc_k, True), full, rtol=0, atol=1e-6)
    assert torch.allclose(
        acc_gradient(acc_k, False), acc_k * full, rtol=1e-5, atol=1e-6
    )
assert largest < bound
# --8<-- [end:claim-accumulate]

# --8<-- [start:claim-unequal]
# means of unequal parts over the count of parts: not the whole gradient;
# weighted by size: the whole gradient, for several splits
assert (naive - full).abs().max() > 0.01
for unequal_sizes in [[24, 8], [31, 1], [5, 11, 16], [10, 10, 10, 2]]:
    u_model = torch.nn.Linear(3, 1)
    u_model.load_state_dict(model.state_dict())
    for u_x, u_y in zip(
        inputs.split(unequal_sizes), targets.split(unequal_sizes), strict=True
    ):
        u_loss = torch.nn.functional.mse_loss(u_model(u_x).squeeze(1), u_y)
        (u_loss * len(u_x) / len(inputs)).backward()
    u_grad = torch.cat([p.grad.flatten() for p in u_model.parameters()])
    assert torch.allclose(u_grad, full, rtol=0, atol=1e-6)
# --8<-- [end:claim-unequal]

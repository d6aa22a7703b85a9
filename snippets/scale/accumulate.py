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


# --8<-- [start:optimizers]
def step_taken(make_optimizer, divide):
    """How far one optimizer step moves the parameters after accumulating
    the k micro-batches, with or without the division."""
    copy = torch.nn.Linear(3, 1)
    copy.load_state_dict(model.state_dict())  # the same starting weights
    optimizer = make_optimizer(copy.parameters())
    for x, y in zip(inputs.chunk(k), targets.chunk(k), strict=True):
        loss = torch.nn.functional.mse_loss(copy(x).squeeze(1), y)
        (loss / k if divide else loss).backward()
    before = torch.cat([p.detach().flatten() for p in copy.parameters()])
    optimizer.step()
    after = torch.cat([p.detach().flatten() for p in copy.parameters()])
    return after - before


for name, make_optimizer in [
    ("SGD ", lambda params: torch.optim.SGD(params, lr=0.01)),
    ("Adam", lambda params: torch.optim.Adam(params, lr=0.01)),
]:
    forgot_step = step_taken(make_optimizer, divide=False)
    ratio = forgot_step / step_taken(make_optimizer, divide=True)
    print(f"{name}: step without the division / step with it:", ratio)
# --8<-- [end:optimizers]

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
# weighted by size, or sums over the total count: the whole gradient, for
# several splits
assert (naive - full).abs().max() > 0.01
for unequal_sizes in [[24, 8], [31, 1], [5, 11, 16], [10, 10, 10, 2]]:
    for u_reduction in ["mean", "sum"]:
        u_model = torch.nn.Linear(3, 1)
        u_model.load_state_dict(model.state_dict())
        for u_x, u_y in zip(
            inputs.split(unequal_sizes),
            targets.split(unequal_sizes),
            strict=True,
        ):
            u_loss = torch.nn.functional.mse_loss(
                u_model(u_x).squeeze(1), u_y, reduction=u_reduction
            )
            u_weight = len(u_x) if u_reduction == "mean" else 1
            (u_loss * u_weight / len(inputs)).backward()
        u_grad = torch.cat([p.grad.flatten() for p in u_model.parameters()])
        assert torch.allclose(u_grad, full, rtol=0, atol=1e-6)
        # the mean of each part divided by the total count: far off
        u_wrong = torch.nn.Linear(3, 1)
        u_wrong.load_state_dict(model.state_dict())
        for u_x, u_y in zip(
            inputs.split(unequal_sizes),
            targets.split(unequal_sizes),
            strict=True,
        ):
            u_mean = torch.nn.functional.mse_loss(u_wrong(u_x).squeeze(1), u_y)
            (u_mean / len(inputs)).backward()
        u_off = torch.cat([p.grad.flatten() for p in u_wrong.parameters()])
        assert (u_off - full).abs().max() > 0.1
# --8<-- [end:claim-unequal]


# --8<-- [start:claim-optimizers]
# forgetting the division: SGD without weight decay (plain or with
# momentum, over several steps) moves k times as far; Adam and AdamW move as
# far as with it (up to eps); SGD with weight decay moves neither k times as
# far nor as far; for several k
def opt_path(opt_make, opt_k, opt_divide, opt_steps):
    opt_model = torch.nn.Linear(3, 1)
    opt_model.load_state_dict(model.state_dict())
    opt_start = torch.cat(
        [p.detach().flatten() for p in opt_model.parameters()]
    )
    opt = opt_make(opt_model.parameters())
    for _ in range(opt_steps):
        opt.zero_grad()
        for opt_x, opt_y in zip(
            inputs.chunk(opt_k), targets.chunk(opt_k), strict=True
        ):
            opt_loss = torch.nn.functional.mse_loss(
                opt_model(opt_x).squeeze(1), opt_y
            )
            (opt_loss / opt_k if opt_divide else opt_loss).backward()
        opt.step()
    opt_end = torch.cat([p.detach().flatten() for p in opt_model.parameters()])
    return opt_end - opt_start


for opt_k in [2, 4, 8]:
    for opt_make, opt_steps in [
        (lambda p: torch.optim.SGD(p, lr=0.01), 1),
        (lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9), 1),
    ]:
        opt_ratio = opt_path(opt_make, opt_k, False, opt_steps) / opt_path(
            opt_make, opt_k, True, opt_steps
        )
        assert torch.allclose(opt_ratio, torch.full((4,), float(opt_k)))
    for opt_make in [
        lambda p: torch.optim.Adam(p, lr=0.01),
        lambda p: torch.optim.AdamW(p, lr=0.01),
        lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.0),
    ]:
        for opt_steps in [1, 5]:
            opt_ratio = opt_path(opt_make, opt_k, False, opt_steps) / opt_path(
                opt_make, opt_k, True, opt_steps
            )
            assert torch.allclose(opt_ratio, torch.ones(4), rtol=1e-4, atol=0)
    opt_wd = opt_path(
        lambda p: torch.optim.SGD(p, lr=0.01, weight_decay=0.1),
        opt_k,
        False,
        1,
    ) / opt_path(
        lambda p: torch.optim.SGD(p, lr=0.01, weight_decay=0.1), opt_k, True, 1
    )
    assert not torch.allclose(opt_wd, torch.full((4,), float(opt_k)))
    assert not torch.allclose(opt_wd, torch.ones(4))
# and this run's ratios
assert torch.allclose(forgot / full, torch.full((4,), float(k)))
# --8<-- [end:claim-optimizers]


# --8<-- [start:claim-batchnorm]
# accumulating gives the whole batch's gradient when each example's loss
# depends on that example alone (Linear); a BatchNorm layer, which
# normalises with the statistics of the batch it is given, breaks this
def bn_gap(bn_layers):
    torch.manual_seed(5)
    bn_model = torch.nn.Sequential(*bn_layers())
    bn_model.train()
    bn_params = list(bn_model.parameters())
    bn_whole = torch.autograd.grad(
        torch.nn.functional.mse_loss(bn_model(inputs).squeeze(1), targets),
        bn_params,
    )
    bn_acc = [torch.zeros_like(p) for p in bn_params]
    for bn_x, bn_y in zip(inputs.chunk(4), targets.chunk(4), strict=True):
        bn_loss = torch.nn.functional.mse_loss(bn_model(bn_x).squeeze(1), bn_y)
        for bn_sum, bn_g in zip(
            bn_acc, torch.autograd.grad(bn_loss / 4, bn_params), strict=True
        ):
            bn_sum += bn_g
    return max(
        (a - w).abs().max().item()
        for a, w in zip(bn_acc, bn_whole, strict=True)
    )


for bn_layers in [
    lambda: [torch.nn.Linear(3, 1)],
    lambda: [torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)],
]:
    assert bn_gap(bn_layers) < 1e-6
assert (
    bn_gap(
        lambda: [
            torch.nn.Linear(3, 4),
            torch.nn.BatchNorm1d(4),
            torch.nn.Linear(4, 1),
        ]
    )
    > 0.01
)
# --8<-- [end:claim-batchnorm]

# --8<-- [start:claim-state-dict]
# state_dict() holds each parameter's values under its name; load_state_dict
# copies them into another model of the same shape, which then computes the
# same; the copy is its own (changing one model leaves the other as it was);
# a model of another shape is refused
sd_source = torch.nn.Linear(3, 1)
sd_state = sd_source.state_dict()
assert list(sd_state) == [name for name, _ in sd_source.named_parameters()]
sd_copy = torch.nn.Linear(3, 1)
assert not torch.equal(sd_copy.weight, sd_source.weight)
sd_copy.load_state_dict(sd_state)
assert torch.equal(sd_copy(inputs), sd_source(inputs))
sd_kept = sd_source.weight.detach().clone()
with torch.no_grad():
    sd_copy.weight.add_(1.0)
assert torch.equal(sd_source.weight, sd_kept)
assert not torch.equal(sd_copy.weight, sd_kept)
sd_refused = False
try:
    torch.nn.Linear(4, 1).load_state_dict(sd_state)
except RuntimeError:
    sd_refused = True
assert sd_refused
# --8<-- [end:claim-state-dict]

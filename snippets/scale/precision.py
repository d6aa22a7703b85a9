# Lower precision: the formats, autocast, float16's underflow, GradScaler.
# --8<-- [start:formats]
import torch

print("format    bits   largest  smallest normal  smallest above 0  eps")
for dtype in [torch.float32, torch.bfloat16, torch.float16]:
    info = torch.finfo(dtype)
    zero, one = torch.tensor([0.0, 1.0], dtype=dtype)
    above_zero = zero.nextafter(one).item()  # the next number after 0
    name = str(dtype).removeprefix("torch.")
    print(
        f"{name:9s} {info.bits:4d}  {info.max:8.3g}  {info.tiny:15.3g}"
        f"  {above_zero:16.3g}  {info.eps:.3g}"
    )
# --8<-- [end:formats]

# --8<-- [start:autocast]
torch.manual_seed(0)  # the same data and weights on every run
model = torch.nn.Linear(3, 1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
print("autocast's default on the CPU:", torch.get_autocast_dtype("cpu"))
print("autocast's default on a GPU:  ", torch.get_autocast_dtype("cuda"))
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, y)
loss.backward()
print("output:", out.dtype, " loss:", loss.dtype)
print("weight:", model.weight.dtype, " its gradient:", model.weight.grad.dtype)
grad = model.weight.grad
in_bfloat16 = torch.equal(grad, grad.bfloat16().float())  # nothing lost
print("every entry of the gradient a bfloat16 number:", in_bfloat16)
# --8<-- [end:autocast]

# --8<-- [start:underflow]
half_zero, half_one = torch.tensor([0.0, 1.0], dtype=torch.float16)
tiny = half_zero.nextafter(half_one)
print(f"smallest float16 above zero: {tiny.item():.3g}")
for value in [1e-8, 1e-8 * 65536]:
    half = torch.tensor(value, dtype=torch.float16).item()
    print(f"{value:.3g} in float16: {half:.3g}")
# --8<-- [end:underflow]

# --8<-- [start:saved]
# every model below starts from these weights
start = {k: v.clone() for k, v in model.state_dict().items()}
factor = 1e-7  # a loss this many times the mse has gradients about as small


def weight_gradient(dtype, use_scaler):
    """The weight's gradient of a loss with tiny gradients, under autocast."""
    small = torch.nn.Linear(3, 1)
    small.load_state_dict(start)
    optimizer = torch.optim.SGD(small.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=use_scaler)  # off: no-op
    with torch.autocast("cpu", dtype=dtype):
        loss = factor * torch.nn.functional.mse_loss(small(x), y)
    scaler.scale(loss).backward()  # the loss times 65536, or as it is
    scaler.unscale_(optimizer)  # the gradients / 65536 again, in float32
    return small.weight.grad


reference = torch.nn.Linear(3, 1)  # no autocast: float32 throughout
reference.load_state_dict(start)
(factor * torch.nn.functional.mse_loss(reference(x), y)).backward()
print("float32:                 ", reference.weight.grad)
for dtype in [torch.bfloat16, torch.float16]:
    for use_scaler in [False, True]:
        name = str(dtype).removeprefix("torch.")
        with_or_not = "with   " if use_scaler else "without"
        found = weight_gradient(dtype, use_scaler)
        print(f"{name:8s} {with_or_not} scaler:", found)
# --8<-- [end:saved]

# --8<-- [start:scaler]
data = torch.Generator().manual_seed(1)  # the batches
scaler = torch.amp.GradScaler("cpu", growth_interval=3)  # default: 2000
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scales, overflowed, skipped = [], [], []
for step in range(12):
    xb, yb = (
        torch.randn(8, 3, generator=data),
        torch.randn(8, 1, generator=data),
    )
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(xb), yb)
    before = model.weight.detach().clone()
    scales.append(scaler.get_scale())
    scaler.scale(loss).backward()  # the loss times the scale
    grads = [p.grad for p in model.parameters()]
    overflowed.append(not all(g.isfinite().all() for g in grads))
    scaler.unscale_(optimizer)  # divide the gradients by it again
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # then clip
    scaler.step(optimizer)  # skipped if a gradient is inf or NaN
    scaler.update()  # halve the scale after a skip, double it after 3 steps
    skipped.append(torch.equal(model.weight, before))
    note = "  overflow: step skipped" if skipped[-1] else ""
    print(f"step {step:2d}: scale {scales[-1]:8g}{note}")
print("scale after the last step:", scaler.get_scale())
# --8<-- [end:scaler]

# --8<-- [start:claim-formats]
# 16-bit formats take half the bytes of float32 and have fewer digits (a
# larger eps); bfloat16 has float32's largest number and smallest normal
# number (finfo.tiny), and a larger smallest number above zero; float16 has
# more digits than bfloat16, a smaller range, turns numbers that are too
# small into zero and those that are too large into inf
fmt32 = torch.finfo(torch.float32)
for fmt_dtype in [torch.bfloat16, torch.float16]:
    assert torch.empty(8, dtype=fmt_dtype).element_size() * 2 == 4
    assert torch.finfo(fmt_dtype).eps > fmt32.eps
fmt_b, fmt_h = torch.finfo(torch.bfloat16), torch.finfo(torch.float16)
assert fmt_b.max > 0.99 * fmt32.max and fmt_b.tiny == fmt32.tiny
assert fmt_h.eps < fmt_b.eps and fmt_h.max < 1e5 and fmt_h.tiny > 1e-5


def above_zero_of(fmt_dtype):
    fmt_zero, fmt_one = torch.tensor([0.0, 1.0], dtype=fmt_dtype)
    return fmt_zero.nextafter(fmt_one).item()


assert above_zero_of(torch.bfloat16) > 1e3 * above_zero_of(torch.float32)
assert torch.tensor(1e-42, dtype=torch.float32).item() > 0
assert torch.tensor(1e-42, dtype=torch.bfloat16).item() == 0
for fmt_small in [1e-30, -1e-30, 1e-38]:
    assert torch.tensor(fmt_small, dtype=torch.bfloat16).item() != 0
    assert torch.tensor(fmt_small, dtype=torch.float16).item() == 0
for fmt_big in [1e5, -1e5, 1e30]:
    fmt_over = torch.tensor(fmt_big, dtype=torch.float16).item()
    assert fmt_over == (float("inf") if fmt_big > 0 else float("-inf"))
    assert torch.tensor(fmt_big, dtype=torch.bfloat16).isfinite().item()
# --8<-- [end:claim-formats]

# --8<-- [start:claim-autocast-default]
# autocast's default: bfloat16 on the CPU, float16 on a GPU; float16 can be
# asked for on the CPU too
assert torch.get_autocast_dtype("cpu") == torch.bfloat16
assert torch.get_autocast_dtype("cuda") == torch.float16
default_model = torch.nn.Linear(3, 2)
for default_dtype, default_ask in [
    (torch.bfloat16, {}),
    (torch.bfloat16, {"dtype": torch.bfloat16}),
    (torch.float16, {"dtype": torch.float16}),
]:
    with torch.autocast("cpu", **default_ask):
        assert default_model(torch.ones(4, 3)).dtype == default_dtype
# --8<-- [end:claim-autocast-default]


# --8<-- [start:claim-autocast]
# under autocast on the CPU, in bfloat16 and in float16: Linear's output is
# in the lower format, the mse loss float32, the parameters and their .grad
# float32; but the backward of Linear ran in the lower format: every entry
# of .grad is a number of that format, which a float32 run's is not
def cast_gradients(cast_shape, cast_dtype, cast_seed):
    cast_gen = torch.Generator().manual_seed(cast_seed)
    cast_model = torch.nn.Linear(3, 4)
    with torch.no_grad():
        for cast_p in cast_model.parameters():
            cast_p.copy_(torch.randn(cast_p.shape, generator=cast_gen))
    cast_in = torch.randn(cast_shape, generator=cast_gen)
    with torch.autocast(
        "cpu", dtype=cast_dtype, enabled=cast_dtype is not None
    ):
        cast_out = cast_model(cast_in)
        cast_loss = torch.nn.functional.mse_loss(
            cast_out, torch.zeros(cast_out.shape)
        )
    cast_loss.backward()
    return cast_out, cast_loss, list(cast_model.parameters())


def in_format(cast_t, cast_dtype):
    return torch.equal(cast_t, cast_t.to(cast_dtype).float())


for cast_shape in [(8, 3), (1, 3), (5, 2, 3)]:
    for cast_dtype in [torch.bfloat16, torch.float16]:
        cast_out, cast_loss, cast_params = cast_gradients(
            cast_shape, cast_dtype, 0
        )
        assert cast_out.dtype == cast_dtype
        assert cast_loss.dtype == torch.float32
        for cast_p in cast_params:
            assert cast_p.dtype == cast_p.grad.dtype == torch.float32
            assert in_format(cast_p.grad, cast_dtype)
    _, _, cast_plain = cast_gradients(cast_shape, None, 0)
    assert not in_format(cast_plain[0].grad, torch.bfloat16)
    assert not in_format(cast_plain[0].grad, torch.float16)
# this run's weight gradient too
assert torch.equal(grad, grad.bfloat16().float())
# --8<-- [end:claim-autocast]

# --8<-- [start:claim-underflow]
assert tiny.item() == 2.0**-24
assert torch.tensor(1e-8, dtype=torch.float16).item() == 0.0
assert torch.tensor(1e-8 * 65536, dtype=torch.float16).item() > 6.5e-4
# below half the smallest step: zero; scaled by 65536: kept
for under_value in [1e-8, 2e-8, 2.9e-8]:
    assert torch.tensor(under_value, dtype=torch.float16).item() == 0.0
    under_scaled = torch.tensor(under_value * 65536, dtype=torch.float16)
    assert under_scaled.item() > 0.0
# --8<-- [end:claim-underflow]

# --8<-- [start:claim-saved]
# this run: under float16 autocast, without the scaler, two entries of the
# weight's gradient are 0 where float32's are not; with it, none is 0 and
# each is within 1% of float32's; bfloat16 without a scaler: none is 0
saved_ref = reference.weight.grad
assert (saved_ref != 0).all()
saved_lost = weight_gradient(torch.float16, False)
assert (saved_lost == 0).sum() >= 2
# the one entry left is float16's smallest number above zero
assert sorted(saved_lost.abs().flatten().tolist()) == [0.0, 0.0, 2.0**-24]
saved_kept = weight_gradient(torch.float16, True)
assert (saved_kept != 0).all()
assert ((saved_kept - saved_ref).abs() < 0.01 * saved_ref.abs()).all()
assert (weight_gradient(torch.bfloat16, False) != 0).all()


# the same for other data and for tinier losses: float16 without a scaler
# gets entries wrong by more than 10% (at 1e-8 and below: every entry 0),
# with it none is 0 and each is within 5%; bfloat16 needs no scaler (its
# range is float32's): none is 0, the whole within 2% (by the norm)
def saved_gradient(saved_dtype, saved_scaler, saved_factor, saved_seed):
    saved_gen = torch.Generator().manual_seed(saved_seed)
    saved_x = torch.randn(8, 3, generator=saved_gen)
    saved_y = torch.randn(8, 1, generator=saved_gen)
    saved_model = torch.nn.Linear(3, 1)
    saved_model.load_state_dict(start)
    saved_opt = torch.optim.SGD(saved_model.parameters(), lr=0.1)
    saved_s = torch.amp.GradScaler("cpu", enabled=saved_scaler)
    with torch.autocast(
        "cpu", dtype=saved_dtype, enabled=saved_dtype is not None
    ):
        saved_loss = saved_factor * torch.nn.functional.mse_loss(
            saved_model(saved_x), saved_y
        )
    saved_s.scale(saved_loss).backward()
    saved_s.unscale_(saved_opt)
    return saved_model.weight.grad


def saved_error(saved_g, saved_f32):
    return ((saved_g - saved_f32).abs() / saved_f32.abs()).max().item()


for saved_seed in range(4):
    for saved_factor in [1e-7, 1e-8]:
        saved_f32 = saved_gradient(None, False, saved_factor, saved_seed)
        assert (saved_f32 != 0).all()
        saved_no = saved_gradient(
            torch.float16, False, saved_factor, saved_seed
        )
        assert saved_error(saved_no, saved_f32) > 0.1
        if saved_factor <= 1e-8:
            assert (saved_no == 0).all()
        saved_yes = saved_gradient(
            torch.float16, True, saved_factor, saved_seed
        )
        assert (saved_yes != 0).all()
        assert saved_error(saved_yes, saved_f32) < 0.05
    for saved_factor in [1e-7, 1e-20, 1e-30]:
        saved_f32 = saved_gradient(None, False, saved_factor, saved_seed)
        saved_b = saved_gradient(
            torch.bfloat16, False, saved_factor, saved_seed
        )
        assert (saved_b != 0).all()
        # in double, where the squares of the norm do not underflow
        saved_gap = (saved_b - saved_f32).double().norm()
        assert saved_gap < 0.02 * saved_f32.double().norm()
# --8<-- [end:claim-saved]

# --8<-- [start:claim-scaler]
# initial scale 65536; scale() multiplies the loss by it; unscale_ divides
# the gradients; a step with an inf or NaN gradient is skipped and the scale
# halved; after growth_interval good steps it doubles
fresh_scaler = torch.amp.GradScaler("cpu")
assert fresh_scaler.get_scale() == 65536.0
scaler_loss = torch.tensor(0.25, requires_grad=True)
assert fresh_scaler.scale(scaler_loss).item() == 0.25 * 65536
for bad in [float("inf"), float("-inf"), float("nan")]:
    bad_w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    bad_opt = torch.optim.SGD([bad_w], lr=0.1)
    bad_scaler = torch.amp.GradScaler("cpu")
    bad_scaler.scale((bad_w * torch.tensor([bad, 1.0])).sum()).backward()
    bad_scaler.unscale_(bad_opt)
    bad_scaler.step(bad_opt)
    bad_scaler.update()
    assert bad_w.tolist() == [1.0, 2.0]
    assert bad_scaler.get_scale() == 32768.0
# every gradient is scale times the unscaled one, for a few models
for grow_seed in range(3):
    grow_model = torch.nn.Linear(3, 2)
    grow_x = torch.randn(
        4, 3, generator=torch.Generator().manual_seed(grow_seed)
    )
    grow_model(grow_x).pow(2).mean().backward()
    grow_plain = [p.grad.clone() for p in grow_model.parameters()]
    grow_model.zero_grad()
    fresh_scaler.scale(grow_model(grow_x).pow(2).mean()).backward()
    for grow_p, grow_g in zip(
        grow_model.parameters(), grow_plain, strict=True
    ):
        assert torch.equal(grow_p.grad, grow_g * 65536)
good_w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
good_opt = torch.optim.SGD([good_w], lr=0.1)
good_scaler = torch.amp.GradScaler("cpu")
good_scaler.scale((good_w * 3.0).sum()).backward()
assert good_w.grad.tolist() == [3.0 * 65536, 3.0 * 65536]
good_scaler.unscale_(good_opt)
assert good_w.grad.tolist() == [3.0, 3.0]
good_scaler.step(good_opt)
good_scaler.update()
assert torch.allclose(good_w.detach(), torch.tensor([0.7, 1.7]))
# this run: the steps whose scaled gradient overflowed, and only they, were
# skipped, each halving the scale; three good steps in a row doubled it
assert skipped == overflowed and any(skipped) and not all(skipped)
# the scale of each step, by the rule: halved after a skip, doubled after
# three good steps in a row
rule_scale, rule_run = 65536.0, 0
for scale_step, was_skipped in enumerate(skipped):
    assert scales[scale_step] == rule_scale
    if was_skipped:
        rule_scale, rule_run = rule_scale / 2, 0
    else:
        rule_run += 1
        if rule_run == scaler.get_growth_interval():
            rule_scale, rule_run = rule_scale * 2, 0
assert scaler.get_scale() == rule_scale
assert any(b == 2 * a for a, b in zip(scales, scales[1:], strict=False))
# --8<-- [end:claim-scaler]

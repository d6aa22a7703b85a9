# Lower precision: autocast to bfloat16, float16's underflow, GradScaler.
# --8<-- [start:autocast]
import torch

torch.manual_seed(0)  # the same data and weights on every run
model = torch.nn.Linear(3, 1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, y)
loss.backward()
print("output:", out.dtype, " loss:", loss.dtype)
print("weight:", model.weight.dtype, " its gradient:", model.weight.grad.dtype)
# --8<-- [end:autocast]

# --8<-- [start:underflow]
zero, one = torch.tensor([0.0, 1.0], dtype=torch.float16)
tiny = zero.nextafter(one)
print(f"smallest float16 above zero: {tiny.item():.3g}")
for value in [1e-8, 1e-8 * 65536]:
    half = torch.tensor(value, dtype=torch.float16).item()
    print(f"{value:.3g} in float16: {half:.3g}")
# --8<-- [end:underflow]

# --8<-- [start:scaler]
data = torch.Generator().manual_seed(1)  # the batches
scaler = torch.amp.GradScaler("cpu", growth_interval=3)  # default: 2000
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scales, skipped = [], []
for step in range(12):
    xb, yb = (
        torch.randn(8, 3, generator=data),
        torch.randn(8, 1, generator=data),
    )
    if step in (4, 5):
        xb[0, 0] = float("inf")  # a bad batch: the gradient is not finite
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(xb), yb)
    before = model.weight.detach().clone()
    scales.append(scaler.get_scale())
    scaler.scale(loss).backward()  # the loss times the scale
    scaler.unscale_(optimizer)  # divide the gradients by it again
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # then clip
    scaler.step(optimizer)  # skipped if a gradient is inf or NaN
    scaler.update()  # halve the scale after a skip, double it after 3 steps
    skipped.append(torch.equal(model.weight, before))
    note = "  skipped" if skipped[-1] else ""
    print(f"step {step:2d}: scale {scales[-1]:8g}{note}")
print("scale after the last step:", scaler.get_scale())
# --8<-- [end:scaler]

# --8<-- [start:claim-autocast]
# under autocast to bfloat16 on the CPU: Linear's output is bfloat16, the mse
# loss float32, the gradients float32 like the parameters; for a few shapes
for cast_shape in [(8, 3), (1, 3), (5, 2, 3)]:
    cast_model = torch.nn.Linear(3, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        cast_out = cast_model(torch.randn(cast_shape))
        cast_loss = torch.nn.functional.mse_loss(
            cast_out, torch.zeros(cast_out.shape)
        )
    cast_loss.backward()
    assert cast_out.dtype == torch.bfloat16
    assert cast_loss.dtype == torch.float32
    for cast_p in cast_model.parameters():
        assert cast_p.dtype == cast_p.grad.dtype == torch.float32
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
# this run: the bad steps and only they were skipped, each halving
assert [i for i, s in enumerate(skipped) if s] == [4, 5]
for scale_step, was_skipped in enumerate(skipped[:-1]):
    if was_skipped:
        assert scales[scale_step + 1] == scales[scale_step] / 2
# three good steps in a row: doubled
assert scales[3] == 2 * scales[2] and scales[9] == 2 * scales[8]
# --8<-- [end:claim-scaler]

# --8<-- [start:claim-formats]
# 16-bit formats take half the bytes of float32; bfloat16 keeps float32's
# range with fewer digits; float16 has more digits than bfloat16, a smaller
# range, turns numbers that are too small into zero and those that are too
# large into inf
fmt32 = torch.finfo(torch.float32)
for fmt_dtype in [torch.bfloat16, torch.float16]:
    assert torch.empty(8, dtype=fmt_dtype).element_size() * 2 == 4
    assert torch.finfo(fmt_dtype).eps > fmt32.eps
fmt_b, fmt_h = torch.finfo(torch.bfloat16), torch.finfo(torch.float16)
assert fmt_b.max > 0.99 * fmt32.max and fmt_b.tiny == fmt32.tiny
assert fmt_h.eps < fmt_b.eps and fmt_h.max < 1e5 and fmt_h.tiny > 1e-5
assert torch.tensor(1e-30, dtype=torch.bfloat16).item() > 0
assert torch.tensor(1e-30, dtype=torch.float16).item() == 0
for fmt_big in [1e5, -1e5, 1e30]:
    fmt_over = torch.tensor(fmt_big, dtype=torch.float16).item()
    assert fmt_over == (float("inf") if fmt_big > 0 else float("-inf"))
    assert torch.tensor(fmt_big, dtype=torch.bfloat16).isfinite().item()
# --8<-- [end:claim-formats]

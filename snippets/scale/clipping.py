# Clipping the gradient of a model: by its norm, or entry by entry.
# --8<-- [start:setup]
import torch

torch.manual_seed(0)  # the same data and weights on every run
model = torch.nn.Linear(3, 1)
x = torch.randn(8, 3)
y = 20 * torch.randn(8)  # targets far off: a large gradient
torch.nn.functional.mse_loss(model(x).squeeze(1), y).backward()
grads = [p.grad.clone() for p in model.parameters()]  # to restore
print("gradient:        ", torch.cat([g.flatten() for g in grads]))
# --8<-- [end:setup]

# --8<-- [start:clip]
max_norm, max_value = 2.0, 2.0
norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
by_norm = torch.cat([p.grad.flatten() for p in model.parameters()])
print(f"norm before: {norm:.4f}")
print("clip_grad_norm_: ", by_norm, f"norm {by_norm.norm():.4f}")

for p, g in zip(model.parameters(), grads, strict=True):
    p.grad = g.clone()  # the same gradient again
torch.nn.utils.clip_grad_value_(model.parameters(), max_value)
by_value = torch.cat([p.grad.flatten() for p in model.parameters()])
print("clip_grad_value_:", by_value)
# --8<-- [end:clip]

# --8<-- [start:loop]
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
optimizer.zero_grad()
loss = torch.nn.functional.mse_loss(model(x).squeeze(1), y)
loss.backward()  # 1. the gradient
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # 2. clip it
optimizer.step()  # 3. the step uses the clipped gradient
# --8<-- [end:loop]

# --8<-- [start:claim-clip]
# by norm: every entry times the same factor, max_norm / (norm + 1e-6), so
# the small entries shrink too; by value: each entry clamped; for a norm
# above the bound, and several bounds
clip_flat = torch.cat([g.flatten() for g in grads])
assert torch.allclose(torch.as_tensor(norm), clip_flat.norm())
for clip_bound in [0.5, 1.0, 2.0, 5.0]:
    clip_model = torch.nn.Linear(3, 1)
    for clip_p, clip_g in zip(clip_model.parameters(), grads, strict=True):
        clip_p.grad = clip_g.clone()
    torch.nn.utils.clip_grad_norm_(clip_model.parameters(), clip_bound)
    clip_after = torch.cat([p.grad.flatten() for p in clip_model.parameters()])
    assert clip_flat.norm() > clip_bound
    clip_factor = clip_bound / (clip_flat.norm() + 1e-6)
    assert torch.allclose(clip_after, clip_flat * clip_factor)
    assert all((clip_after.abs() < clip_flat.abs()).tolist())
    for clip_p, clip_g in zip(clip_model.parameters(), grads, strict=True):
        clip_p.grad = clip_g.clone()
    torch.nn.utils.clip_grad_value_(clip_model.parameters(), clip_bound)
    clip_after = torch.cat([p.grad.flatten() for p in clip_model.parameters()])
    assert torch.equal(clip_after, clip_flat.clamp(-clip_bound, clip_bound))
# --8<-- [end:claim-clip]

# --8<-- [start:claim-loop]
# the step moves each parameter by lr times the clipped gradient
loop_model = torch.nn.Linear(3, 1)
loop_before = [p.detach().clone() for p in loop_model.parameters()]
loop_opt = torch.optim.SGD(loop_model.parameters(), lr=0.01)
torch.nn.functional.mse_loss(loop_model(x).squeeze(1), y).backward()
torch.nn.utils.clip_grad_norm_(loop_model.parameters(), max_norm)
loop_clipped = [p.grad.clone() for p in loop_model.parameters()]
assert torch.cat([g.flatten() for g in loop_clipped]).norm() <= max_norm
loop_opt.step()
for loop_p, loop_b, loop_g in zip(
    loop_model.parameters(), loop_before, loop_clipped, strict=True
):
    assert torch.allclose(loop_p.detach(), loop_b - 0.01 * loop_g)
# --8<-- [end:claim-loop]

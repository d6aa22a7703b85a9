# Recording needs grad mode on and an input that requires grad.
# --8<-- [start:opt_in]
import torch

data = torch.tensor([1.0, 2.0, 3.0])  # input data: never adjusted
w = torch.tensor(0.5, requires_grad=True)  # a parameter: adjusted

print("data.requires_grad:", data.requires_grad)
print("w.requires_grad:   ", w.requires_grad)

doubled = data * 2  # only data involved: nothing is recorded
scaled = w * data  # w involved: the multiplication is recorded
print("doubled.grad_fn:", doubled.grad_fn)
print("scaled.grad_fn: ", scaled.grad_fn.name())

with torch.no_grad():  # grad mode off for this block
    quiet = w * data  # w involved, yet nothing is recorded
print("quiet.grad_fn:  ", quiet.grad_fn)
# --8<-- [end:opt_in]

# --8<-- [start:claim-recording-rule]
# grad mode is on unless switched off
assert torch.is_grad_enabled()
# no input requires grad: not recorded
assert doubled.grad_fn is None and not doubled.requires_grad
# one input does: recorded
assert scaled.grad_fn is not None and scaled.requires_grad
# one input does, but grad mode was off: not recorded
assert quiet.grad_fn is None and not quiet.requires_grad
# computed from w while recording was on, or it does not count: a tensor
# detached from w, and one computed from the no_grad result, are not recorded
assert (w.detach() * data).grad_fn is None
assert (quiet * data).grad_fn is None and torch.is_grad_enabled()
# a result with no slope to follow is not recorded, though w requires grad
for no_slope in (w > 0, scaled.argmax(), torch.histc(scaled, bins=3)):
    assert no_slope.grad_fn is None and not no_slope.requires_grad
# --8<-- [end:claim-recording-rule]

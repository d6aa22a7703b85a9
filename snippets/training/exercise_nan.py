# Exercise: a safe log that still gives NaN gradients, and its fix.
# --8<-- [start:broken]
import torch

x = torch.tensor([0.0, 2.0], requires_grad=True)
y = torch.where(x > 0, x * torch.log(x), 0.0)  # x log x, taken as 0 at 0
y.sum().backward()
print("broken: y =", y.tolist(), "  x.grad =", x.grad.tolist())
broken_grad = x.grad.clone()
# --8<-- [end:broken]

# --8<-- [start:fixed]
x.grad = None
safe = torch.where(x > 0, x, 1.0)  # log never sees the 0
y_fixed = torch.where(x > 0, safe * torch.log(safe), 0.0)
y_fixed.sum().backward()
print("fixed:  y =", y_fixed.tolist(), "  x.grad =", x.grad.tolist())
by_hand = [0.0, torch.log(torch.tensor(2.0)).item() + 1.0]  # log x + 1
print("by hand:           x.grad =", by_hand)
# --8<-- [end:fixed]

# --8<-- [start:claim-fixed]
assert torch.isnan(broken_grad[0])  # 0 * log(0) = 0 * -inf in backward
assert not torch.isnan(x.grad).any() and y_fixed.tolist() == y.tolist()
assert torch.allclose(x.grad, torch.tensor(by_hand))
# --8<-- [end:claim-fixed]

# --8<-- [start:claim-nan-sources]
# where the NaN comes from: where sends a zero gradient into the unpicked
# branch; the product's node multiplies it by log 0 = -inf, and the log's
# node divides the zero it gets by its saved input, x = 0: both give NaN
at_zero = torch.tensor([0.0, 2.0], requires_grad=True)
log_part = torch.log(at_zero)
product = at_zero * log_part
seen = {}


def watch(node):
    def record(grad_inputs, grad_outputs):
        seen[node.name()] = (grad_outputs[0].clone(), grad_inputs)

    node.register_hook(record)


watch(product.grad_fn)
watch(log_part.grad_fn)
saved_by_log = log_part.grad_fn._saved_self  # read before backward frees it
torch.where(at_zero > 0, product, 0.0).sum().backward()
got, (to_x, to_log) = seen["MulBackward0"]
assert got[0].item() == 0.0 and torch.isinf(log_part[0])
assert torch.isnan(to_x[0]) and torch.isnan(got[0] * log_part[0])
assert to_log[0].item() == 0.0  # the zero gradient times x = 0
got_log, (log_to_x,) = seen["LogBackward0"]
assert got_log[0].item() == 0.0
assert torch.equal(saved_by_log, at_zero)  # the log's node saved x
assert torch.isnan(log_to_x[0])
assert torch.equal(log_to_x[1:], got_log[1:] / at_zero[1:])  # divides by x
# --8<-- [end:claim-nan-sources]

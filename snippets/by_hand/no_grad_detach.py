# Two ways to compute without recording: no_grad and detach.
# --8<-- [start:no_grad]
import torch

x = torch.tensor(3.0, requires_grad=True)
with torch.no_grad():
    y = x**2
print("inside no_grad: ", y, " requires_grad:", y.requires_grad)
# --8<-- [end:no_grad]

# --8<-- [start:detach]
y = x**2
y_value = y.detach()
print("y.detach():     ", y_value, " requires_grad:", y_value.requires_grad)
print("same memory as y:", y_value.data_ptr() == y.data_ptr())
# --8<-- [end:detach]

# --8<-- [start:product]
both_hand = 2 * x.item()  # by hand: d(x * x)/dx = 2x
one_hand = x.item()  # second factor held at c = x: d(x * c)/dx = c

(x * x).backward()
print(f"x * x:          by hand: {both_hand:g}   autograd:", x.grad)
both_autograd = x.grad.item()

x.grad = None  # start again from no gradient
(x * x.detach()).backward()  # the second factor is now a constant
print(f"x * x.detach(): by hand: {one_hand:g}   autograd:", x.grad)
# --8<-- [end:product]

# --8<-- [start:cut]
v = torch.tensor(3.0, requires_grad=True)
k = torch.tensor(2.0, requires_grad=True)
(v.detach() * k).backward()  # the only path back to v goes through detach()
print("v.grad:", v.grad, "  k.grad:", k.grad)

try:
    (v.detach() * 2).backward()  # no path to any tensor that requires grad
except RuntimeError as error:
    print("RuntimeError:", error)
# --8<-- [end:cut]

# --8<-- [start:claim-agrees]
assert both_autograd == both_hand  # x * x: both factors differentiated
assert x.grad.item() == one_hand  # x * x.detach(): only the first
# --8<-- [end:claim-agrees]

# --8<-- [start:claim-detach-grad-stays-none]
assert v.grad is None  # not 0: no gradient ever reached v
assert k.grad.item() == v.item()  # the other factor still got its gradient
# the same for other computations whose only path to the leaf is detached
for use in (
    lambda d, k: d * k,
    lambda d, k: (d + 1) * k,
    lambda d, k: torch.sin(d) * k**2,
    lambda d, k: torch.exp(d * k),
):
    leaf, other = (torch.tensor(t, requires_grad=True) for t in (3.0, 2.0))
    use(leaf.detach(), other).backward()
    assert leaf.grad is None and other.grad is not None
# --8<-- [end:claim-detach-grad-stays-none]

# --8<-- [start:claim-backward-without-path-raises]
try:
    (v.detach() * 2).backward()
    complaint = ""
except RuntimeError as error:
    complaint = str(error)
no_path = (
    "element 0 of tensors does not require grad and does not have a grad_fn"
)
assert complaint == no_path


def computed_under_no_grad():
    with torch.no_grad():
        return v * 2


# the same error for every way of leaving no path to a tensor that requires
# a gradient: a detached input, plain data, no_grad, a detached result
for make in (
    lambda: v.detach() * 2,
    lambda: torch.tensor(3.0) * 2,
    computed_under_no_grad,
    lambda: (v * 2).detach(),
    lambda: torch.sin(v.detach()).sum(),
):
    try:
        make().backward()
        complaint = ""
    except RuntimeError as error:
        complaint = str(error)
    assert complaint == no_path
# --8<-- [end:claim-backward-without-path-raises]

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
# --8<-- [end:claim-detach-grad-stays-none]

# --8<-- [start:claim-backward-without-path-raises]
try:
    (v.detach() * 2).backward()
    complaint = ""
except RuntimeError as error:
    complaint = str(error)
assert (
    complaint
    == "element 0 of tensors does not require grad and does not have a grad_fn"
)
# --8<-- [end:claim-backward-without-path-raises]

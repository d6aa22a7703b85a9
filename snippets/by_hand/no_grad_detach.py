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

(x * x).backward()
print("x.grad of x * x:         ", x.grad)

x.grad = None  # start again from no gradient
(x * x.detach()).backward()  # the second factor is now a constant
print("x.grad of x * x.detach():", x.grad)
# --8<-- [end:detach]

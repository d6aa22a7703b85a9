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

z = x * x.detach()  # one factor recorded, the other a constant
z.backward()
print("x.grad for x * x.detach():", x.grad)
# --8<-- [end:detach]

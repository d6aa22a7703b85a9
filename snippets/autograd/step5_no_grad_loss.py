# A loss computed under torch.no_grad() has no history to walk back.
# --8<-- [start:no_grad_loss]
import torch

w = torch.tensor(3.0, requires_grad=True)
with torch.no_grad():
    loss = (2 * w - 1) ** 2  # not recorded
print("loss:", loss, "  grad_fn:", loss.grad_fn)
try:
    loss.backward()
except RuntimeError as error:
    print("RuntimeError:", error)

loss = (2 * w - 1) ** 2  # the fix: compute the loss with recording on
loss.backward()
print("recorded:  w.grad =", w.grad)
# --8<-- [end:no_grad_loss]

# --8<-- [start:claim-no-grad-loss]
# a loss computed inside any switch that turns recording off has no
# grad_fn, and backward() on it raises Step 2's error, storing nothing
NO_HISTORY = (
    "element 0 of tensors does not require grad and does not have a grad_fn"
)
for switch in (
    torch.no_grad,
    lambda: torch.set_grad_enabled(False),
    torch.inference_mode,
):
    weight = torch.tensor(3.0, requires_grad=True)
    with switch():
        off_loss = (2 * weight - 1) ** 2
    assert off_loss.grad_fn is None and not off_loss.requires_grad
    try:
        off_loss.backward()
        message = ""
    except RuntimeError as caught:
        message = str(caught)
    assert message == NO_HISTORY and weight.grad is None
assert w.grad.item() == 4 * (2 * 3.0 - 1)  # the fix's gradient
# --8<-- [end:claim-no-grad-loss]

# The whole idea: track w, compute from it, backward(), read w.grad.
# --8<-- [start:first]
import torch

w = torch.tensor(3.0, requires_grad=True)  # a number autograd should track
loss = (w - 5) ** 2  # a computation that uses it
loss.backward()  # work out d(loss)/dw
print(w.grad)  # the derivative 2 * (w - 5), at w = 3
# --8<-- [end:first]

# --8<-- [start:claim-derivative-in-grad]
# at other values of w too, backward() stores d(loss)/dw = 2 * (w - 5) in
# w.grad; the loss, computed from w, is a result with a grad_fn, not a leaf
for start in (-2.0, 0.0, 3.0, 5.0, 7.5):
    v = torch.tensor(start, requires_grad=True)
    assert v.grad is None  # nothing before the call
    out = (v - 5) ** 2
    out.backward()
    assert v.grad.item() == 2 * (start - 5)
    assert not out.is_leaf and out.grad_fn is not None
# --8<-- [end:claim-derivative-in-grad]

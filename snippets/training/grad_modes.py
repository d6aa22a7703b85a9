# The switches that decide whether autograd records.
# --8<-- [start:modes]
import torch

w = torch.tensor(2.0, requires_grad=True)


def node(t):
    """The name of the node that made t, or None when nothing was recorded."""
    return None if t.grad_fn is None else t.grad_fn.name()


with torch.no_grad():
    off = w * 3  # not recorded
    with torch.enable_grad():
        back_on = w * 3  # recorded again, inside no_grad
print("no_grad:                ", node(off))
print("enable_grad inside it:  ", node(back_on))


def run(training):
    with torch.set_grad_enabled(training):  # one switch for both uses
        return w * 3


print("set_grad_enabled(True): ", node(run(True)))
print("set_grad_enabled(False):", node(run(False)))


@torch.no_grad()  # every call of this function runs without recording
def predict(value):
    return w * value


print("@torch.no_grad():       ", node(predict(3.0)))
# --8<-- [end:modes]

# --8<-- [start:claim-modes]
assert off.grad_fn is None and not off.requires_grad
assert back_on.grad_fn is not None and back_on.requires_grad
assert run(True).grad_fn is not None and run(False).grad_fn is None
# @torch.no_grad() records no call of predict: whatever its argument, even
# one that requires a gradient, and even when called inside enable_grad
arguments = [1.0, torch.tensor(2.0), torch.tensor(3.0, requires_grad=True)]
for argument in arguments:
    assert predict(argument).grad_fn is None
    with torch.enable_grad():
        assert predict(argument).grad_fn is None
assert torch.is_grad_enabled()  # and on again after each of them
# --8<-- [end:claim-modes]

# --8<-- [start:inference]
with torch.inference_mode():
    made_inside = torch.ones(2) * 3  # an inference tensor
print("inference tensor:", made_inside.is_inference())
try:
    _ = made_inside._version  # no version counter to keep up to date
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")

weights = torch.ones(2, requires_grad=True)
try:
    weights * made_inside  # the product would save made_inside for backward
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
copy = made_inside.clone()  # a clone, made outside, is a normal tensor
(weights * copy).sum().backward()
print("with a clone: weights.grad =", weights.grad)
# --8<-- [end:inference]

# --8<-- [start:claim-inference]
assert made_inside.is_inference() and not copy.is_inference()
try:
    _ = made_inside._version
    counted = True
except RuntimeError as e:
    counted = "do not track version counter" not in str(e)
assert not counted  # an inference tensor has no version counter
with torch.inference_mode():
    unrecorded = weights * 3
assert unrecorded.grad_fn is None and not unrecorded.requires_grad
assert torch.equal(weights.grad, copy)  # the clone was saved and used
with torch.no_grad():
    made_in_no_grad = torch.ones(2) * 3
_ = made_in_no_grad._version  # a tensor made under no_grad keeps its counter
(weights * made_in_no_grad).sum().backward()  # and can be saved for backward
try:
    weights * made_inside
    saved = True
except RuntimeError as e:
    saved = "Inference tensors cannot be saved for backward" not in str(e)
assert not saved
# an inference tensor is refused by each operation that saves it for
# backward, and taken by one that saves no input; a tensor made under no_grad,
# and a clone of the inference tensor made outside, are taken by all of them
saving = {
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "@": lambda a, b: a @ b,
    "**": lambda a, b: a**b,
}
not_saving = {"+": lambda a, b: a + b, "-": lambda a, b: a - b}
probe = torch.ones(2, requires_grad=True)
for symbol, operation in {**saving, **not_saving}.items():
    operation(probe, made_in_no_grad).sum().backward()
    operation(probe, made_inside.clone()).sum().backward()
    try:
        operation(probe, made_inside).sum().backward()
        refused = False
    except RuntimeError as e:
        refused = "Inference tensors cannot be saved for backward" in str(e)
    assert refused == (symbol in saving)
# --8<-- [end:claim-inference]

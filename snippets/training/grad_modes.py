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

# --8<-- [start:claim-modes-restore]
# a with block of each switch, and a call of a @torch.no_grad() function,
# leave grad mode as it was before them, nested in any switch: on or off
switches = {
    "no_grad": torch.no_grad,
    "enable_grad": torch.enable_grad,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda: torch.set_grad_enabled(True),
}
mode_leaf = torch.tensor(2.0, requires_grad=True)
modes_seen = set()
for outer in switches.values():
    with outer():
        mode_before = torch.is_grad_enabled()
        modes_seen.add(mode_before)
        for inner in switches.values():
            with inner():
                pass
            assert torch.is_grad_enabled() == mode_before
            assert ((mode_leaf * 3).grad_fn is not None) == mode_before
        predict(mode_leaf)
        assert torch.is_grad_enabled() == mode_before
assert modes_seen == {True, False}  # both cases were tried
assert torch.is_grad_enabled()  # at the top level: on
# called as a plain function, set_grad_enabled(False) stays in force, through
# a with block that ends, until the next switch turns recording on
torch.set_grad_enabled(False)
assert not torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is None
with torch.enable_grad():
    assert (mode_leaf * 3).grad_fn is not None
assert not torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is None
torch.set_grad_enabled(True)
assert torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is not None
# but a plain call made inside a with block of any switch, or inside a
# @torch.no_grad() function, lasts only to the end of that block or call,
# which gives back the mode from before it: here, on
for enclosing in switches.values():
    with enclosing():
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is not None


@torch.no_grad()
def switches_off_inside():
    torch.set_grad_enabled(False)
    return torch.is_grad_enabled()


assert not switches_off_inside()
assert torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is not None
# so does a with block of inference_mode; a with block of anything else
# (autocast, anomaly detection, saved-tensor hooks, a block that does
# nothing) gives nothing back: the plain call stays in force after it
import contextlib  # noqa: E402  (a claim section, left out of the page)
import warnings  # noqa: E402

for enclosing in (torch.inference_mode, lambda: torch.inference_mode(True)):
    with enclosing():
        torch.set_grad_enabled(False)
    assert torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is not None
for other_block in (
    lambda: torch.autocast("cpu"),
    torch.autograd.detect_anomaly,
    lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
    contextlib.nullcontext,
):
    with warnings.catch_warnings(record=True), other_block():
        torch.set_grad_enabled(False)  # anomaly detection's warning kept
    assert not torch.is_grad_enabled() and (mode_leaf * 3).grad_fn is None
    torch.set_grad_enabled(True)
assert torch.is_grad_enabled()
# --8<-- [end:claim-modes-restore]

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
    _read = made_inside._version
    counted = True
except RuntimeError as error:
    counted = "do not track version counter" not in str(error)
assert not counted  # an inference tensor has no version counter
with torch.inference_mode():
    unrecorded = weights * 3
assert unrecorded.grad_fn is None and not unrecorded.requires_grad
assert torch.equal(weights.grad, copy)  # the clone was saved and used
with torch.no_grad():
    made_in_no_grad = torch.ones(2) * 3
_read = (
    made_in_no_grad._version
)  # a tensor made under no_grad keeps its counter
(weights * made_in_no_grad).sum().backward()  # and can be saved for backward
try:
    weights * made_inside
    saved = True
except RuntimeError as error:
    saved = "Inference tensors cannot be saved for backward" not in str(error)
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
    except RuntimeError as error:
        refused = "Inference tensors cannot be saved for backward" in str(
            error
        )
    assert refused == (symbol in saving)
# inside inference_mode, neither enable_grad nor set_grad_enabled(True) turns
# recording back on: is_grad_enabled() says True, yet nothing is recorded
for back_on_switch in [
    torch.enable_grad,
    lambda: torch.set_grad_enabled(True),
]:
    with torch.inference_mode():
        with back_on_switch():
            assert torch.is_grad_enabled()
            still_off = probe * 3
    assert still_off.grad_fn is None and not still_off.requires_grad
# --8<-- [end:claim-inference]

# --8<-- [start:claim-inference-tensors]
# inside inference_mode, a new tensor is an inference tensor; a view of a
# normal tensor, and a normal tensor changed in place, stay normal, and the
# view can be saved for backward
normal = torch.ones(3)
with torch.inference_mode():
    new_inside = torch.ones(2) * 3
    view_inside = normal[:2]
    normal.add_(1)
assert new_inside.is_inference()
assert not view_inside.is_inference() and not normal.is_inference()
view_weights = torch.ones(2, requires_grad=True)
(view_weights * view_inside).sum().backward()
assert torch.equal(view_weights.grad, view_inside)
# outside inference_mode, every in-place operation on an inference tensor
# raises an error, yet on torch 2.13 only after it has changed the values;
# on a clone of it, each runs without an error
in_place_changes = [
    lambda t: t.add_(1),
    lambda t: t.mul_(2),
    lambda t: t.zero_(),
    lambda t: t.copy_(torch.zeros(2)),
    lambda t: t.__setitem__(0, 5.0),
]


def refuses_in_place(tensor, change):
    try:
        change(tensor)
    except RuntimeError as error:
        return "Inplace update to inference tensor" in str(error)
    return False


for change in in_place_changes:
    target = new_inside.clone()
    with torch.inference_mode():
        target = target * 1  # an inference tensor, equal to new_inside
    assert target.is_inference()
    wanted = target.clone()
    change(wanted)  # a clone: changed, no error
    assert refuses_in_place(target, change)
    assert torch.equal(target, wanted)  # refused, but already changed
    assert not torch.equal(target, new_inside)
# --8<-- [end:claim-inference-tensors]

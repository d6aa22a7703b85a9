# Editing a tensor that backward needs: the version counter notices.
# --8<-- [start:version]
import os
import warnings

import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()  # sigmoid's backward uses its own output, b
versions = [b._version]  # _version: internal, read only to watch it
b.mul_(2)  # in place: the same memory, new numbers
versions.append(b._version)
print("b._version after sigmoid() and after mul_(2):", versions)

try:
    b.sum().backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:version]

# --8<-- [start:claim-saved-version]
fresh = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
edited = fresh.sigmoid()
assert edited._version == 0
edited.mul_(2)
assert edited._version == 1  # each in-place edit counts one version up
refused = None
try:
    edited.sum().backward()
except RuntimeError as error:
    refused = str(error)
assert refused is not None and "modified by an inplace operation" in refused
assert fresh.grad is None  # backward refused: no gradient was computed
# each in-place edit, of whatever kind, counts the version up by one
edits = (
    lambda t: t.add_(1),
    lambda t: t.clamp_(max=4),
    lambda t: t.__iadd__(1),  # t += 1
    lambda t: t.__setitem__(0, 5.0),  # t[0] = 5
    lambda t: t.copy_(t.detach() * 2),
    lambda t: t.masked_fill_(t > 3, 0.0),
    lambda t: t.index_add_(0, torch.tensor([1]), torch.tensor([1.0])),
    lambda t: t[1:].add_(1),  # through a view of part of it
    lambda t: t.detach().mul_(2),  # detach() shares the counter
)
for edit in edits:
    before = edited._version
    edit(edited)
    assert edited._version == before + 1, edit
# --8<-- [end:claim-saved-version]

# --8<-- [start:claim-inplace-forms]
# the forms of an in-place edit: a method ending in _, x += ..., assignment
# to part of a tensor, and inplace=True; each counts the version up and makes
# the sigmoid's backward refuse
forms = (
    lambda t: t.mul_(2),
    lambda t: t.__iadd__(1),  # t += 1
    lambda t: t.__setitem__(0, 0.0),  # t[0] = 0
    lambda t: t.__setitem__(t > 0.8, 0.0),  # t[t > 0.8] = 0
    lambda t: torch.nn.functional.relu(t, inplace=True),
    lambda t: torch.nn.ReLU(inplace=True)(t),
)


def inplace_error(root):
    """The RuntimeError's text from root.backward(), or None."""
    try:
        root.backward()
    except RuntimeError as error:
        return str(error)
    return None


for form in forms:
    leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    squashed = leaf.sigmoid()
    form(squashed)
    assert squashed._version == 1, form
    found = inplace_error(squashed.sum())
    assert found is not None and "modified by an inplace operation" in found
# the same forms on a tensor that no node saved (an addition's output)
# raise nothing, and neither does nn.ReLU(inplace=True) after a Linear layer,
# whose node saved its input and weight, not its output
for form in forms:
    leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    unsaved = leaf + 1
    form(unsaved)
    assert unsaved._version == 1, form
    assert inplace_error(unsaved.sum()) is None, form
    assert leaf.grad is not None, form
torch.manual_seed(0)
block = torch.nn.Sequential(
    torch.nn.Linear(4, 4), torch.nn.ReLU(inplace=True), torch.nn.Linear(4, 1)
)
assert inplace_error(block(torch.randn(2, 4)).sum()) is None
assert block[0].weight.grad is not None
# --8<-- [end:claim-inplace-forms]

# --8<-- [start:fixes]
b = a.sigmoid() * 2  # fix: a new tensor; the saved one stays untouched
b.sum().backward()
print("out of place: a.grad =", a.grad)

a.grad = None
c = a + 1  # addition saves nothing for its backward
c.mul_(2)  # so editing c in place is fine
c.sum().backward()
print("in place on an unsaved tensor: a.grad =", a.grad)
fixed_grad = a.grad.tolist()
# --8<-- [end:fixes]

# --8<-- [start:claim-unsaved-edit]
# no node saved c: the edit only scaled the gradient, by the factor of mul_(2)
assert fixed_grad == [2.0, 2.0, 2.0]
# the same edit fails once another node has saved c
a2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c2 = a2 + 1
d2 = c2 * c2  # the multiplication saves c2
c2.mul_(2)
try:
    d2.sum().backward()
    failed = False
except RuntimeError as error:
    failed = "modified by an inplace operation" in str(error)
assert failed
# over several nodes that save c: recorded before the edit, backward raises;
# recorded after it, the node saves the edited c and nothing raises
savers = {
    "c * c": (lambda u: u * u, lambda u: 2 * u),
    "c ** 2": (lambda u: u**2, lambda u: 2 * u),
    "c ** 3": (lambda u: u**3, lambda u: 3 * u**2),
    "c.sin()": (torch.sin, torch.cos),
}
for name, (saver, derivative) in savers.items():
    for recorded_before in (True, False):
        a2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c2 = a2 + 1
        if recorded_before:
            d2 = saver(c2)
        c2.mul_(2)
        if not recorded_before:
            d2 = saver(c2)
        found = inplace_error(d2.sum())
        assert (found is not None) == recorded_before, name
        if not recorded_before:  # the gradient of saver(2 * (a + 1))
            edited_c = 2 * (a2.detach() + 1)
            assert torch.allclose(a2.grad, 2 * derivative(edited_c)), name
# --8<-- [end:claim-unsaved-edit]

# --8<-- [start:other_op]
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 3  # b is the output of a multiplication
c = b**2  # the power node saves b
b.add_(1)  # then an addition changes b in place
try:
    c.sum().backward()
except RuntimeError as e:
    message = str(e)
    print(f"RuntimeError: {e}")
# --8<-- [end:other_op]

# --8<-- [start:anomaly]
with warnings.catch_warnings(record=True) as caught:  # keep what it reports
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():  # the hint's anomaly detection
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 3
        c = b**2
        b.add_(1)
        try:
            c.sum().backward()
        except RuntimeError:
            pass
report = next(
    str(w.message) for w in caught if "Error detected" in str(w.message)
)
lines = report.splitlines()
print(lines[0])  # the node whose backward failed
# the innermost frame of the forward traceback outside torch's own files
torch_files = os.path.dirname(torch.__file__)
here = max(
    i
    for i, line in enumerate(lines)
    if line.startswith("  File") and torch_files not in line
)
print("  the forward line that made it:", lines[here + 1].strip())
# --8<-- [end:anomaly]

# --8<-- [start:claim-anomaly-names-saver]
# the message names the last operation that wrote b: the in-place addition,
# not the multiplication that made b, nor the power node that saved it
assert "which is output 0 of Add," in message
# anomaly mode names the node that saved it and failed, and its forward line
assert lines[0].startswith("Error detected in PowBackward0")
assert lines[here + 1].strip() == "c = b**2"
# --8<-- [end:claim-anomaly-names-saver]

# --8<-- [start:claim-message-names-writer]
# a tensor a node saved as its input: the message names the last operation
# that wrote it, the in-place edit, whatever made it
makers = (lambda u: u * 3, lambda u: u + 1, torch.sigmoid)
edits = {"Add": lambda t: t.add_(1), "Mul": lambda t: t.mul_(2)}
for make in makers:
    for writer, edit in edits.items():
        leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        made = make(leaf)
        saved_by_pow = made**2  # the power node saves made, its input
        edit(made)
        found = inplace_error(saved_by_pow.sum())
        assert f"which is output 0 of {writer}," in found
# a tensor a node saved as its own output: the message names that node
for node, make in {"Sigmoid": torch.sigmoid, "Tanh": torch.tanh}.items():
    for edit in edits.values():
        leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        made = make(leaf)
        edit(made)
        assert f"which is output 0 of {node}," in inplace_error(made.sum())
# a tensor no recorded operation made: input data saved by a
# multiplication, and a leaf edited under no_grad; no operation is named
weights = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
data = torch.tensor([0.5, 0.5, 0.5])
product = (weights * data).sum()  # the multiplication saves data
data.mul_(2)
no_history = [inplace_error(product)]
squared = (weights * weights).sum()  # saves weights
with torch.no_grad():
    weights.mul_(2)
no_history.append(inplace_error(squared))
for found in no_history:
    assert "modified by an inplace operation" in found
    assert "which is output" not in found
# the writer named is the last recorded one: after two recorded edits, the
# second; an assignment to part of the tensor, or an edit of a part of it,
# is recorded as CopySlices; an edit under no_grad is not recorded, so the
# operation that made the tensor is named instead
part_edits = [
    ("torch::autograd::CopySlices", lambda t: t.__setitem__(0, 5.0)),
    ("torch::autograd::CopySlices", lambda t: t[0].add_(1)),
    ("Mul", lambda t: t.add_(1).mul_(2)),
    ("Add", lambda t: t.mul_(2).add_(1)),
]
for writer, edit in part_edits:
    leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    made = leaf * 3
    saved_by_pow = made**2
    edit(made)
    found = inplace_error(saved_by_pow.sum())
    assert f"which is output 0 of {writer}," in found
for make, maker in {"Mul": lambda u: u * 3, "Add": lambda u: u + 1}.items():
    leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    made = maker(leaf)
    saved_by_pow = made**2
    with torch.no_grad():
        made.sub_(1)  # unrecorded: the message still names the maker
    found = inplace_error(saved_by_pow.sum())
    assert f"which is output 0 of {make}," in found
    assert "of Sub" not in found
# --8<-- [end:claim-message-names-writer]

# Writes the version counter sees, and writes that go around it.
# --8<-- [start:spellings]
import torch


def plain(b):
    b.mul_(2)


def through_detach(b):
    b.detach().mul_(2)  # detach() shares b's memory and its counter


def under_no_grad(b):
    with torch.no_grad():
        b.mul_(2)


def through_data(b):
    b.data.mul_(2)  # .data: b's memory, with a counter of its own


def through_numpy(b):
    array = b.detach().numpy()  # a NumPy array over b's memory
    array *= 2


edits = {
    "b.mul_(2)": plain,
    "b.detach().mul_(2)": through_detach,
    "b.mul_(2) under no_grad()": under_no_grad,
    "b.data.mul_(2)": through_data,
    "b.detach().numpy() *= 2": through_numpy,
}
# --8<-- [end:spellings]

# --8<-- [start:run]
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()  # the sigmoid node saves b
b.sum().backward()
true_grad = a.grad.tolist()  # sigmoid's derivative, b * (1 - b)
print(f"{'no edit':<26} a.grad = {a.grad}")

results = {}
for spelling, edit in edits.items():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a.sigmoid()
    edit(b)
    try:
        b.sum().backward()
        results[spelling] = (b._version, a.grad.tolist())
        print(f"{spelling:<26} b._version = {b._version}, a.grad = {a.grad}")
    except RuntimeError:
        results[spelling] = (b._version, None)
        print(f"{spelling:<26} b._version = {b._version}, backward raised")
# --8<-- [end:run]

# --8<-- [start:claim-seen]
# every in-place write through the tensor, a view of it, detach(), or under
# no_grad() or inference_mode() counts its version up, and backward raises
# for whichever node saved it


def sigmoid_saved(leaf):
    out = leaf.sigmoid()  # saves its output
    return out, out


def pow_saved(leaf):
    made = leaf * 3
    return made, made**2  # saves its input, made


def data_saved(leaf):
    data = torch.tensor([0.5, 0.25, 2.0])
    return data, leaf * data  # saves data, which requires no gradient


savers = (sigmoid_saved, pow_saved, data_saved)


def raises_inplace(root):
    try:
        root.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
        return True
    return False


def inference_mode_edit(t):
    with torch.inference_mode():
        t.mul_(2)


seen_writes = (
    plain,
    through_detach,
    under_no_grad,
    inference_mode_edit,
    lambda t: t.detach().__setitem__(0, 5.0),  # t.detach()[0] = 5
    lambda t: t[:2].mul_(2),  # a view of part of it
    lambda t: t.view(3, 1).add_(1),
    lambda t: t.copy_(t.detach() * 2),
)
for make in savers:
    for write in seen_writes:
        leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        saved, root = make(leaf)
        before = saved._version
        write(saved)
        assert saved._version > before, (make, write)
        assert raises_inplace(root), (make, write)
assert results["b.mul_(2)"] == (1, None)
assert results["b.detach().mul_(2)"] == (1, None)
assert results["b.mul_(2) under no_grad()"] == (1, None)
# --8<-- [end:claim-seen]

# --8<-- [start:claim-unseen]
# writes through .data or through NumPy memory leave the counter where it
# was; backward raises nothing and computes with the new numbers, so the
# gradient is not the true one
import numpy as np  # noqa: E402  (a claim section, left out of the page)


def numpy_set_first(t):
    t.detach().numpy()[0] = 5.0


def from_numpy_back(t):
    torch.from_numpy(t.detach().numpy()).mul_(2)  # a tensor over the array


def numpy_multiply_into(t):
    array = t.detach().numpy()
    np.multiply(array, 2, out=array)


unseen_writes = (
    through_data,
    through_numpy,
    lambda t: t.data.__setitem__(0, 5.0),  # t.data[0] = 5
    lambda t: t.data.copy_(t.data * 2),
    numpy_set_first,
    from_numpy_back,
    numpy_multiply_into,
)
# the gradient each saver's backward gives from the value it saved
from_saved = {
    sigmoid_saved: lambda leaf, saved: saved * (1 - saved),
    pow_saved: lambda leaf, saved: 2 * saved * 3,
    data_saved: lambda leaf, saved: saved,
}
for make in savers:
    leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _, root = make(leaf)
    root.sum().backward()
    true = leaf.grad.clone()
    for write in unseen_writes:
        leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        saved, root = make(leaf)
        before = saved._version
        write(saved)
        assert saved._version == before, (make, write)
        assert not raises_inplace(root), (make, write)
        assert not torch.equal(leaf.grad, true), (make, write)
        new = from_saved[make](leaf, saved.detach())
        assert torch.allclose(leaf.grad, new), (make, write)
    # an edit of a copy, every way, leaves the saved values and the gradient
    for write in seen_writes + unseen_writes:
        leaf = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        saved, root = make(leaf)
        write(saved.detach().clone())
        assert saved._version == 0, (make, write)
        assert not raises_inplace(root), (make, write)
        assert torch.equal(leaf.grad, true), (make, write)
for spelling in ("b.data.mul_(2)", "b.detach().numpy() *= 2"):
    version, grad = results[spelling]
    assert version == 0 and grad is not None and grad != true_grad
# --8<-- [end:claim-unseen]

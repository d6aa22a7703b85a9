# Rebinding w = w - lr * w.grad instead of changing w in place.
# --8<-- [start:rebind]
import warnings

import torch

w = torch.tensor(3.0, requires_grad=True)
lr = 0.1
for step in range(1, 4):
    loss = (2 * w - 1) ** 2
    loss.backward()
    with warnings.catch_warnings(record=True) as caught:  # printed below
        warnings.simplefilter("always")
        grad = w.grad
    print(f"rebound, step {step}: w is a leaf: {w.is_leaf}   w.grad: {grad!s}")
    for warning in caught:  # the first sentence of each warning
        first = str(warning.message).split(". ")[0]
        print(f"  {warning.category.__name__}: {first}.")
    try:
        w = w - lr * grad  # a new tensor, computed from the old w
    except TypeError as error:
        print("  TypeError:", error)
        break
# --8<-- [end:rebind]

# --8<-- [start:fix]
w = torch.tensor(3.0, requires_grad=True)
for step in range(1, 4):
    loss = (2 * w - 1) ** 2
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad  # the same leaf, changed in place
    w.grad.zero_()
    print(
        f"in place, step {step}: w is a leaf: {w.is_leaf}   w = {w.item():.4f}"
    )
# --8<-- [end:fix]

# --8<-- [start:claim-rebind]
# after w = w - lr * w.grad (or any spelling that makes a new tensor from
# w with recording on), w is not a leaf; the next backward() leaves its
# .grad at None, reading it warns, and lr * None raises a TypeError
NOT_LEAF = "The .grad attribute of a Tensor that is not a leaf Tensor"
for rebind in (
    lambda t, g: t - lr * g,
    lambda t, g: t.sub(lr * g),
    lambda t, g: t + (-lr) * g,
):
    first_w = torch.tensor(3.0, requires_grad=True)
    ((2 * first_w - 1) ** 2).backward()
    new_w = rebind(first_w, first_w.grad)
    assert not new_w.is_leaf and new_w.grad_fn is not None
    ((2 * new_w - 1) ** 2).backward()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        new_grad = new_w.grad
    assert new_grad is None
    assert [issubclass(s.category, UserWarning) for s in seen] == [True]
    assert str(seen[0].message).startswith(NOT_LEAF)
    raised = False
    try:
        new_w - lr * new_grad
    except TypeError:
        raised = True
    assert raised
    # the old leaf, no longer named, took both gradients: 4 * (2w - 1) at
    # w = 3, then at the new w = 3 - lr * 20 = 1
    assert abs(first_w.grad.item() - (20.0 + 4 * (2 * 1.0 - 1))) < 1e-5
# the fix: w stays the same leaf, and moves by lr * grad at each step
fixed = torch.tensor(3.0, requires_grad=True)
expected = 3.0
for _ in range(3):
    ((2 * fixed - 1) ** 2).backward()
    expected = expected - lr * 4 * (2 * expected - 1)
    with torch.no_grad():
        fixed -= lr * fixed.grad
    fixed.grad.zero_()
    assert fixed.is_leaf and fixed.grad_fn is None
assert abs(fixed.item() - expected) < 1e-6
assert abs(w.item() - expected) < 1e-6 and w.is_leaf
# --8<-- [end:claim-rebind]

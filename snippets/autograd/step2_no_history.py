# backward() on a result with no history: the error, then the fix.
# --8<-- [start:forgot]
import torch

x = torch.tensor(3.0)  # requires_grad=True forgotten
y = x**2 + 2 * x
print("y:", y, "  grad_fn:", y.grad_fn)
try:
    y.backward()
except RuntimeError as error:
    print("RuntimeError:", error)
# --8<-- [end:forgot]

# --8<-- [start:fix]
x = torch.tensor(3.0, requires_grad=True)  # the fix: record operations on x
y = x**2 + 2 * x
y.backward()
print("with requires_grad=True:  x.grad =", x.grad)
# --8<-- [end:fix]

# --8<-- [start:claim-no-history]
# backward() on a result that neither requires a gradient nor has a grad_fn
# raises this RuntimeError, however the result was made; made from a leaf
# that requires a gradient, with recording on, the same result works
NO_HISTORY = (
    "element 0 of tensors does not require grad and does not have a grad_fn"
)


def backward_error(result):
    """The RuntimeError's text, or '' if backward() worked."""
    try:
        result.backward()
    except RuntimeError as caught:
        return str(caught)
    return ""


formulas = (
    lambda t: t**2 + 2 * t,
    lambda t: (t * 3.0 - 1.0).abs(),
    lambda t: torch.sin(t).sum(),
    lambda t: (t.reshape(1, 1) @ t.reshape(1, 1)).squeeze(),
)
for formula in formulas:
    plain = torch.tensor(3.0)  # no requires_grad
    assert backward_error(formula(plain)) == NO_HISTORY
    leaf = torch.tensor(3.0, requires_grad=True)
    with torch.no_grad():  # recording off: the result has no history
        assert backward_error(formula(leaf)) == NO_HISTORY
    assert backward_error(formula(leaf).detach()) == NO_HISTORY
    assert leaf.grad is None  # none of these stored anything
    assert backward_error(formula(leaf)) == ""  # recorded: it works
    assert leaf.grad is not None
# "element 0": the position, among the tensors given to backward(), of the
# first one without history
good = torch.tensor(2.0, requires_grad=True) * 3
bad = torch.tensor(2.0) * 3
for tensors, position in (([bad, good], 0), ([good, bad], 1)):
    try:
        torch.autograd.backward(tensors)
        message = ""
    except RuntimeError as caught:
        message = str(caught)
    assert message.startswith(f"element {position} of tensors does not")
    good = torch.tensor(2.0, requires_grad=True) * 3
# the page's run: the error, then the gradient 2x + 2
assert x.grad.item() == 2 * 3.0 + 2
# --8<-- [end:claim-no-history]

# --8<-- [start:claim-one-number]
# backward() with no argument works on an output of one real element,
# whatever its shape and floating-point type, and raises on one of several
# elements, storing nothing; a complex number is refused even alone
ONE_NUMBER = "grad can be implicitly created only for scalar outputs"
ONE_REAL = "grad can be implicitly created only for real scalar outputs"
real_types = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
for dtype in (*real_types, torch.complex64, torch.complex128):
    for shape in ((), (1,), (1, 1), (2,), (3, 1), (2, 3)):
        leaf = torch.ones(shape, dtype=dtype, requires_grad=True)
        message = backward_error(leaf * 2)
        if leaf.numel() > 1:
            assert message == ONE_NUMBER and leaf.grad is None, (dtype, shape)
        elif dtype in real_types:
            assert message == "" and leaf.grad is not None, (dtype, shape)
        else:
            assert message.startswith(ONE_REAL), (dtype, shape)
            assert leaf.grad is None, (dtype, shape)
# --8<-- [end:claim-one-number]

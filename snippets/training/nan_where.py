# torch.where keeps the forward value safe, but not the gradient.
# --8<-- [start:nan]
import warnings

import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
y = torch.where(x > 0, torch.sqrt(x), 0.0)  # sqrt where x > 0, else 0
y.sum().backward()
print("y      =", y.tolist())
print("x.grad =", x.grad.tolist())
# --8<-- [end:nan]

# --8<-- [start:why]
# Both branches were computed, and both are differentiated.
x.grad = None
root = torch.sqrt(x)
print(
    "what sqrt's node saved:",
    [name for name in dir(root.grad_fn) if name.startswith("_saved")],
)
print("its saved result, sqrt(x):", root.grad_fn._saved_result.tolist())
print(
    "gradient where passes to sqrt:",
    [1.0 if v > 0 else 0.0 for v in x.tolist()],
)
# sqrt's backward: the gradient divided by twice the saved result
zero = torch.tensor(0.0)
print("at x = 0, 0 / (2 * 0):", (zero / (2 * zero)).item())
# --8<-- [end:why]

# --8<-- [start:anomaly]
with warnings.catch_warnings(record=True) as caught:  # collected, not printed
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():
            torch.where(x > 0, torch.sqrt(x), 0.0).sum().backward()
    except RuntimeError as e:
        print(f"{type(e).__name__}: {e}")
first_lines = [str(w.message).splitlines()[0] for w in caught]
print("warnings:", first_lines)
# --8<-- [end:anomaly]

# --8<-- [start:fix]
x.grad = None
safe = torch.where(x > 0, x, 1.0)  # sqrt never sees the 0 now
y_fixed = torch.where(x > 0, torch.sqrt(safe), 0.0)
y_fixed.sum().backward()
print("y      =", y_fixed.tolist())
print("x.grad =", x.grad.tolist())
# --8<-- [end:fix]

# --8<-- [start:claim-nan]
grad_nan = torch.tensor([0.0, 4.0], requires_grad=True)
torch.where(grad_nan > 0, torch.sqrt(grad_nan), 0.0).sum().backward()
assert torch.isnan(grad_nan.grad[0]) and grad_nan.grad[1].item() == 0.25
assert y.tolist() == [0.0, 2.0]  # the forward value is fine
assert x.grad.tolist() == [0.0, 0.25] and y_fixed.tolist() == y.tolist()
assert "SqrtBackward0" in str(caught[-1].message)
# where passes a zero gradient to the branch it did not pick
branch = torch.sqrt(grad_nan)
picked = torch.where(grad_nan > 0, branch, 0.0).sum()
assert torch.autograd.grad(picked, branch)[0].tolist() == [0.0, 1.0]
# detect_anomaly raises naming the node; its warning points at the forward
with warnings.catch_warnings(record=True) as again:
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():
            fresh = torch.tensor([0.0, 4.0], requires_grad=True)
            torch.where(fresh > 0, torch.sqrt(fresh), 0.0).sum().backward()
        raised = ""
    except RuntimeError as error:
        raised = str(error)
assert "SqrtBackward0" in raised and "nan" in raised
assert any("Traceback of forward call" in str(w.message) for w in again)
# sqrt's node saves only its result, and its backward is the incoming
# gradient divided by twice that result, bit for bit, not the gradient times
# the slope 1 / (2 sqrt(x)); at x = 0 with a zero gradient that is 0 / 0
assert [a for a in dir(root.grad_fn) if a.startswith("_saved")] == [
    "_saved_result"
]
torch.manual_seed(1)
sqrt_in = torch.cat([torch.zeros(3), torch.rand(10_000) * 10])
sqrt_in.requires_grad_()
incoming = torch.cat([torch.zeros(1), torch.randn(10_002)])
sqrt_out = torch.sqrt(sqrt_in)
(sqrt_grad,) = torch.autograd.grad(sqrt_out, sqrt_in, incoming)
by_division = incoming / (2 * sqrt_out.detach())
by_slope = incoming * (1 / (2 * torch.sqrt(sqrt_in.detach())))
undefined = torch.isnan(sqrt_grad)
assert torch.equal(undefined, torch.isnan(by_division))
assert torch.equal(sqrt_grad[~undefined], by_division[~undefined])
assert torch.isnan(sqrt_grad[0]) and incoming[0].item() == 0.0
assert torch.isnan(zero / (2 * zero))
finite = ~torch.isnan(by_slope)
assert not torch.equal(sqrt_grad[finite], by_slope[finite])
# --8<-- [end:claim-nan]

# --8<-- [start:claim-anomaly]
# detect_anomaly raises naming the first node that returned NaN, found here
# without it by a hook on each node, and warns with the forward's traceback
by_cases = [
    lambda t: torch.where(t > 0, torch.sqrt(t), 0.0),
    lambda t: torch.where(t > 0, t * torch.log(t), 0.0),
    lambda t: torch.where(t != 0, 1.0 / t, 0.0),
    lambda t: torch.where(t > 0, t**0.5, 0.0),
]


def graph_nodes(root):
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return found


for by_case in by_cases:
    hooked = torch.tensor([0.0, 4.0], requires_grad=True)
    out = by_case(hooked).sum()
    returned_nan = []

    def nan_noter(node, found=returned_nan):
        def note(grads_in, grads_out):  # grads_in: what the node returned
            if any(g is not None and torch.isnan(g).any() for g in grads_in):
                found.append(node.name())

        return note

    for node in graph_nodes(out.grad_fn):
        node.register_hook(nan_noter(node))
    out.backward()
    with warnings.catch_warnings(record=True) as case_warnings:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly():
                watched = torch.tensor([0.0, 4.0], requires_grad=True)
                by_case(watched).sum().backward()
            raised = ""
        except RuntimeError as error:
            raised = str(error)
    named = f"Function '{returned_nan[0]}' returned nan"
    assert named in raised
    traceback = "Traceback of forward call"
    assert any(traceback in str(w.message) for w in case_warnings)
# --8<-- [end:claim-anomaly]

# Autograd differentiates the path the code took: a while loop and an if.
# --8<-- [start:function]
import torch

limit = 1.0


def f(a):
    b = a
    halvings = 0
    while b.abs() > limit:  # how often this runs depends on a
        b = b / 2
        halvings += 1
    factor = 3.0 if b > 0 else -1.0  # and so does this branch
    return factor * b, halvings, factor


# --8<-- [end:function]

# --8<-- [start:paths]
taken = []  # one row per input: the path it took, and both slopes
for start in (10.0, -6.0):
    a = torch.tensor(start, requires_grad=True)
    c, halvings, factor = f(a)
    c.backward()
    # By hand, on the path taken: c = factor * a / 2**halvings, so dc/da is
    # that constant
    slope_hand = factor / 2**halvings
    taken.append((start, halvings, factor, slope_hand, a.grad.item()))
    print(f"a = {start:g}: {halvings} halvings, branch factor {factor:g}")
    print(f"  by hand: dc/da = {slope_hand:g}   autograd: {a.grad.item():g}")
# --8<-- [end:paths]

# --8<-- [start:claim-path-taken]
for row in taken:
    assert row[4] == row[3]  # autograd: the derivative of the path that ran
assert slope_hand == a.grad.item()  # the last row's, as the loop computed it
assert taken[0][2] != taken[1][2]  # the two inputs took different branches


# c's graph: only the divisions and the multiplication, one division per
# halving; the tests b.abs() > limit were recorded too, but off c's graph
def graph_names(root):
    """The names of the operation nodes of the graph ending at root."""
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.append(node)
            todo.extend(n for n, _ in node.next_functions)
    names = (type(n).__name__ for n in found)
    return sorted(n for n in names if n != "AccumulateGrad")


for begin in (10.0, -6.0, 0.5, 100.0):
    leaf = torch.tensor(begin, requires_grad=True)
    result, turns, _branch = f(leaf)
    assert graph_names(result.grad_fn) == ["DivBackward0"] * turns + [
        "MulBackward0"
    ]
    assert leaf.abs().grad_fn is not None  # an abs() of it is recorded
# --8<-- [end:claim-path-taken]

# --8<-- [start:jump]
import warnings  # noqa: E402

with warnings.catch_warnings(record=True) as heard:
    warnings.simplefilter("always")
    jump = []  # (a, c, autograd's dc/da) at the boundary and just above it
    for start in (2.0, 2.001):
        a = torch.tensor(start, requires_grad=True)
        c, halvings, factor = f(a)
        c.backward()
        jump.append((start, c.item(), a.grad.item()))
        print(f"a = {start:g}: halvings {halvings}, ", end="")
        print(f"c = {c.item():.4f}, autograd's dc/da = {a.grad.item():g}")
# --8<-- [end:jump]

# --8<-- [start:claim-jump]
# at every boundary where the loop runs once more (a = 2, 4, 8, and their
# negatives), c jumps: it halves between the boundary and just past it;
# there c has no derivative, yet autograd returns the slope of the path
# that ran, and warns of nothing
assert not heard
assert jump[0][1] - jump[1][1] > 1  # c jumped, by about half of it
for boundary in (2.0, 4.0, 8.0, -2.0, -4.0, -8.0):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        at = torch.tensor(boundary, requires_grad=True)
        c_at, turns, branch = f(at)
        c_at.backward()
    assert not caught
    past = torch.tensor(boundary * 1.0005)
    c_past = f(past)[0]
    assert abs(c_at.item() - c_past.item()) > 0.4 * abs(c_at.item())
    assert at.grad.item() == branch / 2**turns  # the path's own slope
# --8<-- [end:claim-jump]

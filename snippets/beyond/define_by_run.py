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
for _, _, _, slope_hand, autograd in taken:
    assert autograd == slope_hand  # the derivative of the path that ran
assert taken[0][2] != taken[1][2]  # the two inputs took different branches
# --8<-- [end:claim-path-taken]

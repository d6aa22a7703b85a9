# Autograd differentiates the path the code took: an if and a while loop.
# --8<-- [start:function]
import torch


def f(a):
    b = a * 2
    doublings = 0
    while b.abs() < 1000:  # how often this runs depends on a
        b = b * 2
        doublings += 1
    c = b if b > 0 else 100 * b  # and so does this branch
    return c, doublings


# --8<-- [end:function]

# --8<-- [start:paths]
taken = []  # one row per input: the path it took, and both slopes
for start in (1.5, -0.01):
    a = torch.tensor(start, requires_grad=True)
    c, doublings = f(a)
    c.backward()
    # By hand, on the path taken: c = a * 2 * 2**doublings, times 100 if
    # the else branch ran; so dc/da is that constant factor.
    branch = 1 if c > 0 else 100
    slope_hand = 2 * 2**doublings * branch
    taken.append((start, doublings, branch, slope_hand, a.grad.item()))
    print(f"a = {start:g}: {doublings} doublings, branch factor {branch}")
    print(f"  by hand: dc/da = {slope_hand}   autograd: {a.grad.item():.0f}")
# --8<-- [end:paths]

# --8<-- [start:claim-path-taken]
for _, _, _, slope_hand, autograd in taken:
    assert autograd == slope_hand  # the derivative of the path that ran
# --8<-- [end:claim-path-taken]

# Exercise: why does this custom backward fail gradcheck?
# --8<-- [start:cube]
import torch
from torch.autograd.gradcheck import GradcheckError


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


points = torch.tensor([1.0, 2.0, 3.0], dtype=torch.double, requires_grad=True)
try:
    torch.autograd.gradcheck(Cube.apply, (points,))
except GradcheckError as e:
    print(f"GradcheckError: {e}")
# --8<-- [end:cube]


# --8<-- [start:fixed]
true_slopes = [3 * p**2 for p in points.tolist()]  # by hand: d(x³)/dx = 3x²
cube_slopes = [3 * p for p in points.tolist()]  # what Cube.backward returns
print("by hand, 3x² =", true_slopes, "  Cube's backward, 3x =", cube_slopes)


class FixedCube(Cube):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2  # d(x³)/dx = 3x², not 3x


fixed_ok = torch.autograd.gradcheck(FixedCube.apply, (points,))
print("gradcheck of FixedCube:", fixed_ok)
one_point = torch.tensor([1.0], dtype=torch.double, requires_grad=True)
one_ok = torch.autograd.gradcheck(Cube.apply, (one_point,))
print("gradcheck of the wrong Cube at x = 1 only:", one_ok)
# --8<-- [end:fixed]

# --8<-- [start:claim-agrees]
# autograd's own derivative of x**3 is the hand 3x², at every test point
cubed = points.detach().clone().requires_grad_()
(cubed**3).sum().backward()
assert cubed.grad.tolist() == true_slopes
# the wrong formula differs from it at every test point but x = 1
assert [t == c for t, c in zip(true_slopes, cube_slopes, strict=True)] == [
    p == 1 for p in points.tolist()
]
assert fixed_ok and one_ok  # FixedCube passes; Cube passes at x = 1 alone
# --8<-- [end:claim-agrees]

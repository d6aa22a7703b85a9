# How gradcheck lays out its Jacobians: a row per input, a column per output.
# --8<-- [start:layout]
import torch
from torch.autograd.gradcheck import GradcheckError

A = torch.tensor([[1.0, 2.0], [0.0, 3.0]], dtype=torch.double)


class TimesA(torch.autograd.Function):
    """f(x) = A x, with a backward that doubles its result by mistake."""

    @staticmethod
    def forward(ctx, x):
        return A @ x

    @staticmethod
    def backward(ctx, grad_output):
        return 2 * (A.T @ grad_output)  # wrong: the factor 2


x = torch.tensor([1.0, -1.0], dtype=torch.double, requires_grad=True)
J = torch.func.jacrev(lambda x: A @ x)(x)  # a row per output, as on this page
print("J from jacrev, a row per output:")
print(J)
try:
    torch.autograd.gradcheck(TimesA.apply, (x,))
except GradcheckError as e:
    message = str(e)
    print(f"GradcheckError: {e}")
# --8<-- [end:layout]

# --8<-- [start:claim-transposed]
import re  # noqa: E402  (a claim section, left out of the page)

# the numerical Jacobian gradcheck printed, read back from its message
numerical = message.split("numerical:")[1].split("analytical:")[0]
rows = re.findall(r"\[([-\d., ]+)\]", numerical)
printed = torch.tensor([[float(v) for v in r.split(",")] for r in rows])
assert torch.equal(J, A)  # jacrev: J itself
assert torch.allclose(printed, A.T.float(), atol=1e-4)  # gradcheck: J^T
assert not torch.allclose(printed, A.float(), atol=1e-4)
# --8<-- [end:claim-transposed]

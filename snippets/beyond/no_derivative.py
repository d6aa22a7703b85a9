# Operations autograd has no derivative for.
# --8<-- [start:missing]
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.5, 1.5], requires_grad=True)
results = {  # two special functions, differentiated in their first input
    "torch.igamma(a, b)": torch.igamma(a, b),
    "torch.special.zeta(a + 1, b)": torch.special.zeta(a + 1, b),
}
errors = {}
for code, result in results.items():
    try:
        result.sum().backward()
    except RuntimeError as e:
        errors[code] = str(e)
        print(f"{code}: RuntimeError: {e}")

# how many values fall in each bin: a count, with no slope to follow
counts = torch.histc(a, bins=3, min=0, max=3)
print(f"torch.histc(a, ...): {counts}, grad_fn = {counts.grad_fn}")
# --8<-- [end:missing]

# --8<-- [start:claim-no-derivative]
assert set(errors) == set(results)  # backward raised for each of them
assert all("is not implemented" in e for e in errors.values())
assert counts.grad_fn is None and not counts.requires_grad  # not recorded
# "in their first input": in their second input, both have a derivative
second_grads = {}
for fn_name, second_of in {
    "igamma": lambda u: torch.igamma(a.detach(), u),
    "zeta": lambda u: torch.special.zeta(a.detach() + 1, u),
}.items():
    second = b.detach().clone().requires_grad_()
    second_of(second).sum().backward()
    second_grads[fn_name] = second.grad
    assert torch.isfinite(second.grad).all() and torch.all(second.grad != 0)
# igamma(a, x)' in x is x^(a-1) e^(-x) / Gamma(a)
ref = b.detach() ** (a.detach() - 1) * torch.exp(-b.detach())
ref = ref / torch.exp(torch.lgamma(a.detach()))
assert torch.allclose(second_grads["igamma"], ref, rtol=1e-5, atol=1e-7)
# zeta(s, q)' in q is -s zeta(s + 1, q), here with s = a + 1
s_here = a.detach() + 1
ref = -s_here * torch.special.zeta(s_here + 1, b.detach())
assert torch.allclose(second_grads["zeta"], ref, rtol=1e-5, atol=1e-7)
# --8<-- [end:claim-no-derivative]

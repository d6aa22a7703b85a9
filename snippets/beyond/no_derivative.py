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
# --8<-- [end:claim-no-derivative]

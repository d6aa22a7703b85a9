# What three optimizers do with a gradient of exactly 0.
# --8<-- [start:zero]
import torch


def path(make, start, gradients):
    """w before the first step and after each, with the gradients given."""
    w = torch.tensor(start, requires_grad=True)
    optimizer = make([w])
    seen = [w.item()]
    for gradient in gradients:
        w.grad = torch.tensor(gradient)  # set the gradient directly
        optimizer.step()
        seen.append(w.item())
    return seen, optimizer.defaults


runs = {  # the last gradient of each run is exactly 0
    "SGD(lr=0.1)": path(
        lambda ps: torch.optim.SGD(ps, lr=0.1), 0.7, [1.0, 0.0]
    ),
    "SGD(lr=0.1, momentum=0.9)": path(
        lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), 0.7, [1.0, 0.0]
    ),
    "AdamW()": path(torch.optim.AdamW, 1.0, [0.0]),
}
for name, (seen, _) in runs.items():
    print(f"{name:<26} w: " + " -> ".join(f"{v:.5g}" for v in seen))
adamw = runs["AdamW()"][1]
lr, decay = adamw["lr"], adamw["weight_decay"]
print(f"AdamW's defaults: lr={lr:g}, weight_decay={decay:g}")
# --8<-- [end:zero]

# --8<-- [start:claim-zero-moves]
plain, momentum, decayed = (seen for seen, _ in runs.values())
assert plain[2] == plain[1]  # plain SGD: a zero gradient leaves w alone
assert momentum[2] != momentum[1]  # momentum: earlier steps still move it
# AdamW: decoupled weight decay multiplies w by 1 - lr * weight_decay
factor = 1 - lr * decay
assert decayed[1] != decayed[0]
assert abs(decayed[1] - decayed[0] * factor) < 1e-7
# no gradient at all (.grad is None): no optimizer of torch.optim changes
# the parameter's value, even after a first step left it momentum, and with
# weight decay switched on (LBFGS adds zeros to it in place: see beyond/frozen)
import inspect  # noqa: E402  (a claim section, left out of the page)

optimizer_classes = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
makers = [
    (lambda ps, cls=cls: cls(ps, lr=0.1))
    if "lr" in inspect.signature(cls).parameters
    else (lambda ps, cls=cls: cls(ps))
    for cls in optimizer_classes
]
makers += [
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
    lambda ps: torch.optim.AdamW(ps, weight_decay=0.1),
]
assert len(makers) > 10
for make in makers:
    param = torch.ones(2, 2, requires_grad=True)
    optimizer = make([param])
    sparse = isinstance(optimizer, torch.optim.SparseAdam)
    first = torch.tensor([[1.0, -2.0], [0.5, 3.0]])

    def closure(param=param, first=first, sparse=sparse):
        param.grad = first.to_sparse() if sparse else first.clone()
        return (param * first).sum()

    optimizer.step(closure)  # a first step, with a gradient
    before = param.detach().clone()
    param.grad = None  # then none at all
    optimizer.step(lambda p=param, g=first: (p * g).sum().detach())
    assert param.grad is None and torch.equal(param.detach(), before)
# --8<-- [end:claim-zero-moves]

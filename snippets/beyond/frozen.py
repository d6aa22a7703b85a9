# Freezing the first layer: no gradient, and the optimizer leaves it alone.
# --8<-- [start:freeze]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
model[0].requires_grad_(False)  # freeze the first layer's weight and bias
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
before = {name: p.detach().clone() for name, p in model.named_parameters()}

inputs, targets = torch.randn(8, 2), torch.randn(8, 1)
loss = nn.functional.mse_loss(model(inputs), targets)
loss.backward()
optimizer.step()
# --8<-- [end:freeze]

# --8<-- [start:report]
for name, p in model.named_parameters():
    grad = "None" if p.grad is None else f"shape {tuple(p.grad.shape)}"
    moved = not torch.equal(p, before[name])
    print(f"{name:<9} requires_grad={p.requires_grad!s:<5}  ", end="")
    print(f"grad: {grad:<11}  moved by step(): {moved}")
# --8<-- [end:report]

# --8<-- [start:claim-frozen-untouched]
import inspect  # noqa: E402  (a claim section, left out of the page)

for param_name, param in model.named_parameters():
    frozen = param_name.startswith("0.")
    assert (param.grad is None) == frozen  # only trained ones get a .grad
    assert torch.equal(param, before[param_name]) == frozen  # only they move


# every optimizer in torch.optim, with momentum and weight decay where it has
# them: a parameter whose .grad is None is skipped. With weight decay, a zero
# .grad would move it, so the skip is not an update by zero
def settings(cls):
    """Momentum and weight decay, for the optimizers that take them."""
    names = inspect.signature(cls.__init__).parameters
    wanted = {"momentum": 0.9, "weight_decay": 0.1}
    return {key: value for key, value in wanted.items() if key in names}


def walk_error(root):
    """The in-place RuntimeError root.backward() raises, or None."""
    try:
        root.backward()
    except RuntimeError as error:
        return str(error) if "inplace operation" in str(error) else None
    return None


all_optimizers = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
assert len(all_optimizers) > 10 and torch.optim.SGD in all_optimizers
decayed = 0
for cls in all_optimizers:
    sparse = cls is torch.optim.SparseAdam  # it takes sparse gradients only
    no_grad_param = torch.ones(2, 2, requires_grad=True)
    zero_grad_param = torch.ones(2, 2, requires_grad=True)
    trained = torch.ones(2, 2, requires_grad=True)
    chosen = [no_grad_param, trained] + ([] if sparse else [zero_grad_param])
    opt = cls(chosen, **settings(cls))
    given = torch.tensor([[1.0, -2.0], [0.5, 3.0]])

    def closure(given=given, sparse=sparse, t=trained, z=zero_grad_param):
        t.grad = given.to_sparse() if sparse else given.clone()
        z.grad = torch.zeros(2, 2)
        return (t * given).sum()

    version_before = no_grad_param._version  # counts in-place writes
    saved_it = (no_grad_param * no_grad_param).sum()  # a graph saving it
    for _ in range(3):
        opt.step(closure)
    assert no_grad_param.grad is None, cls
    assert torch.equal(no_grad_param.detach(), torch.ones(2, 2)), cls
    # all but LBFGS skip it: not even written; LBFGS adds zeros to it in place
    written = no_grad_param._version != version_before
    assert written == (cls is torch.optim.LBFGS), cls
    # which matters: walking that graph again now fails after LBFGS only
    assert (walk_error(saved_it) is not None) == written, cls
    assert "weight_decay" not in settings(cls) or cls is not torch.optim.LBFGS
    assert not torch.equal(trained.detach(), torch.ones(2, 2)), cls
    if "weight_decay" in settings(cls):
        decayed += 1
        assert not torch.equal(zero_grad_param.detach(), torch.ones(2, 2)), cls
assert decayed > 10
# frozen after training: once each optimizer has trained the parameter for a
# few steps, freezing it (requires_grad_(False), and zero_grad() leaves its
# .grad None) makes every optimizer but LBFGS leave it exactly as it was, not
# even written; LBFGS mixes its remembered steps into its direction and
# moves it. An optimizer given only the parameters that train never moves it
target = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
for cls in all_optimizers:
    sparse = cls is torch.optim.SparseAdam
    # LBFGS: two iterations a step, so that it does not stop early
    extra = {"max_iter": 2} if cls is torch.optim.LBFGS else {}
    for only_trained in (False, True):
        torch.manual_seed(0)
        later_frozen = torch.randn(2, 2, requires_grad=True)
        trained = torch.randn(2, 2, requires_grad=True)
        opt = cls([later_frozen, trained], **settings(cls), **extra)

        def closure(pair=(later_frozen, trained), sparse=sparse):
            for q in pair:
                q.grad = None  # as zero_grad() does: None where none comes
            step_loss = ((pair[0] @ pair[1] - target) ** 2).sum()
            step_loss.backward()
            for q in pair:
                if sparse and q.grad is not None:
                    q.grad = q.grad.to_sparse()
            return step_loss

        for _ in range(3):
            opt.step(closure)  # ordinary training of both
        later_frozen.requires_grad_(False)  # freeze it
        opt.zero_grad()
        if only_trained:
            chosen = [q for q in (later_frozen, trained) if q.requires_grad]
            assert chosen == [trained]
            opt = cls(chosen, **settings(cls), **extra)
        kept, version_before = later_frozen.clone(), later_frozen._version
        kept_trained = trained.detach().clone()
        for _ in range(3):
            opt.step(closure)
        assert later_frozen.grad is None, cls
        assert not torch.equal(trained.detach(), kept_trained), cls
        moved_now = not torch.equal(later_frozen, kept)
        written_now = later_frozen._version != version_before
        lbfgs_moves = cls is torch.optim.LBFGS and not only_trained
        assert moved_now == written_now == lbfgs_moves, (cls, only_trained)
# --8<-- [end:claim-frozen-untouched]

# --8<-- [start:claim-frozen-not-recorded]
# the frozen first layer leaves no node in the graph, and so nothing saved
# for its backward; it is recorded if its weights or the input require grad


def graph_of(root):
    """The nodes of the graph ending at root."""
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return found


def saved_count(nodes):
    """How many tensors the nodes saved for backward."""
    count = 0
    for node in nodes:
        for attr in dir(node):
            if attr.startswith("_saved_"):
                count += isinstance(getattr(node, attr), torch.Tensor)
    return count


copy = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
copy.load_state_dict(model.state_dict())  # the same net, first layer trained
cases = {
    "frozen": (model, inputs),
    "trained": (copy, inputs),
    "input requires grad": (model, inputs.clone().requires_grad_()),
}
addmm, saved = {}, {}
for case, (net, data) in cases.items():
    nodes = graph_of(net(data).grad_fn)
    addmm[case] = [n for n in nodes if type(n).__name__ == "AddmmBackward0"]
    saved[case] = saved_count(nodes)
assert len(addmm["frozen"]) == 1  # the second layer's only
assert len(addmm["trained"]) == 2 and len(addmm["input requires grad"]) == 2
assert saved["frozen"] < saved["trained"]  # fewer tensors saved
assert saved["frozen"] < saved["input requires grad"]
assert model[0](inputs).grad_fn is None  # the frozen layer is not recorded
# --8<-- [end:claim-frozen-not-recorded]

# --8<-- [start:claim-leftover-grad]
# freezing does not clear a .grad a parameter already has. A gradient left
# in it moves the frozen parameter with any optimizer. Zeros left in it
# (zero_grad(set_to_none=False)) move it with weight decay, even in a fresh
# optimizer, and with momentum only after earlier steps; with neither, they
# do not. With .grad set to None, nothing moves it
optimizers = [  # (make, has weight decay, has momentum)
    (lambda ps: torch.optim.SGD(ps, lr=0.1), False, False),
    (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9), False, True),
    (lambda ps: torch.optim.Adam(ps, lr=0.1), False, True),
    (lambda ps: torch.optim.AdamW(ps, lr=0.1), True, True),  # decay 0.01
    (lambda ps: torch.optim.SGD(ps, lr=0.1, weight_decay=0.1), True, False),
]
for make, decays, has_momentum in optimizers:
    for stepped_before in (True, False):
        for leftover in ("gradient", "zeros", "None"):
            torch.manual_seed(1)
            net = nn.Linear(2, 1)
            opt = make(list(net.parameters()))
            net(torch.randn(4, 2)).pow(2).mean().backward()
            if stepped_before:
                opt.step()  # one ordinary step
            if leftover == "zeros":
                opt.zero_grad(set_to_none=False)
            elif leftover == "None":
                opt.zero_grad()  # by default: .grad = None
                assert all(q.grad is None for q in net.parameters())
            net.requires_grad_(False)  # frozen now
            kept = net.weight.detach().clone()
            opt.step()
            moved = not torch.equal(net.weight, kept)
            expected = leftover == "gradient" or (
                leftover == "zeros"
                and (decays or (has_momentum and stepped_before))
            )
            assert moved == expected
            if leftover == "zeros" and decays and not stepped_before:
                # a first step of decay alone: each weight shrinks to zero
                assert (net.weight.abs() < kept.abs()).all()
                assert torch.equal(net.weight.sign(), kept.sign())
# --8<-- [end:claim-leftover-grad]

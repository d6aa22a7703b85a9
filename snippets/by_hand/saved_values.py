# What the square's node keeps from the forward pass.
# --8<-- [start:saved]
import torch

x = torch.tensor(3.0, requires_grad=True)
s = x**2

print(s.grad_fn.name())
print("saved input:   ", s.grad_fn._saved_self)
print("saved exponent:", s.grad_fn._saved_exponent)
# --8<-- [end:saved]

# --8<-- [start:claim-saved-until-backward]
t = torch.tensor(3.0, requires_grad=True)
square = t**2
# kept from the forward pass: a reference to t itself, not a copy...
assert square.grad_fn._saved_self.data_ptr() == t.data_ptr()
square.backward()
# ...until backward() has used it
try:
    square.grad_fn._saved_self.item()
    kept = True
except RuntimeError as error:
    kept = "freed" not in str(error)
assert not kept
# in a small network, for several batch sizes: the layers' intermediate results
# are kept, a row for every example, until backward() has used them
for batch in (1, 4, 16):
    inputs = torch.ones(batch, 3)
    first, second = torch.nn.Linear(3, 5), torch.nn.Linear(5, 2)
    hidden = torch.relu(first(inputs))
    out = second(hidden)
    saved_by = (
        (out.grad_fn, "_saved_mat1"),  # the input of the second layer
        (hidden.grad_fn, "_saved_result"),  # what the ReLU let through
    )
    for node, attribute in saved_by:
        assert getattr(node, attribute).shape == (batch, 5)
    out.sum().backward()
    for node, attribute in saved_by:
        try:
            getattr(node, attribute)
            kept = True
        except RuntimeError as error:
            kept = "freed" not in str(error)
        assert not kept
# that is a plain backward(): with retain_graph=True the saved values stay,
# the same tensors, for another backward()
for batch in (1, 4, 16):
    first, second = torch.nn.Linear(3, 5), torch.nn.Linear(5, 2)
    hidden = torch.relu(first(torch.ones(batch, 3)))
    out = second(hidden)
    out.sum().backward(retain_graph=True)
    assert out.grad_fn._saved_mat1.shape == (batch, 5)
    assert torch.equal(hidden.grad_fn._saved_result, hidden)
    out.sum().backward()  # the second walk has them
    assert torch.equal(
        first.bias.grad,
        2
        * torch.autograd.grad(
            second(torch.relu(first(torch.ones(batch, 3)))).sum(), first.bias
        )[0],
    )
# --8<-- [end:claim-saved-until-backward]

# --8<-- [start:claim-node-keeps-local-slope]
# one node per operation, each keeping what its local slope needs
u = torch.tensor(2.0, requires_grad=True)
v = torch.tensor(-1.5, requires_grad=True)
saved = {  # result: (node, {saved attribute: the value it must hold})
    "u * v": (u * v, {"_saved_self": u, "_saved_other": v}),  # d/du = v
    "u ** 3": (u**3, {"_saved_self": u}),  # 3u**2
    "sin(u)": (torch.sin(u), {"_saved_self": u}),  # cos(u)
    "exp(u)": (torch.exp(u), {"_saved_result": torch.exp(u)}),  # exp(u)
    # 1 - tanh(u)**2
    "tanh(u)": (torch.tanh(u), {"_saved_result": torch.tanh(u)}),
}
for name, (result, keeps) in saved.items():
    assert result.grad_fn is not None, name
    for attribute, value in keeps.items():
        assert torch.equal(getattr(result.grad_fn, attribute), value), name
# an addition's local slopes are 1: its node keeps no tensor at all
add_node = (u + v).grad_fn
kept = [getattr(add_node, a) for a in dir(add_node) if a.startswith("_saved")]
assert not any(isinstance(k, torch.Tensor) for k in kept)
# some operations are carried out in steps, and record a node for each step
import torch.nn.functional as F  # noqa: E402  (a claim section)


def nodes_in(root):
    """The nodes a backward walk from root visits, leaves' nodes left out."""
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            if type(node).__name__ != "AccumulateGrad":
                found.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return found


pair = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
batched = torch.randn(2, 3, 4, requires_grad=True)
several_nodes = {
    "F.cosine_similarity": F.cosine_similarity(*pair, dim=0),
    "3-D @ 2-D": batched @ torch.randn(4, 5, requires_grad=True),
}
for name, result in several_nodes.items():
    assert len(nodes_in(result.grad_fn)) > 1, name
for name, (result, _) in saved.items():  # the ones above: one node each
    assert len(nodes_in(result.grad_fn)) == 1, name
# --8<-- [end:claim-node-keeps-local-slope]

# --8<-- [start:claim-training-holds-more]
# what a training step holds that inference on the same batch does not, for
# networks of several sizes: the saved values, a .grad per weight, and
# Adam's state, each in storage of its own
for width in (4, 32, 256):
    net = torch.nn.Sequential(
        torch.nn.Linear(width, width),
        torch.nn.ReLU(),
        torch.nn.Linear(width, 1),
    )
    batch_in = torch.randn(16, width)
    weights = list(net.parameters())
    weight_bytes = sum(q.nbytes for q in weights)
    saved_storages = {}

    def pack(t, saved_storages=saved_storages):
        storage = t.untyped_storage()
        saved_storages[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.no_grad():
            net(batch_in)  # inference: nothing saved
        assert saved_storages == {}
        net_loss = net(batch_in).pow(2).mean()  # training: values saved
    assert sum(saved_storages.values()) >= 16 * width * 4  # at least one
    net_loss.backward()
    grads = [q.grad for q in weights]
    assert all(g.shape == q.shape for g, q in zip(grads, weights, strict=True))
    held = {q.untyped_storage().data_ptr() for q in weights}
    grad_storages = {g.untyped_storage().data_ptr() for g in grads}
    assert len(grad_storages) == len(weights) and not grad_storages & held
    assert sum(g.nbytes for g in grads) == weight_bytes  # as much again
    adam = torch.optim.Adam(weights)
    adam.step()
    state_tensors = [
        v
        for q in weights
        for v in adam.state[q].values()
        if v.shape == q.shape
    ]
    state_storages = {v.untyped_storage().data_ptr() for v in state_tensors}
    assert len(state_storages) == 2 * len(weights)
    assert not state_storages & (held | grad_storages)
    assert sum(v.nbytes for v in state_tensors) == 2 * weight_bytes
    # the optimizer's state depends on the optimizer: none for plain SGD,
    # up to several tensors the size of each weight for others
    for make, copies in (
        (lambda q: torch.optim.SGD(q, lr=0.1), 0),
        (lambda q: torch.optim.SGD(q, lr=0.1, momentum=0.9), 1),
        (lambda q: torch.optim.Adagrad(q), 1),
        (lambda q: torch.optim.Adam(q), 2),
        (lambda q: torch.optim.Adam(q, amsgrad=True), 3),
    ):
        chosen = make(weights)
        chosen.step()
        kept = [
            v
            for q in weights
            for v in chosen.state[q].values()
            if isinstance(v, torch.Tensor) and v.shape == q.shape
        ]
        kept_storages = {v.untyped_storage().data_ptr() for v in kept}
        assert len(kept_storages) == copies * len(weights)
        assert not kept_storages & (held | grad_storages)
        assert sum(v.nbytes for v in kept) == copies * weight_bytes
# --8<-- [end:claim-training-holds-more]

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
# --8<-- [end:claim-node-keeps-local-slope]

# A module trains only the tensors it registered as parameters.
# --8<-- [start:module]
import torch


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(1))  # registered
        self.scale = torch.ones(1, requires_grad=True)  # a plain tensor

    def forward(self, inputs):
        return self.scale * self.weight * inputs


model = Scaled()
print("parameters():", [name for name, _ in model.named_parameters()])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, targets = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 6.0])
for _ in range(3):
    optimizer.zero_grad()
    loss = ((model(inputs) - targets) ** 2).mean()
    loss.backward()
    optimizer.step()
print(f"weight = {model.weight.item():.4f}   scale = {model.scale.item():.4f}")
print(f"scale.grad = {model.scale.grad.item():.4f}")
# --8<-- [end:module]

# --8<-- [start:claim-plain-untrained]
# the plain tensor got a gradient at each backward(), but the optimizer,
# built from parameters(), never moved it, and zero_grad() never reset its
# .grad, which holds the sum of the three gradients; the Parameter moved
assert model.scale.item() == 1.0 and model.weight.item() != 1.0
replay_weight = torch.ones(1)  # the three steps again, by hand
summed = 0.0
for _ in range(3):
    error = replay_weight * inputs - targets
    summed += (2 * error * replay_weight * inputs).mean().item()
    replay_weight -= 0.1 * (2 * error * inputs).mean()
assert abs(model.scale.grad.item() - summed) < 1e-5
assert abs(model.weight.item() - replay_weight.item()) < 1e-6
# --8<-- [end:claim-plain-untrained]

# --8<-- [start:claim-submodules]
# parameters() lists the Parameters of the module and of every module stored
# as its attribute, at any depth, and no plain tensor of any of them
inner = torch.nn.Linear(2, 2)
middle = torch.nn.Sequential(inner, torch.nn.Tanh())
outer = torch.nn.Module()
outer.block = middle
outer.own = torch.nn.Parameter(torch.zeros(3))
outer.plain = torch.zeros(3, requires_grad=True)
inner.plain = torch.zeros(2, requires_grad=True)
listed = list(outer.parameters())
wanted = [outer.own, inner.weight, inner.bias]
assert len(listed) == len(wanted)
assert all(any(p is q for q in listed) for p in wanted)
assert not any(p is outer.plain or p is inner.plain for p in listed)


# PyTorch's containers register what they hold; a plain list, tuple or dict
# does not, whether it holds layers or Parameters
def held(container):
    """A module holding two layers in the given container."""
    holder = torch.nn.Module()
    layer_a, layer_b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    holder.items = container(layer_a, layer_b)
    return holder, [layer_a.weight, layer_a.bias, layer_b.weight, layer_b.bias]


registering = {
    "Sequential": lambda *items: torch.nn.Sequential(*items),
    "ModuleList": lambda *items: torch.nn.ModuleList(items),
    "ModuleDict": lambda *items: torch.nn.ModuleDict(
        {f"m{i}": item for i, item in enumerate(items)}
    ),
}
plain_containers = {
    "list": lambda *items: list(items),
    "tuple": lambda *items: tuple(items),
    "dict": lambda *items: {f"m{i}": item for i, item in enumerate(items)},
}
for make in registering.values():
    holder, layer_tensors = held(make)
    found = list(holder.parameters())
    assert all(any(p is q for q in found) for p in layer_tensors)
for make in plain_containers.values():
    holder, _ = held(make)
    holder.weights = make(torch.nn.Parameter(torch.ones(1)))  # and a Parameter
    assert list(holder.parameters()) == []
for make in (torch.nn.ParameterList, torch.nn.ParameterDict):
    holder = torch.nn.Module()
    kept = torch.nn.Parameter(torch.ones(1))
    holder.weights = make(
        [kept] if make is torch.nn.ParameterList else {"k": kept}
    )
    assert [p for p in holder.parameters()] == [kept]
import warnings  # noqa: E402  (a claim section, left out of the page)

# a model with one registered layer and more in a plain list: the optimizer
# is built without a word, and a step leaves the listed layers as they were;
# with no registered parameter at all, the optimizer refuses the empty list
stack_check = torch.nn.Module()
stack_check.first = torch.nn.Linear(2, 2)
stack_check.rest = [torch.nn.Linear(2, 2) for _ in range(3)]
for optimizer_class in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
    listed_before = [
        layer.weight.detach().clone() for layer in stack_check.rest
    ]
    first_before = stack_check.first.weight.detach().clone()
    with warnings.catch_warnings(record=True) as stack_warnings:
        warnings.simplefilter("always")  # nothing warns, at any of these calls
        check_optimizer = optimizer_class(stack_check.parameters(), lr=0.1)
        check_inputs = stack_check.first(torch.ones(1, 2))
        for layer in stack_check.rest:
            check_inputs = layer(check_inputs)
        check_inputs.sum().backward()
        check_optimizer.step()
    assert stack_warnings == []
    assert not torch.equal(first_before, stack_check.first.weight)
    assert all(
        torch.equal(before, layer.weight)
        for before, layer in zip(listed_before, stack_check.rest, strict=True)
    )
    assert all(layer.weight.grad is not None for layer in stack_check.rest)
    stack_check.zero_grad()
only_listed = torch.nn.Module()
only_listed.rest = [torch.nn.Linear(2, 2)]
try:
    torch.optim.SGD(only_listed.parameters(), lr=0.1)
    empty_message = ""
except ValueError as error:
    empty_message = str(error)
assert "empty parameter list" in empty_message
# --8<-- [end:claim-submodules]


# --8<-- [start:in_a_list]
class Stack(torch.nn.Module):
    def __init__(self, more_layers):
        super().__init__()
        self.first = torch.nn.Linear(2, 2)  # an attribute: registered
        self.more_layers = more_layers  # three more, in the container given

    def forward(self, inputs):
        inputs = self.first(inputs)
        for layer in self.more_layers:
            inputs = layer(inputs)
        return inputs


torch.manual_seed(0)  # the same weights on every run
for container in (list, torch.nn.ModuleList):
    stack = Stack(container([torch.nn.Linear(2, 2) for _ in range(3)]))
    stack_optimizer = torch.optim.SGD(stack.parameters(), lr=0.1)  # no error
    before = stack.more_layers[0].weight.detach().clone()
    stack(torch.ones(1, 2)).sum().backward()
    stack_optimizer.step()
    trained = not torch.equal(before, stack.more_layers[0].weight)
    count = len(list(stack.parameters()))
    print(f"{container.__name__:10s}  parameters(): {count} tensors,", end="")
    print(f"  more_layers[0] trained: {trained}")
# --8<-- [end:in_a_list]

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
# --8<-- [end:claim-submodules]

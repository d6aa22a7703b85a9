# A running total of the loss kept as a tensor keeps every step's graph.
# --8<-- [start:setup]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)  # the mini-batch loop's data, model and loader
n, noise, batch_size = 100, 0.1, 32
x = torch.linspace(-1, 1, n).unsqueeze(1)
y = 2.0 * x - 1.0 + noise * torch.randn(n, 1)
loader = DataLoader(
    TensorDataset(x, y),
    batch_size=batch_size,
    shuffle=True,
    generator=torch.Generator().manual_seed(0),
)
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# --8<-- [end:setup]


# --8<-- [start:running_total]
def graph_size(total):
    """How many nodes of a graph can be reached from total.grad_fn."""
    found, todo = set(), [total.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.add(node)
            todo.extend(next_node for next_node, _ in node.next_functions)
    return len(found)


total_loss = 0.0
for epoch in range(1, 4):
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = ((model(inputs) - targets) ** 2).mean()
        loss.backward()
        optimizer.step()
        total_loss += loss  # the mistake: a tensor, with its graph
    print(f"after epoch {epoch}: {graph_size(total_loss)} nodes in its graph")
print("loss.item() is a", type(loss.item()).__name__, "and has no graph")
# --8<-- [end:running_total]

# --8<-- [start:claim-running-total]
# total_loss += loss keeps the graph of every step: the nodes reachable from
# it grow by the same number at each step, while a total of loss.item() is a
# float with no graph. Each backward() already freed what its nodes saved;
# for losses no backward() walked (an evaluation with recording on), the
# total keeps every step's saved tensors alive as well
import gc  # noqa: E402  (a claim section, left out of the page)
import weakref  # noqa: E402


def running_totals(steps, walk):
    """Graph sizes after each step, and how many saved tensors stay alive."""
    torch.manual_seed(2)
    net = torch.nn.Sequential(
        torch.nn.Linear(1, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)
    )
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    kept = {id(p) for p in net.parameters()}
    refs = []

    def pack(tensor):
        if id(tensor) not in kept and tensor.grad_fn is not None:
            refs.append(weakref.ref(tensor))  # an intermediate result
        return tensor

    total, item_total, counts = 0.0, 0.0, []
    for step in range(steps):
        batch = torch.full((4, 1), float(step))
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            step_loss = net(batch).pow(2).mean()
        if walk:
            opt.zero_grad()
            step_loss.backward()
            opt.step()
        total += step_loss
        item_total += step_loss.item()
        counts.append(graph_size(total))
    del step_loss, batch
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    assert isinstance(item_total, float)
    assert abs(total.item() - item_total) < 1e-3 * abs(item_total) + 1e-6
    return counts, alive, len(refs)


for walk in (True, False):
    counts, alive, handed = running_totals(12, walk)
    growth = [b - a for a, b in zip(counts, counts[1:], strict=False)]
    assert min(growth) == max(growth) > 0
    assert handed >= 12  # each step saved intermediate results
    assert alive == (0 if walk else handed)
# the page's run: after 3 epochs the graph holds one loss per step
seen_nodes, todo_nodes = set(), [total_loss.grad_fn]
while todo_nodes:
    node = todo_nodes.pop()
    if node is not None and node not in seen_nodes:
        seen_nodes.add(node)
        todo_nodes.extend(m for m, _ in node.next_functions)
means = [m for m in seen_nodes if type(m).__name__ == "MeanBackward0"]
assert len(means) == 3 * len(loader)
assert isinstance(loss.item(), float)
# --8<-- [end:claim-running-total]

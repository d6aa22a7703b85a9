# The line fit on mini-batches: a DataLoader over a TensorDataset, by epochs.
# --8<-- [start:data]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)  # the data and the model's first weights, every run
n, noise = 100, 0.1
x = torch.linspace(-1, 1, n).unsqueeze(1)  # one example per row
y = 2.0 * x - 1.0 + noise * torch.randn(n, 1)
dataset = TensorDataset(x, y)  # dataset[i] is the pair (x[i], y[i])
batch_size = 32
loader = DataLoader(
    dataset,
    batch_size=batch_size,
    shuffle=True,  # a new order of the examples at every epoch
    generator=torch.Generator().manual_seed(0),  # the same orders every run
)
sizes = [len(inputs) for inputs, _ in loader]
print(f"{len(dataset)} examples, {len(loader)} mini-batches: sizes {sizes}")
# --8<-- [end:data]

# --8<-- [start:loop]
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
epochs = 30
for epoch in range(1, epochs + 1):  # an epoch: every example once
    epoch_loss = 0.0
    for inputs, targets in loader:  # a mini-batch at each step
        optimizer.zero_grad()
        loss = ((model(inputs) - targets) ** 2).mean()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * len(inputs)  # a number, not a tensor
    if epoch == 1 or epoch % 10 == 0:
        print(f"epoch {epoch:2}: mean loss {epoch_loss / len(dataset):.4f}")
print(f"y = {model.weight.item():.4f} x + ({model.bias.item():.4f})")
# --8<-- [end:loop]

# --8<-- [start:claim-epochs]
# each epoch, the loader hands over every example exactly once, in
# mini-batches of batch_size examples and a smaller last one; the order
# changes from epoch to epoch; a generator seeded the same way gives the
# same orders, and another seed other orders
for i in range(n):  # the dataset pairs input i with target i
    pair = dataset[i]
    assert torch.equal(pair[0], x[i]) and torch.equal(pair[1], y[i])
indices = TensorDataset(torch.arange(n))


def orders(seed, count=3):
    """The batches of example numbers, for count epochs."""
    numbered = DataLoader(
        indices,
        batch_size=batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(seed),
    )
    return [[b.tolist() for (b,) in numbered] for _ in range(count)]


first_orders = orders(0)
for batches in first_orders:
    assert sorted(i for b in batches for i in b) == list(range(n))
    assert [len(b) for b in batches] == [batch_size] * (n // batch_size) + [
        n % batch_size
    ]
assert first_orders[0] != first_orders[1] != first_orders[2]
assert orders(0) == first_orders and orders(1) != first_orders
assert len(loader) == -(-n // batch_size) == len(sizes)
# the loop took one optimizer step per mini-batch and fitted the line
assert abs(model.weight.item() - 2.0) < 0.1
assert abs(model.bias.item() + 1.0) < 0.1
# --8<-- [end:claim-epochs]

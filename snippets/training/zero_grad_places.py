# Where optimizer.zero_grad() may go in the mini-batch loop.
# --8<-- [start:data]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)  # the data of the mini-batch loop, made the same way
n, noise, batch_size = 100, 0.1, 32
x = torch.linspace(-1, 1, n).unsqueeze(1)
y = 2.0 * x - 1.0 + noise * torch.randn(n, 1)
dataset = TensorDataset(x, y)
# --8<-- [end:data]


# --8<-- [start:where_zero_grad]
def train(place, epochs=3):
    """The mini-batch loop, same start, zero_grad() at place or never."""
    torch.manual_seed(1)
    net = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    batches = DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(0),
    )
    for _ in range(epochs):
        for inputs, targets in batches:
            if place == "before the forward pass":
                opt.zero_grad()
            loss = ((net(inputs) - targets) ** 2).mean()
            if place == "before backward()":
                opt.zero_grad()
            loss.backward()
            if place == "between backward() and step()":
                opt.zero_grad()  # wipes the gradient step() needs
            opt.step()
            if place == "after step()":
                opt.zero_grad()
    return net.weight.item(), net.bias.item()


places = (
    "before the forward pass",
    "before backward()",
    "after step()",
    "between backward() and step()",
    "never",
)
fits = {place: train(place) for place in places}
for place, (w, b) in fits.items():
    print(f"{place:>30}: w = {w:.4f}  b = {b:.4f}")
# --8<-- [end:where_zero_grad]

# --8<-- [start:claim-zero-grad-places]
# zero_grad() anywhere between one step() and the next backward() gives the
# same training, to the last bit; between backward() and step() it leaves
# every .grad at None, so step() moves nothing; never called, the gradients
# add up and the training differs
torch.manual_seed(1)
start = torch.nn.Linear(1, 1)  # the weights every run of train() starts from
start_fit = (start.weight.item(), start.bias.item())
same = fits["before the forward pass"]
for place in ("before backward()", "after step()"):
    assert fits[place] == same, place
assert fits["between backward() and step()"] == start_fit
assert fits["never"] != same and same != start_fit
# the gradients step() finds after zero_grad() between backward() and step(),
# and without zero_grad(), at each of a few steps
probe = torch.nn.Linear(1, 1)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
previous = None
for inputs, targets in DataLoader(dataset, batch_size=batch_size):
    ((probe(inputs) - targets) ** 2).mean().backward()
    summed = probe.weight.grad.clone()
    probe_opt.zero_grad()
    assert all(p.grad is None for p in probe.parameters())
    ((probe(inputs) - targets) ** 2).mean().backward()
    if previous is not None:  # the same batch twice, without zero_grad()
        ((probe(inputs) - targets) ** 2).mean().backward()
        assert torch.allclose(probe.weight.grad, 2 * summed)
    previous = summed
    probe_opt.zero_grad()
# --8<-- [end:claim-zero-grad-places]

# Evaluating during training: eval() for the evaluation, train() after it.
# --8<-- [start:forgot]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(4, 8),
    torch.nn.ReLU(),
    torch.nn.Dropout(p=0.5),
    torch.nn.Linear(8, 1),
)
batch = torch.randn(6, 4)


def evaluate(model):
    model.eval()  # dropout off: every value passes
    with torch.no_grad():
        return model(batch)


for restore in (False, True):
    model.train()
    evaluate(model)
    if restore:
        model.train()  # back to training mode before the next step
    first, second = model(batch), model(batch)  # two training forwards
    print(
        f"train() after evaluating: {restore!s:5}  model.training:",
        f"{model.training!s:5}  two forwards differ:",
        not torch.equal(first, second),
    )
# --8<-- [end:forgot]

# --8<-- [start:claim-stays-eval]
# eval() leaves every module in evaluation mode until train() is called:
# forwards, backward() and optimizer steps in between do not switch it back;
# dropout then passes everything and batch normalisation uses, and no longer
# updates, its running averages
net = torch.nn.Sequential(
    torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.Dropout(0.5)
)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
net.eval()
running = net[1].running_mean.clone()
for _ in range(3):
    opt.zero_grad()
    out = net(batch)
    out.sum().backward()
    opt.step()
    assert all(not m.training for m in net.modules())
    assert torch.equal(net[1].running_mean, running)  # not updated
    assert torch.equal(net[2](out), out)  # dropout passes everything
net.train()
assert all(m.training for m in net.modules())
net(batch)
assert not torch.equal(net[1].running_mean, running)  # updated again
assert not torch.equal(net[2](out), out)
# the page's run: in training mode again, two forwards draw two masks
assert model.training and not torch.equal(first, second)
# --8<-- [end:claim-stays-eval]

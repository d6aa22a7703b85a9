# model.eval() changes how some layers compute; it does not stop recording.
# --8<-- [start:model]
import torch

torch.manual_seed(0)  # the same weights, inputs and dropout masks every run
model = torch.nn.Sequential(
    torch.nn.Linear(4, 8),
    torch.nn.BatchNorm1d(
        8
    ),  # normalises with the batch's mean, or a running one
    torch.nn.ReLU(),
    torch.nn.Dropout(p=0.5),  # zeroes half the values at random, in training
    torch.nn.Linear(8, 1),
)
batch = torch.randn(6, 4)
dropout = model[3]
activations = torch.ones(1, 8)

model.train()  # the mode a new model starts in
print("train(): dropout gives", dropout(activations).tolist()[0])
model.eval()
print("eval():  dropout gives", dropout(activations).tolist()[0])
# --8<-- [end:model]

# --8<-- [start:still_recording]
saved = []  # every tensor the forward pass keeps for backward


def keep(tensor):
    saved.append(tensor)
    return tensor


with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
    output = model(batch)  # in eval mode
    saved_in_eval = len(saved)
    print("after eval():          grad_fn", output.grad_fn.name(), end="")
    print(f", {saved_in_eval} tensors saved for backward")
    saved.clear()
    with torch.no_grad():
        output_no_grad = model(batch)
    print("after eval(), no_grad: grad_fn", output_no_grad.grad_fn, end="")
    print(f", {len(saved)} tensors saved for backward")
# --8<-- [end:still_recording]

# --8<-- [start:claim-eval-only-layers]
# eval() sets .training to False on every module, and changes nothing else
fresh = torch.nn.Sequential(
    torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.Dropout(0.5)
)
before = {k: v.clone() for k, v in fresh.state_dict().items()}
flags = [p.requires_grad for p in fresh.parameters()]
fresh.eval()
assert all(not m.training for m in fresh.modules())
assert all(torch.equal(before[k], v) for k, v in fresh.state_dict().items())
assert [p.requires_grad for p in fresh.parameters()] == flags
assert torch.is_grad_enabled()
# and recording goes on: a graph, with saved tensors, for a Linear's output
assert output.grad_fn.name() == "AddmmBackward0"
assert saved_in_eval > 0 and output_no_grad.grad_fn is None and not saved
# the hook is handed what the nodes save: the first Linear saves its input
with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
    model(batch)
assert any(tensor is batch for tensor in saved)
# --8<-- [end:claim-eval-only-layers]

# --8<-- [start:claim-saved-kinds]
# what the hook counted in eval mode: hand-overs, not distinct tensors; most
# are in memory anyway (the parameters, the buffers, the batch), and the rest
# are intermediate results: the first Linear's output and the ReLU's
handed = []
with torch.autograd.graph.saved_tensors_hooks(
    lambda tensor: handed.append(tensor) or tensor, lambda tensor: tensor
):
    model(batch)
assert len(handed) == saved_in_eval
existing = {
    t.untyped_storage().data_ptr()
    for t in [*model.parameters(), *model.buffers(), batch]
}
intermediate = []
for tensor in handed:
    pointer = tensor.untyped_storage().data_ptr()
    if tensor.numel() > 0 and pointer not in existing:
        if all(
            pointer != t.untyped_storage().data_ptr() for t in intermediate
        ):
            intermediate.append(tensor)
with torch.no_grad():
    first_out = model[0](batch)
    relu_out = model[2](model[1](first_out))
assert len(intermediate) == 2 < len(handed)
assert torch.equal(intermediate[0], first_out)
assert torch.equal(intermediate[1], relu_out)
# --8<-- [end:claim-saved-kinds]

# --8<-- [start:claim-train-updates]
# in training mode, batch norm updates its running averages at every forward
# pass, whether grad mode is on or not; in eval mode it leaves them alone
grad_switches = [torch.enable_grad, torch.no_grad, torch.inference_mode]
for grad_switch in grad_switches:
    for training in (True, False):
        running = torch.nn.BatchNorm1d(8).train(training)
        start_mean = running.running_mean.clone()
        with grad_switch():
            running(batch @ torch.ones(4, 8))
        changed = not torch.equal(running.running_mean, start_mean)
        assert changed == training
# --8<-- [end:claim-train-updates]

# --8<-- [start:claim-layers-differ]
# dropout: in training, zero or scaled by 1 / (1 - p); in eval, unchanged
scale = 1 / (1 - dropout.p)
model.train()
dropout_train = dropout(activations)
assert set(dropout_train.unique().tolist()) == {0.0, scale}
model.eval()
assert torch.equal(dropout(activations), activations)
# batch norm: the batch's statistics in training, running ones in eval
norm, z = model[1], batch @ torch.ones(4, 8)
model.train()
by_batch = (z - z.mean(0)) / torch.sqrt(z.var(0, unbiased=False) + norm.eps)
assert torch.allclose(norm(z), by_batch, atol=1e-5)
model.eval()
by_running = (z - norm.running_mean) / torch.sqrt(norm.running_var + norm.eps)
assert torch.allclose(norm(z), by_running, atol=1e-5)
assert not torch.allclose(by_batch, by_running)
# dropout in training zeroes each value with probability p (here over a
# million values: the share zeroed is p, to within 0.005) and scales the
# rest by 1 / (1 - p), so the mean stays 1; without the scale it would be
# 1 - p
model.train()
many = dropout(torch.ones(1_000_000))
zeroed = (many == 0).float().mean().item()
assert abs(zeroed - dropout.p) < 0.005
assert abs(many.mean().item() - 1.0) < 0.01
assert abs((many > 0).float().mean().item() - (1 - dropout.p)) < 0.005
# but a small draw's average can be off: over twenty draws of eight values,
# some average differs from 1
small_means = [dropout(torch.ones(8)).mean().item() for _ in range(20)]
assert any(abs(m - 1.0) > 0.1 for m in small_means)
model.eval()
# --8<-- [end:claim-layers-differ]

# --8<-- [start:claim-mode-table]
# the four settings side by side: whether an operation is recorded, whether
# a tensor computed under the setting can be saved for backward later, and
# whether dropout computes as in evaluation (checked on a fresh model)
table_weight = torch.tensor([2.0, -1.0], requires_grad=True)
table_drop = torch.nn.Dropout(p=0.5)
table_ones = torch.ones(1000)
table_settings = {
    "default": (torch.enable_grad, True),
    "no_grad": (torch.no_grad, True),
    "inference_mode": (torch.inference_mode, True),
    "eval": (torch.enable_grad, False),
}
table_rows = {}
for table_name, (table_mode, table_training) in table_settings.items():
    table_drop.train(table_training)
    with table_mode():
        table_made = torch.tensor([1.0, 3.0]) * 2  # computed under the setting
        table_records = (table_weight * 3).grad_fn is not None
        table_out = table_drop(table_ones)
    table_as_eval = torch.equal(table_out, table_ones)
    if not table_as_eval:  # in training: zeroes and 1 / (1 - p), both seen
        assert set(table_out.unique().tolist()) == {0.0, 2.0}
    try:  # a product saves its inputs: can it save table_made?
        (table_weight * table_made).sum().backward()
        table_saved = True
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
        table_saved = False
    table_rows[table_name] = (table_records, table_saved, table_as_eval)
assert table_rows == {
    "default": (True, True, False),
    "no_grad": (False, True, False),
    "inference_mode": (False, False, False),
    "eval": (True, True, True),
}
assert torch.is_grad_enabled()
# --8<-- [end:claim-mode-table]

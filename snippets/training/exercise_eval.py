# Exercise: an evaluation loop that keeps no graph.
# --8<-- [start:evaluate]
import torch

torch.manual_seed(0)  # the same model and batches on every run
model = torch.nn.Sequential(
    torch.nn.Linear(3, 8), torch.nn.Dropout(0.2), torch.nn.Linear(8, 1)
)
batches = [torch.randn(4, 3) for _ in range(5)]


def evaluate(model, batches):
    was_training = model.training  # the mode to come back to
    model.eval()  # dropout off: the layers' evaluation behaviour
    try:
        outputs = []
        with torch.no_grad():  # and no recording: no graph, nothing saved
            for batch in batches:
                outputs.append(model(batch))
    finally:  # even if a batch raises an error
        model.train(was_training)  # back to the mode it was in
    return outputs


outputs = evaluate(model, batches)
print("grad_fn of every output:", {out.grad_fn for out in outputs})
print("model back in training mode:", model.training)
model.eval()
evaluate(model, batches)
print("called in evaluation mode, it stays there:", not model.training)
model.train()
# --8<-- [end:evaluate]

# --8<-- [start:claim-no-graph]
assert all(out.grad_fn is None and not out.requires_grad for out in outputs)
assert model.training  # back in training mode
again = evaluate(model, batches)
assert all(torch.equal(a, b) for a, b in zip(outputs, again, strict=True))
# the cause: dropout. In training mode two calls on the same batches differ,
# and with the dropout layer taken out, the model in training mode gives the
# evaluation outputs
with torch.no_grad():
    first_call = [model(batch) for batch in batches]
    second_call = [model(batch) for batch in batches]
    assert all(
        not torch.equal(a, b)
        for a, b in zip(first_call, second_call, strict=True)
    )
    without_dropout = torch.nn.Sequential(model[0], model[2])
    assert all(
        torch.equal(without_dropout(batch), out)
        for batch, out in zip(batches, outputs, strict=True)
    )
assert model.training
# the mode after evaluate() is the mode before it, from either mode, and
# also when a batch raises an error inside it
for start_in_training in (True, False):
    for bad_batch in (False, True):
        model.train(start_in_training)
        feed = batches + [torch.randn(4, 5)] if bad_batch else batches
        try:
            evaluate(model, feed)
        except RuntimeError:
            assert bad_batch  # the wrong shape raised
        assert model.training is start_in_training
        assert all(
            layer.training is start_in_training for layer in model.modules()
        )
# a plain train() at the end instead: a model that was evaluating comes
# back in training mode
model.eval()
model.train()
assert all(layer.training for layer in model.modules())
# --8<-- [end:claim-no-graph]

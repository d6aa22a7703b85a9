# Gradient accumulation: one backward() per piece of a batch; they add up.
# --8<-- [start:pieces]
import torch

torch.manual_seed(0)
# one batch of examples for the model w * x
x, y = torch.randn(10), torch.randn(10)
batch = len(x)


def accumulated(sizes, weights):
    """w.grad at w = 1 after one backward() per piece (its loss * weight)."""
    w = torch.tensor(1.0, requires_grad=True)
    for xs, ys, weight in zip(
        x.split(sizes), y.split(sizes), weights, strict=True
    ):
        piece_loss = ((w * xs - ys) ** 2).mean()  # the mean over this piece
        (weight * piece_loss).backward()  # adds into w.grad
    return w.grad.item()


whole = accumulated([batch], [1.0])
print(f"the whole batch at once:       w.grad = {whole:.4f}")
cuts = {}  # "5 + 5" -> w.grad (divided by the pieces, weighted by size)
for sizes in ([5, 5], [7, 3]):
    name = " + ".join(str(size) for size in sizes)
    divided = accumulated(sizes, [1 / len(sizes)] * len(sizes))
    weighted = accumulated(sizes, [size / batch for size in sizes])
    cuts[name] = (divided, weighted)
    print(f"{name}, each loss / {len(sizes)}:        w.grad = {divided:.4f}")
    print(f"{name}, each loss * size/{batch}:  w.grad = {weighted:.4f}")
# --8<-- [end:pieces]

# --8<-- [start:claim-equal-pieces]
# float32 sums taken in another order differ in the last digits only
close = 1e-5
# equal pieces: dividing by their number gives the whole batch's gradient
assert abs(cuts["5 + 5"][0] - whole) < close
# pieces of any sizes: so does weighting each by its share
assert all(abs(weighted - whole) < close for _, weighted in cuts.values())
# but only when each example's loss depends on that example alone: with a
# BatchNorm layer, which normalizes by the statistics of the examples it
# is given, weighted pieces give another gradient
rng_state = torch.get_rng_state()  # so the claim leaves the page's run as is
mixer = torch.nn.Sequential(
    torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1)
)
inputs, targets = torch.randn(batch, 3), torch.randn(batch, 1)
torch.set_rng_state(rng_state)


def mixer_grad(sizes):
    """The first layer's weight gradient, pieces weighted by their share."""
    mixer.zero_grad()
    for xs, ys in zip(inputs.split(sizes), targets.split(sizes), strict=True):
        share = len(xs) / batch
        (share * ((mixer(xs) - ys) ** 2).mean()).backward()
    return mixer[0].weight.grad.clone()


mixer_whole = mixer_grad([batch])
for mixer_sizes in ([5, 5], [7, 3]):
    mixer_gap = (mixer_grad(mixer_sizes) - mixer_whole).norm()
    assert mixer_gap > mixer_whole.norm() / 10
# --8<-- [end:claim-equal-pieces]

# --8<-- [start:claim-unequal-pieces]
# unequal pieces divided by their number: another gradient
assert abs(cuts["7 + 3"][0] - whole) > 0.1
# how much each example counts: the gradient of the accumulated objective
# with respect to each example's own loss (1 / batch in the whole batch)
for cut_sizes in ([7, 3], [8, 2], [6, 4], [9, 1]):
    per_example = ((1.0 * x - y) ** 2).detach().requires_grad_()
    for piece in per_example.split(cut_sizes):
        (piece.mean() / len(cut_sizes)).backward()
    share = per_example.grad
    small, large = share.split(cut_sizes)[1], share.split(cut_sizes)[0]
    # the small piece's examples count for more than their share, the large
    # piece's for less
    assert bool((small > 1 / batch).all()) and bool((large < 1 / batch).all())
    # and the gradient of w is the per-example gradients weighted that way
    divided_here = accumulated(
        cut_sizes, [1 / len(cut_sizes)] * len(cut_sizes)
    )
    per_example_grad = 2 * (1.0 * x - y) * x  # d((w x - y)**2)/dw at w = 1
    assert abs((share * per_example_grad).sum().item() - divided_here) < 1e-5
# --8<-- [end:claim-unequal-pieces]

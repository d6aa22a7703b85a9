# The words of the glossary on one small example: a forward pass, a
# backward pass and one optimizer step.
# --8<-- [start:words]
import torch

x = torch.tensor([1.0, 2.0, 3.0])  # features: one number per example
y = torch.tensor([1.0, 3.0, 5.0])  # targets
w = torch.tensor(0.5, requires_grad=True)  # a parameter: a leaf
b = torch.tensor(0.0, requires_grad=True)  # a parameter: a leaf

prediction = w * x + b  # the forward pass, recorded as a graph
loss = ((prediction - y) ** 2).mean()  # the loss: one number
print("loss:", loss)
print("w.is_leaf:", w.is_leaf, "  loss.is_leaf:", loss.is_leaf)
print("loss.grad_fn:", loss.grad_fn.name())
nodes = [node.name() for node, _ in loss.grad_fn.next_functions if node]
print("the node(s) it links to:", nodes)

loss.backward()  # the backward pass: the gradient lands in .grad
print("w.grad:", w.grad, "  b.grad:", b.grad)

optimizer = torch.optim.SGD([w, b], lr=0.1)  # learning rate 0.1
optimizer.step()  # w -= 0.1 * w.grad, b likewise, in place
optimizer.zero_grad()
print(f"after one step: w = {w.item():.4f}, b = {b.item():.4f}")
# --8<-- [end:words]

# --8<-- [start:claim-tensor]
# a tensor has a shape and a dtype, inferred from the data: float32 for
# Python floats and for zeros, ones, randn; int64 for integers (arange of
# integers too); only a floating-point (or complex) tensor can require a
# gradient
grid = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
assert grid.shape == (2, 3) and grid.dtype == torch.float32
for floating in (
    torch.tensor(2.5),
    torch.tensor([1.0, 2.0]),
    torch.zeros(2),
    torch.ones(2, 3),
    torch.randn(3),
):
    assert floating.dtype == torch.float32
for integral in (torch.tensor(3), torch.tensor([1, 2]), torch.arange(12)):
    assert integral.dtype == torch.int64


def refused(make):
    """PyTorch's message when make() asks for a gradient, or ""."""
    try:
        make()
    except RuntimeError as caught:
        return str(caught)
    return ""


for ask in (
    lambda: torch.tensor([1, 2], requires_grad=True),
    lambda: torch.arange(3).requires_grad_(),
    lambda: torch.tensor([True, False], requires_grad=True),
):
    assert refused(ask).lower().startswith("only tensors of floating point")
for allowed in (
    lambda: torch.tensor([1.0, 2.0], requires_grad=True),
    lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),
    lambda: torch.tensor([1 + 2j], requires_grad=True),
):
    assert refused(allowed) == ""
# --8<-- [end:claim-tensor]

# --8<-- [start:claim-requires-grad]
# requires_grad=True: operations on the tensor are recorded, and their
# results require a gradient too; without it, nothing is recorded
asked = torch.tensor([1.0, 2.0], requires_grad=True)
plain = torch.tensor([1.0, 2.0])
for op in (torch.exp, torch.sin, lambda t: t * 3, lambda t: t.sum()):
    assert op(asked).requires_grad and op(asked).grad_fn is not None
    assert not op(plain).requires_grad and op(plain).grad_fn is None
    # unless recording is turned off
    for off in (torch.no_grad, torch.inference_mode):
        with off():
            assert not op(asked).requires_grad and op(asked).grad_fn is None
    with torch.set_grad_enabled(False):
        assert op(asked).grad_fn is None
# a comparison's result is bool, and requires no gradient
assert (asked > 1).dtype == torch.bool and not (asked > 1).requires_grad
# --8<-- [end:claim-requires-grad]

# --8<-- [start:claim-grad-fn]
# grad_fn: the node that made a result; None on a tensor you created
start = torch.tensor(2.0, requires_grad=True)
assert start.grad_fn is None
for op, name in ((torch.exp, "ExpBackward0"), (torch.sin, "SinBackward0")):
    assert op(start).grad_fn.name() == name
    assert f"grad_fn=<{name}>" in repr(op(start))
# --8<-- [end:claim-grad-fn]

# --8<-- [start:claim-leaf]
# a leaf: a tensor you created (is_leaf); results of recorded operations
# are not leaves; backward() stores a gradient in .grad of leaves that
# require one, and leaves .grad of the others at None
made = torch.tensor(3.0, requires_grad=True)
given = torch.tensor(4.0)
result = made * given + made
assert made.is_leaf and given.is_leaf and not result.is_leaf
between = made * given
result.backward()
assert made.grad is not None and given.grad is None
assert result.grad_fn.name() == "AddBackward0"
import warnings  # noqa: E402 (for this claim alone)

with warnings.catch_warnings():  # reading a non-leaf's .grad warns
    warnings.simplefilter("ignore")
    assert between.grad is None and result.grad is None
# a tensor made from one that requires a gradient, even on the line that
# created it, is a result, not a leaf, and gets no .grad
for not_leaf in (
    torch.randn(3, requires_grad=True) * 0.01,
    torch.randn(3, requires_grad=True).double(),
):
    assert not not_leaf.is_leaf and not_leaf.grad_fn is not None
    not_leaf.sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not_leaf.grad is None
# --8<-- [end:claim-leaf]

# --8<-- [start:claim-graph]
# each node links, in next_functions, to the nodes that made its inputs;
# a leaf that requires a gradient gets an AccumulateGrad node
g_w = torch.tensor(0.5, requires_grad=True)
g_b = torch.tensor(0.1, requires_grad=True)
g_out = g_w * 2.0 + g_b
links = [node.name() for node, _ in g_out.grad_fn.next_functions]
assert links == ["MulBackward0", "torch::autograd::AccumulateGrad"]
(leaf_node, _), _ = g_out.grad_fn.next_functions[0][0].next_functions
assert leaf_node.variable is g_w
# a node keeps the values its local derivatives need: x for w * x
g_x = torch.tensor([1.0, 2.0])
assert torch.equal((g_w * g_x).grad_fn._saved_other, g_x)
# AccumulateGrad adds to .grad: two backward passes, twice the gradient
(g_w * 3.0).backward()
(g_w * 3.0).backward()
assert g_w.grad.item() == 6.0
# each forward pass records a new graph
assert (g_w * 2.0).grad_fn is not (g_w * 2.0).grad_fn
# --8<-- [end:claim-graph]

# --8<-- [start:claim-backward-pass]
# loss.backward() adds to .grad of each leaf the loss was computed from that
# requires a gradient, on every call; a leaf that requires none keeps None
for f_scale, f_shape in ((3.0, (2,)), (-0.5, (3, 2)), (2.0, (1,))):
    f_w = torch.linspace(-1.0, 1.0, f_shape[-1]).expand(f_shape).clone()
    f_w.requires_grad_()
    f_b = torch.tensor(0.5, requires_grad=True)
    f_x = torch.tensor(f_scale)  # a leaf that requires no gradient
    f_expected_w = 2 * (f_w.detach() * f_scale + 0.5) * f_scale
    f_expected_b = (2 * (f_w.detach() * f_scale + 0.5)).sum()
    for f_calls in (1, 2, 3):
        ((f_w * f_x + f_b) ** 2).sum().backward()
        f_want_w, f_want_b = f_calls * f_expected_w, f_calls * f_expected_b
        assert torch.allclose(f_w.grad, f_want_w, rtol=1e-6, atol=0)
        assert torch.allclose(f_b.grad, f_want_b, rtol=1e-6, atol=0)
        assert f_x.is_leaf and f_x.grad is None and f_x.shape == ()
# --8<-- [end:claim-backward-pass]

# --8<-- [start:claim-gradient]
# .grad has the shape of its tensor
for shape in ((3,), (2, 4), (2, 3, 5)):
    shaped = torch.ones(shape, requires_grad=True)
    (shaped * 2).sum().backward()
    assert shaped.grad.shape == shaped.shape
# --8<-- [end:claim-gradient]

# --8<-- [start:claim-local-derivative]
# the local derivative of one operation, at its input: what autograd
# finds for that operation alone
at = torch.tensor([0.3, 1.2])
for op, local in (
    (torch.exp, torch.exp),
    (torch.sin, torch.cos),
    (lambda t: t**2, lambda t: 2 * t),
    (torch.tanh, lambda t: 1 - torch.tanh(t) ** 2),
):
    point = at.clone().requires_grad_()
    (slope,) = torch.autograd.grad(op(point).sum(), point)
    assert torch.allclose(slope, local(at), rtol=1e-6, atol=0)
# --8<-- [end:claim-local-derivative]

# --8<-- [start:claim-chain-rule]
# autograd's gradient of an outer function of an inner one is the product
# of their local derivatives
for outer, d_outer, inner, d_inner in (
    (torch.sin, torch.cos, torch.exp, torch.exp),
    (torch.exp, torch.exp, lambda t: t**2, lambda t: 2 * t),
    (lambda t: t**3, lambda t: 3 * t**2, torch.sin, torch.cos),
):
    chain_at = torch.tensor([0.2, 0.7], requires_grad=True)
    (chained,) = torch.autograd.grad(outer(inner(chain_at)).sum(), chain_at)
    plain_at = chain_at.detach()
    product = d_outer(inner(plain_at)) * d_inner(plain_at)
    assert torch.allclose(chained, product, rtol=1e-6, atol=0)
# two paths to the same input: x * sin(x) gives the sum of the products
# along them, sin(x) + x * cos(x)
for value in (0.3, 1.1, -2.0):
    paths_at = torch.tensor(value, requires_grad=True)
    (both,) = torch.autograd.grad(paths_at * torch.sin(paths_at), paths_at)
    by_paths = torch.sin(paths_at.detach()) + value * torch.cos(
        paths_at.detach()
    )
    assert torch.allclose(both, by_paths, rtol=1e-6, atol=0)
# --8<-- [end:claim-chain-rule]

# --8<-- [start:claim-loss]
# backward() without an argument needs a one-number loss
one = torch.tensor([1.0, 2.0], requires_grad=True)
(one * 2).sum().backward()
assert one.grad is not None


def implicit_error(shape):
    """PyTorch's message for backward() without an argument on a result of
    this shape."""
    try:
        torch.ones(shape, requires_grad=True).mul(2).backward()
    except RuntimeError as caught:
        return str(caught)
    return ""


for shape in ((2,), (2, 3)):
    assert implicit_error(shape) == (
        "grad can be implicitly created only for scalar outputs"
    )
# --8<-- [end:claim-loss]

# --8<-- [start:claim-sgd]
# torch.optim.SGD's defaults: momentum 0, weight decay 0; its step is then
# w - lr * w.grad
plain_w = torch.tensor([1.0, -2.0], requires_grad=True)
sgd = torch.optim.SGD([plain_w], lr=0.1)
assert sgd.defaults["momentum"] == 0 and sgd.defaults["weight_decay"] == 0
(plain_w**2).sum().backward()
expected_w = plain_w.detach() - 0.1 * plain_w.grad
sgd.step()
assert torch.equal(plain_w.detach(), expected_w)
# --8<-- [end:claim-sgd]

# --8<-- [start:claim-momentum]
# SGD with momentum m keeps a velocity v = m * v + grad and steps w - lr * v
mom_w = torch.tensor([1.0, -2.0], requires_grad=True)
mom = torch.optim.SGD([mom_w], lr=0.1, momentum=0.9)
velocity = torch.zeros(2)
for _ in range(3):
    mom.zero_grad()
    (mom_w**2).sum().backward()
    velocity = 0.9 * velocity + mom_w.grad
    expected_mom = mom_w.detach() - 0.1 * velocity
    mom.step()
    assert torch.allclose(mom_w.detach(), expected_mom, rtol=1e-6, atol=0)
# --8<-- [end:claim-momentum]

# --8<-- [start:claim-weight-decay]
# SGD's weight_decay adds weight_decay * w to the gradient before the step
wd_w = torch.tensor([1.0, -2.0], requires_grad=True)
wd = torch.optim.SGD([wd_w], lr=0.1, weight_decay=0.01)
(wd_w * 3.0).sum().backward()
expected_wd = wd_w.detach() - 0.1 * (wd_w.grad + 0.01 * wd_w.detach())
wd.step()
assert torch.allclose(wd_w.detach(), expected_wd, rtol=1e-6, atol=0)
# --8<-- [end:claim-weight-decay]

# --8<-- [start:claim-adam]
# Adam's step: running averages of the gradient (m) and of its square
# (v), corrected for their start at zero; the step is lr * m / (sqrt(v) + eps)
run_w = torch.tensor([1.0, -3.0], requires_grad=True)
run_adam = torch.optim.Adam([run_w], lr=0.01)
mean, square = torch.zeros(2), torch.zeros(2)
for t in range(1, 4):
    run_adam.zero_grad()
    (run_w**2).sum().backward()
    g = run_w.grad
    mean = 0.9 * mean + 0.1 * g
    square = 0.999 * square + 0.001 * g**2
    m_hat, v_hat = mean / (1 - 0.9**t), square / (1 - 0.999**t)
    expected_run = run_w.detach() - 0.01 * m_hat / (v_hat.sqrt() + 1e-8)
    run_adam.step()
    assert torch.allclose(run_w.detach(), expected_run, rtol=1e-6, atol=0)
# its first step moves each weight by lr * g / (|g| + eps): about lr, for
# a small gradient as for a large one
for size in (1e-3, 1.0, 1e3):
    adam_w = torch.tensor([1.0, -1.0], requires_grad=True)
    adam = torch.optim.Adam([adam_w], lr=0.01)
    (adam_w * size).sum().backward()
    grad = adam_w.grad.clone()
    before = adam_w.detach().clone()
    adam.step()
    moved = before - adam_w.detach()
    expected_move = 0.01 * grad / (grad.abs() + 1e-8)
    assert torch.allclose(moved, expected_move, rtol=1e-5, atol=0)
    about_lr = torch.full((2,), 0.01)
    assert torch.allclose(moved.abs(), about_lr, rtol=1e-3, atol=0)
# a gradient not much larger than eps moves the weight far less than lr
for tiny_size in (1e-8, 1e-10):
    tiny_w = torch.tensor([1.0], requires_grad=True)
    tiny_adam = torch.optim.Adam([tiny_w], lr=0.01)
    (tiny_w * tiny_size).sum().backward()
    tiny_adam.step()
    assert (1.0 - tiny_w.item()) < 0.6 * 0.01
# --8<-- [end:claim-adam]

# --8<-- [start:claim-adamw]
# AdamW shrinks the weight by lr * weight_decay * w, apart from Adam's step
initial = torch.tensor([1.0, -3.0])
aw = initial.clone().requires_grad_()
ref = initial.clone().requires_grad_()
adamw = torch.optim.AdamW([aw], lr=0.01, weight_decay=0.1)
adam_ref = torch.optim.Adam([ref], lr=0.01)
(aw * 2.0).sum().backward()
(ref * 2.0).sum().backward()
adamw.step()
adam_ref.step()
adam_move = initial - ref.detach()
expected_aw = initial * (1 - 0.01 * 0.1) - adam_move
assert torch.allclose(aw.detach(), expected_aw, rtol=1e-6, atol=0)
# --8<-- [end:claim-adamw]

# --8<-- [start:claim-learning-rate]
# the learning rate scales the step: with twice the rate, SGD moves twice
# as far
for rate in (0.1, 0.2, 0.4):
    lr_w = torch.tensor([1.0, -2.0], requires_grad=True)
    (lr_w**2).sum().backward()
    torch.optim.SGD([lr_w], lr=rate).step()
    moved_by = torch.tensor([1.0, -2.0]) - lr_w.detach()
    by_rate = rate * torch.tensor([2.0, -4.0])
    assert torch.allclose(moved_by, by_rate, rtol=1e-6, atol=0)
# --8<-- [end:claim-learning-rate]

# --8<-- [start:claim-optimizer]
# optimizer.step() changes each parameter from its .grad; zero_grad()
# sets .grad back to None
opt_w = torch.tensor([1.0, 2.0], requires_grad=True)
opt_b = torch.tensor(0.5, requires_grad=True)
for make in (torch.optim.SGD, torch.optim.Adam):
    opt = make([opt_w, opt_b], lr=0.1)
    (opt_w.sum() * opt_b).backward()
    before_w, before_b = opt_w.detach().clone(), opt_b.detach().clone()
    opt.step()
    assert not torch.equal(opt_w.detach(), before_w)
    assert not torch.equal(opt_b.detach(), before_b)
    opt.zero_grad()
    assert opt_w.grad is None and opt_b.grad is None
# --8<-- [end:claim-optimizer]

# --8<-- [start:claim-parameter]
# a module's parameters() lists its nn.Parameter attributes, and not a
# plain tensor attribute, even one that requires a gradient


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor(2.0))
        self.offset = torch.tensor(1.0, requires_grad=True)


scale = Scale()
listed = list(scale.parameters())
assert len(listed) == 1 and listed[0] is scale.weight
assert scale.weight.requires_grad and scale.weight.is_leaf
assert all(p is not scale.offset for p in listed)
# --8<-- [end:claim-parameter]

# --8<-- [start:claim-neuron]
# nn.Linear: each output is a neuron, the weighted sum of the inputs (a row
# of weight) plus a bias; weight has one row per output, one column per
# input feature
torch.manual_seed(0)
layer = torch.nn.Linear(in_features=3, out_features=2)
inputs = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
assert layer.weight.shape == (2, 3) and layer.bias.shape == (2,)
outputs = layer(inputs)
for row in range(2):
    by_sum = (inputs * layer.weight[row]).sum(dim=1) + layer.bias[row]
    assert torch.allclose(outputs[:, row], by_sum, rtol=1e-6, atol=0)
# --8<-- [end:claim-neuron]

# --8<-- [start:claim-in-place]
# an in-place operation changes the tensor's own memory and bumps its
# version; the same operation written out makes a new tensor
kept = torch.tensor([1.0, 2.0])
address, version = kept.data_ptr(), kept._version
for edit in (
    lambda t: t.sub_(1.0),
    lambda t: t.mul_(2.0),
    lambda t: t.__isub__(1.0),
    lambda t: t.__setitem__(0, 5.0),
):
    edit(kept)
    assert kept.data_ptr() == address and kept._version == version + 1
    version = kept._version
fresh = kept - 1.0
assert fresh.data_ptr() != kept.data_ptr()
# autograd sees the version change of a value it saved, and refuses


def inplace_error(edit):
    """PyTorch's message for backward() after an in-place edit of a value
    that exp() saved."""
    source = torch.tensor([0.5, 1.0], requires_grad=True)
    saved = source.exp()  # exp saves its result
    edit(saved)
    try:
        saved.sum().backward()
    except RuntimeError as caught:
        return str(caught)
    return ""


for edit in (lambda t: t.mul_(2.0), lambda t: t.__setitem__(0, 5.0)):
    assert "modified by an inplace operation" in inplace_error(edit)
# on a leaf that requires a gradient, the three spellings raise outside
# no_grad, and work inside it
for edit in (
    lambda t: t.__isub__(0.1),
    lambda t: t.sub_(0.1),
    lambda t: t.__setitem__(0, 5.0),
):
    weight = torch.tensor([1.0, 2.0], requires_grad=True)
    try:
        edit(weight)
        leaf_message = ""
    except RuntimeError as caught:
        leaf_message = str(caught)
    assert "leaf Variable that requires grad is being used" in leaf_message
    with torch.no_grad():
        edit(weight)
    assert weight._version == 1 and weight.is_leaf
# --8<-- [end:claim-in-place]

# --8<-- [start:claim-batches]
# a DataLoader cuts a data set into mini-batches of batch_size examples
# (the last may be smaller); one pass over them, an epoch, sees each example
# once
examples = torch.arange(10.0)
loader = torch.utils.data.DataLoader(examples, batch_size=4)
batches = list(loader)
assert [len(batch) for batch in batches] == [4, 4, 2]
assert torch.equal(torch.cat(batches), examples)
# --8<-- [end:claim-batches]


# --8<-- [start:claim-jacobian]
# the Jacobian of a function from n numbers to m numbers has shape (m, n);
# backward(v) gives v @ J (a vector-Jacobian product); forward mode's
# jvp gives J @ u
def pair(t):
    return torch.stack([t[0] * t[1], t[0] + t[1], t[1] ** 2])


jac_at = torch.tensor([2.0, 3.0])
jac = torch.autograd.functional.jacobian(pair, jac_at)
assert jac.shape == (3, 2)
for v in (torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.5, -1.0, 2.0])):
    vjp_at = jac_at.clone().requires_grad_()
    pair(vjp_at).backward(v)
    assert torch.allclose(vjp_at.grad, v @ jac, rtol=1e-6, atol=0)
for u in (torch.tensor([1.0, 0.0]), torch.tensor([0.5, -2.0])):
    _, tangent = torch.func.jvp(pair, (jac_at,), (u,))
    assert torch.allclose(tangent, jac @ u, rtol=1e-6, atol=0)
# --8<-- [end:claim-jacobian]


# --8<-- [start:claim-accumulation]
# backward() once per equal micro-batch, each loss divided by their number,
# .grad adding up: the whole batch's gradient; for several splits
acc_data = torch.randn(12, 3, generator=torch.Generator().manual_seed(0))
acc_target = acc_data.sum(1)
acc_model = torch.nn.Linear(3, 1)
acc_whole = torch.autograd.grad(
    torch.nn.functional.mse_loss(acc_model(acc_data).squeeze(1), acc_target),
    list(acc_model.parameters()),
)
for acc_parts in (1, 2, 3, 4, 6):
    acc_model.zero_grad()
    for acc_x, acc_y in zip(
        acc_data.chunk(acc_parts), acc_target.chunk(acc_parts), strict=True
    ):
        acc_loss = torch.nn.functional.mse_loss(
            acc_model(acc_x).squeeze(1), acc_y
        )
        (acc_loss / acc_parts).backward()
    for acc_p, acc_g in zip(acc_model.parameters(), acc_whole, strict=True):
        assert torch.allclose(acc_p.grad, acc_g, rtol=1e-5, atol=1e-6)
# --8<-- [end:claim-accumulation]

# --8<-- [start:claim-clipping]
# clip_grad_norm_: one factor for every entry, the norm of all gradients
# together at most max_norm, the direction kept (a norm within the bound
# unchanged); clip_grad_value_: each entry clamped to [-v, v] on its own
for clip_bound in (0.1, 1.0, 3.0, 100.0):
    clip_w = torch.nn.Parameter(torch.zeros(3))
    clip_b = torch.nn.Parameter(torch.zeros(2))
    clip_w.grad = torch.tensor([3.0, -0.05, 1.0])
    clip_b.grad = torch.tensor([-2.0, 0.5])
    clip_before = torch.cat([clip_w.grad, clip_b.grad])
    clip_norm = torch.nn.utils.clip_grad_norm_([clip_w, clip_b], clip_bound)
    clip_after = torch.cat([clip_w.grad, clip_b.grad])
    assert torch.allclose(clip_norm, clip_before.norm())
    assert clip_after.norm() <= clip_bound * (1 + 1e-6)
    clip_factor = min(1.0, clip_bound / (clip_before.norm().item() + 1e-6))
    assert torch.allclose(clip_after, clip_before * clip_factor, rtol=1e-6)
    clip_w.grad = torch.tensor([3.0, -0.05, 1.0])
    clip_b.grad = torch.tensor([-2.0, 0.5])
    torch.nn.utils.clip_grad_value_([clip_w, clip_b], clip_bound)
    clip_clamped = torch.cat([clip_w.grad, clip_b.grad])
    assert torch.equal(
        clip_clamped, clip_before.clamp(-clip_bound, clip_bound)
    )
# --8<-- [end:claim-clipping]

# --8<-- [start:claim-mixed-precision]
# under torch.autocast on the CPU (bfloat16): a linear layer's output is
# bfloat16, a mean squared error float32; parameters and gradients float32
for mix_shape in ((4, 3), (1, 3), (2, 5, 3)):
    mix_model = torch.nn.Linear(3, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        mix_out = mix_model(torch.ones(mix_shape))
        mix_loss = torch.nn.functional.mse_loss(
            mix_out, torch.zeros(mix_out.shape)
        )
    mix_loss.backward()
    assert mix_out.dtype == torch.bfloat16
    assert mix_loss.dtype == torch.float32
    for mix_p in mix_model.parameters():
        assert mix_p.dtype == mix_p.grad.dtype == torch.float32
# --8<-- [end:claim-mixed-precision]

# --8<-- [start:claim-detach]
# detach(): the same numbers in the same memory, not recorded (no grad_fn,
# no gradient required), and no gradient flows back through it
det_w = torch.tensor([1.0, 2.0], requires_grad=True)
det_y = det_w * 3.0
det_d = det_y.detach()
assert torch.equal(det_d, det_y) and det_d.data_ptr() == det_y.data_ptr()
assert det_d.grad_fn is None and not det_d.requires_grad
assert (det_d * 2).grad_fn is None
(det_y * det_d).sum().backward()  # the path through det_d passes nothing
assert torch.equal(det_w.grad, 3.0 * det_d)
# --8<-- [end:claim-detach]

# --8<-- [start:claim-eager]
# eager: each operation runs, and is recorded, when Python reaches it: the
# value and grad_fn exist before any backward
eager_w = torch.tensor(2.0, requires_grad=True)
for eager_op, eager_value, eager_node in (
    (lambda t: t * 3.0, 6.0, "MulBackward0"),
    (lambda t: t + 1.0, 3.0, "AddBackward0"),
    (lambda t: t**2, 4.0, "PowBackward0"),
):
    eager_y = eager_op(eager_w)
    assert eager_y.item() == eager_value
    assert eager_y.grad_fn.name() == eager_node
    eager_z = eager_y.exp()
    assert eager_z.grad_fn.next_functions[0][0] is eager_y.grad_fn
# --8<-- [end:claim-eager]

# --8<-- [start:claim-grad-mode]
# grad mode: on by default; no_grad and inference_mode turn it off for a
# block, set_grad_enabled(False) too; is_grad_enabled says which; off, no
# operation is recorded; it is per thread
import threading  # noqa: E402 (for this claim alone)

assert torch.is_grad_enabled()
mode_w = torch.tensor([1.0], requires_grad=True)
for mode_off in (
    torch.no_grad,
    torch.inference_mode,
    lambda: torch.set_grad_enabled(False),
):
    with mode_off():
        assert not torch.is_grad_enabled()
        assert (mode_w * 2).grad_fn is None
    assert torch.is_grad_enabled() and (mode_w * 2).grad_fn is not None
mode_seen = []
with torch.no_grad():
    mode_thread = threading.Thread(
        target=lambda: mode_seen.append(torch.is_grad_enabled())
    )
    mode_thread.start()
    mode_thread.join()
    assert not torch.is_grad_enabled()
assert mode_seen == [True]
# --8<-- [end:claim-grad-mode]

# --8<-- [start:claim-hook]
# a tensor hook is called with the tensor's gradient during backward, and
# what it returns (unless None) replaces it; modules, nodes and saved
# tensors have hooks too
hook_w = torch.tensor([1.0, 2.0], requires_grad=True)
hook_y = hook_w * 3.0
hook_seen = []
hook_y.register_hook(lambda g: hook_seen.append(g.clone()))
hook_y.sum().backward()
assert len(hook_seen) == 1 and torch.equal(hook_seen[0], torch.ones(2))
assert torch.equal(hook_w.grad, torch.full((2,), 3.0))
for hook_factor in (0.0, 2.0, -1.0):
    hook_v = torch.tensor([1.0, 2.0], requires_grad=True)
    hook_u = hook_v * 3.0
    hook_u.register_hook(lambda g, f=hook_factor: g * f)
    hook_u.sum().backward()
    assert torch.equal(hook_v.grad, torch.full((2,), 3.0 * hook_factor))
hook_calls = []
hook_layer = torch.nn.Linear(2, 1)
hook_layer.register_forward_hook(lambda m, i, o: hook_calls.append("module"))
hook_out = hook_layer(torch.ones(1, 2))
hook_out.grad_fn.register_hook(lambda gi, go: hook_calls.append("node"))
with torch.autograd.graph.saved_tensors_hooks(
    lambda t: hook_calls.append("saved") or t, lambda t: t
):
    hook_saved = hook_w.exp()
hook_out.sum().backward()
assert hook_calls == ["module", "saved", "node"]
# --8<-- [end:claim-hook]


# --8<-- [start:claim-module]
# a module: calling it runs forward; parameters() lists its own parameters
# and those of modules stored as attributes or in a ModuleList, not those
# of modules kept in a plain Python list
class Pair(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(2, 2)
        self.listed = torch.nn.ModuleList([torch.nn.Linear(2, 2)])
        self.hidden = [torch.nn.Linear(2, 2)]  # a plain list: not registered

    def forward(self, t):
        return self.listed[0](self.first(t))


pair_model = Pair()
pair_in = torch.ones(1, 2)
assert torch.equal(
    pair_model(pair_in), pair_model.listed[0](pair_model.first(pair_in))
)
pair_params = list(pair_model.parameters())
assert len(pair_params) == 4
for pair_p in [
    *pair_model.first.parameters(),
    *pair_model.listed.parameters(),
]:
    assert any(pair_p is q for q in pair_params)
for pair_p in pair_model.hidden[0].parameters():
    assert all(pair_p is not q for q in pair_params)
assert isinstance(pair_model.first, torch.nn.Module)
# --8<-- [end:claim-module]

# --8<-- [start:claim-retain-graph]
# by default backward() frees the saved tensors, and a second backward
# through the same graph raises; retain_graph=True keeps them, and the
# second backward adds its gradient; torch.autograd.grad alike
for ret_backward in (
    lambda out, keep, leaf: out.backward(retain_graph=keep),
    lambda out, keep, leaf: torch.autograd.grad(out, leaf, retain_graph=keep),
):
    ret_w = torch.tensor([1.0, 2.0], requires_grad=True)
    ret_out = ret_w.exp().sum()
    ret_backward(ret_out, False, ret_w)
    try:
        ret_backward(ret_out, False, ret_w)
        ret_message = ""
    except RuntimeError as ret_caught:
        ret_message = str(ret_caught)
    assert ret_message.startswith("Trying to backward through the graph a")
ret_v = torch.tensor([1.0, 2.0], requires_grad=True)
ret_twice = ret_v.exp().sum()
ret_twice.backward(retain_graph=True)
ret_twice.backward()
assert torch.allclose(ret_v.grad, 2 * ret_v.detach().exp(), rtol=1e-6, atol=0)
# --8<-- [end:claim-retain-graph]

# --8<-- [start:claim-saved-tensors]
# a node saves what its backward formula needs: both inputs of a product,
# the result of exp; saved_tensors_hooks sees each as it is saved; after
# the backward pass they are freed
sav_x = torch.tensor([1.0, 2.0], requires_grad=True)
sav_w = torch.tensor([3.0, 4.0], requires_grad=True)
sav_seen = []
with torch.autograd.graph.saved_tensors_hooks(
    lambda t: sav_seen.append(t) or t, lambda t: t
):
    sav_prod = sav_x * sav_w
    sav_exp = sav_prod.exp()
assert torch.equal(sav_prod.grad_fn._saved_self, sav_x)
assert torch.equal(sav_prod.grad_fn._saved_other, sav_w)
assert torch.equal(sav_exp.grad_fn._saved_result, sav_exp)
assert len(sav_seen) == 3
# the hook sees each saved tensor, for other operations too
for sav_op, sav_count in (
    (lambda t: t.sin(), 1),
    (lambda t: t * t, 2),
    (lambda t: t.sum(), 0),
):
    sav_each = []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t, seen=sav_each: seen.append(t) or t, lambda t: t
    ):
        sav_op(sav_x)
    assert len(sav_each) == sav_count
sav_exp.sum().backward()
try:
    sav_freed = repr(sav_exp.grad_fn._saved_result)
except RuntimeError as sav_caught:
    sav_freed = str(sav_caught)
assert sav_freed.startswith("Trying to backward through the graph a")
# --8<-- [end:claim-saved-tensors]

# --8<-- [start:claim-func]
# torch.func.grad(f) returns the gradient of f, autograd's; vmap(f) runs f
# over each entry of a batch, as a loop would
for func_f in (
    lambda t: (t**2).sum(),
    lambda t: t.sin().sum(),
    lambda t: (t[0] * t[1]).exp(),
):
    func_at = torch.tensor([0.3, -1.2])
    func_leaf = func_at.clone().requires_grad_()
    func_f(func_leaf).backward()
    assert torch.allclose(
        torch.func.grad(func_f)(func_at), func_leaf.grad, rtol=1e-6, atol=0
    )
    func_batch = torch.randn(5, 2, generator=torch.Generator().manual_seed(0))
    func_looped = torch.stack([func_f(row) for row in func_batch])
    func_mapped = torch.func.vmap(func_f)(func_batch)
    assert torch.allclose(func_mapped, func_looped, rtol=1e-6, atol=0)
    func_grads = torch.func.vmap(torch.func.grad(func_f))(func_batch)
    for func_row, func_g in zip(func_batch, func_grads, strict=True):
        assert torch.allclose(
            func_g, torch.func.grad(func_f)(func_row), rtol=1e-6, atol=0
        )
# --8<-- [end:claim-func]

# --8<-- [start:claim-version-counter]
# each in-place change adds one to the version counter; a node notes the
# version of what it saves, and backward raises when it has changed, naming
# both versions; a change through .data or a NumPy array sharing the memory
# leaves the counter as it was, and backward then runs on the changed value
ver_t = torch.tensor([1.0, 2.0])
assert ver_t._version == 0
for ver_n in range(1, 4):
    ver_t.add_(1.0)
    assert ver_t._version == ver_n


def version_error(ver_edit):
    ver_source = torch.tensor([0.5, 1.0], requires_grad=True)
    ver_saved = ver_source.exp()  # exp saves its result
    ver_edit(ver_saved)
    try:
        ver_saved.sum().backward()
    except RuntimeError as ver_caught:
        return str(ver_caught), ver_source.grad
    return "", ver_source.grad


for ver_edit in (lambda t: t.mul_(2.0), lambda t: t.__setitem__(0, 5.0)):
    ver_message, _ = version_error(ver_edit)
    assert "is at version 1; expected version 0" in ver_message
for ver_bypass in (
    lambda t: t.data.mul_(2.0),
    lambda t: t.detach().numpy().__imul__(2.0),
):
    ver_message, ver_grad = version_error(ver_bypass)
    ver_true = torch.tensor([0.5, 1.0]).exp()
    assert ver_message == "" and torch.allclose(ver_grad, 2 * ver_true)
# --8<-- [end:claim-version-counter]

# --8<-- [start:claim-view]
# a view shares its base's memory: indexing, view(), t(); a change in place
# to one shows in the other, and they share the version counter
for view_make in (
    lambda t: t[0],
    lambda t: t.view(4),
    lambda t: t.t(),
    lambda t: t[:, 1],
):
    view_base = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    view_v = view_make(view_base)
    assert view_v._base is view_base
    view_v.mul_(10.0)
    assert view_base.sum().item() > 10.0
    assert view_base._version == view_v._version == 1
    view_base.add_(1.0)
    assert view_v._version == 2
view_copy = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
assert view_copy.clone()._base is None
# --8<-- [end:claim-view]

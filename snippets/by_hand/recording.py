# Recording needs grad mode on and an input that requires grad.
# --8<-- [start:opt_in]
import torch

data = torch.tensor([1.0, 2.0, 3.0])  # input data: never adjusted
w = torch.tensor(0.5, requires_grad=True)  # a parameter: adjusted

print("data.requires_grad:", data.requires_grad)
print("w.requires_grad:   ", w.requires_grad)

doubled = data * 2  # only data involved: nothing is recorded
scaled = w * data  # w involved: the multiplication is recorded
print("doubled.grad_fn:", doubled.grad_fn)
print("scaled.grad_fn: ", scaled.grad_fn.name())

with torch.no_grad():  # grad mode off for this block
    quiet = w * data  # w involved, yet nothing is recorded
print("quiet.grad_fn:  ", quiet.grad_fn)
# --8<-- [end:opt_in]

# --8<-- [start:claim-recording-rule]
# grad mode is on unless switched off
assert torch.is_grad_enabled()
# no input requires grad: not recorded
assert doubled.grad_fn is None and not doubled.requires_grad
# one input does: recorded
assert scaled.grad_fn is not None and scaled.requires_grad
# one input does, but grad mode was off: not recorded
assert quiet.grad_fn is None and not quiet.requires_grad
# computed from w while recording was on, or it does not count: a tensor
# detached from w, and one computed from the no_grad result, are not recorded
assert (w.detach() * data).grad_fn is None
assert (quiet * data).grad_fn is None and torch.is_grad_enabled()
# a result with no slope to follow is not recorded, though w requires grad
for no_slope in (w > 0, scaled.argmax(), torch.histc(scaled, bins=3)):
    assert no_slope.grad_fn is None and not no_slope.requires_grad
# --8<-- [end:claim-recording-rule]

# --8<-- [start:claim-result-decides]
# w requires a gradient in all of these; what decides is the result: a bool
# or integer result cannot carry a gradient, and a few float operations have
# no derivative defined (torch.histc)
for no_slope in (
    w > 0,
    scaled > 1,
    scaled.argmax(),
    scaled.long(),
    torch.histc(scaled, bins=3),
):
    assert no_slope.grad_fn is None and not no_slope.requires_grad
# the cause: a tensor of booleans or integers cannot require a gradient


def refused_grad(values, dtype):
    """PyTorch's message when asked for such a tensor with requires_grad."""
    try:
        torch.tensor(values, dtype=dtype, requires_grad=True)
    except RuntimeError as caught:
        return str(caught)
    return ""


for dtype in (torch.bool, torch.int64, torch.int32, torch.uint8):
    assert refused_grad([1, 0], dtype).startswith(
        "Only Tensors of floating point and complex dtype"
    )
# a float operation whose slope is zero wherever it is defined is recorded
# all the same, and its node passes back zeros
for zero_slope in (torch.round, torch.sign, torch.floor, torch.ceil):
    values = torch.tensor([0.3, -1.7, 2.5], requires_grad=True)
    stepped = zero_slope(values)
    assert stepped.grad_fn is not None and stepped.requires_grad
    stepped.sum().backward()
    assert torch.equal(values.grad, torch.zeros(3))
# an operation whose derivative is merely missing is recorded all the same;
# backward() raises when it reaches its node


def backward_error(result):
    """PyTorch's message when backward() reaches result's node."""
    try:
        result.sum().backward()
    except RuntimeError as caught:
        return str(caught)
    return ""


for missing in (torch.floor_divide, torch.heaviside):
    values = torch.tensor([0.3, -1.7, 2.5], requires_grad=True)
    result = missing(values, torch.tensor(2.0))
    assert result.requires_grad and result.grad_fn is not None
    assert "not implemented" in backward_error(result)
# --8<-- [end:claim-result-decides]

# --8<-- [start:claim-what-requires-grad]
# the ways a tensor comes to require a gradient
layer = torch.nn.Linear(2, 1)  # its parameters: nobody passed requires_grad
switched_on = torch.ones(2).requires_grad_()
made = torch.ones(2, requires_grad=True)
for needs_grad in (
    made,
    switched_on,
    torch.nn.Parameter(torch.ones(2)),
    layer.weight,
    layer.bias,
    made * 2,  # made by a recorded operation
):
    assert needs_grad.requires_grad
# and the ways it does not
with torch.no_grad():
    computed_quietly = made * 2
for no_grad_needed in (torch.ones(2), made.detach(), computed_quietly):
    assert not no_grad_needed.requires_grad
# under no_grad, an in-place operation changes an existing tensor, which
# keeps its requires_grad
to_update = torch.ones(2, requires_grad=True)
with torch.no_grad():
    updated = to_update.sub_(0.5)
assert updated is to_update and updated.requires_grad
# a frozen layer's parameters are still parameters, but need no gradient
frozen = torch.nn.Linear(2, 1).requires_grad_(False)
for frozen_parameter in frozen.parameters():
    assert isinstance(frozen_parameter, torch.nn.Parameter)
    assert not frozen_parameter.requires_grad
# --8<-- [end:claim-what-requires-grad]

# --8<-- [start:claim-grad-mode-inside]
import inspect  # noqa: E402  (a claim section, left out of the page)

from torch.overrides import TorchFunctionMode  # noqa: E402

mode_seen = {}  # where: was grad mode on there?
base = torch.tensor(2.0, requires_grad=True)
squared = base**2
squared.register_hook(
    lambda g: mode_seen.__setitem__("tensor hook", torch.is_grad_enabled())
)
squared.backward()


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        mode_seen["Function.forward"] = torch.is_grad_enabled()
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, g):
        mode_seen["Function.backward"] = torch.is_grad_enabled()
        (t,) = ctx.saved_tensors
        return 2 * t * g


Square.apply(base).backward()
assert len(mode_seen) == 3 and not any(mode_seen.values())
# with create_graph=True, the backward pass is itself recorded: grad mode is
# on in hooks and in Function.backward, still off in Function.forward
mode_seen.clear()
base_again = torch.tensor(2.0, requires_grad=True)
squared_again = base_again**2
squared_again.register_hook(
    lambda g: mode_seen.__setitem__("tensor hook", torch.is_grad_enabled())
)
torch.autograd.grad(squared_again, base_again, create_graph=True)
(slope,) = torch.autograd.grad(
    Square.apply(base_again), base_again, create_graph=True
)
assert mode_seen == {
    "tensor hook": True,
    "Function.forward": False,
    "Function.backward": True,
}
assert slope.grad_fn is not None


class InPlaceOnWeight(TorchFunctionMode):
    """Notes grad mode at every in-place call on one weight."""

    def __init__(self, weight):
        super().__init__()
        self.weight, self.modes = weight, []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        in_place = name.endswith("_") and not name.startswith("_")
        if in_place and args and args[0] is self.weight:
            self.modes.append(torch.is_grad_enabled())
        return func(*args, **(kwargs or {}))


def modes_in_step(cls, **settings):
    """Grad mode at each in-place change of the weight inside step()."""
    weight = torch.ones(2, 2, requires_grad=True)
    optimizer = cls([weight], **settings)
    gradient = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    sparse = cls is torch.optim.SparseAdam  # it takes sparse gradients only

    def closure():  # LBFGS asks for the loss again; the others ignore it
        closure_modes.append(torch.is_grad_enabled())
        weight.grad = gradient.to_sparse() if sparse else gradient.clone()
        return (weight * gradient).sum()

    spy = InPlaceOnWeight(weight)
    refused = None
    with spy:
        try:
            optimizer.step(closure)
        except RuntimeError as caught:  # PyTorch refusing the update
            refused = str(caught)
    return spy.modes, refused


closure_modes = []  # grad mode while step() runs the closure
optimizer_classes = [
    cls
    for _, cls in inspect.getmembers(torch.optim, inspect.isclass)
    if issubclass(cls, torch.optim.Optimizer)
    and cls is not torch.optim.Optimizer
]
assert len(optimizer_classes) > 10 and torch.optim.SGD in optimizer_classes
for cls in optimizer_classes:  # every optimizer in torch.optim
    modes, refused = modes_in_step(cls)
    assert refused is None and len(modes) > 0 and not any(modes), cls
# but every step() switches grad mode back on to run the closure
assert len(closure_modes) >= len(optimizer_classes) and all(closure_modes)
# built with differentiable=True, step() leaves grad mode on, and the
# in-place update of a leaf is then refused, as outside no_grad
modes, refused = modes_in_step(torch.optim.SGD, differentiable=True)
assert modes == [True] and "in-place operation" in refused
assert torch.is_grad_enabled()  # and back at the top level, it is on
# --8<-- [end:claim-grad-mode-inside]

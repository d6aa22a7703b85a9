# A reverse-mode autograd engine for single numbers, written from scratch,
# then checked against PyTorch and used to fit a line.
# --8<-- [start:value]
import math

import torch


class Value:
    """A number that remembers how it was made."""

    def __init__(self, data, parents=(), op="", derivatives=None):
        self.data = float(data)
        self.grad = 0.0  # d(output)/d(this value); backward() fills it
        self.parents = parents  # the values this one was computed from
        self.op = op  # the name of the operation that made it
        # the local derivatives: d(this value)/d(each parent), in order
        self.derivatives = derivatives or (lambda: ())

    def pass_back(self):
        """Add this value's share of the gradient to each of its parents."""
        for parent, local in zip(
            self.parents, self.derivatives(), strict=True
        ):
            parent.grad += local * self.grad  # +=, never =

    def __repr__(self):
        return f"Value({self.data:g}, grad={self.grad:g})"


# --8<-- [end:value]


# --8<-- [start:operations]
def lift(x):
    """A plain number becomes a Value with no parents: a constant."""
    return x if isinstance(x, Value) else Value(x)


def add(a, b):
    a, b = lift(a), lift(b)
    return Value(a.data + b.data, (a, b), "+", lambda: (1.0, 1.0))


def sub(a, b):
    a, b = lift(a), lift(b)
    return Value(a.data - b.data, (a, b), "-", lambda: (1.0, -1.0))


def mul(a, b):
    a, b = lift(a), lift(b)
    # d(a*b)/da is b, d(a*b)/db is a
    return Value(a.data * b.data, (a, b), "*", lambda: (b.data, a.data))


def power(a, k):  # k is a plain number, not a Value
    return Value(a.data**k, (a,), f"**{k:g}", lambda: (k * a.data ** (k - 1),))


def relu(a):
    slope = 1.0 if a.data > 0 else 0.0
    return Value(max(a.data, 0.0), (a,), "relu", lambda: (slope,))


def tanh(a):
    t = math.tanh(a.data)
    return Value(t, (a,), "tanh", lambda: (1.0 - t**2,))


# Let Python's operators build Values: w * x + b calls mul, then add.
Value.__add__ = add
Value.__radd__ = lambda self, other: add(other, self)
Value.__sub__ = sub
Value.__rsub__ = lambda self, other: sub(other, self)
Value.__mul__ = mul
Value.__rmul__ = lambda self, other: mul(other, self)
Value.__pow__ = power
Value.relu = relu
Value.tanh = tanh
# --8<-- [end:operations]


# --8<-- [start:backward]
def backward_order(output):
    """All values output depends on, each after every value made from it."""
    order, seen = [], set()

    def visit(v):  # depth first: a value's parents go in before the value
        if v not in seen:
            seen.add(v)
            for parent in v.parents:
                visit(parent)
            order.append(v)

    visit(output)
    return order[::-1]  # reversed: output first, inputs last


def backward(output):
    """Fill .grad of every value output depends on; return the order used."""
    order = backward_order(output)
    output.grad = 1.0  # d(output)/d(output)
    for v in order:
        v.pass_back()  # v has received every contribution: pass it on
    return order


# --8<-- [end:backward]

# --8<-- [start:twice]
a = Value(3.0)
square = a * a  # a is both parents of this node
backward(square)
print(f"a * a at a = {a.data:g}: a.grad = {a.grad:g}")
print(f"  one contribution per path: {a.data:g} + {a.data:g}")
# --8<-- [end:twice]

# --8<-- [start:claim-twice]
t = torch.tensor(3.0, requires_grad=True)
(t * t).backward()
assert a.grad == t.item() + t.item() == t.grad.item()  # one per path, summed
# --8<-- [end:claim-twice]

# --8<-- [start:side_by_side]
# The main page's one-weight line fit, in the engine and in PyTorch
w, b, x, y = Value(0.5), Value(0.0), Value(2.0), Value(3.0)
prediction = w * x + b
times = prediction.parents[0]
print("engine: ", prediction.op, "from", [v.op for v in prediction.parents])
print("        ", times.op, "from", times.parents)

tw = torch.tensor(0.5, requires_grad=True)
tb = torch.tensor(0.0, requires_grad=True)
tx, ty = torch.tensor(2.0), torch.tensor(3.0)
tprediction = tw * tx + tb


def inputs_of(node):
    """Class names of the nodes a PyTorch node passes gradients to."""
    names = [type(n).__name__ for n, _ in node.next_functions]
    return [None if n == "NoneType" else n for n in names]


plus = tprediction.grad_fn
multiply = plus.next_functions[0][0]
print("PyTorch:", type(plus).__name__, "from", inputs_of(plus))
print("        ", type(multiply).__name__, "from", inputs_of(multiply))
# --8<-- [end:side_by_side]

# --8<-- [start:claim-same-shape]
# both graphs: an addition made from a multiplication and b
assert prediction.op == "+" and type(plus).__name__ == "AddBackward0"
assert [v.op for v in prediction.parents] == ["*", ""]
assert inputs_of(plus) == [
    "MulBackward0",
    "AccumulateGrad",
]
assert prediction.parents[1] is b and plus.next_functions[1][0].variable is tb
# the multiplication: from w and x; PyTorch leaves out x, which needs no grad
assert times.parents == (w, x)
assert multiply.next_functions[0][0].variable is tw
assert multiply.next_functions[1][0] is None
# --8<-- [end:claim-same-shape]


# --8<-- [start:diamond]
def diamond():
    """h feeds two branches, a long one and a short one, that meet again."""
    x = Value(2.0)
    h = x + 1.0
    out = (h**2) * 2.0 + h  # long branch: square, then double; short: h
    return x, h, out


def breadth_first(output):
    """Output first, then its parents, then theirs: each value once."""
    order, queue = [], [output]
    while queue:
        v = queue.pop(0)
        if v not in order:
            order.append(v)
            queue.extend(v.parents)
    return order


x, h, out = diamond()
out.grad = 1.0
bfs_order = breadth_first(out)
for v in bfs_order:  # a wrong order: h passes on before its last input
    v.pass_back()
wrong = x.grad

x, h, out = diamond()  # a fresh graph, walked in backward order
right_order = backward(out)
right = x.grad
bfs_h = [v.op for v in bfs_order].index("+", 1) + 1
print(f"breadth-first order: x.grad = {wrong:g}")
print(f"backward order:      x.grad = {right:g}")
tdx = torch.tensor(2.0, requires_grad=True)  # the same diamond in PyTorch
tdh = tdx + 1.0
((tdh**2) * 2.0 + tdh).backward()
print(f"PyTorch:             x.grad = {tdx.grad.item():g}")
print("breadth-first:", " ".join(v.op or "leaf" for v in bfs_order))
print("backward:     ", " ".join(v.op or "leaf" for v in right_order))
# --8<-- [end:diamond]


# --8<-- [start:claim-diamond]
def close(engine_number, torch_tensor):
    """Equal within float32's precision: PyTorch computes in float32."""
    return math.isclose(engine_number, torch_tensor.item(), rel_tol=1e-6)


assert close(right, tdx.grad) and not close(wrong, tdx.grad)
assert right == 4 * h.data + 1  # by hand: d(out)/dh = 4h + 1, dh/dx = 1
# breadth-first passed h on before the square, which still had to add to it
bfs_ops = [v.op for v in bfs_order]
assert bfs_ops.index("+", 1) < bfs_ops.index("**2")
# --8<-- [end:claim-diamond]


# --8<-- [start:per_path]
def push(v, contribution, visits):
    """Pass a contribution on as soon as it arrives: once per path."""
    visits[0] += 1
    v.grad += contribution
    for parent, local in zip(v.parents, v.derivatives(), strict=True):
        push(parent, contribution * local, visits)


chain_links = [1, 2, 4, 8, 12]
per_path_visits, backward_visits, agree = [], [], []
print("diamonds  values  visits per path  visits in backward")
for links in chain_links:
    start = Value(1.0)
    top = start
    for _ in range(links):  # one diamond per link: two branches that meet
        top = top * 2.0 + top
    visits = [0]
    push(top, 1.0, visits)  # top.grad starts at 0: push adds the 1
    by_path = start.grad

    for v in backward_order(top):
        v.grad = 0.0  # forget the per-path result, then walk once
    calls = len(backward(top))  # backward calls pass_back once per value
    per_path_visits.append(visits[0])
    backward_visits.append(calls)
    agree.append(by_path == start.grad)
    print(f"{links:8d}  {calls:6d}  {visits[0]:15d}  {calls:18d}")
# --8<-- [end:per_path]

# --8<-- [start:claim-per-path]
assert all(agree)  # both walks give the same x.grad
# a value per link and per constant: 3 per diamond, plus x
assert backward_visits == [3 * n + 1 for n in chain_links]
# every extra diamond doubles the per-path visits (plus 3)
assert per_path_visits == [4 * 2**n - 3 for n in chain_links]
# --8<-- [end:claim-per-path]

# --8<-- [start:against_torch]
# 1. the main page's line fit (w, b, x, y above): its loss
loss = (prediction - y) ** 2
backward(loss)
tloss = (tprediction - ty) ** 2
tloss.backward()

# 2. the by-hand page's tiny network: one weight, one bias, a ReLU
nx, ny, nw, nb = Value(2.0), Value(2.0), Value(3.0), Value(-1.0)
net_loss = ((nw * nx + nb).relu() - ny) ** 2
net_order = backward(net_loss)  # kept: the figure below numbers it
tnw = torch.tensor(3.0, requires_grad=True)
tnb = torch.tensor(-1.0, requires_grad=True)
tnet_loss = (torch.relu(tnw * 2.0 + tnb) - 2.0) ** 2
tnet_loss.backward()

# 3. the diamond: x.grad from the backward order, and PyTorch's, above
# 4. tanh, the one operation not used yet
s = Value(0.5)
backward(s.tanh() * s)
ts = torch.tensor(0.5, requires_grad=True)
(torch.tanh(ts) * ts).backward()

pairs = [
    ("line fit, w.grad", w.grad, tw.grad),
    ("line fit, b.grad", b.grad, tb.grad),
    ("network, w.grad", nw.grad, tnw.grad),
    ("network, b.grad", nb.grad, tnb.grad),
    ("diamond, x.grad", right, tdx.grad),
    ("tanh(s) * s, s.grad", s.grad, ts.grad),
]
for name, ours, theirs in pairs:
    print(f"{name:19s} engine {ours:8.6g}   PyTorch {theirs.item():8.6g}")
# --8<-- [end:against_torch]

# --8<-- [start:claim-against-torch]
assert all(close(ours, theirs) for _, ours, theirs in pairs)
# --8<-- [end:claim-against-torch]

# --8<-- [start:fit]
# The main page's data: 100 points near the line y = 2x - 1
torch.manual_seed(0)
n, noise = 100, 0.1
data_x = torch.linspace(-1, 1, n)
data_y = 2.0 * data_x - 1.0 + noise * torch.randn(n)
start_w = torch.randn(1).item()
lr, steps = 0.1, 201

weight, bias = Value(start_w), Value(0.0)  # the engine's parameters
engine_losses = []
for _ in range(steps):
    loss = 0.0
    for xi, yi in zip(data_x.tolist(), data_y.tolist(), strict=True):
        loss = loss + (weight * xi + bias - yi) ** 2
    loss = loss * (1.0 / n)  # the mean squared error
    # a fresh graph each step, but the same weight and bias: reset them
    weight.grad = bias.grad = 0.0
    backward(loss)
    engine_losses.append(loss.data)
    weight.data -= lr * weight.grad  # plain gradient descent
    bias.data -= lr * bias.grad

# PyTorch, as on the main page
tweight = torch.tensor([start_w], requires_grad=True)
tbias = torch.zeros(1, requires_grad=True)
torch_losses = []
for _ in range(steps):
    tloss = ((tweight * data_x + tbias - data_y) ** 2).mean()
    torch_losses.append(tloss.item())
    tloss.backward()
    with torch.no_grad():
        tweight -= lr * tweight.grad
        tbias -= lr * tbias.grad
    tweight.grad.zero_()
    tbias.grad.zero_()

print(f"engine:  y = {weight.data:.4f} x + ({bias.data:.4f})")
print(f"PyTorch: y = {tweight.item():.4f} x + ({tbias.item():.4f})")
gaps = [
    abs(e - t) / t for e, t in zip(engine_losses, torch_losses, strict=True)
]
print(f"largest gap between the loss curves: {max(gaps):.1e} of the loss")
# --8<-- [end:fit]

# --8<-- [start:claim-fit]
assert max(gaps) < 1e-5  # the curves overlap, step by step
assert math.isclose(weight.data, tweight.item(), rel_tol=1e-5)
assert math.isclose(bias.data, tbias.item(), rel_tol=1e-4)
# --8<-- [end:claim-fit]


# --8<-- [start:cost]
def count_calls(output):
    """backward(output), counting the calls of each value's pass_back."""
    calls = {}
    for v in backward_order(output):

        def counted(v=v, pass_back=v.pass_back):
            calls[v] = calls.get(v, 0) + 1
            pass_back()

        v.pass_back = counted
    order = backward(output)
    return len(order), sum(calls.values()), max(calls.values())


print("weights  values  calls  most calls of one value")
cost_rows = []
for weights in [1, 10, 100]:
    inputs = [Value(i / weights) for i in range(weights)]
    ws = [Value(0.5) for _ in range(weights)]
    total = Value(0.0)
    for wi, xi in zip(ws, inputs, strict=True):
        total = total + wi * xi
    cost_rows.append((weights, *count_calls((total - 1.0) ** 2)))
    print("{:7d}  {:6d}  {:5d}  {:23d}".format(*cost_rows[-1]))
# --8<-- [end:cost]

# --8<-- [start:claim-cost]
# every value's pass_back ran exactly once, whatever the number of weights
for _, values, calls, most in cost_rows:
    assert calls == values and most == 1
# --8<-- [end:claim-cost]

# --8<-- [start:claim-depth]
import sys  # noqa: E402  (a claim section, left out of the page)

levels = sys.getrecursionlimit() + 100  # deeper than Python's limit
deep, tdeep = Value(1.0), torch.tensor(1.0, requires_grad=True)
end, tend = deep, tdeep
for _ in range(levels):
    end, tend = end + 1.0, tend + 1.0
try:
    backward(end)
    engine_walked = True
except RecursionError:
    engine_walked = False
tend.backward()  # PyTorch walks the same chain
assert not engine_walked and tdeep.grad.item() == 1.0
# --8<-- [end:claim-depth]

# --8<-- [start:claim-real-engine]
import inspect  # noqa: E402  (a claim section, left out of the page)


def torch_nodes(root):
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return found


# one node per operation on a whole tensor, whatever its size
for size in (1, 1000, 1000000):
    ones = torch.ones(size, requires_grad=True)
    graph = torch_nodes((ones * ones).sum().grad_fn)
    names = [type(node).__name__ for node in graph]
    assert names == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    # each node is a built-in class: compiled code, not Python source
    for node in graph:
        try:
            inspect.getsource(type(node))
            python_source = True
        except TypeError as e:
            python_source = "is a built-in class" not in str(e)
        assert not python_source
# --8<-- [end:claim-real-engine]


# --8<-- [start:exercise_divide]
def div(a, b):
    a, b = lift(a), lift(b)

    # d(a/b)/da is 1/b, d(a/b)/db is -a/b**2
    def derivatives():
        return (1 / b.data, -a.data / b.data**2)

    return Value(a.data / b.data, (a, b), "/", derivatives)


Value.__truediv__ = div
Value.__rtruediv__ = lambda self, other: div(other, self)

p, q = Value(3.0), Value(4.0)
backward(p / q + 1.0 / q)
tp = torch.tensor(3.0, requires_grad=True)
tq = torch.tensor(4.0, requires_grad=True)
(tp / tq + 1.0 / tq).backward()
# --8<-- [end:exercise_divide]

# --8<-- [start:claim-exercise-divide]
assert close(p.grad, tp.grad) and close(q.grad, tq.grad)
# --8<-- [end:claim-exercise-divide]

# --8<-- [start:exercise_three]
v = Value(2.0)
prediction_three = 3 * v.data**2  # each use: v * v, so 3 v**2
backward(v * v * v)  # v is used three times
tv = torch.tensor(2.0, requires_grad=True)
(tv * tv * tv).backward()
# --8<-- [end:exercise_three]

# --8<-- [start:claim-exercise-three]
assert v.grad == prediction_three and close(v.grad, tv.grad)
# --8<-- [end:claim-exercise-three]

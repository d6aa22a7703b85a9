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


def paths_to_each_value(output):
    """How many paths lead from output to each value it depends on."""
    paths = {output: 1}
    for value in backward_order(output):  # a value's paths are all known
        for parent in value.parents:
            paths[parent] = paths.get(parent, 0) + paths[value]
    return paths


# push visits each value once per path from the output to it
for chain_length, chain_visits in zip(
    chain_links, per_path_visits, strict=True
):
    chain_top = Value(1.0)
    for _ in range(chain_length):
        chain_top = chain_top * 2.0 + chain_top
    assert chain_visits == sum(paths_to_each_value(chain_top).values())
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
engine_losses, walked = [], []
for _ in range(steps):
    loss = 0.0
    for xi, yi in zip(data_x.tolist(), data_y.tolist(), strict=True):
        loss = loss + (weight * xi + bias - yi) ** 2
    loss = loss * (1.0 / n)  # the mean squared error
    # a fresh graph each step, but the same weight and bias: reset them
    weight.grad = bias.grad = 0.0
    walked.append(len(backward(loss)))  # the values of this step's graph
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

# --8<-- [start:claim-fit-graph]
# the last step's graph: per point a *, a +, a -, a **2 and the + of the sum;
# the leaves: each point's x and y, weight, bias, the 0.0 and the 1 / n
fit_ops = {}
for fit_value in backward_order(loss):
    fit_ops[fit_value.op] = fit_ops.get(fit_value.op, 0) + 1
assert fit_ops == {"*": n + 1, "+": 2 * n, "-": n, "**2": n, "": 2 * n + 4}
# every step walked a graph of that size: a new one, not a growing one
assert all(size == sum(fit_ops.values()) for size in walked)
assert len(walked) == steps
# --8<-- [end:claim-fit-graph]


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
cost_rows, neurons = [], []
for weights in [1, 10, 100]:
    inputs = [Value(i / weights) for i in range(weights)]
    ws = [Value(0.5) for _ in range(weights)]
    total = Value(0.0)
    for wi, xi in zip(ws, inputs, strict=True):
        total = total + wi * xi
    cost_rows.append((weights, *count_calls((total - 1.0) ** 2)))
    neurons.append((ws, inputs, total))  # kept for the check below
    print("{:7d}  {:6d}  {:5d}  {:23d}".format(*cost_rows[-1]))
# --8<-- [end:cost]

# --8<-- [start:claim-cost]
# every value's pass_back ran exactly once, whatever the number of weights,
# and that one pass filled every weight's gradient, 2 (total - 1) x_i
for (_, values, calls, most), (n_ws, n_xs, n_total) in zip(
    cost_rows, neurons, strict=True
):
    assert calls == values and most == 1
    assert all(
        math.isclose(wi.grad, 2 * (n_total.data - 1.0) * xi.data)
        for wi, xi in zip(n_ws, n_xs, strict=True)
    )
# --8<-- [end:claim-cost]


# --8<-- [start:claim-graphs]
def page_graphs():
    """This page's graphs, built anew so that checking them changes nothing
    above: a * a, the line fit's loss, the network's, the diamond, tanh(s) * s,
    a chain of diamonds, and one using every operation, with plain numbers on
    either side."""
    g_a, g_w, g_b = Value(3.0), Value(0.5), Value(0.0)
    g_nw, g_nb, g_s, g_u = Value(3.0), Value(-1.0), Value(0.5), Value(0.7)
    g_top = Value(1.0)
    for _ in range(4):
        g_top = g_top * 2.0 + g_top
    return [
        g_a * g_a,
        (g_w * 2.0 + g_b - 3.0) ** 2,
        ((g_nw * 2.0 + g_nb).relu() - 2.0) ** 2,
        diamond()[2],
        g_s.tanh() * g_s,
        g_top,
        (1.0 - g_u) * (2.0 + g_u.tanh()) ** 3 + 2.0 * g_u.relu() - g_u,
    ]


# --8<-- [end:claim-graphs]

# --8<-- [start:claim-value]
# each value holds its number, the values it came from, and one local
# derivative per parent
for g_out in page_graphs():
    for g_v in backward_order(g_out):
        assert isinstance(g_v.data, float)
        assert all(isinstance(parent, Value) for parent in g_v.parents)
        assert len(g_v.derivatives()) == len(g_v.parents)
# --8<-- [end:claim-value]

# --8<-- [start:claim-operations]
# each operation returns a Value with the new number, its inputs as parents,
# and as derivatives the slopes that finite differences measure
operations = [
    ("+", add, 2, lambda a, b: a + b),
    ("-", sub, 2, lambda a, b: a - b),
    ("*", mul, 2, lambda a, b: a * b),
    ("**3", lambda a: power(a, 3), 1, lambda a: a**3),
    ("relu", relu, 1, lambda a: max(a, 0.0)),
    ("tanh", tanh, 1, math.tanh),
]
nudge = 1e-6
for op_name, operation, arity, number in operations:
    for point in [(0.7, -1.3), (-0.4, 2.5)]:
        numbers = list(point[:arity])
        made = operation(*[Value(u) for u in numbers])
        assert isinstance(made, Value) and made.op == op_name
        assert made.data == number(*numbers)
        assert [parent.data for parent in made.parents] == numbers
        for i, local in enumerate(made.derivatives()):
            up, down = list(numbers), list(numbers)
            up[i], down[i] = up[i] + nudge, down[i] - nudge
            slope = (number(*up) - number(*down)) / (2 * nudge)
            assert math.isclose(local, slope, rel_tol=1e-6, abs_tol=1e-9)
# the operations call no derivatives; backward calls each value's once
calls_of, real_init = {}, Value.__init__


def counting_init(self, data, parents=(), op="", derivatives=None):
    def counted(derivatives=derivatives or (lambda: ())):
        calls_of[self] = calls_of.get(self, 0) + 1
        return derivatives()

    real_init(self, data, parents, op, counted)


Value.__init__ = counting_init
try:
    counted_graphs = page_graphs()
    assert not calls_of  # building the graphs called no derivatives
    for g_out in counted_graphs:
        assert all(calls_of[g_v] == 1 for g_v in backward(g_out))
finally:
    Value.__init__ = real_init
# --8<-- [end:claim-operations]

# --8<-- [start:claim-pass-back]
# pass_back adds to each parent's grad this value's grad times the local
# derivative, once per use of the parent: it adds, never overwrites
for g_out in page_graphs():
    for g_v in backward_order(g_out):
        for k, parent in enumerate(g_v.parents):
            parent.grad = 0.25 * (k + 1)  # a gradient already there
        expected = {parent: parent.grad for parent in g_v.parents}
        g_v.grad = 1.5
        g_v.pass_back()
        for parent, local in zip(g_v.parents, g_v.derivatives(), strict=True):
            expected[parent] += 1.5 * local
        assert all(
            math.isclose(parent.grad, expected[parent], abs_tol=1e-12)
            for parent in g_v.parents
        )
# --8<-- [end:claim-pass-back]

# --8<-- [start:claim-backward]
# backward starts at the output with 1 and calls pass_back once per value,
# each value after every value made from it, its gradient then complete
for g_out in page_graphs():
    reachable, todo = set(), [g_out]
    while todo:
        g_v = todo.pop()
        if g_v not in reachable:
            reachable.add(g_v)
            todo.extend(g_v.parents)
    grads_passed = {g_v: [] for g_v in reachable}
    for g_v in reachable:

        def passing(g_v=g_v, pass_back=g_v.pass_back, seen=grads_passed):
            seen[g_v].append(g_v.grad)
            pass_back()

        g_v.pass_back = passing
    g_order = backward(g_out)
    place = {g_v: i for i, g_v in enumerate(g_order)}
    assert g_order[0] is g_out and g_out.grad == 1.0
    assert len(g_order) == len(place) and set(g_order) == reachable
    # a value's parents come after it (in visit's list, before it)
    assert all(place[u] > place[g_v] for g_v in g_order for u in g_v.parents)
    assert all(grads_passed[g_v] == [g_v.grad] for g_v in g_order)
# --8<-- [end:claim-backward]

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

# --8<-- [start:claim-vjp]
from torch.autograd.functional import jacobian  # noqa: E402

# each PyTorch node, handed a vector for its output, passes back the vector
# times its Jacobian (summed over its inputs), not a product of two numbers
vjp_input = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
vjp_matrix = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
vjp_operations = [
    torch.sin,
    torch.exp,
    lambda t: t * t,
    torch.sum,
    lambda t: vjp_matrix @ t,
    lambda t: torch.softmax(t, 0),
]
for operation in vjp_operations:
    result = operation(vjp_input)
    vector = torch.linspace(-1.0, 2.0, result.numel()).reshape(result.shape)
    passed = result.grad_fn(vector)  # the node's backward, called directly
    passed = passed if isinstance(passed, tuple) else (passed,)
    to_input = sum(part for part in passed if part is not None)
    whole_j = jacobian(operation, vjp_input.detach())
    whole_j = whole_j.reshape(result.numel(), -1)
    assert torch.allclose(to_input, vector.reshape(-1) @ whole_j)
# --8<-- [end:claim-vjp]


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
# by hand: d/dp is 1/q; d/dq is -p/q**2 - 1/q**2, one term per use of q
assert math.isclose(p.grad, 1 / q.data)
assert math.isclose(q.grad, -p.data / q.data**2 - 1 / q.data**2)
# and PyTorch's, to within float32's precision
assert math.isclose(p.grad, tp.grad.item(), rel_tol=1e-6)
assert math.isclose(q.grad, tq.grad.item(), rel_tol=1e-6)
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

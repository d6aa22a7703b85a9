# A reverse-mode autograd engine for single numbers, written from scratch,
# then checked against PyTorch and used to fit a line.
# --8<-- [start:goal]
import math

import torch

# The goal: PyTorch's gradients for one data point of the main page's line fit
goal_w = torch.tensor(0.5, requires_grad=True)
goal_b = torch.tensor(0.0, requires_grad=True)
goal_loss = (goal_w * 2.0 + goal_b - 3.0) ** 2  # x = 2, y = 3
goal_loss.backward()
print(f"PyTorch: w.grad = {goal_w.grad.item():g}")
print(f"         b.grad = {goal_b.grad.item():g}")
# --8<-- [end:goal]


# --8<-- [start:value]
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
import warnings  # noqa: E402  (a claim section, left out of the page)

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
# a node, called with the gradient 1, returns its local derivatives, as the
# engine's derivatives() does; for x, which needs no gradient, it returns None
assert [d.item() for d in plus(torch.tensor(1.0))] == list(
    prediction.derivatives()
)
times_locals = multiply(torch.tensor(1.0))
assert times_locals[0].item() == times.derivatives()[0] and (
    times_locals[1] is None
)
# the cause of the None: with requires_grad=True, x gets a node like w's,
# and the multiplication passes it its local derivative, w
gx = torch.tensor(2.0, requires_grad=True)
g_times = (tw * gx + tb).grad_fn.next_functions[0][0]
assert type(g_times.next_functions[1][0]).__name__ == "AccumulateGrad"
assert g_times.next_functions[1][0].variable is gx
assert g_times(torch.tensor(1.0))[1].item() == tw.item()
# the engine gives x a gradient too: d(prediction)/dx = w
ew, eb, ex = Value(0.5), Value(0.0), Value(2.0)
backward(ew * ex + eb)
assert ex.grad == ew.data and ex.grad != 0.0
# other differences, in other graphs: a plain number becomes a Value in the
# engine and no node in PyTorch (a None); PyTorch keeps .grad only on leaves
e_plus_one = ex + 1.0
assert isinstance(e_plus_one.parents[1], Value)
assert e_plus_one.parents[1].data == 1.0
t_plus_one = gx + 1.0
assert t_plus_one.grad_fn.next_functions[1][0] is None
(t_plus_one * t_plus_one).backward()
assert gx.grad is not None and not t_plus_one.is_leaf
with warnings.catch_warnings(record=True) as non_leaf_warnings:
    warnings.simplefilter("always")
    assert t_plus_one.grad is None
assert "not a leaf Tensor" in str(non_leaf_warnings[0].message)
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
    for _repeat in range(chain_length):
        chain_top = chain_top * 2.0 + chain_top
    assert chain_visits == sum(paths_to_each_value(chain_top).values())
# backward() visits each value the forward pass made once: the Values that
# building a chain created are exactly the ones it walks, each once
import gc  # noqa: E402  (a claim section, left out of the page)

for chain_length in chain_links:
    gc.collect()
    existing_values = [o for o in gc.get_objects() if type(o) is Value]
    existing_ids = {id(o) for o in existing_values}  # kept alive: ids stay
    made_top = Value(1.0)
    for _repeat in range(chain_length):
        made_top = made_top * 2.0 + made_top
    made = [
        o
        for o in gc.get_objects()
        if type(o) is Value and id(o) not in existing_ids
    ]
    made_walk = backward(made_top)
    assert len(made_walk) == len(set(made_walk)) == len(made)
    assert set(made_walk) == set(made)
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
# the line fit's pair is the goal the page opened with, computed the same way
assert (prediction.parents[0].parents[1].data, y.data) == (2.0, 3.0)
assert (w.grad, b.grad) == (goal_w.grad.item(), goal_b.grad.item())
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


# --8<-- [start:claim-engine-no-reset]
# backward() sets only the output's grad; every other value's grad is added
# to, so a value keeps what an earlier walk left: a second backward() on the
# same graph passes the intermediate values' old gradients on again. A leaf
# whose only user is the output gets exactly twice; with values in between,
# on the fit's graph far more than twice, on other graphs less, even zero.
# PyTorch's second walk (retain_graph=True) adds exactly one more on every
# one of these graphs
def engine_two_walks(build, *starts):
    leaves = [Value(start) for start in starts]
    top = build(*leaves)
    backward(top)
    first_walk = [leaf.grad for leaf in leaves]
    backward(top)
    return first_walk, [leaf.grad for leaf in leaves]


def torch_two_walks(build, *starts):
    tleaves = [
        torch.tensor(start, dtype=torch.float64, requires_grad=True)
        for start in starts
    ]
    ttop = build(*tleaves)
    ttop.backward(retain_graph=True)
    first_walk = [tleaf.grad.item() for tleaf in tleaves]
    ttop.backward()
    return first_walk, [tleaf.grad.item() for tleaf in tleaves]


def fit_graph(fit_w, fit_b):
    """The fit's loss, as the fit section builds it, at one weight and bias."""
    fit_loss = 0.0
    for xi, yi in zip(data_x.tolist(), data_y.tolist(), strict=True):
        fit_loss = fit_loss + (fit_w * xi + fit_b - yi) ** 2
    return fit_loss * (1.0 / n)


# the graph, and how the engine's second walk leaves each leaf's gradient,
# as a ratio to its first walk's: above two, exactly two, below two, zero
more_than_twice = [
    (lambda leaf: ((leaf * 3.0 - 1.0) ** 2) * 2.0, (-2.0,)),
    (lambda leaf: ((leaf * 3.0 - 1.0) ** 2) * 2.0, (0.5,)),
    (lambda leaf: ((leaf * 3.0 - 1.0) ** 2) * 2.0, (3.0,)),
    (fit_graph, (start_w, 0.0)),  # the fit's graph, at the fit's start
]
exactly_twice = [  # the output is the leaf's only user, or by chance
    (lambda leaf: leaf * 3.0, (1.0,)),
    (lambda leaf: leaf * leaf, (-1.5,)),
    (lambda leaf, other: leaf * other, (2.0, 0.5)),
    # values in between, and yet twice: their old gradients cancel out here
    (lambda leaf: leaf * (-2.0) + (leaf * 1.0) * 1.0, (1.0,)),
]
less_than_twice = [
    (lambda leaf: leaf + leaf * (-0.5), (1.0,)),
    (lambda leaf: leaf + leaf * (-0.5), (-3.0,)),
]
to_zero = [(lambda leaf: leaf * 2.0 - (leaf * 2.0) * 0.75, (1.0,))]
for cases, ratio_holds in [
    (more_than_twice, lambda ratio: ratio > 2.0),
    (exactly_twice, lambda ratio: ratio == 2.0),
    (less_than_twice, lambda ratio: 0.0 < ratio < 2.0),
    (to_zero, lambda ratio: ratio == 0.0),
]:
    for build, starts in cases:
        engine_first, engine_second = engine_two_walks(build, *starts)
        torch_first, torch_second = torch_two_walks(build, *starts)
        for e1, e2, t1, t2 in zip(
            engine_first, engine_second, torch_first, torch_second, strict=True
        ):
            # the first walk is right; PyTorch's second adds one more
            assert abs(e1 - t1) <= 1e-9 * abs(t1)
            assert abs(t2 - 2 * t1) <= 1e-9 * abs(t1)
            assert ratio_holds(e2 / e1)
# on the fit's graph, far more than twice: over ten times, weight and bias
fit_first, fit_second = engine_two_walks(fit_graph, start_w, 0.0)
assert all(
    f2 / f1 > 10.0 for f1, f2 in zip(fit_first, fit_second, strict=True)
)
# a leaf's grad set before backward() is added to, not replaced
preset = Value(2.0)
backward(preset * 5.0)
preset_once = preset.grad
backward(preset * 5.0)
assert preset_once == 5.0 and preset.grad == 10.0
# --8<-- [end:claim-engine-no-reset]


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
for (_row_weights, row_values, row_calls, row_most), (
    n_ws,
    n_xs,
    n_total,
) in zip(cost_rows, neurons, strict=True):
    assert row_calls == row_values and row_most == 1
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
    for _repeat in range(4):
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
        # and nothing else but grad and op, the operation's name (a string)
        fields = {"data", "grad", "parents", "op", "derivatives"}
        assert set(vars(g_v)) == fields and isinstance(g_v.op, str)
# backward() does not read op: with every op blanked, the same gradients
for g_out, g_blank in zip(page_graphs(), page_graphs(), strict=True):
    for g_v in backward_order(g_blank):
        g_v.op = ""
    backward(g_out)
    backward(g_blank)
    g_grads = [g_v.grad for g_v in backward_order(g_out)]
    assert g_grads == [g_v.grad for g_v in backward_order(g_blank)]
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
for _repeat in range(levels):
    end, tend = end + 1.0, tend + 1.0
try:
    backward(end)
    engine_walked = True
except RecursionError:
    engine_walked = False
tend.backward()  # PyTorch walks the same chain
assert not engine_walked and tdeep.grad.item() == 1.0


# the fit's loss is such a chain: one + per point. With as many points as
# the recursion limit, the engine's backward() stops; with the page's n, the
# same loss is walked
def fit_loss(points):
    """The fit's mean squared error, built as the fit builds it."""
    chain_w, chain_b = Value(0.5), Value(0.0)
    total = 0.0
    for point in range(points):
        total = total + (chain_w * (point / points) + chain_b - 1.0) ** 2
    return total * (1.0 / points)


try:
    backward(fit_loss(sys.getrecursionlimit()))
    long_fit_walked = True
except RecursionError:
    long_fit_walked = False
assert not long_fit_walked
assert len(backward(fit_loss(n))) > n
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
# --8<-- [end:claim-real-engine]

# --8<-- [start:claim-compiled]
# the nodes of built-in operations are built-in classes, with no Python
# source; the walk is a method of a built-in class, and while it walks a
# graph of built-in operations no Python function is called. Python runs in
# the walk only where you put it: a custom Function's backward (its node's
# class is made in Python) and a hook
from torch.autograd.variable import Variable  # noqa: E402

walker = Variable._execution_engine


def builtin_class(cls):
    try:
        inspect.getsource(cls)
    except TypeError as error:
        return "is a built-in class" in str(error)
    except OSError:
        return False  # a Python class whose source is not in a file
    return False


assert inspect.isbuiltin(walker.run_backward)


def python_calls_in_walk(output):
    """The Python functions called while the walk runs backward(output)."""
    called = []

    def note(frame, event, arg):
        if event == "call":
            called.append(frame.f_code.co_name)

    sys.setprofile(note)
    walker.run_backward(
        (output,), (torch.ones_like(output),), False, False, (), True, True
    )
    sys.setprofile(None)
    return called


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t**3

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return 3 * t**2 * grad


walk_leaf = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
built_in_graphs = [
    lambda t: (t * t).sum(),
    lambda t: torch.sin(t).exp().mean(),
    lambda t: (t @ t) ** 2,
    lambda t: torch.softmax(t, 0)[0] / (t.relu() + 1.0).sum(),
]
for build in built_in_graphs:
    built = build(walk_leaf)
    assert all(builtin_class(type(n)) for n in torch_nodes(built.grad_fn))
    assert python_calls_in_walk(built) == []
cubed = Cube.apply(walk_leaf).sum()
cube_node = cubed.grad_fn.next_functions[0][0]
assert not builtin_class(type(cube_node))
assert type(cube_node).__name__ == "CubeBackward"
assert "backward" in python_calls_in_walk(cubed)
hooked = walk_leaf * 2.0
hooked.register_hook(lambda grad: grad * 1.0)
assert "<lambda>" in python_calls_in_walk(hooked.sum())
# --8<-- [end:claim-compiled]

# --8<-- [start:claim-torch-walk]
# PyTorch runs each node of the diamond once, after every contribution to it
# has arrived, with their sum: h's node gets 4h + 1, the long branch's 4h plus
# the short one's 1. It keeps no gradient on h, an intermediate result,
# unless retain_grad() asks; its C++ engine counts each node's dependencies
# and adds the incoming gradients in a buffer per node
import os  # noqa: E402  (a claim section, left out of the page)

walk_x = torch.tensor(2.0, requires_grad=True)
walk_h = walk_x + 1.0
walk_out = (walk_h**2) * 2.0 + walk_h
received = {}
walk_nodes = torch_nodes(walk_out.grad_fn)
for node in walk_nodes:

    def note_inputs(grads, node=node):
        received.setdefault(node, []).append([g.item() for g in grads])

    node.register_prehook(note_inputs)
walk_out.backward()
assert set(received) == set(walk_nodes)
assert all(len(calls) == 1 for calls in received.values())  # once each
h_node = walk_h.grad_fn
assert received[h_node] == [[4 * walk_h.item() + 1]] == [[right]]
with warnings.catch_warnings(record=True) as walk_warnings:
    warnings.simplefilter("always")
    assert walk_h.grad is None
assert "not a leaf Tensor" in str(walk_warnings[0].message)
kept_x = torch.tensor(2.0, requires_grad=True)
kept_h = kept_x + 1.0
kept_h.retain_grad()
((kept_h**2) * 2.0 + kept_h).backward()
assert kept_h.grad.item() == right
headers = os.path.join(os.path.dirname(torch.__file__), "include")
graph_task = os.path.join(headers, "torch/csrc/autograd/graph_task.h")
with open(graph_task) as header:
    graph_task_text = header.read()
assert "std::unordered_map<Node*, int> dependencies_;" in graph_task_text
assert "std::unordered_map<Node*, InputBuffer> not_ready_;" in graph_task_text
# --8<-- [end:claim-torch-walk]

# --8<-- [start:claim-saved-when]
# the engine's mul and power read their parents' .data when backward runs:
# a value changed between the passes gives a wrong gradient, without error.
# PyTorch's nodes keep what they saved in the forward pass, and an in-place
# change of a saved tensor raises an error at backward
# each case: the operation, and the input whose local derivative reads a
late_cases = [(lambda u, t: u * t, 1), (lambda u, t: (u**2) * t, 0)]
for late_operation, reader in late_cases:
    late_grads = []
    for a_at_backward in (2.0, 100.0):
        late_a, late_b = Value(2.0), Value(5.0)  # the forward pass at a = 2
        late_out = late_operation(late_a, late_b)
        late_a.data = a_at_backward  # changed, or not, after the forward
        backward(late_out)
        late_grads.append((late_a.grad, late_b.grad)[reader])
    # the changed graph gives the gradient of a fresh graph at a = 100,
    # not the gradient of its forward pass, at a = 2
    fresh_a, fresh_b = Value(100.0), Value(5.0)
    backward(late_operation(fresh_a, fresh_b))
    assert late_grads[1] == (fresh_a.grad, fresh_b.grad)[reader]
    assert late_grads[1] != late_grads[0]


def in_place_error(operation):
    leaf = torch.tensor(2.0, requires_grad=True)
    made = leaf * 1.0  # not a leaf: it may be changed in place
    result = operation(made, torch.tensor(5.0, requires_grad=True))
    made.mul_(50.0)
    try:
        result.backward()
    except RuntimeError as error:
        return str(error)
    return ""


for operation in (lambda u, t: u * t, lambda u, t: u**2 * t):
    assert "modified by an inplace operation" in in_place_error(operation)


# noticed: an in-place operation on the saved tensor itself, on a view of
# it, on its detach(), also under no_grad; not noticed: a write through
# .data or through a NumPy array sharing its memory, which gives a wrong
# gradient without an error (beyond-scalars.md teaches those two)
def change_then_backward(change):
    """out = made * x with made = 2, changed after the forward; x.grad."""
    leaf = torch.tensor(2.0, requires_grad=True)
    x = torch.tensor(1.0, requires_grad=True)
    made = leaf * 1.0
    out = made * x  # the product saves made, for x's local derivative
    change(made)
    try:
        out.backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
        return None
    return x.grad.item()


def under_no_grad(made):
    with torch.no_grad():
        made.mul_(50.0)


def numpy_write(made):
    array = made.detach().numpy()
    array *= 50.0


noticed = [
    lambda made: made.mul_(50.0),
    lambda made: made.add_(1.0),
    lambda made: made.zero_(),
    lambda made: made.copy_(torch.tensor(7.0)),
    lambda made: made.view(1).mul_(50.0),
    lambda made: made.detach().mul_(50.0),
    under_no_grad,
]
for change in noticed:
    assert change_then_backward(change) is None
for change in (lambda made: made.data.mul_(50.0), numpy_write):
    assert change_then_backward(change) == 100.0  # the right x.grad is 2
assert change_then_backward(lambda made: None) == 2.0
# backward() frees what the nodes saved, by default; retain_graph=True keeps
# it for another backward. The tensor x itself stays, held by the code
kept_w = torch.tensor(0.5, requires_grad=True)
kept_input = torch.tensor(2.0)
kept_loss = (kept_w * kept_input - 3.0) ** 2
kept_times = kept_loss.grad_fn.next_functions[0][0].next_functions[0][0]
kept_loss.backward(retain_graph=True)
assert torch.equal(kept_times._saved_other, kept_input)  # still there
kept_loss.backward()  # a second backward works, then frees
try:
    _read = kept_times._saved_other
    freed_message = ""
except RuntimeError as error:
    freed_message = str(error)
assert "freed" in freed_message
assert kept_input.item() == 2.0  # x itself is still there
assert kept_w.grad.item() == 2 * (2 * (0.5 * 2.0 - 3.0) * 2.0)  # two walks
# --8<-- [end:claim-saved-when]

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

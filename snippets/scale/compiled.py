# AOTAutograd: the forward and backward graphs, traced ahead of time.
# --8<-- [start:trace]
import torch
from functorch.compile import aot_function, make_boxed_func

graphs = {}


def printing_compiler(name):
    """A 'compiler' that prints the graph it gets and runs it as it is."""

    def compile_graph(graph_module, example_inputs):
        graphs[name] = graph_module
        print(f"--- {name} graph ---")
        print(graph_module.code.strip())
        return make_boxed_func(graph_module.forward)

    return compile_graph


def f(x, w):
    return torch.tanh(x * w).sum()


compiled_f = aot_function(
    f,
    fw_compiler=printing_compiler("forward"),
    bw_compiler=printing_compiler("backward"),
)
torch.manual_seed(0)  # the same x and w on every run
x = torch.randn(3)
w = torch.randn(3, requires_grad=True)
loss = compiled_f(x, w)  # traces both graphs, prints the forward one, runs it
loss.backward()  # prints the backward graph (compiled on first use), runs it
print("w.grad:", w.grad)
# --8<-- [end:trace]

# --8<-- [start:eager]
saved = []
w_eager = w.detach().clone().requires_grad_()
with torch.autograd.graph.saved_tensors_hooks(
    lambda t: saved.append(t) or t, lambda t: t
):
    eager_loss = f(x, w_eager)
eager_loss.backward()
print("eager autograd saved:")
for tensor in saved:
    print("  ", tensor)
print("eager w.grad:", w_eager.grad)
# --8<-- [end:eager]


# --8<-- [start:partitioners]
def g(x, w):
    return torch.sin(torch.sin(x * w)).sum()


def saved_by(function):
    """How many tensors are saved for backward while function runs."""
    saved_here = []
    w_here = w.detach().clone().requires_grad_()  # leaves w.grad as it is
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t: saved_here.append(t) or t, lambda t: t
    ):
        loss_here = function(x, w_here)
    loss_here.backward()
    return len(saved_here)


def quiet(graph_module, example_inputs):  # runs the graph, prints nothing
    return make_boxed_func(graph_module.forward)


print("tensors saved for sin(sin(x * w)).sum():")
print("  eager autograd:         ", saved_by(g))
print("  aot_function:           ", saved_by(aot_function(g, quiet, quiet)))
compiled_g = torch.compile(g, backend="aot_eager")
print("  torch.compile aot_eager:", saved_by(compiled_g))
# --8<-- [end:partitioners]


# --8<-- [start:claim-graphs]
def graph_ops(graph_module):
    return [
        node.target.__name__.split(".")[0]
        for node in graph_module.graph.nodes
        if node.op == "call_function"
    ]


# forward: mul, tanh, sum; it returns the loss, x and tanh's output
assert [o for o in graph_ops(graphs["forward"]) if o != "detach"] == [
    "mul",
    "tanh",
    "sum",
]
graph_outputs = [n for n in graphs["forward"].graph.nodes if n.op == "output"][
    0
].args[0]
assert len(graph_outputs) == 3
assert graph_outputs[1].name == "primals_1"  # x, the first input
assert graph_outputs[2].args[0].target is torch.ops.aten.tanh.default
# the backward graph's inputs: the two kept tensors, and the incoming gradient
graph_inputs = [
    n.name for n in graphs["backward"].graph.nodes if n.op == "placeholder"
]
assert graph_inputs == [
    graph_outputs[1].name,
    graph_outputs[2].name,
    "tangents_1",
]
# backward: tanh_backward, then mul (beside expand and detach)
graph_bw = [
    o for o in graph_ops(graphs["backward"]) if o in ("tanh_backward", "mul")
]
assert graph_bw == ["tanh_backward", "mul"]
# the tensors the forward graph keeps are those eager autograd saves: x and
# tanh(x * w)
assert len(saved) == 2
assert torch.equal(saved[0], x)
assert torch.equal(saved[1], torch.tanh(x * w_eager.detach()))
assert torch.allclose(w.grad, w_eager.grad)
# --8<-- [end:claim-graphs]

# --8<-- [start:claim-no-compiler]
# the graphs ran as Python code (a GraphModule's forward), in this process
import multiprocessing  # noqa: E402  (a claim section, left out of the page)

for nc_name in ["forward", "backward"]:
    assert isinstance(graphs[nc_name], torch.fx.GraphModule)
    assert graphs[nc_name].code.lstrip().startswith("def forward(")
assert multiprocessing.active_children() == []
# --8<-- [end:claim-no-compiler]


# --8<-- [start:claim-partitioners]
# aot_function's partitioner is default_partition, which keeps here what
# eager autograd saves; torch.compile's aot_eager backend keeps fewer for
# sin(sin(x * w)) (x and w alone) and computes sin again in the backward
# graph; it never keeps more than eager autograd here, and every gradient
# is eager autograd's
import inspect  # noqa: E402  (a claim section, left out of the page)

from functorch.compile import (  # noqa: E402
    default_partition,
    min_cut_rematerialization_partition,
)

aot_parameters = inspect.signature(aot_function).parameters
assert aot_parameters["partition_fn"].default is default_partition
assert saved_by(g) == saved_by(aot_function(g, quiet, quiet)) == 3
assert saved_by(compiled_g) == 2
part_seen = []
part_w = w.detach().clone().requires_grad_()
with torch.autograd.graph.saved_tensors_hooks(
    lambda t: part_seen.append(t) or t, lambda t: t
):
    part_loss = compiled_g(x, part_w)
assert len(part_seen) == 2
assert torch.equal(part_seen[0], x) and torch.equal(part_seen[1], part_w)
part_graphs = {}


def part_keep(part_name):
    def part_compile(graph_module, example_inputs):
        part_graphs[part_name] = graph_module
        return make_boxed_func(graph_module.forward)

    return part_compile


aot_function(
    g,
    part_keep("forward"),
    part_keep("backward"),
    partition_fn=min_cut_rematerialization_partition,
)(x, w.detach().clone().requires_grad_()).backward()
assert "sin" in graph_ops(part_graphs["backward"])
part_functions = [
    g,
    f,
    lambda a, b: ((a * b).sigmoid() * (a * b)).sum(),
    lambda a, b: torch.relu(a * b).pow(2).sum(),
]
for part_f in part_functions:
    part_eager = saved_by(part_f)
    assert saved_by(torch.compile(part_f, backend="aot_eager")) <= part_eager
    part_a = w.detach().clone().requires_grad_()
    part_b = w.detach().clone().requires_grad_()
    part_f(x, part_a).backward()
    torch.compile(part_f, backend="aot_eager")(x, part_b).backward()
    assert torch.allclose(part_a.grad, part_b.grad, rtol=1e-6, atol=1e-7)
# --8<-- [end:claim-partitioners]


# --8<-- [start:claim-trace]
# aot_function calls the Python function with stand-ins: fake tensors with
# the inputs' shapes and dtypes and no data of their own; later calls of the
# compiled function run the graphs, not the Python function
from torch._subclasses.fake_tensor import is_fake  # noqa: E402

trace_seen = []


def trace_f(trace_a, trace_b):
    trace_seen.append((is_fake(trace_a), tuple(trace_a.shape), trace_a.dtype))
    return torch.tanh(trace_a * trace_b).sum()


trace_c = aot_function(trace_f, quiet, quiet)
trace_w = w.detach().clone().requires_grad_()
trace_c(x, trace_w).backward()
trace_calls = len(trace_seen)
assert trace_calls >= 1
for trace_fake, trace_shape, trace_dtype in trace_seen:
    assert trace_fake and trace_shape == (3,) and trace_dtype == torch.float32
for trace_scale in [2.0, -1.0]:
    trace_c(x * trace_scale, trace_w).backward()
assert len(trace_seen) == trace_calls
# --8<-- [end:claim-trace]


# --8<-- [start:claim-compile-order]
# aot_function compiles the forward graph when the compiled function is
# first called, and the backward graph only when backward() first runs
for order_f in [f, g]:
    order_seen = []

    def order_compiler(order_name, order_seen=order_seen):
        def order_compile(graph_module, example_inputs):
            order_seen.append(order_name)
            return make_boxed_func(graph_module.forward)

        return order_compile

    order_c = aot_function(
        order_f, order_compiler("forward"), order_compiler("backward")
    )
    order_loss = order_c(x, w.detach().clone().requires_grad_())
    assert order_seen == ["forward"]
    order_loss.backward()
    assert order_seen == ["forward", "backward"]
# --8<-- [end:claim-compile-order]

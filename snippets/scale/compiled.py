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
loss = compiled_f(x, w)  # traces both graphs, prints them, runs forward
loss.backward()  # runs the backward graph
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

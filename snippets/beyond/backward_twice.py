# Backward twice through one graph: freed saved values, and retain_graph.
# --8<-- [start:twice]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3  # the power node saves x for its backward
y.backward()
print("first backward:  x.grad =", x.grad.item())

try:
    y.backward()  # the saved x was freed by the first call
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:twice]


# --8<-- [start:saved_nothing]
def walk_twice(make):
    """Build a graph from a fresh leaf, then call backward() on it twice."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = make(w)
    out.backward()
    try:
        out.backward()  # no retain_graph
    except RuntimeError:
        return "raised", None
    return "ran", w.grad.tolist()


graphs = {  # what each graph's nodes saved for their backward
    "w.sum()": lambda w: w.sum(),  # Sum: nothing
    "(w + 1).sum()": lambda w: (w + 1).sum(),  # Add, Sum: nothing
    "(w * w).sum()": lambda w: (w * w).sum(),  # Mul: both factors
    "(w ** 2).sum()": lambda w: (w**2).sum(),  # Pow: w
}
outcomes = {}
for code, make in graphs.items():
    outcomes[code] = walk_twice(make)
    result, grad = outcomes[code]
    after = f", w.grad = {grad}" if grad else ""
    print(f"{code:<15} second backward {result}{after}")
# --8<-- [end:saved_nothing]

# --8<-- [start:claim-saved-nothing]
# graphs whose nodes saved no tensor can be walked again; each walk adds
for code in ("w.sum()", "(w + 1).sum()"):
    assert outcomes[code] == ("ran", [2.0, 2.0, 2.0])
# graphs with a node that saved a tensor raise
for code in ("(w * w).sum()", "(w ** 2).sum()"):
    assert outcomes[code] == ("raised", None)
# --8<-- [end:claim-saved-nothing]

# --8<-- [start:retain]
x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.backward(retain_graph=True)  # keep the saved values for another pass
first = x.grad.item()
print("first backward:  x.grad =", first)
y.backward()  # works, and adds into .grad again
print("second backward: x.grad =", x.grad.item())
# --8<-- [end:retain]

# --8<-- [start:claim-retain-adds]
assert x.grad.item() == 2 * first  # the second pass added the same again
# --8<-- [end:claim-retain-adds]

# When a value reaches the result along two paths, their contributions add.
# --8<-- [start:two_paths]
import torch

x = torch.tensor(3.0, requires_grad=True)
z = x * x  # x reaches z twice: as the left and as the right factor
z.backward()

# By hand: each path contributes its local derivative, the other factor
left = x.item()  # d(x * c)/dx with the right factor held fixed
right = x.item()  # d(c * x)/dx with the left factor held fixed
print(f"by hand:  {left:g} + {right:g} = {left + right:g}")
print(f"autograd: x.grad = {x.grad.item():g}")
# --8<-- [end:two_paths]

# --8<-- [start:claim-paths-add]
# the sum over both paths, not the product along one
assert x.grad.item() == left + right
assert x.grad.item() != left * right
# --8<-- [end:claim-paths-add]

# --8<-- [start:claim-path-contributions]
# each path's contribution, as the node returns it, for several x: one per
# factor, each the other factor, and .grad is their sum
for at in (3.0, -2.0, 0.5):
    x_fresh = torch.tensor(at, requires_grad=True)
    z_fresh = x_fresh * x_fresh
    contributions = []
    z_fresh.grad_fn.register_hook(
        lambda grad_in, grad_out, seen=contributions: seen.extend(grad_in)
    )
    z_fresh.backward()
    assert [c.item() for c in contributions] == [at, at]
    assert (
        x_fresh.grad.item()
        == contributions[0].item() + contributions[1].item()
    )
# --8<-- [end:claim-path-contributions]

# --8<-- [start:claim-add-where-paths-meet]
# squaring k times: 2**k paths from the result back to the start, yet in
# backward each node runs once (autograd adds where the paths meet)
for k in (5, 10, 20):
    start = torch.tensor(1.0, requires_grad=True)
    result = start
    for _ in range(k):
        result = result * result  # two paths through each multiplication
    node_runs = []
    node, todo = None, [result.grad_fn]
    seen_nodes = set()
    while todo:
        node = todo.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        node.register_hook(lambda *_, n=node, runs=node_runs: runs.append(n))
        todo.extend(n for n, _ in node.next_functions)
    result.backward()
    assert len(node_runs) == len(seen_nodes) == k + 1  # k products, 1 leaf
    assert len(set(node_runs)) == len(node_runs) < 2**k
    # and the gradient is the path sum: 2**k paths, each product along one
    # is 1 (every other factor is 1), so the sum is 2**k
    assert start.grad.item() == 2**k
# --8<-- [end:claim-add-where-paths-meet]

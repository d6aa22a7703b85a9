# A vector-Jacobian product worked out by hand, then by backward(gradient=v).
# --8<-- [start:by_hand]
import torch

a0, a1 = 2.0, 3.0  # the inputs
v = [1.0, 10.0]  # one weight per output: the gradient=v of backward()

# outputs [a0 * a1, a0 + a1]; row i of J holds output i's two derivatives
jacobian = [[a1, a0], [1.0, 1.0]]
by_hand = [  # J transposed times v: column j of J, dotted with v
    jacobian[0][j] * v[0] + jacobian[1][j] * v[1] for j in range(2)
]
print("J =", jacobian, "  J^T v by hand:", by_hand)

a = torch.tensor([a0, a1], requires_grad=True)
outputs = torch.stack([a[0] * a[1], a[0] + a[1]])
outputs.backward(gradient=torch.tensor(v))
print("autograd, backward(gradient=v): a.grad =", a.grad)
# --8<-- [end:by_hand]

# --8<-- [start:claim-vjp-by-hand]
# the hand product J^T v equals a.grad, here and at other points and weights
assert a.grad.tolist() == by_hand
for point, weights in (
    ((2.0, 3.0), (1.0, 10.0)),
    ((-1.5, 4.0), (0.5, -2.0)),
    ((0.0, 7.0), (3.0, 0.0)),
):
    leaf = torch.tensor(point, requires_grad=True)
    torch.stack([leaf[0] * leaf[1], leaf[0] + leaf[1]]).backward(
        gradient=torch.tensor(weights)
    )
    hand = [
        point[1] * weights[0] + weights[1],
        point[0] * weights[0] + weights[1],
    ]
    assert leaf.grad.tolist() == hand, (point, weights)
# --8<-- [end:claim-vjp-by-hand]

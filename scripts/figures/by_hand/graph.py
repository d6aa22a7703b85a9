"""The graph of z = 2x**2 + 1 at x = 3: values forward, gradients backward."""

import _diagram as diagram


def values(ns):
    y = 0.72
    nodes = {
        "x": diagram.node("x", ns["x"], (0.8, y)),
        "s": diagram.node("s = x²", ns["s"], (2.68, y)),
        "u": diagram.node("u = 2s", ns["u"], (4.56, y)),
        "z": diagram.node("z = u + 1", ns["z"], (6.44, y)),
    }
    edges = [("x", "s"), ("s", "u"), ("u", "z")]
    return diagram.draw(nodes, edges, size=(7.25, 1.66))


FIGURES = {"values": values}

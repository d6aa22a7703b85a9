"""The tiny network at x = 2: the ReLU is open."""

from _diagram import network


def values(ns):
    return network(ns)


FIGURES = {"values": values}

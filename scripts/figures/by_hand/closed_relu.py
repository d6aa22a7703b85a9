"""The tiny network at x = -1: the ReLU is closed."""

from _diagram import network


def values(ns):
    return network(ns)


FIGURES = {"values": values}

"""The closed case again, with LeakyReLU."""

from _diagram import network


def values(ns):
    return network(ns, activation="LeakyReLU")


FIGURES = {"values": values}

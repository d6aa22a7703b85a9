"""The version counter of b in snippets/beyond/inplace.py as a timeline: the sigmoid node
saves b and notes its version, mul_(2) counts it up, backward compares and raises."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


def version(ns):
    saved, edited = ns["versions"]  # b._version as the run read it, before and after mul_
    events = [
        ("b = a.sigmoid()", f"the sigmoid node saves b\nand notes version {saved}", "C0"),
        ("b.mul_(2)", f"in place: b's counter\ngoes to {edited}", "C1"),
        (
            "b.sum().backward()",
            f"compares: saved {saved}, now {edited}\n"
            + ("they differ: it raises" if saved != edited else ""),
            "C3",
        ),
    ]
    fig, ax = plt.subplots(figsize=(7.2, 2.0), layout="constrained")
    ax.annotate("", xy=(2.45, 0), xytext=(-0.45, 0),
                arrowprops={"arrowstyle": "->", "color": ink("muted"), "lw": 1.2})  # fmt: skip
    for x, (code, what, colour) in enumerate(events):
        ax.plot([x], [0], "o", color=colour, ms=9)
        ax.text(x, 0.18, code, ha="center", va="bottom", fontsize=10.5, color=ink(),
                family="monospace")  # fmt: skip
        ax.text(x, -0.18, what, ha="center", va="top", fontsize=10, color=ink())
    ax.text(2.45, 0.05, "time", ha="right", va="bottom", fontsize=9, color=ink("muted"))
    ax.set_xlim(-0.6, 2.6)
    ax.set_ylim(-0.75, 0.5)
    ax.axis("off")
    return fig


FIGURES = {"version": version}

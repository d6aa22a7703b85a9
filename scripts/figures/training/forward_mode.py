"""The passes snippets/training/forward_mode.py counted to build each Jacobian, by mode."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, number


def passes(ns):
    rows = ns["pass_rows"]
    fig, ax = plt.subplots(figsize=(7.2, 2.9), layout="constrained")
    width = 0.36
    for offset, index, label, color in [
        (-width / 2, 1, "forward mode (one pass per input)", "C0"),
        (width / 2, 2, "reverse mode (one pass per output)", "C1"),
    ]:
        xs = [i + offset for i in range(len(rows))]
        heights = [row[index] for row in rows]
        ax.bar(xs, heights, width=width, color=color, label=label)
        for x, height in zip(xs, heights, strict=True):
            ax.text(x, height, number(height), ha="center", va="bottom", color=ink(), fontsize=11)
    ax.set_xticks(range(len(rows)), [row[0] for row in rows])
    ax.set_yscale("log")
    ax.set_ylim(0.5, max(row[1] for row in rows) * 4)
    ax.set_ylabel("passes for the Jacobian")
    ax.grid(axis="y", color=ink("grid"), lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", fontsize=10)
    return fig


FIGURES = {"passes": passes}

"""What snippets/training/checkpoint.py measured: bytes held for backward, and layer forwards."""

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from docpipe.run.figures import ink, number


def cost(ns):
    runs = [("no checkpoint", ns["plain"]), ("checkpoint", ns["checkpointed"])]
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.6, 2.8), layout="constrained")
    for ax, index, title in [
        (left, 1, "KiB held for backward"),
        (right, 2, "layer forward calls"),
    ]:
        heights = [run[index] / 1024 if index == 1 else run[index] for _, run in runs]
        bars = ax.bar([name for name, _ in runs], heights, color=["C0", "C1"], width=0.6)
        for bar, height in zip(bars, heights, strict=True):
            ax.text(
                bar.get_x() + bar.get_width() / 2,
                height,
                number(round(height)),
                ha="center",
                va="bottom",
                color=ink(),
                fontsize=11,
            )
        ax.set_title(title, color=ink(), fontsize=11.5)
        ax.set_ylim(0, max(heights) * 1.2)
        ax.grid(axis="y", color=ink("grid"), lw=0.6)
        ax.set_axisbelow(True)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


FIGURES = {"cost": cost}

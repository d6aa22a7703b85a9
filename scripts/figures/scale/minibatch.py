"""What snippets/scale/minibatch.py measured: the batch gradient's distance from the full one."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, number


def spread(ns):
    sizes, spread = ns["sizes"], ns["spread"]
    fig, ax = plt.subplots(figsize=(6, 2.8), layout="constrained")
    # as printed: the last bits of a sum change with the number of threads
    heights = [round(spread[size], 3) for size in sizes]
    ax.plot(sizes, heights, "o-", color="C0", label="measured")
    # the law of a mean of independent samples, through the first point
    law = [heights[0] / (size / sizes[0]) ** 0.5 for size in sizes]
    ax.plot(sizes, law, "--", color=ink("muted"), lw=1, label="1 / √batch size")
    ax.legend(fontsize=9, frameon=False)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(sizes, [number(size) for size in sizes])
    ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 2.4)
    ax.set_ylim(min(heights + law) / 1.6, max(heights) * 1.8)
    ax.set_yticks(heights, [number(round(h, 1)) for h in heights])
    ax.minorticks_off()
    ax.set_xlabel("batch size")
    ax.set_ylabel("distance from the\nfull gradient (RMS)")
    ax.grid(color=ink("grid"), lw=0.6)
    ax.set_axisbelow(True)
    return fig


FIGURES = {"spread": spread}

"""What snippets/scale/precision.py recorded: GradScaler's scale at each step, skips marked."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, number


def scale(ns):
    scales, skipped = ns["scales"], ns["skipped"]
    steps = range(len(scales))
    fig, ax = plt.subplots(figsize=(6.4, 2.8), layout="constrained")
    ax.step(steps, scales, where="post", color="C0", label="scale")
    bad = [step for step in steps if skipped[step]]
    ax.plot(
        bad,
        [scales[step] for step in bad],
        "X",
        color="C3",
        markersize=10,
        label="step skipped",
    )
    ax.set_yscale("log", base=2)
    levels = sorted(set(scales))
    ax.set_yticks(levels, [number(level) for level in levels])
    ax.minorticks_off()
    ax.set_xticks(list(steps))
    ax.set_xlabel("step")
    ax.set_ylabel("scale")
    ax.grid(color=ink("grid"), lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="upper right")
    return fig


FIGURES = {"scale": scale}

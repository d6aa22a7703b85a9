"""What snippets/scale/ddp.py recorded: each rank's local gradient, then the all-reduced one."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


def gradients(ns):
    # Each entry as the output prints it, to 4 decimals: its last float digits depend on the
    # machine's instructions, and would move the bars by less than a pixel from one to another.
    # Under no_sync each rank holds the gradient of its own micro-batch; the next backward,
    # outside it, all-reduces, and both ranks hold the same gradient: what DDP did.
    reports = ns["reports"]
    names = ["weight 1", "weight 2", "weight 3", "bias"]
    series = [
        (f"rank {rank}, under no_sync", _printed(local), f"C{rank + 1}")
        for rank, _, (local, _), _ in reports
    ] + [("both, after the all-reduce", _printed(reports[0][3][0]), "C0")]
    fig, ax = plt.subplots(figsize=(6.4, 2.8), layout="constrained")
    width = 0.8 / len(series)
    for i, (label, values, color) in enumerate(series):
        ax.bar(
            [j + (i - 1) * width for j in range(len(names))],
            values,
            width=width,
            color=color,
            label=label,
        )
    ax.axhline(0, color=ink("muted"), lw=0.8)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("gradient entry")
    ax.grid(axis="y", color=ink("grid"), lw=0.6)
    ax.set_axisbelow(True)
    fig.legend(loc="outside lower center", ncol=len(series), fontsize=9, frameon=False)
    return fig


def _printed(values) -> list[float]:
    return [round(float(v), 4) for v in values]


FIGURES = {"gradients": gradients}

"""Step 4: loss and w per step, for the runs with and without resetting."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


def runs(ns):
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.6, 3.4), layout="constrained")
    series = [
        (ns["with_reset"], "C0", "-", "resetting .grad every step"),
        (ns["without_reset"], "C1", "--", "never resetting"),
    ]
    for history, color, style, label in series:
        steps = range(len(history))
        losses = [loss for loss, _ in history]
        ws = [w for _, w in history]
        left.plot(steps, losses, color=color, ls=style, lw=2, label=label)
        right.plot(steps, ws, color=color, ls=style, lw=2, label=label)
    left.set_yscale("log")
    left.set_xlabel("step")
    left.set_ylabel("loss (log scale)")
    true_w = ns["true_w"]
    right.axhline(
        true_w, color=ink("muted"), lw=1, ls=":", zorder=0, label=f"w = {true_w:g} (true slope)"
    )
    right.set_xlabel("step")
    right.set_ylabel("weight w")
    for ax in (left, right):
        ax.grid(True, which="major", lw=0.6)
    fig.legend(*right.get_legend_handles_labels(), loc="outside upper center", ncols=3)
    return fig


FIGURES = {"runs": runs}

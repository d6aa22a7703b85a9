"""The weight after each step of snippets/authoring/descend.py, closing in on the target."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


def steps(ns):
    history, target = ns["history"], ns["target"]  # what the run computed, drawn as it is
    fig, ax = plt.subplots(figsize=(6, 2.6), layout="constrained")
    ax.axhline(target, color=ink("muted"), lw=1, ls="--", label=f"target {target:g}")
    ax.plot(range(len(history)), history, "o-", color="C0", label="w")
    ax.set_xlabel("step")
    ax.set_ylabel("w")
    ax.legend(loc="lower right")
    return fig


FIGURES = {"steps": steps}

"""Step 6: the data, the model line at the snippet's snapshot steps, and the loss curve."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


# --8<-- [start:draw]
def fit(ns):
    x, y, history = ns["x"].numpy(), ns["y"].numpy(), ns["history"]
    fig, ax = plt.subplots(figsize=(7.6, 3.6), layout="constrained")
    ax.plot(x, y, "o", ms=3.2, color=ink("muted"), alpha=0.8, label="data")
    # --8<-- [end:draw]
    ends = [x[0], x[-1]]
    shown = ns["snapshots"]  # the steps the snippet printed a line for
    for step, color in zip(shown, ("C1", "C4", "C0"), strict=True):
        w, b, loss = history[step]
        ax.plot(
            ends,
            [w * ends[0] + b, w * ends[1] + b],
            color=color,
            lw=2.2 if step == shown[-1] else 1.6,
            label=f"step {step}: y = {w:.2f} x {'+' if b >= 0 else '−'} {abs(b):.2f}",
        )
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="upper left", fontsize=10)

    inset = ax.inset_axes([0.64, 0.17, 0.34, 0.32])
    losses = [loss for _, _, loss in history]
    floor = ns["noise"] ** 2  # the variance of the noise in the data
    inset.plot(range(len(losses)), losses, color="C0", lw=1.6)
    inset.axhline(floor, color="C3", lw=1, ls="--")
    inset.text(
        len(losses) - 1,
        floor * 0.85,
        f"noise variance {floor:g}",
        color="C3",
        fontsize=9,
        ha="right",
        va="top",
    )
    inset.set_yscale("log")
    inset.set_ylim(floor * 0.4, max(losses) * 1.5)
    inset.set_ylabel("loss", fontsize=9)
    inset.tick_params(labelsize=9)
    inset.set_xlabel("step", fontsize=9)
    return fig


# --8<-- [start:register]
FIGURES = {"fit": fit}
# --8<-- [end:register]

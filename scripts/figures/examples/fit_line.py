"""Step 6: the data, the model line at steps 0, 10 and 80, and the loss curve."""

import matplotlib.pyplot as plt

from docpipe.figures import ink

SHOWN = (0, 10, 80)  # the steps whose line is drawn; the page quotes step 80


# --8<-- [start:draw]
def fit(ns):
    x, y, history = ns["x"].numpy(), ns["y"].numpy(), ns["history"]
    fig, ax = plt.subplots(figsize=(7.6, 3.6), layout="constrained")
    ax.plot(x, y, "o", ms=3.2, color=ink("muted"), alpha=0.8, label="data")
    # --8<-- [end:draw]
    ends = [x[0], x[-1]]
    colors = {0: "C1", 10: "C4", 80: "C0"}
    for step in SHOWN:
        w, b, loss = history[step]
        ax.plot(
            ends,
            [w * ends[0] + b, w * ends[1] + b],
            color=colors[step],
            lw=2.2 if step == SHOWN[-1] else 1.6,
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
        f"noise floor {floor:g}",
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

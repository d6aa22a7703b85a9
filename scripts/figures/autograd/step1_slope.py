"""Step 1: the loss as a function of w (b held at -1), its tangent, one step."""

import matplotlib.pyplot as plt
import torch

from docpipe.run.figures import ink


def descent(ns):
    loss_at = ns["loss_at"]
    w0, slope = ns["w"].item(), ns["w"].grad.item()
    loss0 = ns["loss"].item()
    w1, loss1 = ns["new_w"], ns["new_loss"].item()

    grid = torch.linspace(0.0, 4.2, 211)
    with torch.no_grad():
        curve = [loss_at(w).item() for w in grid]

    fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
    ax.plot(grid.numpy(), curve, color="C0", lw=2, label="loss $L(w)$")
    best = min(range(len(curve)), key=curve.__getitem__)
    ax.plot(grid[best].item(), curve[best], "o", color="C2", ms=6)
    ax.annotate(
        "minimum",
        (grid[best].item(), curve[best]),
        xytext=(0, 12),
        textcoords="offset points",
        ha="center",
        color="C2",
    )

    half = 0.55
    tx = [w0 - half, w0 + half]
    ax.plot(
        tx,
        [loss0 - slope * half, loss0 + slope * half],
        color="C1",
        lw=2,
        label=f"tangent at w = {w0:.1f}: slope {slope:.2f}",
    )
    ax.plot(w0, loss0, "o", color="C1", ms=7)
    ax.plot(w1, loss1, "o", color=ink("muted"), ms=6)
    ax.vlines([w0, w1], 0, [loss0, loss1], color=ink("grid"), lw=1, ls=":", zorder=0)
    arrow_y = -0.08
    ax.annotate(
        "",
        xy=(w1, arrow_y),
        xytext=(w0, arrow_y),
        arrowprops={"arrowstyle": "-|>", "color": ink(), "lw": 1.6},
        annotation_clip=False,
    )
    ax.text(
        (w0 + w1) / 2,
        arrow_y - 0.07,
        f"one step ($\\eta$ = {ns['lr']:g}): w {w0:.1f} → {w1:.2f}",
        ha="center",
        va="top",
        color=ink(),
        fontsize=10,
    )
    ax.set_xlim(0, 4.2)
    ax.set_ylim(-0.3, max(curve) * 1.02)
    ax.set_yticks([t / 2 for t in range(int(max(curve) * 2) + 1)])
    ax.set_xlabel(f"weight $w$ (bias $b$ held at ${ns['b']:g}$)")
    ax.set_ylabel("loss")
    ax.axhline(0, color=ink("grid"), lw=1, zorder=0)
    ax.legend(loc="upper left")
    return fig


FIGURES = {"descent": descent}

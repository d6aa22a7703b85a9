"""y = x³, its first derivative and its second, as autograd computed them on the grid,
with the tangent at x = 3 whose slope is the next panel's value there."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink, number


def curves(ns):
    xs = ns["xs"].detach().numpy()
    at = ns["at"]
    panels = [
        (ns["ys"], "y = x³", "C0", ns["slopes"]),
        (ns["slopes"], "dy/dx (create_graph=True)", "C1", ns["curvatures"]),
        (ns["curvatures"], "d²y/dx² (grad of the grad)", "C2", None),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(7.6, 2.9), sharex=True, layout="constrained")
    for ax, (values, title, colour, slope) in zip(axes, panels, strict=True):
        ys = values.detach().numpy()
        ax.plot(xs, ys, color=colour, lw=2)
        x0, y0 = xs[at], ys[at]
        if slope is not None:  # the tangent at x0: its slope is the next panel's value
            m = slope[at].item()
            ends = [x0 - 1.2, x0 + 0.5]
            ax.plot(ends, [y0 + m * (e - x0) for e in ends], color=ink(), lw=1.3,
                    ls="--")  # fmt: skip
            ax.annotate(f"slope {number(m)}", (ends[0], y0 + m * (ends[0] - x0)),
                        xytext=(0, -4), textcoords="offset points", ha="center", va="top",
                        fontsize=10, color=ink())  # fmt: skip
        ax.plot([x0], [y0], "o", color=colour, ms=6)
        ax.annotate(number(y0), (x0, y0), xytext=(-6, 6), textcoords="offset points",
                    ha="right", va="bottom", fontsize=10.5, color=ink())  # fmt: skip
        ax.set_title(title, fontsize=10.5, color=ink())
        ax.axhline(0, color=ink("grid"), lw=0.8, zorder=0)
        ax.set_xlabel("x")
        ax.grid(True, lw=0.5)
    return fig


FIGURES = {"curves": curves}

"""Two Jacobians from the run, as heatmaps: t² (diagonal) and softmax (full)."""

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from docpipe.run.figures import ink, number

STRONGEST = 0.5  # the opacity of the largest entry: text stays legible on every cell


def _heatmap(ax, J, rows, columns, title):
    """Cell (i, j) holds J[i, j]: blue (C0) for positive, orange (C1) for negative,
    more opaque the larger it is; zero cells stay empty."""
    values = J.tolist()
    largest = max(abs(v) for row in values for v in row)
    n_rows, n_cols = len(values), len(values[0])
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            y = n_rows - 1 - i  # row 0 at the top, as the matrix is printed
            if v != 0:
                colour = to_rgba("C0" if v > 0 else "C1", STRONGEST * abs(v) / largest)
                ax.add_patch(Rectangle((j, y), 1, 1, facecolor=colour, edgecolor="none"))
            ax.add_patch(Rectangle((j, y), 1, 1, facecolor="none", edgecolor=ink("grid"), lw=0.8))
            ax.text(j + 0.5, y + 0.5, number(round(v, 3)), ha="center", va="center",
                    fontsize=10.5, color=ink() if v != 0 else ink("muted"))  # fmt: skip
    ax.set_xlim(0, n_cols)
    ax.set_ylim(0, n_rows)
    ax.set_aspect("equal")
    ax.set_xticks([j + 0.5 for j in range(n_cols)], columns, fontsize=10)
    ax.set_yticks([n_rows - 0.5 - i for i in range(n_rows)], rows, fontsize=10)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(title, fontsize=11.5, color=ink(), pad=34)


def jacobians(ns):
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(7.6, 3.7), width_ratios=[3, 4], layout="constrained"
    )
    t = ns["t"].detach().tolist()
    _heatmap(
        left,
        ns["J"],
        [f"t[{i}]²" for i in range(len(t))],
        [f"t[{j}] = {number(v)}" for j, v in enumerate(t)],
        "square(t): each output\ndepends on its own input",
    )
    _heatmap(
        right,
        ns["J_softmax"],
        [f"probs[{i}] = {number(round(p, 3))}" for i, p in enumerate(ns["probs"].tolist())],
        [f"logits[{j}]\n= {number(v)}" for j, v in enumerate(ns["logits"].tolist())],
        "softmax(logits): every output\ndepends on every input",
    )
    return fig


FIGURES = {"jacobians": jacobians}

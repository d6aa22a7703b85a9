"""One swatch per colour name that figure code may use, in the palette being drawn."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


def swatches(ns):
    fig, ax = plt.subplots(figsize=(7.2, 1.3), layout="constrained")
    for i, name in enumerate(ns["names"]):
        color = name if name.startswith("C") else ink(name)
        ax.add_patch(plt.Rectangle((i, 0.35), 0.8, 0.65, color=color))
        ax.text(i + 0.4, 0.12, name, ha="center", va="center", fontsize=11)
    ax.set_xlim(-0.1, len(ns["names"]) - 0.1)
    ax.set_ylim(0, 1.05)
    ax.axis("off")
    return fig


FIGURES = {"swatches": swatches}

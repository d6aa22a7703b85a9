import matplotlib.pyplot as plt


def fit(ns):
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(ns["x"].numpy(), ns["y"].numpy(), ".", label="data")
    ax.plot(ns["x"].numpy(), (ns["w"] * ns["x"] + ns["b"]).detach().numpy(), label="model")
    ax.legend()
    return fig


FIGURES = {"fit": fit}

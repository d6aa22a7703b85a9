"""Figures drawn from a snippet's own run, as deterministic SVG in a light and a dark palette.

A snippet's figure code lives at scripts/figures/<key>.py and defines

    FIGURES = {"<name>": draw}   # draw(namespace) -> matplotlib Figure
    observe()                     # optional: a context manager active while the snippet runs

`namespace` is the snippet's globals after its run, so a figure shows what the page's code
computed; it never repeats the computation. `observe` may attach hooks (never change results).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from functools import cache

from cycler import cycler

from docpipe.project import THEMES, Snippet
from docpipe.run.sourceonly import SourceOnlyLoader

PALETTES = {
    "light": {"ink": "#1f2328", "muted": "#59636e", "grid": "#d0d7de",
              "cycle": ["#3451b2", "#d1570f", "#1a7f37", "#a3127a", "#6639ba"]},
    "dark": {"ink": "#e6edf3", "muted": "#9198a1", "grid": "#3d444d",
             "cycle": ["#8fa6ff", "#ffa657", "#56d364", "#ff7bd1", "#c297ff"]},
}  # fmt: skip


def style(theme: str) -> dict:
    p = PALETTES[theme]
    return {
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.transparent": True,
        "text.color": p["ink"],
        "axes.labelcolor": p["ink"],
        "axes.edgecolor": p["muted"],
        "xtick.color": p["muted"],
        "ytick.color": p["muted"],
        "xtick.labelcolor": p["ink"],
        "ytick.labelcolor": p["ink"],
        "grid.color": p["grid"],
        "legend.frameon": False,
        "axes.prop_cycle": cycler(color=p["cycle"]),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "font.size": 11,
        "svg.fonttype": "path",  # text as outlines: the SVG needs no font on the reader's side
        "svg.hashsalt": "autograd-docs",  # stable ids, so two identical runs give identical bytes
        "path.simplify": False,
    }


def ink(name: str = "ink") -> str:
    """A palette colour of the theme being drawn ("ink", "muted", "grid")."""
    return _current[name]


_current: dict = PALETTES["light"]


def node_box(
    ax, xy, lines=(), *, width, height, edge=None, faded=False, dashed=False, lw=1.2, pad=0.02,
    fit=None, **text,
):  # fmt: skip
    """One node of a diagram: a rounded box `width` by `height` (data units) centred at xy, and
    lines of text centred in it. Returns the box's width.

    lines: one string, drawn at the centre, or a (dy, text, properties) for each line: its
    offset from the centre and its own Text properties (colour, fontsize, ...) over `text`, the
    properties all its lines share. Text is in ink() and the edge in `edge` (ink() if not
    given); faded draws both in the muted colour, for what is gone or cut off. dashed: a dashed
    edge; lw: the edge's width; pad: the rounded box's padding. fit (where one data unit is one
    inch): the box widens to its widest line and `fit` inches either side of it.
    """
    from matplotlib.patches import FancyBboxPatch

    x, y = xy
    colour = ink("muted") if faded else ink()
    if isinstance(lines, str):
        lines = [(0, lines, {})]
    renderer = ax.figure.canvas.get_renderer() if fit is not None else None
    widest = 0.0
    for dy, words, own in lines:
        t = ax.text(x, y + dy, words, ha="center", va="center", **{"color": colour, **text, **own})
        if renderer is not None:
            widest = max(widest, t.get_window_extent(renderer).width)
    if fit is not None:
        width = max(width, widest / ax.figure.dpi + 2 * fit)
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle=f"round,pad={pad},rounding_size=0.08",
            facecolor="none",
            edgecolor=colour if edge is None or faded else edge,
            linewidth=lw,
            linestyle="--" if dashed else "-",
        )
    )
    return width


def number(value) -> str:
    """A number (or one-element tensor) as figures print it: shortest form, a true minus sign,
    and never −0 (+ 0.0 turns a negative zero into 0)."""
    v = value.item() if hasattr(value, "item") else value
    return f"{v + 0.0:g}".replace("-", "\u2212")


@cache
def _code(snippet: Snippet):
    path = snippet.figure_code
    if not path.exists():
        return None
    # Like a script, figure code can import its neighbours (shared helpers such as _diagram.py).
    sys.path.insert(0, str(path.parent))
    name = f"figures_{snippet.key.replace('/', '_')}"
    loader = SourceOnlyLoader(name, str(path))  # never a stale .pyc
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def observing(snippet: Snippet):
    code = _code(snippet)
    observe = getattr(code, "observe", None)
    return observe() if observe else contextlib.nullcontext()


def draw(snippet: Snippet, namespace: dict) -> dict[str, str]:
    """Figure name (with ".dark" for the dark palette) -> SVG text."""
    code = _code(snippet)
    if code is None:
        return {}
    import matplotlib.pyplot as plt

    global _current
    svgs = {}
    for theme in THEMES:
        _current = PALETTES[theme]
        with plt.style.context(style(theme)):
            for name, make in code.FIGURES.items():
                fig = make(namespace)
                buffer = io.StringIO()
                fig.savefig(buffer, format="svg", metadata={"Date": None})
                plt.close(fig)
                svgs[name if theme == "light" else f"{name}.{theme}"] = buffer.getvalue()
    return svgs

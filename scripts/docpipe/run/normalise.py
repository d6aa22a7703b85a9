"""Declared output normalisers: the only rewriting a recorded output ever gets.

Each one names what is volatile and why; anything volatile that no normaliser covers is caught
by `regen.py --audit`. ALWAYS apply to every snippet; OPT_IN ones apply where snippets.toml
lists them under `normalise`, because their patterns could also match real results.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass

from docpipe.project import ROOT


@dataclass(frozen=True)
class Normaliser:
    name: str
    pattern: re.Pattern
    replacement: str
    reason: str
    reader_sees: str  # said beside an output block it changed: what a reader's own run prints

    def apply(self, text: str) -> str:
        return self.pattern.sub(self.replacement, text)


ALWAYS = (
    Normaliser(
        "repository-path",
        re.compile(re.escape(str(ROOT) + "/")),
        "",
        "Warnings and tracebacks name the snippet by absolute path, which differs per clone; "
        "pages show it relative to the repository root.",
        "Your own run prints the full path of the file where this shows one starting at"
        " `snippets/`.",
    ),
    Normaliser(
        "scratch-dir",
        re.compile(re.escape(tempfile.gettempdir()) + r"/docpipe-[^/\s]+/scratch"),
        "<workdir>",
        "Snippets run in a fresh temporary working directory whose name changes every run.",
        "Your own run prints its working directory where this shows `<workdir>`.",
    ),
    Normaliser(
        "memory-address",
        re.compile(r"\b0x[0-9a-fA-F]{8,}\b"),
        "0x…",
        "Object reprs print addresses that change on every run.",
        "Your own run prints other memory addresses where this shows `0x…`.",
    ),
)

OPT_IN = {
    n.name: n
    for n in (
        Normaliser(
            "timings",
            re.compile(r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s)\b"),
            "<time>",
            "Wall-clock timings differ on every run and every machine.",
            "Your own run prints its own timings where this shows `<time>`.",
        ),
    )
}


def normalise(text: str, opt_in: tuple[str, ...] = ()) -> str:
    return normalise_noting(text, opt_in)[0]


def normalise_noting(text: str, opt_in: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """The normalised text, and the names of the normalisers that changed it."""
    changed = []
    for normaliser in (*ALWAYS, *(OPT_IN[name] for name in opt_in)):
        new = normaliser.apply(text)
        if new != text:
            changed.append(normaliser.name)
        text = new
    return text, changed


BY_NAME = {n.name: n for n in (*ALWAYS, *OPT_IN.values())}

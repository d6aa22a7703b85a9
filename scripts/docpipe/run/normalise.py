"""Declared output normalisers: the only rewriting a recorded output ever gets.

Each one names what is volatile and why; anything volatile that no normaliser covers is caught
by `regen.py --audit`. ALWAYS apply to every snippet; OPT_IN ones apply where snippets.toml
lists them under `normalise`, because their patterns could also match real results.
"""

from __future__ import annotations

import functools
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from docpipe.problems import Problem

ROOT_MARK = "{root}"  # in a pattern: the project's root, as an absolute path


@dataclass(frozen=True)
class Normaliser:
    name: str
    pattern: str  # a regular expression; ROOT_MARK in it stands for the project's root
    replacement: str
    reason: str
    reader_sees: str  # said beside an output block it changed: what a reader's own run prints
    # What its replacement leaves in a recorded text: a part of the output (one section's) that
    # holds it may be one the normaliser changed, and gets the note too.
    trace: str = ""

    def may_have_changed(self, recorded: str) -> bool:
        return bool(re.search(self.trace, recorded, re.M)) if self.trace else True

    def apply(self, text: str, root: Path) -> str:
        return _compiled(self.pattern, str(root)).sub(self.replacement, text)


class Overwritten(Normaliser):
    """Carriage returns, rendered as a terminal leaves the line: what follows a `\\r`
    overwrites the line from its start (a progress bar's updates), so the page shows the
    line as it stands at the end, as the reader's terminal does."""

    def apply(self, text: str, root: Path) -> str:
        if "\r" not in text:
            return text
        return "\n".join(_overwrite(line) for line in text.split("\n"))


def _overwrite(line: str) -> str:
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part) :]
    return shown


@functools.cache
def _compiled(pattern: str, root: str) -> re.Pattern:
    return re.compile(pattern.replace(ROOT_MARK, re.escape(root)))


ALWAYS = (
    Normaliser(
        "repository-path",
        ROOT_MARK + "/",
        "",
        "Warnings and tracebacks name the snippet by absolute path, which differs per clone; "
        "pages show it relative to the repository root.",
        "Your own run prints the full path of the file where this shows one starting at"
        " `snippets/`.",
        r"(?:^|[\s\"'(])snippets/",
    ),
    Normaliser(
        "scratch-dir",
        # where pool puts job folders: in memory (/dev/shm) or the temporary folder
        rf"(?:/dev/shm|{re.escape(tempfile.gettempdir())})/docpipe-[^/\s]+/scratch",
        "<workdir>",
        "Snippets run in a fresh temporary working directory whose name changes every run.",
        "Your own run prints its working directory where this shows `<workdir>`.",
        "<workdir>",
    ),
    Overwritten(
        "carriage-return",
        "",
        "",
        "A carriage return sends a terminal back to the line's start, and what follows"
        " overwrites the line; a page shows the line as the terminal leaves it.",
        "Your terminal shows this line the same way; piped into a file, your run's output"
        " holds each overwritten version too.",
    ),
    Normaliser(
        "memory-address",
        r"\b0x[0-9a-fA-F]{8,}\b",
        "0x…",
        "Object reprs print addresses that change on every run.",
        "Your own run prints other memory addresses where this shows `0x…`.",
        "0x…",
    ),
)

OPT_IN = {
    n.name: n
    for n in (
        Normaliser(
            "timings",
            r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s)\b",
            "<time>",
            "Wall-clock timings differ on every run and every machine.",
            "Your own run prints its own timings where this shows `<time>`.",
            "<time>",
        ),
    )
}


def normalise(text: str, root: Path, opt_in: tuple[str, ...] = ()) -> str:
    """The text as recorded for a snippet of the project at `root`."""
    return normalise_noting(text, root, opt_in)[0]


def normalise_noting(text: str, root: Path, opt_in: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """The normalised text, and the names of the normalisers that changed it."""
    changed = []
    for normaliser in (*ALWAYS, *(OPT_IN[name] for name in opt_in)):
        new = normaliser.apply(text, root)
        if new != text:
            changed.append(normaliser.name)
        text = new
    return text, changed


BY_NAME = {n.name: n for n in (*ALWAYS, *OPT_IN.values())}


def problems(cat) -> list[Problem]:
    """Each snippets.toml entry that opts in to a normaliser there is none of, at its line."""
    meta = cat.project.rel(cat.project.meta)
    return [
        Problem(
            meta,
            settings.normalise_line,
            f'["{snippet.key}.py"] normalise: unknown normaliser {name!r}'
            f" (known: {', '.join(OPT_IN)})",
        )
        for snippet, settings in cat.settings.items()
        for name in settings.normalise
        if name not in OPT_IN
    ]


# Characters no page can show as a terminal does (colour codes, cursor moves, bells, NUL):
# every control character but tab, newline and the carriage return Overwritten renders.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]")


def control_character(text: str) -> str | None:
    """Where the text holds a control character a page cannot show, said as "U+001B (ESC) at
    line 3"; None when it holds none."""
    m = CONTROL.search(text)
    if m is None:
        return None
    import unicodedata

    char = m[0]
    name = {"\x1b": "ESC", "\x00": "NUL", "\x07": "BEL", "\x08": "backspace"}.get(char, "")
    name = name or unicodedata.name(char, "a control character")
    line = text.count("\n", 0, m.start()) + 1
    return f"U+{ord(char):04X} ({name}) at line {line}"

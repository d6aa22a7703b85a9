"""What a recording was made from: a digest of each file an author edits for one snippet.

docs/generated/<key>.json keeps them under "inputs": the snippet, its figure code, the helper
modules and data files under snippets/ and scripts/figures/ its run read, and its settings in
snippets.toml. Comparing them with the files on disk tells, without running anything or
importing torch, that a page shows outputs of code that has changed since (docpipe.live).

Unlike the regen cache key, the digests leave out package versions and the runner's own code:
they answer "did the author change this snippet?", which is what a stale page must say.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .catalog import Settings
from .paths import ROOT, Snippet, rel

SETTINGS = "snippets/snippets.toml"  # the name its settings are recorded under
AUTHORED = ("snippets/", "scripts/figures/")  # where the files an author edits live


def file_digest(path: Path) -> str | None:
    """A short digest of a text file, the same for LF and CRLF checkouts; None when absent."""
    if not path.is_file():
        return None
    return _short(path.read_bytes().replace(b"\r\n", b"\n"))


def settings_digest(settings: Settings) -> str:
    # Only the settings that shape what is published; timeout and duration do not.
    shaping = {"values": settings.values, "normalise": list(settings.normalise)}
    return _short(json.dumps(shaping, sort_keys=True).encode())


def inputs(snippet: Snippet, settings: Settings, reads: list[str]) -> dict[str, str | None]:
    """Input name -> digest, for the record of a run that read `reads` (repository paths)."""
    found = {
        rel(snippet.source): file_digest(snippet.source),
        rel(snippet.figure_code): file_digest(snippet.figure_code),
    }
    for path in sorted(reads):
        if path.startswith(AUTHORED) and "__pycache__" not in Path(path).parts:
            found[path] = file_digest(ROOT / path)
    found[SETTINGS] = settings_digest(settings)
    return found


def current(snippet: Snippet, settings: Settings, recorded: dict | None) -> dict[str, str | None]:
    """The digests now of the recorded inputs (of the snippet, its figure code and settings
    when nothing is recorded)."""
    names = recorded if recorded is not None else inputs(snippet, settings, [])
    return {
        name: settings_digest(settings) if name == SETTINGS else file_digest(ROOT / name)
        for name in names
    }


def changed(recorded: dict[str, str | None], now: dict[str, str | None]) -> list[str]:
    """The inputs whose digest differs from the recorded one (empty: nothing changed)."""
    return [name for name in now if recorded.get(name, "") != now[name]]


def _short(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]

"""What a recording was made from: the fingerprint of each file an author edits for a snippet.

docs/generated/<key>.json keeps them under "inputs": the run's own fingerprints (taken as it read
each file) of the snippet, its figure code (or its absence), and the helper modules and data
files under snippets/ and scripts/figures/ it read, plus a digest of its settings in
snippets.toml. Comparing them with the files on disk tells, without running anything or
importing torch, that a page shows outputs of code that has changed since (docpipe.live).

Unlike the regen cache key, they leave out package versions, the runner's own code and pages a
snippet reads: they answer "did the author change this snippet?", which a stale page must say.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from docpipe.catalog import Settings
from docpipe.project import ABSENT, Snippet
from docpipe.recorded.record import RecordError, load

SETTINGS = "snippets/snippets.toml"  # the name its settings are recorded under
AUTHORED = ("snippets/", "scripts/figures/")  # where the files an author edits live
UNREADABLE = "unreadable"  # the fingerprint of an input that exists but cannot be read


def file_digest(path: Path) -> str:
    """As the runner fingerprints an input: sha256 of its bytes, or ABSENT."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ABSENT
    except OSError:
        return UNREADABLE  # never equal to a recorded digest


def settings_digest(settings: Settings) -> str:
    """The settings that shape what is published (timeout and duration do not): what records
    name under SETTINGS and what the regen cache keys on."""
    # Only the settings that shape what is published; timeout and duration do not.
    shaping = {"values": settings.values, "normalise": list(settings.normalise)}
    return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:16]


def inputs(settings: Settings, fingerprints: dict[str, str]) -> dict[str, str]:
    """What to record, from the run's fingerprints of every file it read (path -> digest)."""
    found = {p: d for p, d in sorted(fingerprints.items()) if p.startswith(AUTHORED)}
    found[SETTINGS] = settings_digest(settings)
    return found


def current(snippet: Snippet, settings: Settings, recorded: dict | None) -> dict[str, str]:
    """The fingerprints now of the recorded inputs (of the snippet, its figure code and
    settings when nothing is recorded)."""
    project = snippet.project
    names = (
        recorded
        if recorded is not None
        else [project.rel(snippet.source), project.rel(snippet.figure_code)]
    )
    now = {n: file_digest(project.root / n) for n in names if n != SETTINGS}
    now[SETTINGS] = settings_digest(settings)
    return now


def changed(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """The inputs whose fingerprint differs from the recorded one (empty: nothing changed)."""
    return [name for name in now if recorded.get(name) != now[name]]


def recorded(snippet: Snippet) -> dict[str, str] | None:
    """The inputs its record names ({} for a record older than them), None if unrecorded (or
    its record cannot be read: the check names it)."""
    try:
        return dict(load(snippet).inputs)
    except RecordError:
        return None


@dataclass(frozen=True)
class Since:
    """What changed since a snippet's recording: the one answer serve, the GitHub annotations
    and the pre-commit hook read."""

    recorded: dict[str, str] | None  # None: never recorded
    now: dict[str, str]  # the fingerprints now of what the record names

    @property
    def changed(self) -> list[str] | None:
        """The inputs changed since the recording ([]: none), None when nothing is recorded."""
        if self.recorded is None:
            return None
        if not self.recorded:  # recorded before records named their inputs: nothing to compare
            return []
        return changed(self.recorded, self.now)


def since_recorded(snippet: Snippet, settings: Settings) -> Since:
    """What changed in a snippet's inputs since its recording."""
    inputs = recorded(snippet)
    return Since(inputs, current(snippet, settings, inputs))

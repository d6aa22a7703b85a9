"""What a recording was made from: the fingerprint of each file an author edits for a snippet.

docs/generated/<key>.json keeps them under "inputs": the run's own fingerprints (taken as it read
each file) of the snippet, its figure code (or its absence), and the helper modules and data
files under snippets/ and scripts/figures/ it read, plus a digest of its settings in
snippets.toml. Comparing them with the files on disk tells, without running anything or
importing torch, that a page shows outputs of code that has changed since (docpipe.live).

Which files are a run's inputs is decided here once, for the runner, the regen cache, the check
and `mkdocs serve` alike: the files the run was seen to read, and every data file under
snippets/ and scripts/figures/ (data_files). An audit hook sees open(), but not a file a C
extension opens itself (torch.from_file, a mmap'ed tensor file) or a `cat` the snippet starts;
the kernel does: the data files no process of the run opened, by any route
(docpipe.run.opened), are recorded as UNREAD, an input by name only. Editing one leaves the
run as it is; adding or removing a data file changes the inputs of every snippet (a run may
have looked for it), and a plain regen re-runs them all (run_inputs), as the check would
report. Where the kernel cannot tell (docpipe.run.opened), every data file is recorded by its
digest, as a file the run may have read.

Unlike the regen cache key, they leave out package versions, the runner's own code and pages a
snippet reads: they answer "did the author change this snippet?", which a stale page must say.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from docpipe import inputs
from docpipe.catalog import Settings
from docpipe.project import ABSENT, Project, Snippet
from docpipe.recorded.record import RecordError, load

SETTINGS = "snippets/snippets.toml"  # the name its settings are recorded under
AUTHORED = ("snippets/", "scripts/figures/")  # where the files an author edits live
UNREADABLE = "unreadable"  # the fingerprint of an input that exists but cannot be read
# The fingerprint of a data file no process of the run opened (docpipe.run.opened): it stands
# while the file exists, whatever its bytes; it changes when the file is removed.
UNREAD = "not opened"


def data_folders(project: Project) -> list[Path]:
    """The snippets and their data (not the settings beside them) and the figure code."""
    inside = [project.figure_code]
    with contextlib.suppress(OSError), os.scandir(project.snippets) as entries:
        inside += [
            Path(e.path)
            for e in entries
            if not e.name.startswith(".") and (e.is_dir() or not e.name.endswith(".toml"))
        ]
    return inside


# Which files there are, kept until a folder's listing changes: asked for each snippet of each
# page, and a page's kept work is not redone when a file it listed is saved (inputs.listing).
# Kept only where the page side already records (install=False): the runner's child, which
# calls it after a run, is left with its file functions as they were.
@inputs.memo(key=lambda project: str(project.root), install=False)
@inputs.listing
def data_files(project: Project) -> list[str]:
    """Every data file a run could read without an audit hook seeing it (relative paths): the
    files of data_folders() but code (.py, .pyc) and tools' files (bytecode, hidden folders or
    files, such as .ruff_cache, which differ from one machine to the next)."""
    root = os.fspath(project.root)
    found = []
    for top in data_folders(project):
        paths = [os.fspath(top)] if top.is_file() else _files(os.fspath(top))
        found += [p for p in paths if os.path.splitext(p)[1] not in {".py", ".pyc"}]
    return sorted({Path(os.path.relpath(p, root)).as_posix() for p in found})


def _files(folder: str) -> list[str]:
    """The files in the folder and its subfolders, but tools' (bytecode, hidden folders or
    files); a link to a file counts, a link to a folder is not followed. One listing per folder
    (the kind of each entry comes with it): this runs in every run's child."""
    found = []
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            if entry.is_dir(follow_symlinks=False):
                found += _files(entry.path)
            elif entry.is_file():
                found.append(entry.path)
    return found


def run_inputs(recorded: dict[str, str] | list[str], data: list[str]) -> list[str]:
    """The names of a run's inputs now: the ones it recorded, and every data file there is now
    (`data`, data_files()): a data file added since the run is one it would read. The regen
    cache (cache.fresh), the pages' staleness (current) and the verifications (verified.status)
    all compare these, as a run under --check records them (fingerprint_now)."""
    return sorted({*recorded, *data})


def fingerprint_now(root: Path, name: str, recorded: str | None, digest) -> str:
    """The fingerprint now of input `name`, to compare with the `recorded` one: UNREAD for a
    data file the run did not open (UNREAD) that is still a file, whatever its bytes; else
    `digest(name)` (its sha256, or ABSENT)."""
    if recorded == UNREAD and (root / name).is_file():
        return UNREAD
    return digest(name)


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
    """What to record, from the run's fingerprints of every file it read (path -> digest, or
    UNREAD for a data file it did not open)."""
    found = {p: d for p, d in sorted(fingerprints.items()) if p.startswith(AUTHORED)}
    found[SETTINGS] = settings_digest(settings)
    return found


def current(
    snippet: Snippet, settings: Settings, recorded: dict | None, data: list[str] | None = None
) -> dict[str, str]:
    """The fingerprints now of the recorded inputs and of every data file now (run_inputs; of
    the snippet, its figure code and settings when nothing is recorded). `data`: data_files(),
    when the caller has it."""
    project = snippet.project
    if recorded is None:
        names = [project.rel(snippet.source), project.rel(snippet.figure_code)]
    elif not recorded:  # recorded before records named their inputs
        names = []
    else:
        names = run_inputs(recorded, data_files(project) if data is None else data)
    root, known = project.root, recorded or {}

    def digest(name: str) -> str:
        return file_digest(root / name)

    now = {n: fingerprint_now(root, n, known.get(n), digest) for n in names if n != SETTINGS}
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

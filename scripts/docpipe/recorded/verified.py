"""The recorded verifications, verified/torch-VERSION.json: reading them, and whether each still
holds for a snippet (one that changed since is "not verified"). docpipe.verify makes them, by
running every snippet under another torch; the pages read them here (docpipe.pages.reproduced)
without anything that runs a snippet."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from docpipe import inputs, texts
from docpipe.project import Project, Snippet
from docpipe.recorded import fingerprints, record
from docpipe.recorded.versions import PinError, pin
from docpipe.statuses import VerifiedStatus


def result_path(project: Project, version: str) -> Path:
    return project.verified / f"torch-{version}.json"


def recorded_digest(snippet: Snippet, on_disk: set[Path] | None = None) -> str:
    """What a verification compared with: the snippet's recorded files, the stamp left out."""
    return _digest(snippet, on_disk) if on_disk is not None else _recorded_digest(snippet)


# Asked for each output block and claim of a page, in each build of `mkdocs serve`: kept until a
# recorded file changes or one is added or removed (docpipe.inputs).
@inputs.memo(key=lambda snippet: str(snippet.source), install=False)
def _recorded_digest(snippet: Snippet) -> str:
    return _digest(snippet, recorded_files(snippet))


def _digest(snippet: Snippet, files: set[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        data = path.read_bytes()
        if path == snippet.record:
            try:
                data = replace(record.load(snippet), environment={}).to_bytes()
            except record.RecordError:
                pass
        digest.update(f"{snippet.project.rel(path)}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def recorded_files(snippet: Snippet) -> set[Path]:
    """The snippet's generated files on disk, by the naming rule (Project.owner), without
    walking docs/generated/."""
    candidates = snippet.record.parent.glob(f"{snippet.record.stem}.*")
    return {p for p in candidates if p.is_file() and snippet.project.owner(p) == snippet}


@dataclass(frozen=True)
class Status:
    """A snippet's standing under one verified version."""

    version: str
    verdict: VerifiedStatus
    entry: dict = field(default_factory=dict, compare=False)

    @property
    def differences(self) -> list[dict]:
        return self.entry.get("differences", []) if self.verdict == VerifiedStatus.DIFFERS else []


def load(project: Project, version: str) -> dict | None:
    path = result_path(project, version)
    if not path.is_file():
        return None
    return _load(path, path.stat().st_mtime_ns)


@cache
def _load(path: Path, mtime: int) -> dict | None:
    try:
        return json.loads(texts.read(path, f"verified/{path.name}"))
    except ValueError:
        return None


def versions(project: Project) -> tuple[str, ...]:
    """The versions the site is verified with: pyproject.toml's list."""
    try:
        pinned = pin(project)
    except PinError:
        return ()
    return pinned.verify if pinned else ()


def status(snippet: Snippet, version: str, settings=None, data=None) -> Status:
    """Whether the committed verification of `version` still holds for the snippet: it does
    unless the snippet, its inputs or its recording changed since it was verified."""
    verification = load(snippet.project, version)
    entry = (verification or {}).get("snippets", {}).get(snippet.name)
    if not entry or entry.get("recorded") != recorded_digest(snippet):
        return Status(version, VerifiedStatus.STALE)
    if settings is not None and entry.get("inputs"):
        now = fingerprints.current(snippet, settings, entry["inputs"], data)
        if fingerprints.changed(entry["inputs"], now):
            return Status(version, VerifiedStatus.STALE)
    try:
        return Status(version, VerifiedStatus(entry.get("verdict")), entry)
    except ValueError:  # a verdict no verification writes (a hand-edited file): it holds nothing
        return Status(version, VerifiedStatus.STALE)


def unverified(snippets: list[Snippet], cat) -> dict[str, list[Snippet]]:
    """For each verified version, the snippets its committed verification no longer covers."""
    from docpipe.recorded.fingerprints import data_files

    found = {}
    data = data_files(cat.project)
    for version in versions(cat.project):
        outdated = [
            s
            for s in snippets
            if status(s, version, cat.settings[s], data).verdict == VerifiedStatus.STALE
        ]
        if outdated:
            found[version] = outdated
    return found

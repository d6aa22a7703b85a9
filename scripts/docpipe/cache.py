"""The regen cache: a snippet whose inputs are unchanged, and whose files are intact, is not re-run.

The key covers the snippet's source, the repository files its last run read (local modules,
data), its figure code, its settings, the runner's own code, and the versions of Python, torch,
numpy and matplotlib. Computing it imports none of them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .catalog import Settings
from .paths import ROOT, Snippet, rel

CACHE = ROOT / ".cache" / "regen.json"
RUNNER = Path(__file__).parent
VERSIONED = ("torch", "numpy", "matplotlib")  # in the cache key and the environment stamp


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@cache
def _versions() -> str:
    found = [sys.version]
    for package in VERSIONED:
        try:
            found.append(f"{package}=={version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} missing")
    return "\n".join(found)


@cache
def _runner_digest() -> str:
    return _digest(b"".join(p.read_bytes() for p in sorted(RUNNER.glob("*.py"))))


def key(snippet: Snippet, settings: Settings, reads: list[str]) -> str:
    h = hashlib.sha256()
    # Only the settings that shape what is published; timeout and duration do not.
    shaping = repr((sorted(settings.values.items()), settings.normalise))
    for part in (_versions(), _runner_digest(), shaping):
        h.update(part.encode() + b"\0")
    for path in [snippet.source, snippet.figure_code, *(ROOT / r for r in sorted(reads))]:
        h.update(rel(path).encode() + b"\0")
        h.update(path.read_bytes() if path.is_file() else b"<absent>")
        h.update(b"\0")
    return h.hexdigest()


def load() -> dict:
    try:
        return json.loads(CACHE.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def entry(reads: list[str], key_: str, files: dict[Path, bytes]) -> dict:
    return {"key": key_, "reads": reads, "files": {rel(p): _digest(d) for p, d in files.items()}}


def fresh(snippet: Snippet, settings: Settings, cached: dict | None, on_disk: set[Path]) -> bool:
    """True when re-running would change nothing: same key, and files on disk as written."""
    if not cached or key(snippet, settings, cached["reads"]) != cached["key"]:
        return False
    if {rel(p) for p in on_disk} != set(cached["files"]):
        return False
    return all(
        (ROOT / path).is_file() and _digest((ROOT / path).read_bytes()) == digest
        for path, digest in cached["files"].items()
    )


def notebook_key(page: Path) -> str:
    """A notebook depends on its page, the snippets it shows and their recorded runs."""
    from .pages import uses

    h = hashlib.sha256((_runner_digest() + "\0").encode())
    snippets = sorted({u.snippet for u in uses(page)})
    for path in [page, *(p for s in snippets for p in (s.source, s.record))]:
        h.update(rel(path).encode() + b"\0")
        h.update(path.read_bytes() if path.is_file() else b"<absent>")
    return h.hexdigest()


def notebook_fresh(page: Path, notebook: Path, cached: dict | None) -> bool:
    return bool(
        cached
        and notebook.is_file()
        and cached.get("key") == notebook_key(page)
        and cached.get("digest") == _digest(notebook.read_bytes())
    )


def notebook_entry(page: Path, data: bytes) -> dict:
    return {"key": notebook_key(page), "digest": _digest(data)}

"""The regen cache: a snippet whose inputs are unchanged, and whose files are intact, is not re-run.

The key covers every repository file the last run depended on, fingerprinted by the run itself
as it read them (its source, local modules by their source even when Python loaded a .pyc, data
files, figure code or its absence), its settings, the runner's own code, and the interpreter and
package versions (docpipe.environment). Computing it imports none of those packages.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from .catalog import Settings
from .environment import fingerprint
from .paths import ABSENT, ROOT, rel

CACHE = ROOT / ".cache" / "regen.json"
RUNNER = Path(__file__).parent


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@cache
def runner_digest() -> str:
    """Taken once, before any run starts: an edit made during a run is not taken as run."""
    return _digest(b"".join(p.read_bytes() for p in sorted(RUNNER.glob("*.py"))))


def key(settings: Settings, inputs: dict[str, str]) -> str:
    h = hashlib.sha256()
    # Only the settings that shape what is published; timeout and duration do not.
    shaping = repr((sorted(settings.values.items()), settings.normalise))
    for part in (
        fingerprint(),
        runner_digest(),
        shaping,
        *sorted(f"{k}\0{v}" for k, v in inputs.items()),
    ):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def on_disk(inputs: dict[str, str]) -> dict[str, str]:
    """The same inputs, fingerprinted as they are on disk now."""
    found = {}
    for relative in inputs:
        path = ROOT / relative
        found[relative] = _digest(path.read_bytes()) if path.is_file() else ABSENT
    return found


def load() -> dict:
    try:
        return json.loads(CACHE.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def entry(inputs: dict[str, str], settings: Settings, files: dict[Path, bytes]) -> dict:
    return {
        "key": key(settings, inputs),
        "inputs": inputs,
        "files": {rel(p): _digest(d) for p, d in files.items()},
    }


def fresh(settings: Settings, cached: dict | None, on_disk_files: set[Path]) -> bool:
    """True when re-running would change nothing: same key, and files on disk as written."""
    if not cached or "inputs" not in cached:
        return False
    if key(settings, on_disk(cached["inputs"])) != cached["key"]:
        return False
    if {rel(p) for p in on_disk_files} != set(cached["files"]):
        return False
    return all(
        (ROOT / path).is_file() and _digest((ROOT / path).read_bytes()) == digest
        for path, digest in cached["files"].items()
    )


def notebook_key(page: Path) -> str:
    """A notebook depends on its page, the snippets it shows and their recorded runs."""
    from .pages import uses

    h = hashlib.sha256((runner_digest() + "\0").encode())
    found = uses(page)
    snippets = sorted({u.snippet for u in found if u.snippet})
    files = sorted({ROOT / u.detail.partition(":")[0] for u in found if u.kind == "file"})
    for path in [page, *(p for s in snippets for p in (s.source, s.record)), *files]:
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

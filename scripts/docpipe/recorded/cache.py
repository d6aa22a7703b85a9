"""The regen cache: a snippet whose inputs are unchanged, and whose files are intact, is not re-run.

What a run is made from (made_from) covers every repository file the last run depended on,
fingerprinted by the run itself as it read them (its source, local modules by their source even
when Python loaded a .pyc, data files, figure code or its absence) or, for a file it read some
other way (mmap, torch.from_file: execute.Result.reads), by the parent right after the run; its
settings, the runner's own code, and the interpreter and package versions
(docpipe.environment). Computing it imports none of those packages.

Hashing is skipped for a file whose stats (mtime, ctime, size, inode) are what they were when it
was last hashed, as git's index does; a file modified within RACY_NS of its stats being taken is
never trusted, so an edit in the same clock tick is still seen. A whole regen with nothing
changed compares the stats of each file of the tree it depends on and answers without parsing
anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from functools import cache
from pathlib import Path

from docpipe import PACKAGE
from docpipe.catalog import Settings
from docpipe.environment import identity
from docpipe.project import ABSENT, Project
from docpipe.recorded import fingerprints
from docpipe.recorded.fingerprints import UNREADABLE, settings_digest

RUNNER_CODE = PACKAGE  # the runner's own code, keyed as a whole (run/execute.py skips it)
RACY_NS = 50_000_000  # stats younger than this (50 ms) may hide a same-tick edit
TREE = ("snippets", "docs", "scripts", "mkdocs.yml")  # what a regen's verdict depends on
TREE_SKIPS = ("docs/assets",)  # vendored files no snippet reads (a read one is an input)


def cache_file(project: Project) -> Path:
    return project.cache_dir / "regen.json"


def _stat(path: Path) -> list[int] | None:
    """A file's stats; None when there is no file there (nothing, or a folder)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def _trusted(stats: list[int] | None, taken: int) -> bool:
    return stats is not None and stats[0] < taken - RACY_NS and stats[1] < taken - RACY_NS


class Digests:
    """sha256 of a project's files, reusing a digest whose file's stats have not changed."""

    def __init__(self, project: Project, known: dict[str, list]):
        self.project = project
        self.known = known  # rel -> [mtime, ctime, size, inode, taken, digest]
        self.now: dict[str, list] = {}

    def at(self, relative: str) -> str:
        return self(self.project.root / relative)

    def __call__(self, path: Path) -> str:
        relative = self.project.rel(path)
        if relative in self.now:
            return self.now[relative][-1]
        stats, taken = _stat(path), time.time_ns()
        if stats is None:
            return ABSENT
        old = self.known.get(relative)
        if old and old[:4] == stats and _trusted(stats, old[4]):
            digest = old[5]
        else:
            try:
                digest = _digest(path.read_bytes())
            except OSError:  # a run that reads it fails naming it; the cache never trusts it
                return UNREADABLE
        self.now[relative] = [*stats, taken, digest]
        return digest


def tree_stats(project: Project, extra: set[str]) -> dict[str, list[int]]:
    """The stats of each file of the TREE and of the recorded inputs outside it."""
    found: dict[str, list[int]] = {}
    root = str(project.root)
    inside = len(root) + 1
    stack = [os.path.join(root, name) for name in TREE]
    for missing in [p for p in stack if not os.path.exists(p)]:
        stack.remove(missing)
        found[missing[inside:]] = None  # its appearance changes the stats
    skipped = {os.path.join(root, name) for name in TREE_SKIPS}
    while stack:  # strings and scandir, not pathlib: this is all a no-change regen does
        path = stack.pop()
        if os.path.isfile(path):
            found[path[inside:]] = _stat(path)
            continue
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name == "__pycache__" or entry.path in skipped:
                    continue
                if entry.is_dir():
                    stack.append(entry.path)
                else:
                    st = entry.stat()
                    found[entry.path[inside:]] = [
                        st.st_mtime_ns,
                        st.st_ctime_ns,
                        st.st_size,
                        st.st_ino,
                    ]
    for relative in extra - found.keys():
        found[relative] = _stat(project.root / relative)
    return found


def unchanged_since_last_regen(cached: dict, stats: dict, selected: list[str]) -> bool:
    """True when a clean regen of these snippets ran with this very tree and environment."""
    last = cached.get("tree")
    return bool(
        last
        and last["clean"]
        and set(selected) <= set(last["snippets"])
        and last["environment"] == identity()
        and last["stats"] == stats
        and all(_trusted(s, last["taken"]) for s in stats.values() if s)
    )


def remember_tree(cached: dict, stats: dict, taken: int, selected: list[str], clean: bool):
    cached["tree"] = {
        "stats": stats,
        "taken": taken,
        "snippets": selected,
        "environment": identity(),
        "clean": clean,
    }


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@cache
def runner_digest() -> str:
    """Taken once, before any run starts: an edit made during a run is not taken as run. The
    runner is the code running (docpipe.PACKAGE), whichever project it runs."""
    return _digest(b"".join(p.read_bytes() for p in sorted(RUNNER_CODE.rglob("*.py"))))


def made_from(settings: Settings, inputs: dict[str, str]) -> str:
    """The digest of what a run's files are made from: the environment, the runner, the
    settings that shape what is published (fingerprints.settings_digest, as records name
    them) and the inputs."""
    h = hashlib.sha256()
    for part in (
        identity(),
        runner_digest(),
        settings_digest(settings),
        *sorted(f"{k}\0{v}" for k, v in inputs.items()),
    ):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def on_disk(inputs, digests: Digests) -> dict[str, str]:
    """The same inputs, digested as they are on disk now."""
    return {relative: digests.at(relative) for relative in inputs}


def load(project: Project) -> dict:
    """The cache, or {} (every snippet re-runs) when it is missing or malformed."""
    return load_checked(project)[0]


def load_checked(project: Project) -> tuple[dict, str]:
    """The cache and "", or {} and why it was discarded: a cache is rebuilt, never trusted,
    when anything in it is not as this module writes it."""
    path = cache_file(project)
    where = project.rel(path)
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return {}, ""
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return {}, f"{where}: unreadable ({e}); discarded, every snippet re-runs"
    why = malformed(data)
    if why:
        return {}, f"{where}: malformed ({why}); discarded, every snippet re-runs"
    return data, ""


def _is(value, kind, *more) -> bool:
    return isinstance(value, kind) and not isinstance(value, bool) and all(m(value) for m in more)


def _strings(value) -> bool:
    return _is(value, dict) and all(_is(v, str) for v in value.values())


def _stats(value) -> bool:
    return _is(value, list) and len(value) == 4 and all(_is(v, int) for v in value)


def malformed(data) -> str:
    """Why `data` is not a cache this module wrote ("" when it is)."""
    if not _is(data, dict):
        return "not a JSON object"
    if set(data) - {"snippets", "notebooks", "digests", "tree"}:
        return f"unknown keys {sorted(set(data) - {'snippets', 'notebooks', 'digests', 'tree'})}"
    runs = data.get("snippets", {})
    if not _is(runs, dict):
        return "snippets is not an object"
    for key, run in runs.items():
        if not _is(run, dict) or set(run) != {"made_from", "inputs", "files"}:
            return f"snippets[{key!r}] is not {{made_from, inputs, files}}"
        if not (_is(run["made_from"], str) and _strings(run["inputs"]) and _strings(run["files"])):
            return f"snippets[{key!r}] has a made_from, inputs or files of the wrong type"
        if not all(_safe(p) for p in [*run["inputs"], *run["files"]]):
            return f"snippets[{key!r}] names a path outside the repository"
    notebooks = data.get("notebooks", {})
    if not _is(notebooks, dict) or not all(
        _is(v, dict) and set(v) == {"made_from", "digest"} and _strings(v)
        for v in notebooks.values()
    ):
        return "notebooks entries are not {made_from, digest}"
    digests = data.get("digests", {})
    if not _is(digests, dict) or not all(
        _safe(k)
        and _is(v, list)
        and len(v) == 6
        and _stats(v[:4])
        and _is(v[4], int)
        and _is(v[5], str)
        for k, v in digests.items()
    ):
        return "digests entries are not [mtime, ctime, size, inode, taken, digest]"
    tree = data.get("tree")
    if tree is not None:
        fields = {"stats", "taken", "snippets", "environment", "clean"}
        if not _is(tree, dict) or set(tree) != fields:
            return "tree lacks or adds keys"
        stats = tree["stats"]
        if not _is(stats, dict) or not all(s is None or _stats(s) for s in stats.values()):
            return "tree stats are not [mtime, ctime, size, inode]"
        if not (_is(tree["taken"], int) and _is(tree["snippets"], list)):
            return "tree taken or snippets of the wrong type"
        if not isinstance(tree["clean"], bool) or not _is(tree["environment"], str):
            return "tree clean or environment of the wrong type"
    return ""


def _safe(relative) -> bool:
    """A path relative to the root: what Digests and fresh() may join to it."""
    parts = relative.split("/") if _is(relative, str) else [""]
    return not relative.startswith("/") and all(p not in ("", ".", "..") for p in parts)


EDITED_DURING_RUN = "edited during the run"  # never a file's digest: the next regen re-runs


def with_reads(
    inputs: dict[str, str],
    reads: list[str],
    digests: Digests,
    taken: int,
    unread: list[str] = (),
) -> dict[str, str]:
    """The run's inputs and every repository file it may have read beyond them (however it
    read them: mmap, torch.from_file, np.load; execute.Result.reads), those fingerprinted now.
    One modified since `taken` (the regen's start) may not be what the run read: it is keyed
    as EDITED_DURING_RUN, so the next regen runs the snippet again. The data files no process
    of the run opened (execute.Result.unread) are keyed as fingerprints.UNREAD."""
    found = dict(inputs)
    found.update({u: fingerprints.UNREAD for u in unread if u not in inputs})
    for relative in reads:
        if relative in found:
            continue
        stats = _stat(digests.project.root / relative)
        if stats and max(stats[0], stats[1]) >= taken - RACY_NS:
            found[relative] = EDITED_DURING_RUN
        else:
            found[relative] = digests.at(relative)
    return found


def entry(
    inputs: dict[str, str],
    settings: Settings,
    files: dict[Path, bytes],
    digests: Digests,
) -> dict:
    return {
        "made_from": made_from(settings, inputs),
        "inputs": inputs,
        "files": {digests.project.rel(p): _digest(d) for p, d in files.items()},
    }


def fresh(
    settings: Settings,
    cached: dict | None,
    on_disk_files: set[Path],
    digests: Digests,
    data: list[str] | None = None,
) -> bool:
    """True when re-running would change nothing: same key over the run's inputs now (its
    recorded ones and every data file now: fingerprints.run_inputs, as a run under --check
    records them), and files on disk as written. `data`: fingerprints.data_files()."""
    if not cached or "inputs" not in cached:
        return False
    data = fingerprints.data_files(digests.project) if data is None else data
    recorded = cached["inputs"]
    names = fingerprints.run_inputs(recorded, data)
    root = digests.project.root
    now = {n: fingerprints.fingerprint_now(root, n, recorded.get(n), digests.at) for n in names}
    if made_from(settings, now) != cached["made_from"]:
        return False
    if {digests.project.rel(p) for p in on_disk_files} != set(cached["files"]):
        return False
    return all(digests.at(path) == digest for path, digest in cached["files"].items())


def notebook_made_from(project: Project, inputs: list[Path]) -> str:
    """A notebook's key: the runner and the files it is made from, in order (its page, the
    snippets it shows and their recorded runs: docpipe.pages.notebooks.inputs)."""
    h = hashlib.sha256((runner_digest() + "\0").encode())
    for path in inputs:
        h.update(project.rel(path).encode() + b"\0")
        h.update(path.read_bytes() if path.is_file() else b"<absent>")
    return h.hexdigest()


def notebook_fresh(
    project: Project, inputs: list[Path], notebook: Path, cached: dict | None
) -> bool:
    return bool(
        cached
        and notebook.is_file()
        and cached.get("made_from") == notebook_made_from(project, inputs)
        and cached.get("digest") == _digest(notebook.read_bytes())
    )


def notebook_entry(project: Project, inputs: list[Path], data: bytes) -> dict:
    return {"made_from": notebook_made_from(project, inputs), "digest": _digest(data)}

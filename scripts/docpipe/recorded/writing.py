"""Writing generated files: all of a regen's files land together or not at all, each one replaced
atomically, one regen at a time; what a killed regen left is found and removed by the next."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from docpipe.problems import RUN, DocpipeError
from docpipe.project import Project

LOCK = ".regen.lock"  # the regen lock, at the project's root
REGEN_LOCK_WAIT = 600.0  # seconds a second regen waits for the first before it gives up


class LockError(DocpipeError):
    """Another regen holds the lock; nothing was written."""

    kind = RUN


# A file being written is first `.<name>.<pid>.<random>.tmp` beside it; the old version of a
# file a batch replaces or deletes is kept as `.<name>.<pid>.<random>.old` until the batch
# lands. The pid says whose they are: a later regen removes those whose process is gone.
# (One without a pid is from a runner older than this rule: nobody writes such a name now.)
LEFTOVER = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.)?[^.]+\.(?:tmp|old)$")
# Where a batch writes: the recorded outputs and notebooks (each in folders of its own), and
# files directly in .cache/ (regen's cache) and verified/ (--verify's results). Only these are
# searched: .cache/verify/ holds a virtual environment pip wrote (50,000 files, none of them ours).
WRITTEN = {"docs/generated": True, "docs/notebooks": True, ".cache": False, "verified": False}


class WriteError(DocpipeError):
    """Writing failed (a read-only folder, a full disk): the path and why; nothing was changed."""

    kind = RUN


def _staged(path: Path, data: bytes, kind: str = "tmp") -> str:
    """`data` in a new file beside `path`, on disk (fsync), not yet in its place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=f".{kind}"
    )
    try:
        with memoryview(data) as rest:
            while rest:
                rest = rest[os.write(fd, rest) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


class Batch:
    """Writes and deletions that land all together or not at all: each file is replaced
    atomically, its old version kept aside until commit(); rollback() puts every old version
    back (and removes every new file) when anything fails on the way."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.done: list[tuple[Path, str | None]] = []  # (path, its old version aside or None)

    def _aside(self, path: Path) -> str | None:
        """Keep the old version of `path` beside it (a hard link: no copy), if it has one."""
        if not path.exists():
            return None
        backup = os.fspath(path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.old"))
        try:
            os.link(path, backup)
        except OSError:  # a file system without hard links
            backup = _staged(path, path.read_bytes(), "old")
        return backup

    def _ours(self, path: Path) -> None:
        """A batch writes only where `leftovers` looks for what a killed one left (WRITTEN)."""
        rel = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(self.project.root)))
        folder = rel.parent.as_posix()
        if not any(
            folder == f or (below and folder.startswith(f + "/")) for f, below in WRITTEN.items()
        ):
            raise ValueError(f"{rel}: a batch writes only in {', '.join(WRITTEN)} (WRITTEN)")

    def write(self, path: Path, data: bytes) -> bool:
        """Put `data` at `path` unless it is there already; True when it changed."""
        self._ours(path)
        with _naming(path):
            if path.is_file() and path.read_bytes() == data:
                return False
            tmp = _staged(path, data)
            try:
                backup = self._aside(path)
            except BaseException:
                os.unlink(tmp)
                raise
            self.done.append((path, backup))
            os.replace(tmp, path)
        return True

    def delete(self, path: Path) -> bool:
        self._ours(path)
        with _naming(path):
            if not path.exists():
                return False
            self.done.append((path, self._aside(path)))
            os.unlink(path)
        return True

    def rollback(self) -> list[str]:
        """Put every old version back; return the files that could not be (none, normally:
        a rename in a folder where we have just written needs no room)."""
        stuck = []
        for path, backup in reversed(self.done):
            try:
                if backup:
                    os.replace(backup, path)
                else:
                    path.unlink(missing_ok=True)
            except OSError:
                stuck.append(self.project.rel(path))
        self.done.clear()
        return stuck

    def commit(self) -> None:
        for _, backup in self.done:
            if backup:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(backup)
        self.done.clear()


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An OSError about a file of ours (its temporary file, its old version) names the file."""
    try:
        yield
    except OSError as e:
        raise OSError(e.errno, e.strerror or str(e), os.fspath(path)) from None


@contextlib.contextmanager
def batch(project: Project) -> Iterator[Batch]:
    """A Batch that commits when the block ends, and rolls back on any exception; an OSError
    is raised again as WriteError naming the path (nothing was changed)."""
    b = Batch(project)
    try:
        yield b
    except OSError as e:
        stuck = b.rollback()
        where = project.rel(Path(e.filename)) if e.filename else None
        also = f" (and {', '.join(stuck)} could not be put back)" if stuck else ""
        raise WriteError(f"{e.strerror or e}{also}", where) from None
    except BaseException:
        b.rollback()
        raise
    b.commit()


def replace(files: dict[Path, bytes], stale: set[Path], into: Batch) -> list[Path]:
    """Write changed files and delete stale ones; return what changed on disk."""
    changed = [path for path, data in sorted(files.items()) if into.write(path, data)]
    return changed + [path for path in sorted(stale - set(files)) if into.delete(path)]


def leftovers(project: Project) -> list[Path]:
    """Temporary files and set-aside old versions a killed regen left (its process is gone)."""
    found = []
    for folder, below in WRITTEN.items():
        for dirpath, subfolders, names in os.walk(project.root / folder):
            if not below:
                subfolders.clear()
            for name in names:
                m = LEFTOVER.match(name)
                if m and not (m["pid"] and alive(int(m["pid"]))):
                    found.append(Path(dirpath) / name)
    return sorted(found)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return pid > 0


def repair(project: Project) -> list[Path]:
    """Remove what killed regens left behind; return what was removed."""
    removed = []
    for path in leftovers(project):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


@contextlib.contextmanager
def exclusive(project: Project, wait: float = REGEN_LOCK_WAIT) -> Iterator[None]:
    """Hold the regen lock; a second regen waits for it, saying so, and refuses after `wait`."""
    from filelock import FileLock, Timeout

    lock = FileLock(project.root / LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:  # first: filelock's Timeout is an OSError (TimeoutError) too
        print(f"another regen.py holds {LOCK}; waiting up to {wait:g} s", file=sys.stderr)
        try:
            lock.acquire(timeout=wait)
        except Timeout:
            raise LockError(
                f"another regen.py still holds {LOCK} after {wait:g} s; nothing was written"
            ) from None
    except OSError as e:  # a read-only checkout, a folder of another user's
        raise WriteError(
            f"{project.root}: the checkout is not writable ({e.strerror}: regen takes its lock"
            f" {LOCK} there and writes docs/generated/, docs/notebooks/ and .cache/);"
            " nothing was run or written. `regen.py --check` writes nothing: it runs here",
            None,
        ) from None
    try:
        yield
    finally:
        lock.release()

"""Writing generated files: each one replaced atomically, one regen at a time."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .paths import ROOT, rel

LOCK = ROOT / ".regen.lock"
LOCK_WAIT = 600.0  # seconds a second regen waits for the first before it gives up


class LockError(Exception):
    pass


def write_atomic(path: Path, data: bytes) -> None:
    """The file holds either its old bytes or `data`, never a mix, whatever interrupts us."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def replace(files: dict[Path, bytes], stale: set[Path]) -> list[Path]:
    """Write changed files and delete stale ones; return what changed on disk."""
    changed = []
    for path, data in sorted(files.items()):
        if not path.exists() or path.read_bytes() != data:
            write_atomic(path, data)
            changed.append(path)
    for path in sorted(stale - set(files)):
        path.unlink(missing_ok=True)
        changed.append(path)
    return changed


@contextlib.contextmanager
def exclusive(wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the regen lock; a second regen waits for it, saying so, and refuses after `wait`."""
    from filelock import FileLock, Timeout

    lock = FileLock(LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        print(f"another regen.py holds {rel(LOCK)}; waiting up to {wait:g} s", file=sys.stderr)
        try:
            lock.acquire(timeout=wait)
        except Timeout:
            raise LockError(
                f"another regen.py still holds {rel(LOCK)} after {wait:g} s; nothing was written"
            ) from None
    try:
        yield
    finally:
        lock.release()

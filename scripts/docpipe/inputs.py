"""Results kept per call, keyed on the files the call read: a page's rule results are found again
only when one of its inputs changed (`mkdocs serve` re-checks the pages a save touched, not the
site).

`memo(key, also)` wraps a function of the page side. The first call with a key runs it while
recording every file and folder it opens, stats or lists (in this thread: io.open, os.stat,
os.scandir and os.listdir, through which pathlib does all of these), and keeps its result with
the size and modification time of each. A later call with the same key returns the kept result
when none of them changed, and runs the function again otherwise. A call inside another's
recording adds its files to the outer one too, even when it is answered from its own cache, so
the outer result is never kept past a change of an inner input. What a function learns other
than from files (its arguments, a loaded catalog) belongs in its key or in `also`, the files
that stand for it (snippets.toml for the catalog). An exception is never kept.
"""

from __future__ import annotations

import functools
import io
import os
import threading
from collections.abc import Callable

_local = threading.local()
_installed = False
_install_lock = threading.Lock()

_open, _stat, _scandir, _listdir = io.open, os.stat, os.scandir, os.listdir


def _note(path, seen: tuple[int, int] | None | bool = False) -> None:
    """Add the file to each recording of this thread, with its state when first seen (`seen`:
    the state a kept result was found with)."""
    recording = getattr(_local, "recording", None)
    if recording and isinstance(path, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(path))
        for files in recording:
            if path not in files:
                files[path] = state(path) if seen is False else seen


def note(path, seen: tuple[int, int] | None) -> None:
    """Note a file read before (a page of docpipe.pages.reading.Pages), with its state when
    read, in each recording of this thread: as if it were opened now, at that state."""
    _note(path, seen)


def _traced_open(file, *args, **kwargs):
    _note(file)
    return _open(file, *args, **kwargs)


def _traced_stat(path, *args, **kwargs):
    _note(path)
    return _stat(path, *args, **kwargs)


def _traced_scandir(path="."):
    _note(path)
    return _scandir(path)


def _traced_listdir(path="."):
    _note(path)
    return _listdir(path)


def _install() -> None:
    """Route io.open, os.stat, os.scandir and os.listdir through the recorders, once; outside
    a recording they cost one attribute lookup."""
    global _installed
    with _install_lock:
        if _installed:
            return
        io.open = _traced_open
        import builtins

        builtins.open = _traced_open
        os.stat = _traced_stat
        os.scandir = _traced_scandir
        os.listdir = _traced_listdir
        _installed = True


def state(path: str) -> tuple[int, int] | None:
    """What a change of the file or folder changes: its modification time and size (None: it
    does not exist)."""
    try:
        st = _stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


LIMIT = 1024  # results kept per function: a long `mkdocs serve` keeps a page's text per save


class Kept:
    """Calls of one function: key -> (result, {file: state}); and how often each was found
    again (`runs`) or answered (`kept`), for the tests and the benchmark."""

    def __init__(self) -> None:
        self.results: dict = {}
        self.lock = threading.Lock()
        self.runs = 0
        self.kept = 0


def _copy(result):
    """A caller may extend a list it was given: never the kept one."""
    return type(result)(result) if isinstance(result, (list, dict, set)) else result


def memo(key: Callable, also: Callable | None = None):
    """Keep the function's results per key(*args, **kwargs), each until a file it read changes
    (or one of also(*args, **kwargs))."""

    def wrap(function):
        kept = Kept()

        @functools.wraps(function)
        def call(*args, **kwargs):
            _install()
            k = key(*args, **kwargs)
            extra = [os.path.abspath(p) for p in (also(*args, **kwargs) if also else ())]
            with kept.lock:
                found = kept.results.get(k)
            if found is not None and all(state(f) == s for f, s in found[1].items()):
                kept.kept += 1
                for f, s in found[1].items():
                    _note(f, s)  # an outer recording depends on these too
                return _copy(found[0])
            # each file with its state when first read: one changed while the function ran is
            # found again next time
            files = {f: state(f) for f in extra}
            recording = getattr(_local, "recording", None)
            if recording is None:
                recording = _local.recording = []
            recording.append(files)
            try:
                result = function(*args, **kwargs)
            finally:
                recording.pop()
            for f, s in files.items():
                _note(f, s)  # an outer recording: `also` of this call too
            with kept.lock:
                kept.results.pop(k, None)
                kept.results[k] = (result, files)  # the newest last
                while len(kept.results) > LIMIT:  # bounded: the oldest goes first
                    kept.results.pop(next(iter(kept.results)))
                kept.runs += 1
            return _copy(result)

        call.kept = kept
        return call

    return wrap

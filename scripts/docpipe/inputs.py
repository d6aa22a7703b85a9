"""Results kept per call, keyed on the files the call read: a page's rule results are found again
only when one of its inputs changed (`mkdocs serve` re-checks the pages a save touched, not the
site).

`memo(key, also)` wraps a function of the page side. The first call with a key runs it while
recording every file and folder it opens, stats or lists (in this thread: io.open, os.stat,
os.scandir and os.listdir, through which pathlib does all of these), and keeps its result with
the state of each (a file's size and modification time, a folder's entries). A later call with
the same key returns the kept result when none of them changed, and runs the function again
otherwise. A call inside another's recording adds its files to the outer one too, even when it
is answered from its own cache, so the outer result is never kept past a change of an inner
input. What a function learns other than from files (its arguments, a loaded catalog) belongs
in its key or in `also`, the files that stand for it (snippets.toml for the catalog). An
exception is never kept. `listing` marks a function that asks which files exist, not what they
hold: inside it only the folders listed are inputs. `recording()` records the files a block
reads (what `mkdocs serve` keeps a page's HTML on), `unchanged()` tells whether they still are
as recorded, and `unrecorded()` marks a block whose reads are no one's input (a digest of every
file, itself the key of what it stands for).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import stat
import threading
from collections.abc import Callable, Iterator

_local = threading.local()
_installed = False
_install_lock = threading.Lock()

_open, _stat, _scandir, _listdir = io.open, os.stat, os.scandir, os.listdir


def _note(path, seen: tuple | None | bool = False, listed: bool = True) -> None:
    """Add the file to each recording of this thread, with its state when first seen (`seen`:
    the state a kept result was found with). `listed`: False when the path was only stat-ed
    (exists(), is_dir()): a folder then counts as being one, not as what it holds; a later
    listing of it in the same recording makes its entries count."""
    recording = getattr(_local, "recording", None)
    if recording and isinstance(path, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(path))
        for files in recording:
            known = files.get(path, _UNSEEN)
            if known is _UNSEEN or (known == FOLDER and listed and seen is not FOLDER):
                files[path] = state(path, listed) if seen is False else seen


_UNSEEN = object()
FOLDER = ("a folder",)  # the state of a folder only stat-ed: that it is one (a listed
# folder's state starts with "folder": an empty one is ("folder",))


def note(path, seen: tuple | None) -> None:
    """Note a file read before (a page of docpipe.pages.reading.Pages), with its state when
    read, in each recording of this thread: as if it were opened now, at that state."""
    _note(path, seen)


def _listing() -> bool:
    return getattr(_local, "listing", 0) > 0


def _traced_open(file, *args, **kwargs):
    if not _listing():
        _note(file)
    return _open(file, *args, **kwargs)


def _traced_stat(path, *args, **kwargs):
    if not _listing():
        _note(path, listed=False)
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
    if _installed:
        return
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


def _seen(path: str, listed: bool = True) -> tuple | None:
    """The file's state as unchanged() compares it: in a snapshot of this thread, looked up
    once per snapshot."""
    looked = getattr(_local, "looked", None)
    if looked is None:
        return state(path, listed)
    found = looked.get(path, _UNSEEN)
    if found is _UNSEEN:
        found = looked[path] = state(path, True)  # a folder with its entries: asked or not
    if not listed and found is not None and found[0] == "folder":
        return FOLDER
    return found


def start_snapshot() -> None:
    """From now on until end_snapshot(), in this thread, unchanged() looks up each file's state
    once and then takes it as it was (a build: each page's kept results ask whether the same
    files changed, again and again; looking them up anew made the most of a preview's time).
    A file read is still noted with its state as it is read: a kept result a file changed
    under during the build is found again by the next build (which that save asks for), even
    when the file comes back to the state first looked at. Starting one drops what an earlier
    one that never ended looked up."""
    _local.looked = {}


def end_snapshot() -> None:
    _local.looked = None


@contextlib.contextmanager
def snapshot() -> Iterator[None]:
    """A block that looks up each file's state once, as a build does (start_snapshot): a check
    of the whole site asks again and again whether the same pages and snippets changed. Inside
    a snapshot already (a build's), the block is part of it."""
    if getattr(_local, "looked", None) is not None:
        yield
        return
    start_snapshot()
    try:
        yield
    finally:
        end_snapshot()


def state(path: str, listed: bool = True) -> tuple | None:
    """What a change of the file or folder changes (None: it does not exist): a file's
    modification time and size; a folder's entries, each name and whether it is a folder. A
    file replaced in a folder (a regen writes each output to a temporary file, then renames it
    over the old one) changes the folder's modification time but not what a listing of it
    returns: the file itself, if read, is an input of its own. A folder not `listed` (only
    stat-ed) has the state FOLDER whatever it holds: a file added to it (a lock, an editor's
    swap file) changes nothing for whoever only asked whether it is there."""
    try:
        st = _stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return st.st_mtime_ns, st.st_size
    if not listed:
        return FOLDER
    try:
        with _scandir(path) as entries:
            return ("folder", *sorted((e.name, e.is_dir()) for e in entries))
    except OSError:
        return ("folder", st.st_mtime_ns)  # cannot be listed: any change of it counts


@contextlib.contextmanager
def recording(files: dict | None = None) -> Iterator[dict]:
    """Record into the dict given (or a new one), and yield it: every file this thread reads
    in the block, with its state when first read (path -> state). Each outer recording gets
    them too when the block ends, even when it raised."""
    _install()
    files = {} if files is None else files
    stack = getattr(_local, "recording", None)
    if stack is None:
        stack = _local.recording = []
    stack.append(files)
    try:
        yield files
    finally:
        stack.pop()
        for f, s in files.items():
            _note(f, s)


def unchanged(files: dict) -> bool:
    """Whether every file of a recording is still in the state it was recorded in."""
    return all(_seen(f, s != FOLDER) == s for f, s in files.items())


@contextlib.contextmanager
def unrecorded() -> Iterator[None]:
    """A block whose reads go into no recording of this thread (memos inside it record their
    own as always)."""
    outer = getattr(_local, "recording", None)
    _local.recording = []
    try:
        yield
    finally:
        _local.recording = outer


LIMIT = 1024  # results kept per function: a long `mkdocs serve` keeps a page's text per save


class Kept:
    """Calls of one function: key -> (result, {file: state}); and how often each was found
    again (`runs`) or answered (`kept`), for the tests and the benchmark."""

    def __init__(self) -> None:
        self.results: dict = {}
        self.lock = threading.Lock()
        self.runs = 0
        self.kept = 0
        _EVERY.append(self)


_EVERY: list[Kept] = []


def forget() -> None:
    """Drop every kept result (a test compares a kept answer with a fresh one)."""
    for kept in _EVERY:
        with kept.lock:
            kept.results.clear()


def _copy(result):
    """A caller may extend a list it was given: never the kept one."""
    return type(result)(result) if isinstance(result, (list, dict, set)) else result


def listing(function: Callable) -> Callable:
    """For a function whose result is which files exist (a folder's listing, filtered by the
    kind of each entry), not what they hold: a recording around it keeps the folders it lists,
    not each file it stats or opens, so that saving a file it listed does not invalidate the
    results that called it. A file added, removed or renamed changes its folder's modification
    time, which the recording keeps."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        depth = getattr(_local, "listing", 0)
        _local.listing = depth + 1
        try:
            return function(*args, **kwargs)
        finally:
            _local.listing = depth

    return call


def memo(key: Callable, also: Callable | None = None, install: bool = True):
    """Keep the function's results per key(*args, **kwargs), each until a file it read changes
    (or one of also(*args, **kwargs)). With install=False, for a function the runner's sealed
    child calls too: kept only in a process where a page-side call has already routed the file
    functions through the recorders; elsewhere it runs each time and changes nothing."""

    def wrap(function):
        kept = Kept()

        @functools.wraps(function)
        def call(*args, **kwargs):
            if not install and not _installed:
                return function(*args, **kwargs)
            _install()
            k = key(*args, **kwargs)
            extra = [os.path.abspath(p) for p in (also(*args, **kwargs) if also else ())]
            with kept.lock:
                found = kept.results.get(k)
            if found is not None and unchanged(found[1]):
                kept.kept += 1
                for f, s in found[1].items():
                    _note(f, s)  # an outer recording depends on these too
                return _copy(found[0])
            # each file with its state when first read: one changed while the function ran is
            # found again next time
            with recording({f: state(f) for f in extra}) as files:
                result = function(*args, **kwargs)
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

"""Run one snippet inside a fresh child process, exactly as `python snippets/<key>.py` would.

The job (docpipe.run.messages.Job) names the snippet's key and its project's root: the child
runs that project's snippet, sealed to that root, whichever project the zygote ran before.

The child owns everything a snippet can change (globals, seeds, grad mode, default dtype, cwd,
open figures, sys.argv), so nothing leaks into the next snippet. It writes what the snippet
printed to `output` and a JSON summary to `result`; the parent reads both after the child exits.

It is sealed before the snippet runs (docpipe.run.landlock): it and every process it starts may
change files only in the job's folder, and read, of the repository, only what `readable_inside`
names. It is the reaper of every process it starts: whatever still runs when the snippet ends
is killed and named. Standard input reads nothing (an error names the line), every file it
writes is capped at FILE_CAP, and bytecode is read and written only in the job's folder.
"""

from __future__ import annotations

import builtins
import contextlib
import encodings.utf_8_sig  # noqa: F401  (decodes every snippet: imported before it runs)
import errno
import faulthandler
import functools
import hashlib
import importlib.util
import io
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path

from docpipe import sections
from docpipe.run import (
    cgroups,
    figures,
    landlock,
    ledger,
    messages,
    namespaces,
    processes,
    seccomp,
    sourceonly,
    splits,
    supervisor,
    timing,
)
from docpipe.run.messages import Job, Result

try:
    import resource
except ImportError:  # Windows
    resource = None
from docpipe import PACKAGE
from docpipe.catalog import DEFAULT_MEMORY
from docpipe.project import ABSENT, Project, Snippet
from docpipe.recorded import fingerprints
from docpipe.statuses import RunStatus

# The fixed environment of every run. None of it changes a result; it makes runs repeatable.
RUN_ENV = {
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "PYTHONIOENCODING": "utf-8",
    "TZ": "UTC",
    "SOURCE_DATE_EPOCH": "0",
}


FILE_CAP = 64 << 20  # bytes: the most a run may write to one file (its output among them)
NO_LANDLOCK = "DOCPIPE_NO_LANDLOCK"  # set (to 1): run as on a kernel without Landlock (tests)


def enclosed_main(job: Job) -> int:
    """Entry point of the child the zygote forks: child_main(job) in a PID namespace of its
    own (docpipe.run.namespaces.enclose), so that nothing the run starts outlives it; the exit
    code to leave with (negative: the signal that killed the run)."""
    if timing.forked_at:
        timing.since("fork", timing.forked_at)
    if not _namespaced():
        child_main(job)
        return 0
    try:
        memory = job.memory or DEFAULT_MEMORY
        with timing.step("data files"):
            project = Project(job.root)  # which data files it opens: namespaces.Notes.unread
            global _data_files
            _data_files = fingerprints.data_files(project)  # the run's too (_unseen_reads)
            data = [str(project.root / d) for d in _data_files]
        return namespaces.enclose(functools.partial(_enclosed, job), memory, job.notes, data)
    except OSError as e:  # the run fails, naming its snippet (child_main)
        child_main(job, f"a PID namespace ({e})")
        return 0


def spawned_main(job: Job) -> None:
    """Entry point of a spawned child (no zygote: pool._run_spawned): enclosed_main(job), left
    with its exit status or killed by the signal that killed the run."""
    with contextlib.suppress(OSError, AttributeError):  # no process groups on Windows
        os.setpgid(0, 0)  # a group of its own: the terminal's Ctrl-C is regen's to handle
    code = enclosed_main(job)
    if code < 0:
        with contextlib.suppress(OSError, ValueError):  # SIGKILL's cannot be set
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.stdout.flush()
    os._exit(code)


# The data files there were when the run's child started (fingerprints.data_files): the ones
# its namespace's init watches (docpipe.run.opened), listed once for the run too.
_data_files: list[str] | None = None


def _namespaced() -> bool:
    """Whether runs get namespaces (docpipe.run.namespaces): on Linux, unless NO_LANDLOCK asks
    for a run as on a kernel without Landlock (the tripwire's case). Elsewhere there are none,
    and the tripwire compares the repository before and after each run."""
    return sys.platform == "linux" and not os.environ.get(NO_LANDLOCK)


def contained() -> str:
    """Why this machine's runs are contained rather than given namespaces of their own
    (docpipe.run.namespaces.unavailable()); "" when they have them, or have no seal at all."""
    if not _namespaced() or not sealable():
        return ""
    return namespaces.unavailable()


def _enclosed(job: Job) -> int:
    try:
        child_main(job)
        return 0
    except BaseException:
        traceback.print_exc()
        return 1


def child_main(job: Job, not_enclosed: str = "") -> None:
    """Entry point of the child process (forked or spawned). `not_enclosed`: why
    enclosed_main() could not give it a PID namespace (the run then fails)."""
    began = time.perf_counter_ns()
    result = Result()
    project = Project(job.root)
    inside = _Repository(project)
    imports = _ImportRecorder(inside)
    snippet = project.snippet(job.key)
    workdir = Path(job.workdir)
    scratch = workdir / "scratch"
    _reap_descendants()
    _no_input()
    _job_folders(inside, workdir)
    os.environ.update(RUN_ENV)
    _limit_threads(job.threads)
    reseed()
    timing.since("run set-up", began)
    # NO_LANDLOCK runs as on a kernel without it: the tripwire's case, namespaces left out too
    contained = _namespaced() and bool(namespaces.unavailable())
    unisolated = not_enclosed or _isolate(project, workdir, contained) if _namespaced() else ""
    result.sealed = _seal(project, workdir, not unisolated, contained)
    if _namespaced() and not unisolated:
        with timing.step("capabilities"):
            unisolated = _drop_capabilities()
    began = time.perf_counter_ns()
    # Warning filters stay as the zygote has them: CPython's defaults plus what torch and numpy
    # add when they are imported, as in a reader's process.
    started_by = _watch_repository_files(inside, result)
    stream = _capture_output(job.output)
    # At its timeout the pool asks the run where it is (STACK_SIGNAL) before it kills it: every
    # thread's Python stack goes into its output, written by the interpreter's C handler, so
    # however the snippet hangs (a sleep, a busy loop, a lock).
    faulthandler.register(STACK_SIGNAL, file=stream, all_threads=True, chain=False)
    _cap_files()
    _cap_memory(job.memory or DEFAULT_MEMORY)
    _cap_processes()
    try:
        if unisolated:
            raise _Failure(f"the runner could not isolate its run: {unisolated}", snippet.name)
        os.chdir(scratch)
        global _started_in
        _started_in = snippet, scratch
        module = _main_module(snippet)
        # From here on, what is imported is the snippet's (and its figure code's): what the
        # runner imported to set the run up (numpy.random, to reseed it) is no preload of it.
        sys.meta_path.insert(0, imports)
        timing.since("run set-up", began)
        try:
            split = _split(snippet, result, job.split)
        finally:
            _wait_for_supervisor()
        started = time.perf_counter()
        kept = dict(vars(builtins))  # what the runner's own code after the run relies on
        try:
            try:  # its figure code is loaded first (it may observe the run)
                observed = figures.observing(snippet)
            except Exception as e:
                raise _figure_failure(snippet, e) from None
            with observed:
                _run_chunks(snippet, module, stream, result, split)
        finally:
            vars(builtins).update(kept)  # a snippet's builtins.len = ... ends with its run
            _end_what_it_started(snippet, result, stream, started_by)
        result.run_seconds = time.perf_counter() - started
        began = time.perf_counter_ns()
        _note_local_modules(inside, result, imports)
        # What the page shows ends here: values and figures must not print into it.
        _capture_output(workdir / "aside.txt")
        if result.status == RunStatus.OK:
            result.values = _values(snippet, job.values, vars(module))
            started = time.perf_counter()
            result.figures = _figures(snippet, vars(module))
            result.figure_seconds = time.perf_counter() - started
            _note_local_modules(inside, result, imports)
        if not snippet.figure_code.exists():
            result.inputs[inside.relative(snippet.figure_code)] = ABSENT
        result.reads = _unseen_reads(snippet, result.inputs)
        timing.since("after the run", began + int(result.figure_seconds * 1e9))
    except _Failure as failure:  # first: what it left running is said after it
        result.fail(failure.message, failure.path, failure.line, first=True)
    except BaseException as e:  # a fault of the runner itself: still report it, never crash
        failed = "the runner failed: " + "".join(traceback.format_exception(e))
        result.fail(failed, snippet.name, first=True)
    finally:
        _wait_for_supervisor()  # a run that failed before its snippet: the init joins it alive
        sys.stdout.flush()
        with contextlib.suppress(OSError):
            os.chdir(project.root)
    result.steps = timing.STEPS
    _write_result(job.result, messages.encode_result(result))


def _wait_for_supervisor() -> None:
    """Wait for the supervisor (supervisor.wait_ready), once: before the snippet's first line,
    and before a run that failed earlier ends (the supervisor joins the run while it lives)."""
    if namespaces.supervisor_line is not None:
        with timing.step("supervisor"):  # what the run's own set-up did not cover of it
            supervisor.wait_ready(namespaces.supervisor_line)
        namespaces.supervisor_line = None


STACK_SIGNAL = signal.SIGRTMIN + 7  # a signal no library uses: "say where you are"


# Taken at import, before any snippet runs: a snippet may replace json.dumps (messages takes
# its own), builtins.open or os.write for its own process, never for how its result is written.
# The parent checks the result anyway (messages.decode_result): whatever a snippet corrupts is
# its own failure.
_os_open, _os_write, _os_close = os.open, os.write, os.close


def _write_result(path: Path, data: bytes) -> None:
    fd = _os_open(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while data:
            data = data[_os_write(fd, data) :]
    finally:
        _os_close(fd)


def readable_inside(project: Project) -> list[Path]:
    """What of the repository a sealed run may read: fingerprints.data_folders(), the runner
    itself, the site settings (mkdocs.yml and the scripts), the pages and the recorded runs
    beside them (a snippet about the runner reads them, as the authoring page's run of the
    page rules reads descend.py's recorded values: an audited read, so an input its cache
    entry is keyed on; never the notebooks), and an environment kept in the repository (a
    .venv). Everything outside it stays readable."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    pages = []
    with contextlib.suppress(OSError), os.scandir(project.docs) as entries:
        pages = [Path(e.path) for e in entries if e.path != str(project.notebooks)]
    # The site settings and the scripts MkDocs' loader reads with them (the hooks): a snippet
    # about the pages reads them through Project.site, an audited read like the pages.
    site = [project.config_file, project.root / "scripts"]
    data = fingerprints.data_folders(project)
    return [*data, PACKAGE, *site, *pages, *map(Path, sorted(prefixes))]


@functools.cache
def outside_repository(root: str) -> tuple[str, ...]:
    """What a sealed run may read outside the project: computed once per project in the zygote
    (before it forks that project's first child); the folders above a root seldom change."""
    return tuple(landlock.everything_but(root, ()))


def sealable() -> bool:
    """Whether a run's child can seal itself (else the parent uses docpipe.run.tripwire)."""
    return not os.environ.get(NO_LANDLOCK) and landlock.abi() >= 1


def _isolate(project: Project, workdir: Path, contained: bool = False) -> str:
    """The run's namespaces and socket filter (docpipe.run.namespaces, docpipe.run.seccomp):
    "" when it has them, else what the kernel refused. A contained run (no namespaces to be
    had: namespaces.unavailable()) gets the filter alone, in its stricter form."""
    # what the run imports from stays where it is: the project, the interpreter, and every
    # folder of sys.path (PYTHONPATH's too), should it lie in a folder made private
    found = [p for p in sys.path if p and os.path.isdir(p)]
    keep = [project.root, sys.prefix, sys.base_prefix, sys.exec_prefix, *found]
    listener = -1
    with timing.step("user folders"):
        _make_user_folders()
    try:
        why = "" if contained else namespaces.isolate(workdir, map(str, keep))
        if not why:
            with timing.step("seccomp"):
                listener, why = seccomp.install(contained)
    finally:  # the supervisor answers its connect() calls (docpipe.run.supervisor)
        with timing.step("hand-over"):
            supervisor.hand_over(namespaces.supervisor_line, listener, namespaces.data_watch)
        namespaces.data_watch = None
    return why


def _make_user_folders() -> None:
    """The user's configuration and cache folders (XDG's), and matplotlib's folders and font
    cache in them, made if missing, before the run's mounts make the home folder read-only. A
    reader's machine has them after matplotlib's first import; a new user's may not (matplotlib
    never ran unsealed there, say a first regen --no-fork), and namespaces.isolate overlays
    only folders that exist, where Landlock refuses anything new: matplotlib would warn into
    the output that it could make neither."""
    home = os.path.expanduser("~")
    folders = [
        os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
        os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"),
    ]
    with contextlib.suppress(OSError):  # the run says what it could not do, as before
        for folder in folders:
            os.makedirs(folder, exist_ok=True)
    if os.environ.get("MPLCONFIGDIR") or not importlib.util.find_spec("matplotlib"):
        return  # MPLCONFIGDIR names matplotlib's folder: the run's warnings name it too
    if not list(Path(folders[1], "matplotlib").glob("fontlist-*.json")):
        # matplotlib's first import, in a process of its own: this one's stays the snippet's
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            code = "import matplotlib.font_manager"
            subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)


def _drop_capabilities() -> str:
    """After the seal: this process and all it starts keep no capability (namespaces)."""
    try:
        namespaces.drop_capabilities()
    except OSError as e:
        return str(e)
    return ""


def _seal(project: Project, workdir: Path, isolated: bool = False, contained: bool = False) -> str:
    """Restrict this process for good, as the module docstring says: "landlock", or "" where
    the kernel has none (the parent then compares the repository before and after the run)."""
    if os.environ.get(NO_LANDLOCK):
        return ""
    began = time.perf_counter_ns()
    root = str(project.root)
    inside = [str(p) for p in readable_inside(project) if str(p).startswith(root + os.sep)]
    outside = outside_repository(root)
    began = timing.since("landlock: paths", began)
    try:
        # its own (namespaces): shared memory, and pseudo-terminals (`pty`); a contained run's
        # shared memory is the machine's, which holds no job folder then (pool._in_memory)
        shared = [namespaces.SHARED_MEMORY, "/dev/pts", "/dev/ptmx"] if isolated else []
        if contained and isolated:
            shared = [namespaces.SHARED_MEMORY]
        landlock.restrict(
            [str(workdir), os.devnull, *shared],
            [*outside, *inside],
            listable=[str(project.snippets), str(project.docs), str(project.figure_code.parent)],
        )
    except OSError:  # landlock.Unavailable, or a kernel that refuses the ruleset
        return ""
    finally:
        timing.since("landlock", began)
    return "landlock"


def _job_folders(inside: _Repository, workdir: Path) -> None:
    """Temporary files go to the job's folder, never /tmp (processes the snippet starts
    inherit TMPDIR). The repository's modules import from their source (docpipe.run.sourceonly):
    never from a stale .pyc an edit within a second of it hides behind, and none is written."""
    for name in ("scratch", "tmp"):
        (workdir / name).mkdir(exist_ok=True)
    sys.dont_write_bytecode = True
    sourceonly.install(inside.root, inside.skipped)
    before = tempfile.gettempdir()
    tempfile.tempdir = str(workdir / "tmp")
    os.environ.update(TMPDIR=str(workdir / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    # A preload in the zygote (torch._dynamo) fixed torch.compile's cache folder under the
    # zygote's temporary folder, which the run may not write: torch finds it again, in the
    # job's folder, as a reader's torch finds it in theirs.
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
    if cache and Path(cache).is_relative_to(before):
        del os.environ["TORCHINDUCTOR_CACHE_DIR"]


class _NoInput(io.TextIOBase):
    """sys.stdin of a run: reading it is an error that names the snippet's line. A reader's
    terminal would wait for typing there; a recorded run has nobody to type."""

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 0

    def isatty(self) -> bool:
        return False

    def read(self, size: int | None = -1) -> str:
        raise RuntimeError(
            "a snippet may not read standard input: a recorded run has no terminal to type in"
        )

    readline = read

    def readlines(self, hint: int = -1) -> list[str]:
        return [self.read()]

    @property
    def buffer(self):
        """The binary side, which refuses reading the same way (comparing it, as MkDocs' config
        loader does with a file it was given, is no read)."""
        return _NoBinaryInput(self.read)


class _NoBinaryInput(io.RawIOBase):
    def __init__(self, refuse) -> None:
        self._refuse = refuse

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 0

    def readinto(self, buffer) -> int:
        self._refuse()
        return 0


def _no_input() -> None:
    # fd 0 is open for writing only: a process the snippet starts that reads it fails
    # (EBADF, "Bad file descriptor"), instead of reading nothing as from /dev/null.
    fd = os.open(os.devnull, os.O_WRONLY)
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)
    sys.stdin = sys.__stdin__ = _NoInput()


def _cap_memory(mebibytes: int) -> None:
    """No process of the run allocates more than its memory limit (Job.memory): a snippet
    that asks for more fails at the line that asked (MemoryError, or torch's "can't allocate
    memory"), which _why() says is the runner's limit. RLIMIT_DATA counts what a process
    allocates (its heap and private mappings), not the libraries it maps."""
    global _memory
    _memory = mebibytes
    if resource is not None:
        limit = mebibytes << 20
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _cap_processes() -> None:
    """A run that no pids control group limits (an ordinary user whom systemd delegates no
    group, as on GitHub's runners: cgroups.Group.pids) still starts at most cgroups.PIDS_MAX
    processes and threads: RLIMIT_NPROC, which the kernel counts per user namespace. So only
    where the run has a user namespace of its own (an ordinary user's sealed run:
    namespaces._unshare), whose count is the run's own processes (and its child's and init's);
    elsewhere it would count every process of the user: a contained run's, even in a user
    namespace the runner was started in (a container's), which the user's other processes
    share. Root's processes are never held to it."""
    if resource is None or namespaces.pids_group or not namespaces.own_user_namespace:
        return
    with contextlib.suppress(OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
        limit = cgroups.PIDS_MAX if hard == resource.RLIM_INFINITY else min(hard, cgroups.PIDS_MAX)
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))


def _cap_files() -> None:
    """No file a run writes, its output among them, grows past FILE_CAP: an endless print
    stops at once (OSError EFBIG for this process; a process it starts is killed by SIGXFSZ or
    gets EFBIG), instead of filling the job's file system until the timeout."""
    if resource is not None:  # not on Windows
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_CAP, FILE_CAP))


def _reap_descendants() -> None:
    """Make this process the reaper of every process the snippet starts: one whose parent ends
    (a daemon's double fork) is adopted by this process, not by init, so none escapes the
    sweep at the end of the run. Its own process group too, for the parent to kill at once."""
    if sys.platform == "linux":  # elsewhere the parent kills the process group at a timeout
        processes.reap_orphans()
        # and it ends with the zygote it was forked from, never running on as an orphan
        processes.die_with_parent()
    with contextlib.suppress(OSError, AttributeError):  # no process groups on Windows
        os.setpgid(0, 0)


def _exit_as_python_does() -> None:
    """What the interpreter's exit does for a snippet that used multiprocessing, done where the
    snippet ends (the run's process goes on to draw figures): its atexit function joins the
    processes it started and ends the daemonic ones, and its forkserver and resource tracker
    end as their pipes close. Whatever is still running after that, the reaper names."""
    util = sys.modules.get("multiprocessing.util")
    if util is None:
        return
    with contextlib.suppress(Exception):
        util._exit_function()
    for name, helper in (
        ("multiprocessing.forkserver", "_forkserver"),
        ("multiprocessing.resource_tracker", "_resource_tracker"),
    ):
        module = sys.modules.get(name)
        if module is not None:
            with contextlib.suppress(Exception):
                getattr(module, helper)._stop()


def _end_what_it_started(snippet: Snippet, result: Result, stream, started_by) -> None:
    """At the end of the snippet: kill what it left running and fail naming it; fail too when
    something it started printed after it ended (that output is not on its page)."""
    _exit_as_python_does()
    end = stream.tell()
    ended = processes.end_children()
    late = os.fstat(stream.fileno()).st_size - end
    refused = _refused_writes(snippet.project, stream, end) if started_by else []
    if not ended and late <= 0 and not refused:
        return
    lines = {line for command, line in started_by if line}
    exact = {line for command, line in started_by for _, c in ended if c == command and line}
    line = min(exact or (lines if len(lines) == 1 else {0}))
    said = []
    if ended:
        said.append(
            "left processes running when it ended, which the runner killed (what they would"
            f" have printed is not recorded): {processes.describe(ended)}"
        )
    if late > 0:
        said.append(f"a process it started printed {late} bytes after it ended (not recorded)")
    if refused:
        said.append(
            "a process it started was refused a write into the repository, which only the"
            f" scratch folder may take; it printed: {refused[0].strip()[:300]}"
        )
    if result.status == RunStatus.ERROR and not ended and late <= 0:
        return  # the snippet failed already, at its own line (a refusal it did not survive)
    result.fail("; ".join(said), snippet.name, line)


# The kernel's words for a refused write (Landlock answers EACCES; a link or rename across
# folders, EXDEV; the read-only mounts of docpipe.run.namespaces, EROFS), as a process the
# snippet starts prints them beside the path it was refused.
_REFUSALS = (os.strerror(errno.EACCES), os.strerror(errno.EXDEV), os.strerror(errno.EROFS))


def _refused_writes(project: Project, stream, end: int) -> list[str]:
    """Lines of the run's output in which a process the snippet started says that a path of
    the repository was refused it: the kernel refused that write (Landlock), and the process
    may have gone on without failing, so the runner fails the run instead."""
    # the output file, reopened through this process's own descriptor of it: the name in the
    # job's folder is the snippet's to replace
    with open(f"/proc/self/fd/{stream.fileno()}", "rb") as written:
        data = written.read(end).decode("utf-8", "replace")
    root = str(project.root) + os.sep
    return [
        line
        for line in data.splitlines()
        if root in line and any(refusal in line for refusal in _REFUSALS)
    ]


def _unseen_reads(snippet: Snippet, inputs: dict[str, str]) -> list[str]:
    """Result.reads: the data files a run could read that no audit hook sees it read (every
    one, fingerprints.data_files: the same list the regen cache and the check key on). The
    runner takes out those the kernel saw no process of the run open (Result.unread). A data
    file added while it ran is none of them: the next regen finds it new, and runs it again."""
    data = fingerprints.data_files(snippet.project) if _data_files is None else _data_files
    return sorted(set(data) - set(inputs))


def _figures(snippet: Snippet, namespace: dict) -> dict[str, str]:
    try:
        return figures.draw(snippet, namespace)
    except Exception as e:
        raise _figure_failure(snippet, e) from None


def _figure_failure(snippet: Snippet, e: Exception) -> _Failure:
    """The run's failure for an exception of its figure code, at the figure code's line."""
    code = str(snippet.figure_code)
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != __file__]
    inside = [
        f"{f.filename}:{f.lineno}"
        for f in frames
        if f.filename.startswith(str(snippet.figure_code.parent))
    ]
    if isinstance(e, SyntaxError) and e.filename:  # it never ran: no frame of it
        inside.append(f"{e.filename}:{e.lineno}" if e.lineno else e.filename)
        frames = []
    where = inside[-1] if inside else code
    detail = "".join(traceback.format_list(frames[-6:]))
    said = e.msg if isinstance(e, SyntaxError) else e
    return _Failure(
        f"its figure code failed at {snippet.project.rel(where)}:"
        f" {type(e).__name__}: {said}\n{detail}".rstrip("\n"),
        snippet.name,
    )


class _Failure(Exception):
    """The run fails with this message, placed in the file `path` at `line` (0: none)."""

    def __init__(self, message: str, path: str, line: int = 0):
        super().__init__(message)
        self.message, self.path, self.line = message, path, line


def _limit_threads(threads: int) -> None:
    # Several children share the cores: cap each one's pools so they do not fight over them.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def reseed() -> None:
    # A forked child inherits the parent's random state; a fresh interpreter would not.
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "torch" in sys.modules:
        # The CPU generator: a fresh interpreter seeds it from the OS, and seeds the others
        # (CUDA and the like) only when they start, which a forked child's have not.
        sys.modules["torch"].default_generator.seed()


class _Repository:
    """The project a run belongs to, as its audit hooks and import recorder see it: which path
    is a repository file the run depends on, and its path relative to the root."""

    def __init__(self, project: Project) -> None:
        self.root = str(project.root)
        # Never an input: the environment, git's store, the interpreter, and the runner's own
        # code (keyed as a whole by the cache, not per run).
        self.skipped = (
            str(project.root / ".venv"),
            str(project.root / ".git"),
            sys.prefix,
            sys.base_prefix,
            str(PACKAGE),
        )

    def input_path(self, path: str) -> str | None:
        """The repository file a read depends on (a .pyc stands for its source), or None."""
        path = os.path.abspath(path)
        if not path.startswith(self.root + os.sep) or path.startswith(self.skipped):
            return None
        if f"{os.sep}__pycache__{os.sep}" in path and path.endswith(".pyc"):
            import importlib.util

            try:
                path = importlib.util.source_from_cache(path)
            except ValueError:
                return None
        return path

    def relative(self, path: str | os.PathLike) -> str:
        return os.path.relpath(path, self.root)

    def fingerprint(self, result: Result, path: str) -> None:
        relative = self.relative(path)
        if relative not in result.inputs:
            try:
                with open(path, "rb") as f:
                    result.inputs[relative] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                result.inputs[relative] = ABSENT


class _ImportRecorder:
    """Names every module this run imports, and which of them were asked for by code that was
    already loaded (the snippet, its local modules, or a preloaded package importing lazily, as
    torch imports torch._dynamo on a first optimizer step). Those are the preloads of its next
    run (Result.preloads); the rest come with them. Reading new names off sys.modules instead
    would touch every name the zygote preloaded, and so copy the memory pages holding them."""

    def __init__(self, inside: _Repository) -> None:
        self.inside = inside
        self.names: list[str] = []
        self.seen: set[str] = set()
        self.preloads: list[str] = []

    def find_spec(self, name, path=None, target=None):
        frame = sys._getframe(1)
        while frame and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        caller = frame.f_globals.get("__name__") if frame else None
        local = frame is not None and self.inside.input_path(frame.f_code.co_filename) is not None
        if local or caller not in self.seen:
            self.preloads.append(name)
        self.names.append(name)
        self.seen.add(name)
        return None  # the next finder imports it


def _note_local_modules(inside: _Repository, result: Result, imports: _ImportRecorder) -> None:
    # An import can be served from a .pyc without opening the source: fingerprint the source of
    # every repository module the run imported. Local modules are never preloaded by the zygote.
    installed = set()
    for name in dict.fromkeys(imports.names):
        found = getattr(sys.modules.get(name), "__file__", None)
        path = inside.input_path(found) if isinstance(found, str) else None
        if path:
            inside.fingerprint(result, path)
        elif isinstance(found, str) and not found.startswith(str(PACKAGE)):
            installed.add(name)
    result.preloads = sorted(installed.intersection(imports.preloads))


# Audit events of a call that changes the file system, and the positions of its paths.
_FOLLOWED = {"os.link", "os.truncate", "os.chmod", "os.chown", "os.utime", "shutil.copyfile"}
_CHANGES = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.link": (0, 1),
    "os.symlink": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
    "shutil.move": (0, 1),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_STARTS = ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.fork", "os.spawn")


def _watch_repository_files(inside: _Repository, result: Result) -> list[tuple[list[str], int]]:
    """Fingerprint every repository file the run opens to read; refuse, by name, a Python
    call that would change one (the kernel refuses every route anyway, where it can: this
    names the file, and is what refuses where it cannot). Returns the list the hook fills
    with (command, snippet line) of every process the snippet starts."""
    busy = False
    started: list[tuple[list[str], int]] = []

    def refuse(path, follow: bool = True) -> None:
        if not isinstance(path, str | bytes | os.PathLike):
            return
        path = os.fsdecode(path)
        if follow:
            path = os.path.realpath(path)
        else:  # the call acts on a last link itself, not on what it points to
            path = os.path.join(
                os.path.realpath(os.path.dirname(path) or "."), os.path.basename(path)
            )
        path = inside.input_path(path)
        if path is None:
            return
        relative = inside.relative(path)
        if relative not in result.writes:
            result.writes.append(relative)
        raise PermissionError(f"snippets may not write into the repository ({relative})")

    def hook(event: str, args: tuple) -> None:
        nonlocal busy
        if busy:
            return
        if event == "open":
            if not isinstance(args[0], str | bytes | os.PathLike):
                return
            mode, flags = args[1], args[2] if len(args) > 2 else 0
            writing = any(c in mode for c in "wax+") if isinstance(mode, str) else False
            if isinstance(flags, int) and mode is None:
                writing = bool(flags & _WRITE_FLAGS)
            if writing:
                refuse(args[0])
                return
            path = inside.input_path(os.path.realpath(os.fsdecode(args[0])))
            if path is None:
                return
            busy = True  # fingerprinting opens the file too
            try:
                inside.fingerprint(result, path)
            finally:
                busy = False
        elif event in _CHANGES:
            for i in _CHANGES[event]:
                if i < len(args):
                    refuse(args[i], follow=event in _FOLLOWED)
        elif event.startswith(_STARTS):
            # os.fork has no arguments: its child runs the snippet's own code
            command = args[1] if event == "subprocess.Popen" else args[0] if args else []
            if isinstance(command, str | bytes):
                command = [os.fsdecode(command)]
            words = [os.fsdecode(c) for c in command or [] if isinstance(c, str | bytes)]
            started.append((words, _snippet_line()))

    sys.addaudithook(hook)
    return started


def _snippet_line() -> int:
    """The line of __main__'s code (the snippet) the current call came from, or 0."""
    frame = sys._getframe(1)
    main = sys.modules.get("__main__")
    source = getattr(main, "__file__", None)
    while frame is not None:
        if frame.f_code.co_filename == source:
            return frame.f_lineno
        frame = frame.f_back
    return 0


def _capture_output(path: Path) -> io.TextIOWrapper:
    # One file behind fd 1, fd 2, sys.stdout and sys.stderr: Python and C writes, stdout and
    # stderr, all land in the order a terminal would show them.
    stream = io.TextIOWrapper(
        io.FileIO(path, "w"), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    for fd in (1, 2):
        os.dup2(stream.fileno(), fd)
    sys.stdout = sys.stderr = stream
    return stream


def _main_module(snippet: Snippet) -> types.ModuleType:
    module = types.ModuleType("__main__")
    module.__file__ = str(snippet.source)
    module.__builtins__ = builtins
    module.__spec__ = None
    sys.modules["__main__"] = module
    sys.argv = [snippet.name]
    sys.path.insert(0, str(snippet.source.parent))
    return module


def _split(snippet: Snippet, result: Result, made: str = "") -> splits.Split:
    """The snippet's chunks (docpipe.sections), its claim sections' asserts counted in a ledger
    of its own: the parent's (`made`, docpipe.run.splits) when it split these very bytes, else
    split here; before the snippet's first line runs, while the run's supervisor and its
    groups are made ready (supervisor.wait_ready)."""
    source = snippet.source.read_bytes()
    read = splits.digest(source)
    result.inputs[os.path.relpath(snippet.source, snippet.project.root)] = read
    with timing.step("sections and ledger"):
        if (split := splits.taken(made, read)) is not None:
            return split
        text = source.decode("utf-8-sig")  # a byte order mark is allowed, as python allows it
        try:
            return splits.split(text, snippet.source, snippet.name)
        except SyntaxError as e:
            traceback.print_exception(e, limit=0)
            raise _Failure(f"SyntaxError: {e.msg}", snippet.name, e.lineno or 0) from None
        except sections.SectionError as e:
            raise _Failure(e.message, e.path or snippet.name, e.line or 0) from None


def _run_chunks(
    snippet: Snippet,
    module,
    stream,
    result: Result,
    split: splits.Split,
) -> None:
    chunks, claims = split
    watch = ledger.Watch()
    namespace = vars(module)
    for index, chunk in enumerate(chunks):
        claim = ledger.is_claim(chunk.section)
        watch.before(namespace, claim)
        later = _read_later(chunks[index + 1 :]) if claim else set()
        claims.guard = watch.guard(namespace, later) if claim else None
        code = ledger.bind(chunk.code, claims) if claim else chunk.code
        try:
            exec(code, namespace)
        except SystemExit as e:
            result.sections.append((chunk.section, stream.tell()))
            left = [c.section or "code outside sections" for c in chunks[index + 1 :]]
            if claim or left:
                result.failed_section, result.failed_line = (
                    chunk.section,
                    _innermost_line(e, snippet),
                )
                _claim_fault(
                    snippet,
                    result,
                    f"sys.exit() ended the run in section '{chunk.section}'"
                    + (f", before {', '.join(map(repr, left))} ran" if left else "")
                    + ": a snippet runs to its end, and a claim section never ends it",
                )
            _exit(snippet, e)
            return
        except BaseException as e:
            with contextlib.suppress(OSError):  # the output may be full (FILE_CAP)
                traceback.print_exception(e.with_traceback(e.__traceback__.tb_next))
            result.failed_section, result.failed_line = chunk.section, _innermost_line(e, snippet)
            raise _Failure(
                f"{type(e).__name__}: {e}{_why(e, result.sealed)}", snippet.name, result.failed_line
            ) from None
        claims.guard = None
        result.sections.append((chunk.section, stream.tell()))
        if not claim:
            watch.after_shown(namespace)
        elif changed := watch.after_claim(namespace, later):
            result.failed_section, result.failed_line = chunk.section, chunk.line
            _claim_fault(
                snippet,
                result,
                f"claim section '{chunk.section}' {'; '.join(changed)}: a claim checks and"
                " changes nothing the page's code made or later sections check (use names"
                " and tensors of its own)",
            )
    result.claims = claims.counts()
    for section, line, why in claims.faults():
        result.failed_section, result.failed_line = section, line
        _claim_fault(snippet, result, f"claim section '{section}': {why}")


def _read_later(later: list[sections.Chunk]) -> set[str]:
    """The names that code after a section reads as that section leaves them (before it binds
    them anew)."""
    reads: set[str] = set()
    bound: set[str] = set()
    for chunk in later:
        reads |= chunk.reads - bound
        bound |= chunk.binds
    return reads


def _claim_fault(snippet: Snippet, result: Result, message: str) -> None:
    """A claim that cannot fail: the run fails at its line (Result.failed_line), so the check
    names the pages whose sentences it was to back (docpipe.pages.claims.broken)."""
    result.cannot_fail = True
    raise _Failure(message, snippet.name, result.failed_line)


SEAL_RULE = (
    "a snippet may change files only in its scratch folder, and read, of the repository, only"
    " snippets/, the runner (scripts/) and the pages"
)


_memory = DEFAULT_MEMORY  # MiB: this run's limit (Job.memory), which _why() names
_started_in: tuple[Snippet, Path] | None = None  # the snippet and its scratch folder


def _not_from_the_root(e: BaseException) -> str:
    """What to say of a file not found by a path relative to the working directory that
    names a file of the repository: the run started in its scratch folder, not the root."""
    if _started_in is None or not isinstance(e, FileNotFoundError):
        return ""
    snippet, scratch = _started_in
    name = os.fsdecode(e.filename) if isinstance(e.filename, (str, bytes)) else ""
    there = snippet.project.root / name
    if not name or os.path.isabs(name) or not os.path.exists(there):
        return ""
    beside = Path(os.path.relpath(there, snippet.source.parent))
    up = len([p for p in beside.parts if p == ".."])
    rest = Path(*beside.parts[up:]).as_posix()
    base = "Path(__file__).parent" if not up else f"Path(__file__).resolve().parents[{up}]"
    return (
        f" (a run starts in an empty scratch folder, {scratch}, not the repository root, so"
        f" {name!r} is not found there: reach it from the snippet's own place,"
        f' {base} / "{rest}")'
    )


def _why(e: BaseException, sealed: str) -> str:
    """What the runner adds to an error its own limits caused (or may have caused)."""
    if isinstance(e, MemoryError) or "can't allocate memory" in str(e):
        return (
            f" (the runner limits a snippet's process to {_memory} MiB of memory:"
            " raise `memory` for it in snippets/snippets.toml)"
        )
    if hint := _not_from_the_root(e):
        return hint
    if isinstance(e, OSError) and e.errno == errno.EFBIG:
        cap = FILE_CAP >> 20
        return f" (the runner caps every file a run writes, its output among them, at {cap} MiB)"
    if not sealed:
        return ""
    if isinstance(e, OSError) and e.errno in (errno.EACCES, errno.EXDEV, errno.EROFS):
        return f" (refused by the runner: {SEAL_RULE})"
    if type(e).__name__ == "CalledProcessError":  # its output says what it was refused
        return f" (the runner holds every process a snippet starts to its rule: {SEAL_RULE})"
    return ""


def _exit(snippet: Snippet, e: SystemExit) -> None:
    if e.code is None or e.code == 0:
        return
    if not isinstance(e.code, int):
        print(e.code, file=sys.stderr)
    raise _Failure(f"exited with status {e.code if isinstance(e.code, int) else 1}", snippet.name)


def _innermost_line(e: BaseException, snippet: Snippet) -> int:
    line = 0
    for frame, lineno in traceback.walk_tb(e.__traceback__):
        if frame.f_code.co_filename == str(snippet.source):
            line = lineno
    return line


def _values(snippet: Snippet, templates: dict[str, str], namespace: dict) -> dict[str, str]:
    values = {}
    for name, template in templates.items():
        try:
            values[name] = eval("f" + repr(template), dict(namespace))
        except Exception as e:
            raise _Failure(
                f"value '{name}' of {snippet.name} ({template}) failed: {type(e).__name__}: {e}",
                snippet.project.rel(snippet.project.snippets / "snippets.toml"),
            ) from None
    return values

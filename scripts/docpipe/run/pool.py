"""Run snippets in child processes, several at once, each with its own deadline.

Where fork is safe (Linux), every child is forked from the runner's zygote (docpipe.run.zygote),
which imports torch and matplotlib once: the import is paid once per process, while each
snippet still gets a process of its own. The zygote starts as a fresh interpreter with the
runner's fixed environment (PYTHONHASHSEED=0 among it), so the children are the same whichever
process asks for them: regen.py, the tests, or `mkdocs serve`. Elsewhere each child is a fresh
interpreter (spawn), which is slower and equally correct.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import multiprocessing
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from docpipe.catalog import DEFAULT_MEMORY
from docpipe.environment import VERSIONED
from docpipe.project import Project, Snippet
from docpipe.run import (
    execute,
    machine,
    messages,
    namespaces,
    processes,
    splits,
    tripwire,
    zygote,
)
from docpipe.run.machine import default_jobs
from docpipe.run.messages import Job, MalformedResult, Result, decode_result
from docpipe.statuses import RunStatus

OUTPUT_CAP = 1 << 20  # bytes; more than a page could ever show


@dataclass
class Outcome:
    key: str
    result: Result
    output: bytes
    seconds: float  # wall time of the child, start to exit


HEAVY = VERSIONED  # slow to import, safe to import before a fork


def preloads(snippets: Iterable[Snippet]) -> tuple[str, ...]:
    """The zygote's preloads for these snippets: the heavy modules they (or their figure code)
    import, imported once up front."""
    wanted = set()
    for snippet in snippets:
        figure_code = snippet.figure_code
        for path in (snippet.source, figure_code):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            wanted |= {m for m in HEAVY if re.search(rf"^\s*(import|from)\s+{m}\b", text, re.M)}
            if path == figure_code:
                wanted.add("matplotlib")
    return tuple(m for m in HEAVY if m in wanted)


@contextlib.contextmanager
def run_environment(**added: str):
    """os.environ as a child process must start with; restored afterwards."""
    saved = dict(os.environ)
    os.environ.update({**execute.RUN_ENV, **added})
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _main_not_rerun():
    """multiprocessing re-runs the parent's main script in every child (as __mp_main__) unless
    __main__ reads as a module named "__main__"; a child runs only execute.child_main, so this
    skips a per-snippet import of the whole command line (or of the test runner)."""
    import importlib.machinery

    main = sys.modules["__main__"]
    saved = getattr(main, "__spec__", None)
    main.__spec__ = importlib.machinery.ModuleSpec("__main__", None)
    try:
        yield
    finally:
        main.__spec__ = saved


def run(
    project: Project,
    jobs: Iterable[tuple[str, dict[str, str], float]],
    parallel: int,
    fork: bool,
    on_start: Callable[[str], None] = lambda key: None,
    on_done: Callable[[Outcome], None] = lambda outcome: None,
    threads: int | None = None,
    preloads: Iterable[str] = HEAVY,
    hash_seed: str | None = None,
    snippet_preloads: Mapping[str, list[str]] | None = None,
) -> dict[str, Outcome]:
    """Run (key, values, timeout) jobs of the project's snippets; return each one's Outcome.
    The zygote imports `preloads` before any run; a snippet whose own preloads
    (`snippet_preloads`: what its last run asked for) name a module the zygote lacks forks from
    the extended zygote, which imports them too.
    `hash_seed` other than the runner's 0 needs fork=False: forked children share its seed."""
    threads = threads or max(1, default_jobs() // parallel)
    if not execute.sealable():  # one at a time, each compared before and after
        parallel = 1
        on_start, on_done = tripwire.guarded(project, on_start, on_done)
    else:
        _say_isolation()
    root = str(project.root)
    pending = [
        (Job(root, key, values, threads, memory=memory[0] if memory else DEFAULT_MEMORY), limit)
        for key, values, limit, *memory in jobs
    ]
    if fork:
        z = zygote.shared(preloads)
        return _run_forked(pending, parallel, on_start, on_done, z, snippet_preloads or {})
    for job, _ in pending:
        _split(job)
    return _run_spawned(pending, parallel, on_start, on_done, hash_seed)


def _split(job: Job) -> None:
    """The job's snippet split here, by the runner's parent (docpipe.run.splits): the child runs
    the parent's split of the very bytes it reads, and splits only a file changed since."""
    if not job.split:
        snippet = Project(job.root).snippet(job.key)
        job.split = splits.made(snippet.source, snippet.name)


def _fits(pending: list, running: dict) -> bool:
    """Whether the next runs' memory limits (Job.memory) fit beside those running, in three
    quarters of the machine's memory: however many run at once (-j N), their limits together
    cannot exhaust it. One run at a time always may start."""
    if not running:
        return True
    jobs = [r.job if isinstance(r, _Running) else r[1] for r in running.values()]
    held = sum(job.memory for job in jobs)
    return held + max(job.memory for job, _ in pending) <= machine.memory_mib() * 3 // 4


@dataclass
class _Running:
    job: Job
    timeout: float
    extended: bool = False  # the zygote sent it to the extended zygote
    started: float | None = None  # set when the zygote reports the fork (it may be preloading)
    pid: int | None = None
    killed: str = ""  # why it was killed
    sent: float = 0.0  # when the zygote was asked to fork it
    killed_at: float = 0.0
    left: str = ""  # what its snippet had running when it was killed, named

    def answer_due(self) -> float:
        """When the zygote must have said something of this run, or be taken for dead: its
        fork within the run's timeout (a zygote still preloading answers late, never that
        late), and the end of a run it killed within ANSWER_GRACE."""
        if self.killed:
            return self.killed_at + ANSWER_GRACE
        return self.sent + self.timeout if self.started is None else float("inf")


ANSWER_GRACE = 10.0  # seconds a zygote has to report the end of a run that was killed


def _run_forked(pending, parallel, on_start, on_done, z, snippet_preloads) -> dict[str, Outcome]:
    running: dict[str, _Running] = {}
    outcomes: dict[str, Outcome] = {}

    def stopped(which: list[_Running], why: str) -> None:
        for r in which:
            seconds = time.monotonic() - (r.started or time.monotonic())
            said = f"{r.killed}; {why}" if r.killed else f"stopped: {why}"
            outcomes[r.job.key] = _collect(r.job, None, seconds, said)
            on_done(outcomes[r.job.key])
            del running[r.job.key]

    def started(z: zygote.Zygote) -> zygote.Zygote:
        nonlocal extended_ready, extended_only
        extended_ready, extended_only = False, None  # None: until the zygote says which
        z.preload_extended(m for job, _ in pending for m in snippet_preloads.get(job.key, []))
        return z

    extended_ready, extended_only = False, None
    z = started(z)
    # The jobs split ahead, in the order they start, whenever the zygote has nothing to say
    # (while it imports, while runs go on): a job that starts before its turn is split then.
    ahead = [job for job, _ in pending]

    def waits(job: Job) -> bool:
        """Whether the job may wait for the extended zygote's preloads."""
        wanted = snippet_preloads.get(job.key, [])
        return bool(wanted) if extended_only is None else not extended_only.isdisjoint(wanted)

    try:
        while pending or running:
            while pending and len(running) < parallel and _fits(pending, running):
                job, timeout = pending.pop(_next(pending, waits, extended_ready))
                key = job.key
                job.workdir = _workdir()
                on_start(key)
                _split(job)
                z.fork(job, snippet_preloads.get(key, []))
                running[key] = _Running(job, timeout, sent=time.monotonic())
            deadlines = [
                r.started + r.timeout for r in running.values() if r.started and not r.killed
            ] + [r.answer_due() for r in running.values()]
            deadline = min(deadlines, default=float("inf"))
            try:
                events = z.events(0)
                while not events and ahead:
                    _split(ahead.pop(0))
                    events = z.events(0)
                if not events:  # until the next deadline, as it is after the splits
                    left = max(0.0, deadline - time.monotonic())
                    events = z.events(None if deadline == float("inf") else left)
                silent = [r for r in running.values() if time.monotonic() >= r.answer_due()]
                if silent and not events:
                    z.close()  # SIGKILL: a stopped zygote (SIGSTOP) ends too
                    raise zygote.ZygoteDied(
                        "the runner's zygote did not answer in time (stopped or hung);"
                        " it was killed"
                    )
            except zygote.ZygoteDied as e:  # a snippet can kill its parent: fail what ran
                for r in running.values():
                    zygote.kill(r.pid)
                stopped(list(running.values()), str(e))
                z = started(zygote.shared(z.preloaded))
                continue
            for event in events:
                match event:
                    case messages.ExtendedPreloads(modules):
                        extended_only = set(modules)
                    case messages.ExtendedReady():
                        extended_ready = True
                    case messages.ExtendedExited(code):
                        extended_ready = False
                        why = f"the runner's zygote ended (exit status {code})"
                        stopped([r for r in running.values() if r.extended], why)
                    case messages.Forwarded(key):
                        running[key].extended = True
                    case messages.Started(key, pid):
                        running[key].started, running[key].pid = time.monotonic(), pid
                    case messages.Exited(key, code, left):
                        r = running.pop(key)
                        seconds = time.monotonic() - r.started
                        left = ", ".join(filter(None, [r.left, left]))
                        outcomes[key] = _collect(r.job, code, seconds, r.killed, left)
                        on_done(outcomes[key])
            for r in running.values():
                if r.started and not r.killed and time.monotonic() >= r.started + r.timeout:
                    r.left = _snippet_processes(r.pid)
                    _stop(r.pid, r.job.output)
                    r.killed = f"{TIMED_OUT} {r.timeout:g} s"
                    r.killed_at = time.monotonic()
    finally:
        _abandon(z, running)
    return outcomes


# A job's folder (its output, its result, the snippet's scratch working directory) lives for
# one run: in memory where Linux offers it, since creating and removing one on a disk's file
# system cost 0.36 ms a snippet here, against 0.07 ms in /dev/shm. Not where /dev/shm is small
# (a container's is often 64 MiB): a snippet must not fail for want of room a disk would have.
IN_MEMORY = "/dev/shm"
IN_MEMORY_ROOM = 1 << 30  # bytes free in it, at least


JOB_FOLDER = re.compile(r"^docpipe-(?P<pid>\d+)-")  # named by the runner that made it


def _workdir() -> str:
    _sweep()
    return tempfile.mkdtemp(prefix=f"docpipe-{os.getpid()}-", dir=_in_memory())


@functools.cache
def _sweep() -> None:
    """Once a process: remove the job folders of runners that are gone (a killed regen's)."""
    from docpipe.recorded.writing import alive

    for folder in dict.fromkeys([IN_MEMORY, tempfile.gettempdir()]):  # wherever they were
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                m = JOB_FOLDER.match(entry.name)
                if m and not alive(int(m["pid"])):
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                    elif entry.name.endswith(".notes"):  # a job's notes (Job.notes)
                        with contextlib.suppress(OSError):
                            os.unlink(entry.path)


@functools.cache
def _say_isolation() -> None:
    """Once a process: where runs cannot have namespaces (namespaces.unavailable()), which
    isolation they get instead, and why, in one line."""
    why = execute.contained()
    if why:
        print(f"note: {namespaces.contained_notice(why)}", file=sys.stderr, flush=True)


@functools.cache
def _in_memory() -> str | None:
    """The shared-memory folder when job folders go there: it has room, and runs have namespaces
    (a contained run may write in the machine's /dev/shm, so it holds no job folder then)."""
    if execute.contained():
        return None
    try:
        room = os.statvfs(IN_MEMORY)
    except OSError:
        return None
    roomy = room.f_bavail * room.f_frsize >= IN_MEMORY_ROOM
    return IN_MEMORY if roomy and os.access(IN_MEMORY, os.W_OK | os.X_OK) else None


def _next(pending: list, waits: Callable[[Job], bool], extended_ready: bool) -> int:
    """The index of the job to start next: the first, unless it waits for the extended zygote's
    imports while a job that needs none of them could use the free core meanwhile."""
    if extended_ready or not waits(pending[0][0]):
        return 0
    return next((i for i, (job, _) in enumerate(pending) if not waits(job)), 0)


def _abandon(z: zygote.Zygote, running: dict[str, _Running]) -> None:
    """Kill what still runs after an interruption and wait for the zygote to report it, so
    that no late report reaches the next run."""
    for r in running.values():
        if execute.contained() and r.pid:  # no PID namespace ends what the run started
            processes.kill_tree(r.pid, wait=INIT_WAIT)
        zygote.kill(r.pid)
    deadline = time.monotonic() + 10
    with contextlib.suppress(zygote.ZygoteDied):
        while running and time.monotonic() < deadline:
            for event in z.events(max(0.0, deadline - time.monotonic())):
                match event:
                    case messages.Started(_, pid):
                        zygote.kill(pid)
                    case messages.Exited(key):
                        shutil.rmtree(running.pop(key).job.workdir, ignore_errors=True)


def _run_spawned(pending, parallel, on_start, on_done, hash_seed) -> dict[str, Outcome]:
    """Each snippet in a fresh interpreter (multiprocessing's spawn): where fork is unsafe, and
    for the audit's second run with another hash seed."""
    context = multiprocessing.get_context("spawn")
    running: dict[int, tuple[multiprocessing.Process, Job, float, float]] = {}
    outcomes: dict[str, Outcome] = {}
    try:
        while pending or running:
            while pending and len(running) < parallel and _fits(pending, running):
                job, timeout = pending.pop(0)
                key = job.key
                job.workdir = _workdir()
                # not daemonic: a snippet's own processes (multiprocessing) start as on a reader's
                process = context.Process(target=execute.spawned_main, args=(job,))
                on_start(key)
                started = time.monotonic()
                seed = {} if hash_seed is None else {"PYTHONHASHSEED": hash_seed}
                with run_environment(**seed), _main_not_rerun():
                    process.start()
                running[process.sentinel] = (process, job, started, started + timeout)
            now = time.monotonic()
            soonest = min(deadline for *_, deadline in running.values())
            for sentinel in wait(list(running), timeout=max(0.0, soonest - now)):
                process, job, started, _ = running.pop(sentinel)
                process.join()
                outcome = _collect(job, process.exitcode, time.monotonic() - started)
                # A fresh interpreter imports what a zygote would have held for it: its imports
                # say nothing of what a zygote should preload (Record.preloads).
                outcome.result.preloads = []
                outcomes[job.key] = outcome
                on_done(outcome)
            for sentinel, (process, job, started, deadline) in list(running.items()):
                if time.monotonic() >= deadline:
                    # what it started: in its PID namespace, or its process group
                    left = _snippet_processes(process.pid) or processes.describe(
                        _group(process.pid)
                    )
                    _stop(process.pid, job.output)
                    with contextlib.suppress(OSError, AttributeError):  # none on Windows
                        os.killpg(process.pid, signal.SIGKILL)
                    process.kill()
                    process.join()
                    del running[sentinel]
                    timeout = deadline - started
                    why = f"{TIMED_OUT} {timeout:g} s"
                    outcome = _collect(job, None, timeout, why, left)
                    outcomes[job.key] = outcome
                    on_done(outcome)
    finally:
        for process, job, *_ in running.values():
            process.kill()
            process.join()
            shutil.rmtree(job.workdir, ignore_errors=True)
    return outcomes


TIMED_OUT = "timed out after"
STACK_WAIT = 1.0  # seconds a run has to write its stack at its timeout
INIT_WAIT = 2.0  # seconds the kernel has to end a run's PID namespace before its child dies


def _stop(child: int, output: Path) -> None:
    """End a run at its timeout: ask the run (its child's namespace init's first child) for
    its Python stack, which it writes into its output (execute.STACK_SIGNAL), then kill the
    namespace's init, whose end the kernel makes the end of every process of the run, and
    only then the child: so nothing of the run is left for the zygote, the child's reaper, to
    find and name as left running."""
    init = processes.children(child)[:1]
    run = processes.children(init[0])[:1] if init else []
    if run:
        try:
            before = os.lstat(output).st_size  # the job folder is the run's: no link followed
        except OSError:
            before = -1
        with contextlib.suppress(OSError):
            os.kill(run[0], execute.STACK_SIGNAL)
        size, deadline = before, time.monotonic() + STACK_WAIT
        # until its output has grown (a run the machine is slow to schedule writes its stack
        # late) and then stops growing
        while time.monotonic() < deadline:
            time.sleep(0.02)
            try:
                now = os.lstat(output).st_size
            except OSError:
                break
            if now == size != before:
                break
            size = now
    if execute.contained():  # no PID namespace ends what the run started: it is ended here
        processes.kill_tree(init[0] if init else child, wait=INIT_WAIT)
    if init:
        processes.kill_and_wait(init, time.monotonic() + INIT_WAIT)
    zygote.kill(child)


STACK_HEADER = re.compile(
    r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):$", re.M
)
STACK_LINE = re.compile(r'^\s+File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>.+)$')


def where_it_hung(snippet: Snippet, output: bytes) -> tuple[str, int, str]:
    """(file, line, function) of the innermost frame of the snippet in the stack its run
    wrote at its timeout (the thread that runs it; else the innermost frame of the
    repository's, its figure code's say), or ("", 0, "") when there is none."""
    text = output.decode("utf-8", "replace")
    header = STACK_HEADER.search(text)  # faulthandler's, above each thread's stack
    dump = text[header.start() :] if header else ""
    frames = [m for line in dump.splitlines() if (m := STACK_LINE.match(line))]
    root = str(snippet.project.root) + os.sep
    for wanted in (lambda f: f == str(snippet.source), lambda f: f.startswith(root)):
        for m in frames:  # most recent call first, thread by thread
            if wanted(m["file"]):
                return snippet.project.rel(m["file"]), int(m["line"]), m["function"]
    return "", 0, ""


def _without_runner_frames(output: bytes) -> bytes:
    """The output with the frames of the runner's own code (and the interpreter's start)
    left out of the stack its run wrote at its timeout: a reader's run has none of them."""
    header = STACK_HEADER.search(output.decode("utf-8", "replace"))
    if not header:
        return output
    cut = len(output.decode("utf-8", "replace")[: header.start()].encode("utf-8", "replace"))
    runner = f"{os.sep}scripts{os.sep}docpipe{os.sep}"
    kept = [
        line
        for line in output[cut:].split(b"\n")
        if not (
            (m := STACK_LINE.match(line.decode("utf-8", "replace")))
            and (runner in m["file"] or m["file"].startswith("<frozen "))
        )
    ]
    return output[:cut] + b"\n".join(kept)


def _timed_out(snippet: Snippet, error: str, output: bytes) -> tuple[str, int]:
    """The failure of a run stopped at its timeout, saying where it was and how to give it
    longer, and the snippet's line where it was (0: not in the snippet)."""
    path, line, function = where_it_hung(snippet, output)
    where = f", in {function}()" if function.isidentifier() else ""
    if path and path != snippet.name:
        where = f" at {path}:{line}{where}"
    said = (
        f"{error}{where} (its stack when stopped is at the end of its output); if it needs"
        f' longer, set `timeout = <seconds>` under ["{snippet.key}.py"] in'
        " snippets/snippets.toml"
    )
    return said, line if path == snippet.name else 0


def _group(leader: int) -> list[tuple[int, list[str]]]:
    """The (pid, command) of every process in the process group `leader` leads, but it."""
    found = []
    try:
        pids = list(filter(str.isdigit, os.listdir("/proc")))
    except OSError:  # no /proc (macOS): the group is killed unnamed
        pids = []
    for pid in map(int, pids):
        seen = processes.process(pid) if pid != leader else None
        if seen is not None and seen.group == leader and seen.state != "Z":
            found.append((pid, processes.command_line(pid, seen.name)))
    return found


def _collect(
    job: Job, exitcode: int | None, seconds: float, error: str = "", left: str | None = None
) -> Outcome:
    """The outcome of a child that ended; `left`: what it left running, which was killed. The
    job folder is the snippet's to write: its files are read as files only (no link followed,
    no FIFO waited on), and what the runner's own processes say comes from Job.notes."""
    snippet = Project(job.root).snippet(job.key)
    name = snippet.name
    result = Result()
    try:
        try:
            data = _job_file(job.result)
        except OSError as e:
            data, error = None, error or f"its run left a malformed result ({e.strerror})"
        if not error and data is not None:
            try:
                result = decode_result(data, snippet)
            except MalformedResult as e:
                error = f"its run left a malformed result ({e}); nothing of it is trusted"
            else:
                if result.status == RunStatus.OK and not result.sealed and execute.sealable():
                    error = "ran unsealed: its process could not restrict itself with Landlock"
        elif not error:
            error = _death(exitcode)
        try:
            output = _job_file(job.output, OUTPUT_CAP + 1) or b""  # none: died before capture
        except OSError as e:
            output, error = b"", error or f"its run left no output file ({e.strerror})"
        if len(output) > OUTPUT_CAP and result.status == RunStatus.OK:
            size = os.lstat(job.output).st_size  # a regular file (_job_file): its size
            error = f"printed {size / (1 << 20):.1f} MiB; the cap is {OUTPUT_CAP >> 20} MiB"
        output = output[:OUTPUT_CAP]
        notes = namespaces.Notes()
        with contextlib.suppress(OSError):  # what the runner's own processes say of the run
            notes = namespaces.Notes.decode(_job_file(job.notes) or b"")
        left = ", ".join(filter(None, [left, notes.left]))
    finally:
        shutil.rmtree(job.workdir, ignore_errors=True)
        with contextlib.suppress(OSError):
            job.notes.unlink()
    _take_unread(result, snippet.project, notes.unread)
    line = 0
    if error.startswith(TIMED_OUT):
        error, line = _timed_out(snippet, error, output)
        output = _without_runner_frames(output)
    if left:
        said = f"left processes running, which the runner killed: {left}"
        error = f"{error}; {said}" if error else said
    if error:
        result.fail(error, name, line)
    if notes.refused:  # the cause of whatever else failed: said first
        result.fail("; ".join(notes.refused), name, first=True)
    if notes.memory:  # the cause of whatever else failed: said first
        said = (
            f"its processes together reached the runner's memory limit of {notes.memory} MiB"
            " for one snippet's processes, and the kernel killed one of them: raise `memory`"
            " for it in snippets/snippets.toml"
        )
        result.fail(said, name, first=True)
    return Outcome(job.key, result, output, seconds)


def _take_unread(result: Result, project: Project, unread: list[str] | None) -> None:
    """Result.unread from what the run's init saw (absolute paths of data files no process of
    the run opened: docpipe.run.opened, of the list fingerprints.data_files gave the run's
    child), never from the run's own result; those leave Result.reads. A name the run's audit
    hook saw read stays an input. None: the kernel could not tell (Result.watched false)."""
    result.watched = unread is not None
    unread = unread or []
    root = str(project.root) + os.sep
    found = {u[len(root) :] for u in unread if u.startswith(root)} - set(result.inputs)
    result.unread = sorted(found)
    result.reads = [r for r in result.reads if r not in found]


def _job_file(path: Path, most: int = -1) -> bytes | None:
    """A file the run left, as a regular file only (no link followed, no FIFO or device
    opened for good); None when it is not there, OSError when something else is."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP:  # O_NOFOLLOW's answer for a link
            raise OSError(e.errno, "a link, not a file") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(most)
    finally:
        os.close(fd)


def _snippet_processes(child: int) -> str:
    """The snippet's processes below a run's child (namespaces.enclose: the child, the
    namespace's init, the run; what the init has besides the run was left by it), named."""
    below = processes.tree(child)  # one walk, parents first: the init, then the run
    init = next((p for p, parent in below if parent == child), None)
    run = next((p for p, parent in below if parent == init), None)
    return processes.named([p for p, _ in below if p not in (init, run)])


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"was killed by signal {signal.Signals(-exitcode).name}"
    return f"ended without a result (exit status {exitcode})"

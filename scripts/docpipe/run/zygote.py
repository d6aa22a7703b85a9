"""The process every snippet's child is forked from (a "zygote"), its preloads imported once.

It starts as a fresh interpreter with the runner's fixed environment (PYTHONHASHSEED=0 among
it), imports its preloads once (docpipe.run.preload), then forks one child per Fork read on its
stdin and reports each child's pid and exit status on its stdout (every message is a class of
docpipe.run.messages, one line each). A job names its project's root, so one zygote serves
every project its parent runs. It is
the reaper of its children's descendants: a process a killed child (a timeout) or a child that
left without its own sweep (os._exit) leaves running is adopted by it, killed, and named with
that child's exit.

Why not multiprocessing's fork server: measured here, a child of it costs about 15 ms more than
the fork itself (a new socket per child, a pickled Process object, Process bootstrap and exit),
five times the work of a small snippet. This is the smallest piece that keeps what the runner
needs from it: one preloaded parent, one process per snippet, the exit status, and a pid to kill.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass

from docpipe import PACKAGE
from docpipe.run import processes
from docpipe.run.messages import (
    PRELOADS,
    Exited,
    ExtendedExited,
    ExtendedPreloads,
    ExtendedReady,
    Fork,
    Forwarded,
    Job,
    MalformedMessage,
    Message,
    Preload,
    PreloadExtended,
    Report,
    Request,
    Started,
    decode,
    encode,
)


class Zygote:
    """The parent's handle on a running zygote."""

    def __init__(self, preloads: Iterable[str]) -> None:
        from docpipe.run.execute import RUN_ENV

        here = str(PACKAGE.parent)  # the folder docpipe is in
        path = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
        self.preloaded = set(preloads)
        env = {**os.environ, **RUN_ENV, "PYTHONPATH": path, PRELOADS: ",".join(preloads)}
        # -P: no folder of the runner's choosing goes before the snippet's own on sys.path
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "docpipe.run.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            bufsize=0,
        )
        self.pending = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    def alive(self) -> bool:
        return self.process.poll() is None

    def preload(self, modules: Iterable[str]) -> None:
        new = sorted(set(modules) - self.preloaded)
        if new:
            self._write(Preload(new))
            self.preloaded.update(new)

    def preload_extended(self, modules: Iterable[str]) -> None:
        """Start the extended zygote's preloads of what this zygote lacks now (once it has its
        own), so that they overlap the snippets that need none of them."""
        modules = sorted(set(modules))
        if modules:
            self._write(PreloadExtended(modules))

    def fork(self, job: Job, preloads: list[str]) -> None:
        """Run the job in a child of a zygote that has the snippet's own `preloads`."""
        self._write(Fork(job, preloads))

    def events(self, timeout: float | None) -> list[Report]:
        """What the zygote reported within `timeout` seconds (docpipe.run.messages: Started,
        Exited, Forwarded, ExtendedPreloads, ExtendedReady, ExtendedExited). A zygote that
        ended, or sent a line that is no message (a fault of the runner), raises ZygoteDied;
        the second is stopped first."""
        if not self.selector.select(timeout):
            return []
        chunk = os.read(self.process.stdout.fileno(), 1 << 16)
        if not chunk:
            raise ZygoteDied(f"the runner's zygote ended (exit status {self.process.wait()})")
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        try:
            return [decode(line, Report) for line in lines]
        except MalformedMessage as e:
            self.close()
            raise ZygoteDied(f"the runner's zygote sent a malformed message ({e}); stopped") from e

    def close(self) -> None:
        # Every child has been collected by now; the zygote may still be importing.
        self.process.kill()
        self.process.wait()

    def _write(self, message: Message) -> None:
        try:
            self.process.stdin.write(encode(message))
        except BrokenPipeError:
            pass  # events() reports the end of the zygote, for the jobs it was given


class ZygoteDied(RuntimeError):
    """The zygote ended or broke: a fault of the runner (or of a snippet that killed it), which
    fails the runs it had, never an author's mistake."""


_shared: Zygote | None = None


def shared(preloads: Iterable[str]) -> Zygote:
    """This process's zygote, started on first use (and again if it died), with `preloads`.
    One zygote serves every project this process runs: each job names its project's root."""
    global _shared
    preloads = list(preloads)
    if _shared is None or not _shared.alive():
        _shared = Zygote(preloads)
        atexit.register(_shared.close)  # it ends with this process, not a moment after
    _shared.preload(preloads)
    return _shared


def main() -> None:
    channel = os.dup(1)
    os.dup2(2, 1)  # what a preload prints goes to stderr, never into the channel
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    processes.reap_orphans()
    from docpipe.run import namespaces, seccomp

    namespaces.unavailable()  # asked once, before any fork: every child has the answer
    seccomp.prepare(bool(namespaces.unavailable()))  # assembled once, for every child
    from docpipe.run import preload  # noqa: F401  (imports the preloads PRELOADS names)

    _settle()
    _Server(channel).serve()


@dataclass
class _Extended:
    """The zygote's handle on its extended zygote."""

    pid: int
    pidfd: int
    pipe: int  # its stdin
    preloaded: set[str]


class _Server:
    """Forks a child per Fork read on stdin and reports on the channel. A job whose own
    preloads (what the snippet's last run asked for) include a module this zygote lacks goes to
    the extended zygote: forked from this one when asked to (PreloadExtended) or on first need,
    it preloads those too. The rest fork from this smaller process, quicker to fork and to exit."""

    def __init__(self, channel: int) -> None:
        self.channel = channel
        self.children: dict[int, tuple[int, str]] = {}  # pidfd -> (pid, key)
        self.extended: _Extended | None = None
        self.selector = selectors.DefaultSelector()
        self.selector.register(0, selectors.EVENT_READ)

    def serve(self) -> None:
        pending, reading = b"", True
        while reading or self.children or self.extended:
            for ready, _ in self.selector.select():
                if ready.fd == 0:
                    chunk = os.read(0, 1 << 16)
                    if not chunk:  # the parent is gone: nobody wants what still runs
                        reading = False
                        self._stop()
                        continue
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        self._handle(decode(line, Request))
                elif self.extended and ready.fd == self.extended.pidfd:
                    code = self._reap(ready.fd, self.extended.pid)
                    self.extended = None
                    # What still ran from it is this zygote's now (its reaper): ended with it,
                    # or the next child's sweep would name it as what that child left.
                    self._sweep()
                    _send(self.channel, ExtendedExited(code))
                else:
                    pid, key = self.children.pop(ready.fd)
                    code = self._reap(ready.fd, pid)
                    _send(self.channel, Exited(key, code, self._sweep()))

    def _handle(self, message: Request) -> None:
        from docpipe.run import preload

        match message:
            case Preload(modules):
                preload.load(modules)
                _settle()
            case PreloadExtended(modules):
                only_extended = _not_preloaded(modules)
                _send(self.channel, ExtendedPreloads(only_extended))
                if only_extended:
                    self._preload_extended(only_extended)
            case Fork(job, preloads) if _not_preloaded(preloads):
                _send(self.channel, Forwarded(job.key))
                self._preload_extended(_not_preloaded(preloads))
                _send(self.extended.pipe, Fork(job, []))
            case Fork(job, _):
                from docpipe.run import cgroups, timing
                from docpipe.run.execute import outside_repository

                outside_repository(job.root)  # once per project, for every child
                cgroups.parents()  # once, for every child
                zygote = os.getpid()
                timing.forked_at = timing.now()
                pid = os.fork()
                if pid == 0:
                    _child(job, self._fds(), zygote)
                self._watch(pid, (pid, job.key))
                _send(self.channel, Started(job.key, pid))

    def _preload_extended(self, modules: list[str]) -> None:
        """Preload these modules in the extended zygote, forking it first if there is none."""
        if self.extended:
            new = sorted(set(modules) - self.extended.preloaded)
            if new:
                _send(self.extended.pipe, Preload(new))
                self.extended.preloaded.update(new)
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                for fd in [write, *self._fds()]:
                    if fd != self.channel:  # the extended zygote reports on it too
                        os.close(fd)
                os.dup2(read, 0)
                os.close(read)
                processes.reap_orphans()
                processes.die_with_parent()
                from docpipe.run import preload

                preload.load(modules)
                _settle()
                _send(self.channel, ExtendedReady())
                _Server(self.channel).serve()
            finally:
                os._exit(0)
        os.close(read)
        self.extended = _Extended(pid, self._watch(pid, None), write, set(modules))

    def _watch(self, pid: int, child: tuple[int, str] | None) -> int:
        pidfd = os.pidfd_open(pid)
        self.selector.register(pidfd, selectors.EVENT_READ)
        if child:
            self.children[pidfd] = child
        return pidfd

    def _reap(self, pidfd: int, pid: int) -> int:
        self.selector.unregister(pidfd)
        os.close(pidfd)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    def _sweep(self) -> str:
        """Kill every process this zygote adopted (none it forked itself) and name them: what
        the child just collected left. Each child leads a process group of its own, which what
        it starts inherits: what another child left, ended but not yet collected, waits for
        that child's sweep (a daemon of its own group is named with the first sweep)."""
        running = {pid for pid, _ in self.children.values()}
        keep = running | ({self.extended.pid} if self.extended else set())
        return processes.describe(processes.end_children(keep, groups=running))

    def _fds(self) -> list[int]:
        """What a forked child must close: the zygote's own descriptors."""
        own = [self.channel, self.selector.fileno(), *self.children]
        if self.extended:
            own += [self.extended.pipe, self.extended.pidfd]
        return own

    def _stop(self) -> None:
        self.selector.unregister(0)
        for pid, _ in self.children.values():
            kill(pid)
        if self.extended:  # it stops its own children when it reads the end of its input
            os.close(self.extended.pipe)


def _child(job: Job, inherited: list[int], zygote: int) -> None:
    """Run one snippet in this forked child, then leave without running the zygote's exit:
    with the run's exit status, or killed by the signal that killed it. It dies with the
    zygote (SIGKILL, PR_SET_PDEATHSIG), and its run with it (docpipe.run.namespaces)."""
    code = 1
    try:
        processes.die_with_parent()
        if os.getppid() != zygote:  # the zygote died before the line above
            os._exit(1)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in inherited:
            os.close(fd)
        os.setpgid(0, 0)  # a group of its own: the terminal's Ctrl-C is regen's to handle
        from docpipe.run.execute import enclosed_main

        code = enclosed_main(job)
        if code < 0:  # killed: so is this child, by the same signal
            with contextlib.suppress(OSError, ValueError):  # SIGKILL's cannot be set
                signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code if code >= 0 else 1)


def _not_preloaded(modules: list[str]) -> list[str]:
    """Which of these modules this zygote has not imported: only they need the extended one."""
    return sorted(m for m in set(modules) if m not in sys.modules)


def _settle() -> None:
    """After the preloads: objects the imports made are never collected in a child (a
    collection would touch, and so copy, every page of them), and the memory they take is in
    huge pages (docpipe.run.hugepages), which makes each fork of this process cheap."""
    import gc

    from docpipe.run import hugepages

    gc.collect()
    gc.freeze()
    hugepages.collapse()


def _send(fd: int, message: Message) -> None:
    # A channel nobody reads (the parent was killed) says nothing; the end of stdin that
    # follows stops the zygote (_Server.serve).
    with contextlib.suppress(BrokenPipeError):
        os.write(fd, encode(message))


def kill(pid: int | None) -> None:
    """SIGKILL, if the process (None: not started yet) is still there."""
    with contextlib.suppress(ProcessLookupError, TypeError):
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main())

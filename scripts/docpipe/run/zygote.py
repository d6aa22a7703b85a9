"""The warm process every snippet's child is forked from (a "zygote").

It starts as a fresh interpreter with the runner's fixed environment (PYTHONHASHSEED=0 among
it), imports the heavy packages once (docpipe.run.warm), then forks one child per job line read on
its stdin and reports each child's pid and exit status as JSON lines on its stdout. It is
the reaper of its children's descendants: a process a killed child (a timeout) or a child that
left without its own sweep (os._exit) leaves running is adopted by it, killed, and named with
that child's exit.

Why not multiprocessing's fork server: measured here, a child of it costs about 15 ms more than
the fork itself (a new socket per child, a pickled Process object, Process bootstrap and exit),
five times the work of a small snippet. This is the smallest piece that keeps what the runner
needs from it: one warm parent, one process per snippet, the exit status, and a pid to kill.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterable
from dataclasses import asdict

from docpipe import PACKAGE


class Zygote:
    """The parent's handle on a running zygote."""

    def __init__(self, warm: Iterable[str]) -> None:
        from docpipe.run.execute import RUN_ENV

        here = str(PACKAGE.parent)  # the folder docpipe is in
        path = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
        self.warmed = set(warm)
        env = {**os.environ, **RUN_ENV, "PYTHONPATH": path, "DOCPIPE_WARM": ",".join(warm)}
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

    def warm(self, modules: Iterable[str]) -> None:
        new = sorted(set(modules) - self.warmed)
        if new:
            self._write({"warm": new})
            self.warmed.update(new)

    def extend(self, extras: Iterable[str]) -> None:
        """Start the extended zygote's imports of what this zygote lacks now (once it has its
        own), so that they overlap the snippets that need none of them."""
        extras = sorted(set(extras))
        if extras:
            self._write({"extend": extras})

    def fork(self, job, extras: list[str]) -> None:
        self._write({"job": asdict(job), "extras": extras})

    def events(self, timeout: float | None) -> list[dict]:
        """What the zygote reported within `timeout` seconds: {"key", "pid"} once a child
        started, {"key", "exit", "left"} once it ended (its exit code; -N: killed by signal N;
        what its processes left running, killed then: execute.describe's text, or ""),
        {"missing"} in answer to extend(): the modules only the extended zygote will have,
        {"key", "via"} when a job goes to the extended zygote, {"extended_ready"} once that
        has its imports, and {"extended_exit"} if it ended (its children's reports with it)."""
        if not self.selector.select(timeout):
            return []
        chunk = os.read(self.process.stdout.fileno(), 1 << 16)
        if not chunk:
            raise ZygoteDied(f"the runner's zygote ended (exit status {self.process.wait()})")
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        return [json.loads(line) for line in lines]

    def close(self) -> None:
        # Every child has been collected by now; the zygote may still be importing.
        self.process.kill()
        self.process.wait()

    def _write(self, message: dict) -> None:
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
        except BrokenPipeError:
            pass  # events() reports the end of the zygote, for the jobs it was given


class ZygoteDied(RuntimeError):
    pass


_shared: Zygote | None = None


def shared(warm: Iterable[str]) -> Zygote:
    """This process's zygote, started on first use (and again if it died), warmed with `warm`."""
    global _shared
    warm = list(warm)
    if _shared is None or not _shared.alive():
        _shared = Zygote(warm)
        atexit.register(_shared.close)  # it ends with this process, not a moment after
    _shared.warm(warm)
    return _shared


def main() -> None:
    channel = os.dup(1)
    os.dup2(2, 1)  # what a warm import prints goes to stderr, never into the channel
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _adopt_orphans()
    from docpipe.run import warm  # noqa: F401  (imports the heavy packages)

    _freeze()
    _Server(channel).serve()


class _Server:
    """Forks a child per job line read on stdin and reports on the channel. A job whose extras
    (what the snippet's last run imported) include a module this zygote lacks goes to the
    extended zygote: forked from this one when asked to extend or on first need, it imports
    those too. The rest fork from this smaller process, which is quicker to fork and to exit."""

    def __init__(self, channel: int) -> None:
        self.channel = channel
        self.children: dict[int, tuple[int, str]] = {}  # pidfd -> (pid, key)
        self.extended: dict | None = None  # pid, pidfd, pipe (its stdin), imported
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
                        self._handle(json.loads(line))
                elif self.extended and ready.fd == self.extended["pidfd"]:
                    code = self._reap(ready.fd, self.extended["pid"])
                    self.extended = None
                    _send(self.channel, {"extended_exit": code})
                else:
                    pid, key = self.children.pop(ready.fd)
                    code = self._reap(ready.fd, pid)
                    _send(self.channel, {"key": key, "exit": code, "left": self._sweep()})

    def _handle(self, message: dict) -> None:
        from docpipe.run import warm

        if "warm" in message:
            warm.load(message["warm"])
        elif "extend" in message:
            missing = _missing(message["extend"])
            _send(self.channel, {"missing": missing})
            if missing:
                self._extend(missing)
        elif missing := _missing(message.pop("extras", [])):
            _send(self.channel, {"key": message["job"]["key"], "via": "extended"})
            self._extend(missing)
            _send(self.extended["pipe"], message)
        else:
            from docpipe.run.execute import outside_repository

            outside_repository(message["job"]["root"])  # once per project, for every child
            pid = os.fork()
            if pid == 0:
                _child(message["job"], self._fds())
            self._watch(pid, (pid, message["job"]["key"]))
            _send(self.channel, {"key": message["job"]["key"], "pid": pid})

    def _extend(self, extras: list[str]) -> None:
        if self.extended:
            new = sorted(set(extras) - self.extended["imported"])
            if new:
                _send(self.extended["pipe"], {"warm": new})
                self.extended["imported"].update(new)
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
                _adopt_orphans()
                from docpipe.run import warm

                warm.load(extras)
                _freeze()
                _send(self.channel, {"extended_ready": 1})
                _Server(self.channel).serve()
            finally:
                os._exit(0)
        os.close(read)
        self.extended = {"pid": pid, "pipe": write, "imported": set(extras)}
        self.extended["pidfd"] = self._watch(pid, None)

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
        from docpipe.run.execute import describe, end_children

        running = {pid for pid, _ in self.children.values()}
        keep = running | ({self.extended["pid"]} if self.extended else set())
        return describe(end_children(keep, groups=running))

    def _fds(self) -> list[int]:
        """What a forked child must close: the zygote's own descriptors."""
        own = [self.channel, self.selector.fileno(), *self.children]
        if self.extended:
            own += [self.extended["pipe"], self.extended["pidfd"]]
        return own

    def _stop(self) -> None:
        self.selector.unregister(0)
        for pid, _ in self.children.values():
            kill(pid)
        if self.extended:  # it stops its own children when it reads the end of its input
            os.close(self.extended["pipe"])


def _child(job: dict, inherited: list[int]) -> None:
    """Run one snippet in this forked child, then leave without running the zygote's exit."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in inherited:
            os.close(fd)
        from docpipe.run.execute import Job, child_main

        child_main(Job(**job))
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _adopt_orphans() -> None:
    import ctypes

    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _missing(modules: list[str]) -> list[str]:
    """Which of these modules this zygote has not imported: only they need the extended one."""
    return sorted(m for m in set(modules) if m not in sys.modules)


def _freeze() -> None:
    # Objects the imports made are never collected in a child: a collection would touch (and
    # so copy) every page of them.
    import gc

    gc.collect()
    gc.freeze()


def _send(fd: int, message: dict) -> None:
    os.write(fd, json.dumps(message).encode() + b"\n")


def kill(pid: int | None) -> None:
    """SIGKILL, if the process (None: not started yet) is still there."""
    with contextlib.suppress(ProcessLookupError, TypeError):
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main())

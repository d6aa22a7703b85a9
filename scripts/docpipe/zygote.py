"""The warm process every snippet's child is forked from (a "zygote").

It starts as a fresh interpreter with the runner's fixed environment (PYTHONHASHSEED=0 among
it), imports the heavy packages once (docpipe.warm), then forks one child per job line read on
its stdin and reports each child's pid and exit status as JSON lines on its stdout.

Why not multiprocessing's fork server: measured here, a child of it costs about 15 ms more than
the fork itself (a new socket per child, a pickled Process object, Process bootstrap and exit),
five times the work of a small snippet. This is the smallest piece that keeps what the runner
needs from it: one warm parent, one process per snippet, the exit status, and a pid to kill.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path


class Zygote:
    """The parent's handle on a running zygote."""

    def __init__(self, warm: Iterable[str]) -> None:
        from .execute import RUN_ENV

        here = str(Path(__file__).resolve().parents[1])  # the folder docpipe is in
        path = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
        self.warmed = set(warm)
        env = {**os.environ, **RUN_ENV, "PYTHONPATH": path, "DOCPIPE_WARM": ",".join(warm)}
        # -P: no folder of the runner's choosing goes before the snippet's own on sys.path
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "docpipe.zygote"],
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

    def fork(self, job) -> None:
        self._write({"job": asdict(job)})

    def events(self, timeout: float | None) -> list[dict]:
        """What the zygote reported within `timeout` seconds: {"key", "pid"} once a child
        started, {"key", "exit"} once it ended (its exit code; -N: killed by signal N)."""
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
    from . import warm  # noqa: F401  (imports the heavy packages)

    _freeze()
    children: dict[int, tuple[int, str]] = {}  # pidfd -> (pid, key)
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ)
    pending, reading = b"", True
    while reading or children:
        for ready, _ in selector.select():
            if ready.fd != 0:
                pid, key = children.pop(ready.fd)
                selector.unregister(ready.fd)
                os.close(ready.fd)
                _, status = os.waitpid(pid, 0)
                _send(channel, {"key": key, "exit": os.waitstatus_to_exitcode(status)})
                continue
            chunk = os.read(0, 1 << 16)
            if not chunk:  # the parent is gone: nobody wants the results of what still runs
                reading = False
                selector.unregister(0)
                for pid, _ in children.values():
                    _kill(pid)
                continue
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "warm" in message:
                    warm.load(message["warm"])
                    continue
                pid = os.fork()
                if pid == 0:
                    _child(message["job"], [channel, *children])
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (pid, message["job"]["key"])
                selector.register(pidfd, selectors.EVENT_READ)
                _send(channel, {"key": message["job"]["key"], "pid": pid})


def _child(job: dict, inherited: list[int]) -> None:
    """Run one snippet in this forked child, then leave without running the zygote's exit."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in inherited:
            os.close(fd)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # a snippet reads no input
        from .execute import Job, child_main

        child_main(Job(**job))
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _freeze() -> None:
    # Objects the imports made are never collected in a child: a collection would touch (and
    # so copy) every page of them.
    import gc

    gc.collect()
    gc.freeze()


def _send(channel: int, message: dict) -> None:
    os.write(channel, json.dumps(message).encode() + b"\n")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    sys.exit(main())

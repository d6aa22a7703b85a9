"""The processes of a run as /proc shows them: a process's children and descendants, its
state, and its command line, to kill what a run left and to name each one killed; and the two
ties of a process to its parent and its children (reap_orphans, die_with_parent). Used by the
run's own process (docpipe.run.execute), its namespace's init (docpipe.run.namespaces), the
zygote and the pool."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import select
import shlex
import signal
import time
from collections.abc import Callable
from typing import NamedTuple

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


@functools.cache
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def reap_orphans() -> None:
    """Make this process the reaper of every process below it whose parent ends (a daemon's
    double fork): adopted by this process, not by the machine's init (PR_SET_CHILD_SUBREAPER).
    Linux only."""
    _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def die_with_parent() -> None:
    """SIGKILL this process when its parent ends (PR_SET_PDEATHSIG): a stopped process too.
    Linux only."""
    _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def children(pid: int | str = "self") -> list[int]:
    """The pids of the children of process `pid` ("self": this process), of every thread."""
    found = []
    with contextlib.suppress(OSError), os.scandir(f"/proc/{pid}/task") as tasks:
        for task in tasks:
            with contextlib.suppress(OSError), open(f"{task.path}/children") as f:
                found += [int(child) for child in f.read().split()]
    return found


def tree(pid: int | str) -> list[tuple[int, int | str]]:
    """(process, its parent) of every process below `pid` ("self": this process) as /proc
    numbers them, parents first, in one walk (this process's own pid is no /proc number in a
    PID namespace whose /proc is the host's: its children's parent is then "self")."""
    found: list[tuple[int, int | str]] = []
    todo = [pid]
    while todo:
        parent = todo.pop(0)
        new = children(parent)
        found += [(child, parent) for child in new]
        todo += new
    return found


def descendants(pid: int | str) -> list[int]:
    """Every process below `pid` ("self": this process), parents first (tree())."""
    return [child for child, _ in tree(pid)]


def _until_none_left(
    find: Callable[[], list[int]], end: Callable[[list[int]], None], most: int
) -> None:
    """The walk that ends a tree of processes, kill_tree's and end_children's: end(found) the
    processes find() finds, and find again, until it finds none (at most `most` times), since
    what one of them did meanwhile (a fork, a child it orphaned) is found only the next time."""
    for _ in range(most):
        found = find()
        if not found:
            return
        end(found)


def kill_tree(pid: int, wait: float = 0.0) -> None:
    """Kill every process below `pid` and `pid` itself, leaving none to be adopted elsewhere:
    each is stopped first (SIGSTOP), again until no new one appears, since a stopped process
    forks no more and is not orphaned. Then all below `pid` are killed and waited for until
    each has ended (at most `wait` seconds), while `pid`, stopped, still holds them, and only
    then `pid`, waited for too: a process still dying when its parent ends is adopted by the
    reaper above, which would name it as left running. For a contained run
    (docpipe.run.namespaces), which has no PID namespace whose end would end them all."""
    stopped: list[int] = []

    def new() -> list[int]:
        return [p for p in [pid, *descendants(pid)] if p not in stopped]

    def stop(found: list[int]) -> None:
        for p in found:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGSTOP)
        stopped.extend(found)

    _until_none_left(new, stop, 100)
    deadline = time.monotonic() + wait
    kill_and_wait([p for p in reversed(stopped) if p != pid], deadline)
    kill_and_wait([pid], deadline)


def kill_and_wait(pids: list[int], deadline: float) -> None:
    """SIGKILL each of `pids`, then wait until each has ended, or until `deadline`."""
    ends = []
    for p in pids:
        with contextlib.suppress(OSError):
            ends.append(os.pidfd_open(p))
            os.kill(p, signal.SIGKILL)
    try:
        for end in ends:  # readable once its process has ended
            select.select([end], [], [], max(0.0, deadline - time.monotonic()))
    finally:
        for end in ends:
            os.close(end)


class Process(NamedTuple):
    """What /proc/<pid>/stat says of a process: its short name, state ("Z": a zombie) and
    process group."""

    name: str
    state: str
    group: int


def process(pid: int) -> Process | None:
    """Process `pid` as its /proc stat says, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            name, fields = f.read().split(b" (", 1)[1].rsplit(b")", 1)
        state, _, group = fields.split()[:3]
        return Process(os.fsdecode(name), state.decode(), int(group))
    except (OSError, ValueError, IndexError):
        return None


def command_line(pid: int, name: str) -> list[str]:
    """The command line of process `pid`, which is not a zombie. One in the middle of its exec
    (a child that Popen returned already: the exec passed the point where the parent is told)
    has for a few milliseconds no arguments in /proc yet; it is read again until it has, or
    named by its short name `name` (its executable's name, cut to 15 bytes)."""
    deadline = time.monotonic() + 0.5
    while True:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = [os.fsdecode(w) for w in f.read().split(b"\0") if w]
        except OSError:
            command = []
        if command or time.monotonic() > deadline:
            return command or [name]
        time.sleep(0.001)


def running(pids: list[int]) -> list[tuple[int, list[str]]]:
    """(pid, command line) of each of these processes still there and not a zombie."""
    found = []
    for pid in pids:
        seen = process(pid)
        if seen is not None and seen.state != "Z":
            found.append((pid, command_line(pid, seen.name)))
    return found


def named(pids: list[int]) -> str:
    """ "pid N (command line)" of each process still there (not a zombie), comma-separated."""
    return describe(running(pids))


def end_children(
    keep: set[int] = frozenset(), groups: set[int] = frozenset()
) -> list[tuple[int, list[str]]]:
    """Kill every child of this process but `keep` and those in a process group of `groups`,
    and every process they leave (adopted by this one, its reaper), until none is left; return
    the (pid, command) of each one that was still running. One that had already ended is
    collected without a word."""
    ended: list[tuple[int, list[str]]] = []

    def kill_children() -> list[int]:  # each one named, then killed, as it is found
        found = []
        for pid in children():
            if pid in keep:
                continue
            seen = process(pid)
            if seen is None or seen.group in groups:
                continue
            found.append(pid)
            if seen.state != "Z":
                ended.append((pid, command_line(pid, seen.name)))
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        return found

    def collect(found: list[int]) -> None:
        for pid in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    _until_none_left(kill_children, collect, 1000)
    return ended


def describe(ended: list[tuple[int, list[str]]]) -> str:
    return ", ".join(f"pid {pid} ({shlex.join(command)})" for pid, command in ended)

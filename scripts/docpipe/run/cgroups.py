"""A memory limit for a run's whole process tree, and a limit on its processes: control
groups of its own.

RLIMIT_DATA (docpipe.run.execute._cap_memory) limits each process of a run; a run that starts
several (multiprocessing, DataLoader workers) could still hold their sum. The run's init
(docpipe.run.namespaces.enclose) moves the run into a memory control group made for it before
its snippet starts, so that every process of the run is in it; the kernel keeps
the group's memory (its processes' pages, and the files they write to the run's own /dev/shm)
under the run's limit, and kills a process of the group when it cannot. The group is named
after the run's child, `docpipe-<pid>`, in the memory group the runner itself is in (cgroup
v1's memory hierarchy, or v2's where the memory controller is enabled for the runner's
group's children). Where neither can be had (no root, a read-only /sys/fs/cgroup), the
per-process limit is all there is, and where() says why.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
PREFIX = "docpipe-"


def _own(hierarchy: str) -> str | None:
    """This process's group in one hierarchy (v1: "memory"; v2: ""), from /proc/self/cgroup."""
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as f:
        for line in f:
            number, controllers, path = line.rstrip("\n").split(":", 2)
            if (hierarchy and hierarchy in controllers.split(",")) or (
                not hierarchy and number == "0" and not controllers
            ):
                return path
    return None


def parents() -> None:
    """Find the groups runs are made in, in the zygote, once: its children inherit them."""
    parent()
    parent("pids")


@functools.cache
def parent(controller: str = "memory") -> tuple[Path, str] | None:
    """The group a run's group is made in for a controller ("memory", "pids"), and its kind
    ("v1", "v2"), or None. The same for a process's life (a zygote stays in its group; a run's
    child asks before it joins its own)."""
    v1 = _own(controller)
    if v1 is not None and (CGROUPS / controller).is_dir():
        folder = CGROUPS / controller / v1.lstrip("/")
        if os.access(folder, os.W_OK):
            return folder, "v1"
    v2 = _own("")
    if v2 is not None:
        folder = CGROUPS / v2.lstrip("/")
        with contextlib.suppress(OSError):
            enabled = (folder / "cgroup.subtree_control").read_text().split()
            if controller in enabled and os.access(folder, os.W_OK):
                return folder, "v2"
    return None


PIDS_MAX = 2048  # processes and threads of one run: a fork bomb stops there


class Group:
    """The control groups of one run: memory (and pids, where the kernel offers them)."""

    def __init__(
        self, folder: Path, kind: str, others: list[Path] = (), pids: bool = False
    ) -> None:
        self.folder, self.kind, self.others = folder, kind, list(others)
        self.pids = pids  # whether the kernel took the groups' process limit (PIDS_MAX)

    @classmethod
    def make(cls, mebibytes: int) -> Group:
        """New groups for the calling child's run: its memory limited to `mebibytes`, its
        processes and threads to PIDS_MAX; OSError if the kernel refuses a memory group."""
        found = parent()
        if found is None:
            raise OSError("no memory control group to make one in")
        where, kind = found
        folder = _made(where)
        limit = "memory.limit_in_bytes" if kind == "v1" else "memory.max"
        (folder / limit).write_text(str(mebibytes << 20))
        if kind == "v1":  # swap counts too, where the kernel accounts it
            with contextlib.suppress(OSError):
                (folder / "memory.memsw.limit_in_bytes").write_text(str(mebibytes << 20))
        others = []
        pids = parent("pids")
        if pids is not None and pids[0] != where:
            with contextlib.suppress(OSError):
                others.append(_made(pids[0]))
        limited = False
        for group in [folder, *others]:
            with contextlib.suppress(OSError):
                (group / "pids.max").write_text(str(PIDS_MAX))
                limited = True
        return cls(folder, kind, others, limited)

    def join(self, pid: int = 0) -> None:
        """Move process `pid` (0: the calling one), and so all it starts later, into the
        groups; ProcessLookupError when it is gone."""
        for group in [self.folder, *self.others]:
            (group / "cgroup.procs").write_text(str(pid))

    def killed(self) -> bool:
        """Whether the kernel killed a process of the group for want of memory."""
        name = "memory.oom_control" if self.kind == "v1" else "memory.events"
        with contextlib.suppress(OSError, ValueError):
            for line in (self.folder / name).read_text().splitlines():
                key, _, count = line.partition(" ")
                if key == "oom_kill" and int(count) > 0:
                    return True
        return False

    def remove(self) -> None:
        for group in [self.folder, *self.others]:
            with contextlib.suppress(OSError):
                group.rmdir()


def _made(where: Path) -> Path:
    _sweep(where)
    folder = where / f"{PREFIX}{os.getpid()}"
    folder.mkdir(exist_ok=True)
    return folder


def _sweep(where: Path) -> None:
    """Remove the groups of runs whose child is gone without removing its group (killed at a
    timeout); a group still in use refuses (EBUSY)."""
    with contextlib.suppress(OSError), os.scandir(where) as entries:
        for entry in entries:
            pid = entry.name.removeprefix(PREFIX)
            if entry.name.startswith(PREFIX) and pid.isdigit() and not _alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True

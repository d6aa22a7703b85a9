"""What this machine offers the runner: cores, memory, and whether forking the preloaded zygote is
safe."""

from __future__ import annotations

import os
import sys


def default_jobs() -> int:
    """The cores this process may use (a container's limit, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def memory_mib() -> int:
    """The machine's memory, in MiB."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") >> 20


def fork_available() -> bool:
    # macOS and Windows: fork after importing torch is unsafe or missing; spawn is used there.
    import multiprocessing

    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()

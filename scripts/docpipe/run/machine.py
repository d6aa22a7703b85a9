"""What this machine offers the runner: cores, and whether forking the preloaded zygote is safe."""

from __future__ import annotations

import os
import sys


def default_jobs() -> int:
    """The cores this process may use (a container's limit, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def fork_available() -> bool:
    # macOS and Windows: fork after importing torch is unsafe or missing; spawn is used there.
    import multiprocessing

    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()

"""The zygote's written memory moved into huge pages, once, so that each fork of it is cheap.

A fork copies one page-table entry for every page its parent has written, and the child's
exit drops them again. torch's import leaves about 170 MB written (some 43,000 pages of
4 KiB), so every process forked from the zygote cost about 6 ms of the kernel's time to fork
and end, whatever it ran: a sealed run forks three (docpipe.run.namespaces). MADV_COLLAPSE
(Linux 6.1) moves that memory into pages of 2 MiB, one entry each, once per zygote: measured
here, a fork and exit of the zygote went from 6.9 ms to 2.8 ms. A child that writes in a
huge page splits it back into small pages, for itself only (copy on write, as before).

Why not the system's own settings: transparent huge pages are, by default, only for memory a
process asks them for (madvise), and the kernel's background collapse (khugepaged) takes
minutes to reach a process. Why not madvise(MADV_HUGEPAGE) on the zygote's memory: its
children would inherit it, and a snippet's own allocations would then take huge pages too,
which a reader's run does not.

Where the kernel cannot collapse (an older kernel, huge pages turned off), nothing changes:
each fork costs what it did.
"""

from __future__ import annotations

import ctypes
import functools

MADV_COLLAPSE = 25
_SIZE = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"


@functools.cache
def _madvise():
    function = ctypes.CDLL(None, use_errno=True).madvise
    function.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return function


def _huge_size() -> int:
    try:
        with open(_SIZE, "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 0  # no transparent huge pages in this kernel


def _writable_anonymous() -> list[tuple[int, int]]:
    """(start, end) of this process's private writable memory backed by no file (the heap
    among it; the stack aside: it grows down, and each child writes it at once)."""
    found = []
    with open("/proc/self/maps", "rb") as maps:
        for line in maps:
            fields = line.split()
            name = fields[5] if len(fields) > 5 else b""
            if fields[1] == b"rw-p" and name in (b"", b"[heap]"):
                start, end = (int(x, 16) for x in fields[0].split(b"-"))
                found.append((start, end))
    return found


def collapse() -> int:
    """Move this process's written anonymous memory into huge pages, where the kernel can;
    returns how many bytes of it are in huge pages now (0 where it cannot)."""
    size = _huge_size()
    try:
        ranges = _writable_anonymous() if size else []
    except OSError:  # no /proc to read: nothing to move
        ranges = []
    for start, end in ranges:
        first, last = -(-start // size) * size, end // size * size
        if last > first:  # a range of whole huge pages: the kernel leaves the edges as they are
            _madvise()(first, last - first, MADV_COLLAPSE)  # refused (EINVAL): left as is
    return in_huge_pages()


def in_huge_pages(pid: int | str = "self") -> int:
    """Bytes of the process's anonymous memory in huge pages (AnonHugePages)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"AnonHugePages:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0

"""Linux Landlock through its three system calls: what a snippet's process may change or read.

A process restricts itself, and every process it starts inherits the restriction, which no
later call can lift: writing, creating, renaming, linking or removing anything outside the
writable folders fails with PermissionError (EACCES) whatever the route (open, os.open,
rename, link, symlink, remove, truncate, a subprocess, a shared mmap of a file opened then).
Reading is limited too, so that what a run can read of the repository is a set the cache can
name (docpipe.run.execute: Result.reads).

Why a ctypes layer of our own rather than the `landlock` package on PyPI: that package is an
alpha (1.0.0.dev5) that is itself a ctypes layer of the same three calls, knows rights only up
to ABI 5, and reads the ABI in every flag helper. This is the same calls in about a hundred
lines, with the rights of each ABI the kernel reports.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import platform
from collections.abc import Iterable

# x86_64 and aarch64 (and every architecture since 5.13) share these numbers.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_VERSION = 1  # LANDLOCK_CREATE_RULESET_VERSION
_PATH_BENEATH = 1  # LANDLOCK_RULE_PATH_BENEATH
_NO_NEW_PRIVS = 38  # PR_SET_NO_NEW_PRIVS

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
MAKE_SYM, REFER, TRUNCATE = 1 << 12, 1 << 13, 1 << 14  # REFER: ABI 2, TRUNCATE: ABI 3
IOCTL_DEV = 1 << 15  # ABI 5: ioctl on a device file

READ = EXECUTE | READ_FILE | READ_DIR
CHANGE = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
    | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM | REFER | TRUNCATE
)  # fmt: skip
# what a rule on a non-folder may grant
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV


# Scopes (ABI 6): a sealed process may signal, and connect to an abstract UNIX socket of, only
# processes of its own Landlock domain (what it started), never the runner or the machine's.
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),  # ABI 4
        ("scoped", ctypes.c_uint64),  # ABI 6
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class Unavailable(OSError):
    """This kernel (or its configuration) has no Landlock."""


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _call(number: int, *args) -> int:
    found = _libc().syscall(number, *args)
    if found < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return found


def abi() -> int:
    """The Landlock ABI version of this kernel; 0 where it has none."""
    if platform.system() != "Linux":
        return 0
    try:
        return _call(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    except OSError:  # ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot
        return 0


def _handled(version: int) -> int:
    # IOCTL_DEV: an ioctl on a device only where it may write (/dev/null, its own terminals),
    # never on the machine's devices it may read (a loop device's control, a terminal's)
    rights = READ | CHANGE | (IOCTL_DEV if version >= 5 else 0)
    if version < 2:
        rights &= ~REFER
    if version < 3:
        rights &= ~TRUNCATE
    return rights


def restrict(
    writable: Iterable[str], readable: Iterable[str], listable: Iterable[str] = ()
) -> None:
    """Restrict this process (and what it starts) for good: it may change only what lies
    beneath `writable`, read or run only what lies beneath `readable` or `writable`, and list
    (not read) the folders beneath `listable`.
    A path that does not exist is skipped. Raises Unavailable where the kernel lacks Landlock."""
    version = abi()
    if version < 1:
        raise Unavailable(errno.EOPNOTSUPP, "this kernel has no Landlock")
    handled = _handled(version)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0
    # the size of the struct this ABI knows: a kernel refuses fields it does not know
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    ruleset = _call(
        _CREATE_RULESET,
        ctypes.byref(_RulesetAttr(handled, 0, scoped)),
        ctypes.c_size_t(size),
        ctypes.c_uint32(0),
    )
    # Device nodes are made nowhere, the writable folders included (MAKE_CHAR, MAKE_BLOCK):
    # a snippet writes through none to the disk, the kernel log or a loop device.
    writes = READ | IOCTL_DEV | CHANGE & ~(MAKE_CHAR | MAKE_BLOCK)
    try:
        for paths, rights in ((listable, READ_DIR), (readable, READ), (writable, writes)):
            for path in paths:
                _allow(ruleset, path, rights & handled)
        if _libc().prctl(_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        _call(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(f"/proc/self/fd/{fd}"):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        _call(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_PATH_BENEATH), ctypes.byref(rule), 0)
    finally:
        os.close(fd)


def everything_but(root: str, inside: Iterable[str]) -> list[str]:
    """Paths whose union is the whole file system except `root`, plus `inside` (paths beneath
    root that stay readable): at each folder from / down to root, every entry but the next step
    towards root. An entry that resolves to root or to a folder above it is left out."""
    root = os.path.realpath(root)
    above = {root}
    parts = root.strip(os.sep).split(os.sep)
    steps = [os.sep + os.path.join(*parts[:i]) if i else os.sep for i in range(len(parts) + 1)]
    above.update(steps)
    found: list[str] = []
    for folder, step in zip(steps, steps[1:], strict=False):
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if entry.path == step:
                    continue
                real = os.path.realpath(entry.path)
                if real in above or real.startswith(root + os.sep):
                    continue
                found.append(entry.path)
    return found + [p for p in inside if os.path.realpath(p).startswith(root + os.sep)]

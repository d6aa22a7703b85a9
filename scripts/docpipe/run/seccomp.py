"""The socket families a run may create: those of a reader's ordinary program, no other.

A run's network namespace (docpipe.run.namespaces) holds its IP sockets to a loopback of its
own, and Landlock's scope its abstract UNIX sockets; neither covers a family that does not go
through the network stack, such as AF_VSOCK (a virtual machine's line to its host). This
filter lets `socket()` and `socketpair()` make only UNIX, IPv4, IPv6 and netlink sockets (the
last is how the C library lists the network interfaces); any other family is refused with
EAFNOSUPPORT, as a kernel built without that family answers. io_uring (which makes sockets
without socket()) and the keyring calls (_Arch.refused) get ENOSYS. It is inherited by every process
the run starts, across exec, and cannot be lifted.

Why our own ctypes and BPF: the standard library has no seccomp, and the filter is twenty
instructions; libseccomp's Python binding is not on PyPI. The system call numbers are those of
x86-64 and of arm64 (ARCHES); on another architecture install() says why not, and the run
fails naming its snippet.
"""

from __future__ import annotations

import ctypes
import platform
import socket
from typing import NamedTuple

ALLOWED = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, 16)  # 16: AF_NETLINK
# System calls refused with ENOSYS (_Arch.refused), as from a kernel without them (programs fall
# back): io_uring, whose IORING_OP_SOCKET makes sockets no socket() call sees, and the keyrings,
# which are the machine's user's (a key left there outlives the run).


class _Arch(NamedTuple):
    audit: int  # AUDIT_ARCH_*: what seccomp_data.arch holds for this ABI
    socket: int
    socketpair: int
    refused: tuple[int, ...]  # io_uring_setup, _enter, _register; add_key, request_key, keyctl
    x32: bool  # x86-64's x32 ABI: the same calls, numbers with bit 30 set


ARCHES = {
    "x86_64": _Arch(0xC000003E, 41, 53, (425, 426, 427, 248, 249, 250), True),
    "aarch64": _Arch(0xC00000B7, 198, 199, (425, 426, 427, 217, 218, 219), False),
}
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_EAFNOSUPPORT, _ENOSYS = 97, 38
# BPF opcodes: load a word of seccomp_data at an offset, jump if equal, return
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_X32 = 0x40000000  # x32 system calls: their numbers have this bit
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def program(arch: _Arch = ARCHES["x86_64"]) -> list[tuple[int, int, int, int]]:
    """The filter for one architecture, as (code, jump if true, jump if false, k)."""
    f, r = len(ALLOWED), len(arch.refused)
    x32 = [(_JGE_K, 5 + f + r, 0, _X32)] if arch.x32 else []  # x32's numbers: refused
    return [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 0, 6 + len(x32) + f + r, arch.audit),  # another ABI's calls: refused
        (_LD_W_ABS, 0, 0, _NR),
        *x32,
        *[(_JEQ_K, 4 + f + r - i, 0, nr) for i, nr in enumerate(arch.refused)],
        (_JEQ_K, 1, 0, arch.socket),
        (_JEQ_K, 0, 2 + f, arch.socketpair),  # neither: allowed
        (_LD_W_ABS, 0, 0, _ARG0),  # the family (its low 32 bits, as the kernel reads it)
        *[(_JEQ_K, f - i, 0, family) for i, family in enumerate(ALLOWED)],
        (_RET_K, 0, 0, _RET_ERRNO | _EAFNOSUPPORT),
        (_RET_K, 0, 0, _RET_ALLOW),
        (_RET_K, 0, 0, _RET_ERRNO | _ENOSYS),
    ]


def install() -> str:
    """Install the filter on this process (and so on all it starts): "" when it is on, else
    why not."""
    arch = ARCHES.get(platform.machine())
    if platform.system() != "Linux" or arch is None:
        return f"no socket filter for {platform.system()} on {platform.machine()}"
    code = program(arch)
    filters = (_Filter * len(code))(*[_Filter(*i) for i in code])
    prog = _Program(len(code), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        return f"no_new_privs: errno {ctypes.get_errno()}"
    if prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        return f"seccomp: errno {ctypes.get_errno()}"
    return ""

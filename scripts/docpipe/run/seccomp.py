"""The system calls a run may make as it likes, and those the runner answers for it.

A run's network namespace (docpipe.run.namespaces) holds its IP sockets to a loopback of its
own, and Landlock's scope its abstract UNIX sockets; neither covers a family that does not go
through the network stack, such as AF_VSOCK (a virtual machine's line to its host), nor a
pathname UNIX socket, which any process that can see its file can connect to, whatever its
namespaces. This filter, inherited by every process the run starts, across exec, for good:

- lets `socket()` and `socketpair()` make only UNIX, IPv4, IPv6 and netlink sockets (the last
  is how the C library lists the network interfaces); any other family is refused with
  EAFNOSUPPORT, as a kernel built without that family answers;
- hands every `connect()` to the run's supervisor (docpipe.run.supervisor), which makes it for
  the run when it reaches a socket of the run's own, and refuses it otherwise; and hands it a
  UNIX socket of any type but stream and seqpacket (a datagram socket sends to any socket by
  its path, with no connect), which it refuses, saying so;
- refuses a second supervisor (seccomp()'s NEW_LISTENER flag, EPERM): the kernel would hand
  the calls to the newest one;
- answers io_uring (which makes and connects sockets with no system call this filter sees) and
  the keyring calls (_Arch.refused) with ENOSYS, as a kernel without them does.

Why our own ctypes and BPF: the standard library has no seccomp, and the filter is thirty
instructions; libseccomp's Python binding is not on PyPI. The system call numbers are those of
x86-64 and of arm64 (ARCHES); on another architecture install() says why not, and the run
fails naming its snippet.
"""

from __future__ import annotations

import ctypes
import functools
import platform
import socket
from typing import NamedTuple

ALLOWED = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, 16)  # 16: AF_NETLINK
# The UNIX socket types a run makes itself: neither sends to an address (a stream socket
# refuses one, a seqpacket socket ignores it), so only connect() reaches another socket.
UNIX_TYPES = (socket.SOCK_STREAM, socket.SOCK_SEQPACKET)
# System calls refused with ENOSYS (_Arch.refused), as from a kernel without them (programs fall
# back): io_uring, whose IORING_OP_SOCKET makes sockets no socket() call sees, and the keyrings,
# which are the machine's user's (a key left there outlives the run).


class _Arch(NamedTuple):
    audit: int  # AUDIT_ARCH_*: what seccomp_data.arch holds for this ABI
    socket: int
    socketpair: int
    connect: int
    seccomp: int
    refused: tuple[int, ...]  # io_uring_setup, _enter, _register; add_key, request_key, keyctl
    x32: bool  # x86-64's x32 ABI: the same calls, numbers with bit 30 set
    sends: tuple[tuple[int, int], ...]  # (sendto, its flags' argument), sendmsg, sendmmsg


ARCHES = {
    "x86_64": _Arch(
        0xC000003E, 41, 53, 42, 317, (425, 426, 427, 248, 249, 250), True,
        ((44, 3), (46, 2), (307, 3)),
    ),
    "aarch64": _Arch(
        0xC00000B7, 198, 199, 203, 277, (425, 426, 427, 217, 218, 219), False,
        ((206, 3), (211, 2), (269, 3)),
    ),
}  # fmt: skip
MSG_FASTOPEN = 0x20000000  # a send that connects a TCP socket, with no connect() call
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER, _NEW_LISTENER, _WAIT_KILLABLE_RECV = 1, 8, 32
RET_ALLOW, RET_ERRNO, RET_USER_NOTIF = 0x7FFF0000, 0x00050000, 0x7FC00000
EPERM, EAFNOSUPPORT, ENOSYS = 1, 97, 38
# BPF opcodes: load a word of seccomp_data at an offset, and it with a constant, jump if equal
# / greater or equal / any bit set, return
LD_W_ABS, AND_K, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x54, 0x15, 0x35, 0x45, 0x06
X32 = 0x40000000  # x32 system calls: their numbers have this bit
# offsets in struct seccomp_data (an argument's low word)
NR, ARCH, ARG0, ARG1, ARG2 = 0, 4, 16, 24, 32
_TYPE_MASK = 0xF  # socket()'s type, without SOCK_NONBLOCK and SOCK_CLOEXEC


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def _assemble(lines: list[tuple]) -> list[tuple[int, int, int, int]]:
    """BPF from (code, k, label if true, label if false) and ("label", name) lines: jumps are
    to names, as a reader checks them, and their offsets are counted here."""
    where, n = {}, 0
    for line in lines:
        if line[0] == "label":
            where[line[1]] = n
        else:
            n += 1
    code = []
    for line in lines:
        if line[0] == "label":
            continue
        op, k, *to = line
        pc = len(code)
        jt, jf = ((where[t] - pc - 1 if t else 0) for t in (to + [None, None])[:2])
        code.append((op, jt, jf, k))
    return code


def program(
    arch: _Arch = ARCHES["x86_64"], contained: bool = False
) -> list[tuple[int, int, int, int]]:
    """The filter for one architecture, as (code, jump if true, jump if false, k). A contained
    run (no network namespace of its own: docpipe.run.namespaces) is also refused IP sockets
    other than TCP and UDP (EPERM, as the kernel answers a raw socket to an ordinary user), a
    sendto() to an
    address (a datagram sent with no connect()) and a send with MSG_FASTOPEN (which connects a
    TCP socket with no connect()). A sendmsg() with an address in its message is not seen:
    the filter cannot read the message (the contained run's known gap, said in the notice)."""
    sends = [] if not contained else [(nr, arg) for nr, arg in arch.sends]
    ip_family = [(JEQ_K, family, "ip", None) for family in ALLOWED[1:3]] if contained else []
    return _assemble(
        [
            (LD_W_ABS, ARCH),
            (JEQ_K, arch.audit, None, "nosys"),  # another ABI's calls: refused
            (LD_W_ABS, NR),
            *([(JGE_K, X32, "nosys", None)] if arch.x32 else []),  # x32's numbers: refused
            *[(JEQ_K, nr, "nosys", None) for nr in arch.refused],
            (JEQ_K, arch.connect, "supervised", None),
            (JEQ_K, arch.seccomp, "seccomp", None),
            *[(JEQ_K, nr, f"send{nr}", None) for nr, _ in sends],
            (JEQ_K, arch.socket, "family", None),
            (JEQ_K, arch.socketpair, "family", "allow"),
            *[
                line
                for nr, arg in sends
                for line in (
                    ("label", f"send{nr}"),
                    (LD_W_ABS, ARG0 + 8 * arg),  # the flags
                    (JSET_K, MSG_FASTOPEN, "eperm", None),
                    *(  # sendto's address length: an IP address's is 16 or more (a
                        # netlink address, 12, is the kernel's; a UNIX datagram socket is
                        # refused already)
                        [(LD_W_ABS, ARG0 + 40), (JGE_K, 16, "eperm", "allow")]
                        if nr == arch.sends[0][0]
                        else [(RET_K, RET_ALLOW)]
                    ),
                )
            ],
            ("label", "family"),
            (LD_W_ABS, ARG0),  # the family (its low 32 bits, as the kernel reads it)
            (JEQ_K, socket.AF_UNIX, "unix", None),
            *ip_family,
            *[(JEQ_K, family, "allow", None) for family in ALLOWED[1:]],
            (RET_K, RET_ERRNO | EAFNOSUPPORT),
            *(
                [
                    ("label", "ip"),  # TCP and UDP, each by its type's default or name
                    (LD_W_ABS, ARG1),
                    (AND_K, _TYPE_MASK),
                    (JEQ_K, socket.SOCK_STREAM, "stream", None),
                    (JEQ_K, socket.SOCK_DGRAM, None, "eperm"),
                    (LD_W_ABS, ARG2),
                    (JEQ_K, 0, "allow", None),
                    (JEQ_K, socket.IPPROTO_UDP, "allow", "eperm"),
                    ("label", "stream"),
                    (LD_W_ABS, ARG2),
                    (JEQ_K, 0, "allow", None),
                    (JEQ_K, socket.IPPROTO_TCP, "allow", "eperm"),
                ]
                if contained
                else []
            ),
            ("label", "unix"),
            (LD_W_ABS, ARG1),
            (AND_K, _TYPE_MASK),
            *[(JEQ_K, kind, "allow", None) for kind in UNIX_TYPES],
            ("label", "supervised"),
            (RET_K, RET_USER_NOTIF),
            ("label", "seccomp"),
            (LD_W_ABS, ARG1),  # flags
            (JSET_K, _NEW_LISTENER, None, "allow"),
            (RET_K, RET_ERRNO | EPERM),
            ("label", "allow"),
            (RET_K, RET_ALLOW),
            ("label", "eperm"),
            (RET_K, RET_ERRNO | EPERM),
            ("label", "nosys"),
            (RET_K, RET_ERRNO | ENOSYS),
        ]
    )


def install(contained: bool = False) -> tuple[int, str]:
    """Install the filter on this process (and so on all it starts): (the supervisor's end, a
    file descriptor to hand to docpipe.run.supervisor, "") when it is on, else (-1, why not).
    Until a supervisor reads that end, a supervised call waits; once it is closed, the kernel
    answers ENOSYS."""
    arch = ARCHES.get(platform.machine())
    if platform.system() != "Linux" or arch is None:
        return -1, f"no socket filter for {platform.system()} on {platform.machine()}"
    prog, _ = _compiled(arch, contained)
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        return -1, f"no_new_privs: errno {ctypes.get_errno()}"
    # Once the supervisor has a call, the caller waits for its answer whatever signal comes
    # (but a kill), as it waits for the kernel's own connect(): an interrupted wait would
    # return EINTR for a call the supervisor still makes (Linux 5.19; older kernels: without)
    for flags in (_NEW_LISTENER | _WAIT_KILLABLE_RECV, _NEW_LISTENER):
        listener = libc.syscall(
            ctypes.c_long(arch.seccomp),
            ctypes.c_uint(_SECCOMP_SET_MODE_FILTER),
            ctypes.c_uint(flags),
            ctypes.byref(prog),
        )
        if listener >= 0 or ctypes.get_errno() != 22:  # EINVAL: a flag this kernel lacks
            break
    if listener < 0:
        return -1, f"seccomp: errno {ctypes.get_errno()}"
    return listener, ""


def prepare(contained: bool = False) -> None:
    """Assemble this machine's filter now, in the zygote: every run it forks installs it as it
    is (install()), none assembles it again."""
    arch = ARCHES.get(platform.machine())
    if platform.system() == "Linux" and arch is not None:
        _compiled(arch, contained)
        _libc()


@functools.cache
def _compiled(arch: _Arch, contained: bool) -> tuple[_Program, ctypes.Array]:
    """The filter as the kernel takes it (and the array its program points to, kept alive with
    it), assembled once per process and architecture."""
    code = program(arch, contained)
    filters = (_Filter * len(code))(*[_Filter(*i) for i in code])
    return _Program(len(code), filters), filters


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p] + [ctypes.c_ulong] * 2
    libc.syscall.restype = ctypes.c_long
    return libc

"""The supervisor of a run's connections: every `connect()` a snippet's processes make, made
for them, to a socket of the run's own only.

A pathname UNIX socket is reached through its file, and a process that can see the file can
connect to it, whatever its namespaces; Landlock (ABI 7) has no rule for it, and the run is
uid 0, the owner of most such sockets of the machine. So the run's socket filter
(docpipe.run.seccomp) hands each connect() to this supervisor, a thread of the run's PID
namespace's init (docpipe.run.namespaces.enclose), which has joined the run's mount and
network namespaces. For each call it reads the address once from the caller's memory, takes a
copy of the caller's socket (pidfd_getfd) and makes the call itself, with its own copy of the
address: what the caller's other threads write there meanwhile changes nothing (the kernel's
"continue" answer would read the address again, after the check). A UNIX path is opened, and
the call is made to the file opened (/proc/self/fd/N), which is connected to only when it is
a socket bound by a process of the run's network namespace (sock_diag's UNIX_DIAG_VFS), that
is, by the run's own processes. An abstract name and an IP address are the run's network
namespace's already.

A call refused is answered EPERM and kept (REFUSED), for the namespace's init to report
through its status pipe, never through a file the run could replace; the run fails, naming
its snippet and the socket (docpipe.run.pool). So is a UNIX datagram socket, which the filter
hands over too: it sends to any socket by its path, with no connect().

Why our own: the standard library has no seccomp; this is the kernel's user-notification API
(seccomp_unotify(2)) as its manual page describes it, answered in Python with ctypes.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import select
import socket
import stat
import struct
import threading

from docpipe.run import processes, seccomp

REFUSED: list[str] = []  # what the supervisor refused, in the init's memory
# A contained run (no namespaces: docpipe.run.namespaces) shares the machine's network
# namespace: a socket is the run's own when one of its processes (below this init) holds it.
CONTAINED = False
REFUSED_ROOM = 16  # refusals kept (the first ones): the run fails with the first anyway
# struct seccomp_notif (id, pid, flags, then seccomp_data: nr, arch, ip, args[6]), and _resp
_NOTIF = struct.Struct("=QIIiIQ6Q")
_RESP = struct.Struct("=QqiI")
_RECV, _SEND, _ID_VALID = 0xC0502100, 0xC0182101, 0x40082102  # SECCOMP_IOCTL_NOTIF_*
_PIDFD_GETFD = 438  # the same number on x86-64 and arm64
_PIDFD_THREAD = os.O_EXCL  # a pidfd of a thread, not only of a process's leader
_SOCKADDR_MAX = 128  # sizeof(struct sockaddr_storage): the kernel refuses a longer address
_SOCK_DIAG, _SOCK_DIAG_BY_FAMILY, _UDIAG_SHOW_VFS, _UNIX_DIAG_VFS = 4, 20, 0x2, 1
_SO_DOMAIN = 39
_OPENAT2, _RESOLVE_IN_ROOT = 437, 0x10  # the same number on x86-64 and arm64
_NLM_F_REQUEST, _NLM_F_DUMP, _NLMSG_ERROR, _NLMSG_DONE = 0x1, 0x300, 2, 3


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
    libc.connect.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_uint]
    libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.getsockopt.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 2
    return libc


def receive(end: socket.socket) -> int:
    """The filter's listener, sent by the run (hand_over()) once its filter is on; -1 when the
    run ends or closes its end without one. The run waits for ready() before its snippet starts."""
    listener, watch, _ = receive_all(end)
    if watch >= 0:
        os.close(watch)
    return listener


def receive_all(end: socket.socket) -> tuple[int, int, bytes]:
    """receive(), and the inotify instance watching the run's private copies of its data files
    with what it watches (namespaces.copy_data), if the run sent one: (-1, b"") if not."""
    try:
        data, fds, _, _ = socket.recv_fds(end, 1 << 16, 2)
    except OSError:
        return -1, -1, b""
    if not fds:
        return -1, -1, b""
    listener, watch = fds[0], fds[1] if len(fds) > 1 else -1
    size = struct.unpack("I", data[1:5])[0] if len(data) >= 5 else 0
    payload = data[5:]
    while len(payload) < size:  # the rest of a long list, on the same stream
        try:
            chunk = end.recv(size - len(payload))
        except OSError:
            chunk = b""
        if not chunk:
            break
        payload += chunk
    if watch >= 0 and len(payload) != size:
        os.close(watch)
        watch, payload = -1, b""
    return listener, watch, payload


def ready(end: socket.socket) -> None:
    """Tell the run that its calls are answered (or never will be: it fails), and hang up."""
    with end, contextlib.suppress(OSError):
        end.sendall(b"r")


def hand_over(
    end: socket.socket | None, listener: int, watch: tuple[int, bytes] | None = None
) -> None:
    """In the run: send the filter's listener to the supervisor (-1: none, the run goes on
    unsupervised and fails), with `watch` (the inotify instance watching the run's private
    copies of its data files and what it watches: namespaces.copy_data), and keep no copy of
    the listener or the watch. The run goes on setting itself up while the supervisor joins
    its namespaces and its init moves it into its groups; it waits for them (wait_ready())
    before its snippet's first line. With no line (no supervisor), the listener is closed:
    the kernel then answers the calls ENOSYS."""
    if end is not None and listener < 0:
        end.close()  # the supervisor hears that there is nothing to answer
    elif end is not None:
        fds, payload = [listener], b""
        if watch is not None:
            fds.append(watch[0])
            payload = watch[1]
        try:
            socket.send_fds(end, [b"l" + struct.pack("I", len(payload))], fds)
            end.sendall(payload)
        except OSError:
            end.close()  # the supervisor is gone: wait_ready() does not wait for it
    if listener >= 0:
        os.close(listener)
    if watch is not None:
        os.close(watch[0])


def wait_ready(end: socket.socket | None) -> None:
    """In the run, before anything of the snippet's runs (its figure code among it): wait until
    the supervisor answers its calls (or never will) and the init has moved it into its
    groups, so that every process the snippet starts is in them; then keep no line."""
    if end is None:
        return
    with end, contextlib.suppress(OSError):
        if end.fileno() >= 0:
            end.recv(1)


def join(run: int) -> None:
    """Join the mount and network namespaces of the process `run` (a pid of this namespace), so
    that an address means here what it means to the run. OSError if the kernel refuses."""
    pidfd = os.pidfd_open(run)
    try:
        flags = 0x00020000 | 0x40000000  # CLONE_NEWNS, CLONE_NEWNET
        if _libc().setns(pidfd, flags) != 0:
            e = ctypes.get_errno()
            # an ordinary user's run has a user namespace of its own (namespaces._unshare):
            # joined too, where this process's own user gets the rights to join the others
            if e != errno.EPERM or _libc().setns(pidfd, flags | 0x10000000) != 0:  # NEWUSER
                e = ctypes.get_errno()
                raise OSError(e, f"setns: {os.strerror(e)}")
    finally:
        os.close(pidfd)


def contain() -> None:
    """In a contained run's init, instead of join(): answer for the processes below it."""
    global CONTAINED
    CONTAINED = True


def start(listener: int) -> None:
    """Answer the run's supervised calls in a thread of this process until the run's last
    process has ended (the listener then reports a hang-up)."""
    threading.Thread(target=_serve, args=(listener,), daemon=True).start()


def refused(why: str) -> None:
    """Note a refusal, for the runner to fail the run with."""
    if len(REFUSED) < REFUSED_ROOM and why not in REFUSED:
        REFUSED.append(why.replace("\n", " ")[:500])


def _serve(listener: int) -> None:
    """Receive each call and answer it in a thread of its own (a connect() that waits for a
    full backlog holds up no other call), or here when no thread can be started (the run's
    process limit counts this process's threads too): never ends before the run does."""
    libc = _libc()
    waiting = select.poll()
    waiting.register(listener, select.POLLIN)
    while True:
        try:
            events = waiting.poll()
        except InterruptedError:
            continue
        if not any(mask & select.POLLIN for _, mask in events):
            return  # every process under the filter has ended
        buffer = ctypes.create_string_buffer(_NOTIF.size)
        if libc.ioctl(listener, _RECV, buffer) != 0:
            if ctypes.get_errno() in (errno.ENOENT, errno.EINTR):
                continue  # the caller died, or was interrupted, meanwhile
            return
        call = _NOTIF.unpack(buffer.raw)
        try:
            threading.Thread(target=_answer, args=(listener, call), daemon=True).start()
        except RuntimeError:  # can't start new thread
            _answer(listener, call)


def _answer(listener: int, call: tuple) -> None:
    number, pid, nr, args = call[0], call[1], call[3], call[6:]
    try:
        if nr in (arch.connect for arch in seccomp.ARCHES.values()):
            error = _connect(listener, pid, number, args)
        else:  # socket() or socketpair() of a UNIX datagram socket (an IP one, contained)
            kind = args[1] & 0xF
            name = {1: "SOCK_STREAM", 2: "SOCK_DGRAM", 3: "SOCK_RAW"}.get(kind, f"type {kind}")
            if (args[0] & 0xFFFFFFFF) == socket.AF_UNIX:
                refused(
                    f"made a UNIX socket of type {name}, which sends to any socket of the"
                    " machine by its path: the runner gives a run UNIX stream and seqpacket"
                    " sockets only"
                )
            else:
                refused(
                    f"made an IP socket of type {name} (protocol {args[2] & 0xFFFFFFFF}): a run"
                    " without namespaces of its own gets TCP and UDP sockets only"
                )
            error = errno.EPERM
    except Exception as e:  # never a traceback from the runner's own process: the call fails
        refused(f"the runner could not answer a connect(): {e!r}")
        error = errno.EIO
    response = _RESP.pack(number, 0, -error if error else 0, 0)
    _libc().ioctl(listener, _SEND, ctypes.create_string_buffer(response, _RESP.size))


_SUN_MAX = 110  # sizeof(struct sockaddr_un): a longer UNIX address is refused, EINVAL


def _connect(listener: int, pid: int, number: int, args: tuple) -> int:
    """Make the caller's connect(fd, address, length) for it; its errno (0: connected)."""
    fd, where, length = args[0] & 0xFFFFFFFF, args[1], args[2] & 0xFFFFFFFF
    if length > _SOCKADDR_MAX:
        return errno.EINVAL
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
            address = os.pread(memory.fileno(), length, where) if length else b""
    except (OSError, OverflowError):
        return errno.EFAULT
    if len(address) != length:
        return errno.EFAULT
    if not _still_waiting(listener, number):
        return errno.EINTR  # the caller is gone: no one reads the answer
    try:
        theirs = _their_socket(pid, fd)
    except OSError as e:
        return e.errno or errno.EBADF
    opened = -1
    try:
        family = int.from_bytes(address[:2], "little") if length >= 2 else -1
        if family == socket.AF_UNIX and address[2:3] not in (b"", b"\0") and _is_unix(theirs):
            if length > _SUN_MAX:
                return errno.EINVAL
            path = address[2:].split(b"\0", 1)[0]
            opened = _open_as(pid, path)
            found = os.fstat(opened)
            if stat.S_ISSOCK(found.st_mode) and not _own_socket(found):
                shown = os.fsdecode(path)
                refused(
                    f"tried to connect to {shown}, a UNIX socket no process of its run made:"
                    " a run reaches only its own processes' sockets"
                )
                return errno.EPERM
            address = struct.pack("=H", socket.AF_UNIX) + f"/proc/self/fd/{opened}\0".encode()
        elif CONTAINED and family in (socket.AF_INET, socket.AF_INET6):
            where_to = _ip_address(family, address)
            if where_to is None:
                return errno.EINVAL
            if not _run_listens(family, *where_to) and not _name_server(*where_to):
                refused(
                    f"tried to connect to {_shown(family, *where_to)}, where no process of its run"
                    " listens: a run without namespaces of its own reaches only its own"
                    " processes' ports (and the name servers of /etc/resolv.conf)"
                )
                return errno.EPERM
        buffer = ctypes.create_string_buffer(address, max(len(address), 1))
        if _libc().connect(theirs, buffer, len(address)) != 0:
            return ctypes.get_errno()
        return 0
    except OSError as e:  # as the kernel answers the caller: ENOENT, ENOTSOCK, ELOOP...
        return e.errno or errno.EINVAL
    finally:
        os.close(theirs)
        if opened >= 0:
            os.close(opened)


def _still_waiting(listener: int, number: int) -> bool:
    value = ctypes.c_uint64(number)
    return _libc().ioctl(listener, _ID_VALID, ctypes.byref(value)) == 0


def _their_socket(pid: int, fd: int) -> int:
    """A copy of the caller's file descriptor `fd` (the same socket), in this process."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:  # a thread other than its process's first
        pidfd = os.pidfd_open(pid, _PIDFD_THREAD)
    try:
        return _checked(_libc().syscall(ctypes.c_long(_PIDFD_GETFD), pidfd, fd, 0))
    finally:
        os.close(pidfd)


def _is_unix(fd: int) -> bool:
    """Whether `fd` is a UNIX socket; OSError (ENOTSOCK) when it is no socket."""
    value, size = ctypes.c_int(0), ctypes.c_uint(ctypes.sizeof(ctypes.c_int))
    level, option = socket.SOL_SOCKET, _SO_DOMAIN
    _checked(_libc().getsockopt(fd, level, option, ctypes.byref(value), ctypes.byref(size)))
    return value.value == socket.AF_UNIX


def _checked(result: int) -> int:
    """A C call's result, or OSError with its errno when it failed (negative)."""
    if result < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return result


def _open_as(pid: int, path: bytes) -> int:
    """The file `path` names for the caller, opened as a path only (O_PATH): the very file the
    connection will be made to. A relative path starts at the caller's working folder, an
    absolute one at its root (its own after a chroot, as openat2's RESOLVE_IN_ROOT reads it);
    /proc/self and /dev/fd are the caller's."""
    for mine, theirs in ((b"/proc/self/", f"/proc/{pid}/"), (b"/dev/fd/", f"/proc/{pid}/fd/")):
        if path.startswith(mine):
            path = theirs.encode() + path[len(mine) :]
    path = path.replace(b"/proc/thread-self/", f"/proc/{pid}/task/{pid}/".encode(), 1)
    flags = os.O_PATH | os.O_CLOEXEC
    if not path.startswith(b"/"):
        here = os.open(f"/proc/{pid}/cwd", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            return os.open(path, flags, dir_fd=here)
        finally:
            os.close(here)
    root = os.open(f"/proc/{pid}/root", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        theirs, mine = os.fstat(root), os.stat("/")
        if (theirs.st_dev, theirs.st_ino) == (mine.st_dev, mine.st_ino):
            return os.open(path, flags)  # the same root: /proc's magic links as they are
        how = struct.pack("=QQQ", flags, 0, _RESOLVE_IN_ROOT)
        return _checked(
            _libc().syscall(
                ctypes.c_long(_OPENAT2), root, ctypes.c_char_p(path), how, ctypes.c_size_t(len(how))
            )
        )
    finally:
        os.close(root)


def _own_socket(found: os.stat_result) -> bool:
    """Whether the socket file `found` is bound by a socket of this network namespace (the
    run's: only its processes make sockets there), as the kernel's sock_diag lists them; in a
    contained run, by a socket one of the run's processes holds."""
    device = (os.major(found.st_dev) << 20) | os.minor(found.st_dev)  # the kernel's dev_t
    socket_inode = _bound_sockets().get((found.st_ino & 0xFFFFFFFF, device))
    if socket_inode is None:
        return False
    return not CONTAINED or socket_inode in _run_sockets()


def _run_sockets() -> set[int]:
    """The inodes of the sockets the run's processes (those below this init) hold."""
    found = set()
    for pid in processes.descendants("self"):
        with contextlib.suppress(OSError), os.scandir(f"/proc/{pid}/fd") as fds:
            for fd in fds:
                with contextlib.suppress(OSError):
                    target = os.readlink(fd.path)
                    if target.startswith("socket:["):
                        found.add(int(target[8:-1]))
    return found


def _ip_address(family: int, address: bytes) -> tuple[str, int] | None:
    """(host, port) of a sockaddr_in or sockaddr_in6; None when it is too short."""
    if family == socket.AF_INET and len(address) >= 8:
        return socket.inet_ntop(family, address[4:8]), int.from_bytes(address[2:4], "big")
    if family == socket.AF_INET6 and len(address) >= 24:
        return socket.inet_ntop(family, address[8:24]), int.from_bytes(address[2:4], "big")
    return None


def _shown(family: int, host: str, port: int) -> str:
    return f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"


def _run_listens(family: int, host: str, port: int) -> bool:
    """Whether a TCP socket that one of the run's processes holds listens on port `port` of
    `host`, an address of this machine (the kernel's tables, /proc/net/tcp and tcp6)."""
    ours = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table, encoding="ascii") as f:
            next(f, None)
            for line in f:
                fields = line.split()
                local, state, inode = fields[1], fields[3], int(fields[9])
                bound, _, bound_port = local.partition(":")
                if state != "0A" or int(bound_port, 16) != port:  # 0A: LISTEN
                    continue
                if ours is None:
                    ours = _run_sockets()
                if inode in ours and _reaches(bound, family, host):
                    return True
    return False


def _name_server(host: str, port: int) -> bool:
    """Whether (host, port) is a name server of /etc/resolv.conf, which the C library asks
    what an address is called (a contained run's lookups, as a reader's process makes them)."""
    if port != 53:
        return False
    try:
        with open("/etc/resolv.conf", encoding="utf-8", errors="replace") as f:
            servers = {line.split()[1] for line in f if line.split()[:1] == ["nameserver"]}
    except (OSError, IndexError):
        return False
    return host.removeprefix("::ffff:") in {s.split("%")[0] for s in servers}


def _reaches(bound: str, family: int, host: str) -> bool:
    """Whether a listener bound to `bound` (the kernel's hex: a wildcard, or an address) takes
    a connection to `host`, which must then be an address of this machine."""
    raw = bytes.fromhex(bound)
    words = [raw[i : i + 4][::-1] for i in range(0, len(raw), 4)]  # host order, per word
    packed = b"".join(words)
    kind = socket.AF_INET if len(packed) == 4 else socket.AF_INET6
    plain = socket.inet_ntop(kind, packed).removeprefix("::ffff:")
    if packed.strip(b"\0") and plain != host.removeprefix("::ffff:"):
        return False
    try:  # the machine's own address: a socket can be bound to it
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((host, 0))
    except OSError:
        return False
    return True


def _bound_sockets() -> dict[tuple[int, int], int]:
    """(inode, device) of the file of every UNIX socket of this network namespace bound to a
    path (sock_diag, UDIAG_SHOW_VFS), and the inode of the socket itself."""
    request = struct.pack("=BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, _UDIAG_SHOW_VFS, 0, 0)
    flags = _NLM_F_REQUEST | _NLM_F_DUMP
    header = struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, flags, 1, 0)
    found = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, _SOCK_DIAG) as s:
        s.sendto(header + request, (0, 0))
        while True:
            data = s.recv(1 << 16)
            at = 0
            while at + 16 <= len(data):
                size, kind = struct.unpack_from("=IH", data, at)
                if kind == _NLMSG_DONE:
                    return found
                if kind == _NLMSG_ERROR:
                    code = -struct.unpack_from("=i", data, at + 16)[0]
                    raise OSError(code, f"sock_diag: {os.strerror(code)}")
                attribute = at + 16 + 16  # after nlmsghdr and struct unix_diag_msg
                socket_inode = struct.unpack_from("=I", data, at + 16 + 4)[0]  # udiag_ino
                while attribute + 4 <= at + size:
                    length, name = struct.unpack_from("=HH", data, attribute)
                    if name == _UNIX_DIAG_VFS and length >= 12:
                        found[struct.unpack_from("=II", data, attribute + 4)] = socket_inode
                    attribute += (length + 3) & ~3 or 4
                at += (size + 3) & ~3 or len(data)

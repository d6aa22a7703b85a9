"""The kernel's namespaces around one run: what a snippet's processes share with nobody else.

A run's child (forked by the zygote) starts the run in a PID namespace of its own (enclose()):
every process the run starts lives there and is killed when the run ends or its child dies,
however regen was stopped. Before it seals itself (docpipe.run.landlock), the run moves into a
mount namespace and a network namespace of its own (`unshare`, isolate()), which every process
it starts shares:

- its own /proc: the processes of its namespace, no other;
- a shared-memory folder of its own: a fresh tmpfs on /dev/shm, mounted `nodev,nosuid`, where
  multiprocessing's semaphores and queues and torch's shared tensors (DataLoader workers) live
  as on a reader's machine; no device node can be made in it;
- its own empty /tmp, /var/tmp and /run (RUNTIME): no pathname UNIX socket, lock or temporary
  file of another process is there to reach; the project and the interpreter, when they lie
  in one of them, are bound back read-only;
- its job folder (which the runner made in /dev/shm or the temporary folder), bound back at
  the same path, `nodev,nosuid`; every other job's folder is hidden under the fresh tmpfs;
- a loopback of its own: the snippet's processes reach each other on 127.0.0.1 (a process
  group's rendezvous), and no server of the machine's; the loopback's names resolve without a
  name server, as on a reader's machine (_loopback_names);
- every other mount read-only (the kernel's own /proc and /sys aside): the mode, owner, times
  and extended attributes of a file outside the job folder cannot change, whatever the route
  (ctypes, a subprocess's chmod, touch or chattr). The user's configuration and cache folders
  are overlays whose changes go to a private copy that ends with the run
  (_overlay_user_folders: matplotlib tests them for writing at import, and would warn).

Why our own ctypes calls: the standard library has os.unshare only from Python 3.12, and the
mounts need mount(2), which it lacks. unshare needs CAP_SYS_ADMIN: the runner runs as root on
this project's machines; elsewhere a user namespace gives it to an ordinary user.

Where neither can be had (a kernel or policy that refuses an ordinary user a user namespace, as
GitHub's ubuntu-24.04 runners and Ubuntu 24.04's AppArmor default do, or that grants one without
capabilities; a container without them), runs are *contained* instead (unavailable() says why,
once per process, by trying in a throwaway child): no namespace, the rest of the seal as it is.
The run's child is still the reaper of everything the run starts (PR_SET_CHILD_SUBREAPER on the
init below, which kills and names what is left when the run ends; the zygote adopts and kills
what a killed child leaves); Landlock still limits what it may change and read, and scopes its
signals and abstract sockets; the socket filter and its supervisor still make every connect(),
to a UNIX socket or an IP port held by one of the run's own processes only (supervisor.CONTAINED),
refuse IP datagram sockets and TCP Fast Open (seccomp.program(contained=True)), and the memory
group and limits hold. What a contained run shares with the machine: /proc (it sees the
machine's processes, cannot signal them), /tmp and /run (readable, not writable), /dev/shm
(writable: multiprocessing's semaphores live there; the job folders then move to the temporary
folder), the loopback (it binds ports there), and the modes and times of the files of its user.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import functools
import json
import os
import select
import signal
import socket
import struct
from collections.abc import Callable, Iterable
from pathlib import Path

from docpipe.run import cgroups, opened, processes, supervisor, timing

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS = 0x20000000, 0x08000000, 0x04000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_NOATIME, MS_NODIRATIME, MS_REC, MS_PRIVATE = 1024, 2048, 0x4000, 1 << 18
MS_RELATIME, MS_STRICTATIME = 1 << 21, 1 << 24
# A mount's own options, as /proc/self/mountinfo lists them, and their flags: a remount keeps
# them (a flag left out would be cleared).
_OPTIONS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}
# Kernel file systems left as they are: their files are no one's data, and Landlock refuses
# writes to them anyway.
_KERNEL = ("/proc", "/sys", "/dev/pts", "/dev/mqueue")
SHARED_MEMORY = "/dev/shm"
# Where the machine's processes keep what they share at run time (their pathname UNIX sockets,
# lock and pid files, temporary files): each is an empty tmpfs of the run's own, so no socket
# of another process is there to connect to. The project, the interpreter and the job folder,
# when they lie under one, are bound back (read-only but the job folder).
RUNTIME = ("/tmp", "/var/tmp", "/run", "/var/run")
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


@functools.cache
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc().mount(
            None if source is None else os.fsencode(source),
            os.fsencode(target),
            None if kind is None else kind.encode(),
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _unshare(flags: int = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS) -> None:
    if _libc().unshare(flags) == 0:
        return
    global own_user_namespace
    uid, gid = os.getuid(), os.getgid()  # an ordinary user: in a user namespace of its own
    _check(_libc().unshare(CLONE_NEWUSER | flags), "unshare")
    own_user_namespace = True
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


NO_NAMESPACES = "DOCPIPE_NO_NAMESPACES"  # set (to 1): contain runs as without namespaces


@functools.cache
def unavailable() -> str:
    """ "" when a run can have the namespaces of this module, else why not, in a few words (its
    runs are then contained: the module docstring). Asked once per process, of a throwaway child
    that tries what a run does first: a PID, mount and network namespace (in a user namespace
    of its own for an ordinary user) and a private mount, which a user namespace granted without
    capabilities refuses. NO_NAMESPACES set answers as such a kernel would."""
    if os.environ.get(NO_NAMESPACES):
        return f"{NO_NAMESPACES} is set"
    if not hasattr(os, "fork") or not os.path.exists("/proc/self/ns"):
        return "this system has no Linux namespaces"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the throwaway child: only system calls, then _exit
        code = 0
        try:
            os.close(read)
            _unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
            _mount(None, "/", None, MS_REC | MS_PRIVATE)
        except BaseException as e:  # noqa: BLE001  (what the kernel said, for the parent)
            os.write(write, str(e).encode()[:500])
            code = 1
        os._exit(code)
    os.close(write)
    said = b""
    while chunk := os.read(read, 512):
        said += chunk
    os.close(read)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == 0:
        return ""
    return said.decode(errors="replace") or f"the kernel refused (exit status {code})"


def contained_notice(why: str) -> str:
    """The one line a command prints when its runs are contained: which isolation, and why."""
    return (
        f"runs are contained without namespaces ({why}): each run is still sealed by Landlock"
        " and a socket filter and its processes are reaped, but it shares /proc, /tmp, /dev/shm"
        ' and the loopback with this machine (docs/authoring.md, "What you need")'
    )


MARKS = 8  # Notes.marks: the most a note holds
PIPE_ROOM = 60000  # bytes of names that fit in the status pipe (64 KiB) without blocking
_enclosed = False  # whether this process is the run of enclose()
supervisor_line: socket.socket | None = None  # in the run: its line to the supervisor
# In the run, when its init has no fanotify group (an ordinary user): the data files it copies
# and binds over their paths (copy_data, bind_data), then the inotify instance watching the
# copies and what it watches, for the init (supervisor.hand_over).
data_to_copy: list[str] = []
data_watch: tuple[int, bytes] | None = None
# In the run: whether its control groups limit its processes (cgroups.Group.pids); where they
# do not, the run limits them itself (execute._cap_processes).
pids_group = False
# Whether this process is in a user namespace the runner made for its run (an ordinary user's:
# _unshare), whose processes are the run's alone. Not so for a user namespace the runner was
# started in (a container's, ../shared/tools/without-user-namespaces'), shared with the rest.
own_user_namespace = False


def enclose(run: Callable[[], int], memory: int, notes: Path, watched: Iterable[str] = ()) -> int:
    """Run `run()` in a grandchild inside a PID namespace of its own, and return its exit code
    (negative: the signal that killed it). Called in the run's child (forked by the zygote):

        child (this process) -> init of the namespace -> the run (`run()`, pid 2)

    Every process the run starts, a `setsid` daemon and its double fork included, lives in that
    namespace, and the kernel kills all of them when its init ends: when the run ends, or when
    this child dies (SIGKILL at a timeout, or with the zygote and regen, by PR_SET_PDEATHSIG),
    whatever signal or cancellation ended it. The run is not the namespace's init, so it keeps
    a reader's signals (an init ignores those it has no handler for). Raises OSError when the
    kernel refuses a namespace; the caller fails the run naming its snippet.

    The run joins a memory group limited to `memory` MiB (docpipe.run.cgroups) where the
    kernel offers one: the whole tree's limit. The init moves the run there while the run
    isolates itself, before its supervisor is ready, which the run waits for
    (supervisor.wait_ready) before its snippet starts. It answers the run's connect() calls
    (docpipe.run.supervisor). What the run left running, what the supervisor refused it and
    whether the kernel killed for want of memory are written to `notes` (Notes) for the
    runner: a new file beside the job's folder, which no process of the run can reach. Of the
    files `watched` (the data files), those no process of the run opened are noted too
    (docpipe.run.opened)."""
    try:
        with timing.step("cgroups: made"):
            group = cgroups.Group.make(memory)
    except OSError:
        group = None  # each process keeps its own limit (RLIMIT_DATA) all the same
    contained = bool(unavailable())
    watched = list(watched)
    before = opened.inodes(watched)  # the files as this machine has them, for Copies.unread
    if not contained:
        with timing.step("pid namespace"):
            _unshare(CLONE_NEWPID)
    forking = timing.now()
    me = os.pidfd_open(os.getpid())
    status_read, status_write = os.pipe()
    init = os.fork()
    if init == 0:  # the namespace's init: starts the run, waits, reports its status
        try:
            timing.since("init and run forks", forking)
            os.close(status_read)
            processes.die_with_parent()
            if select.select([me], [], [], 0)[0]:  # the child died before the line above
                os._exit(1)
            os.close(me)
            if contained:  # what the run's processes leave is adopted here, not by init
                processes.reap_orphans()
            forking = timing.now()
            ours, theirs = socket.socketpair()  # the run sends its filter's listener on it
            # before the run's first process; a contained run has no PID namespace of its own,
            # where only its processes' opens carry a pid: every data file stays its input
            with timing.step("data watch"):
                watch = None if contained else opened.Watch.start(watched)
            pid = os.fork()
            if pid == 0:
                timing.since("init and run forks", forking)
                os.close(status_write)
                ours.close()
                processes.die_with_parent()
                global _enclosed, supervisor_line, data_to_copy, pids_group
                _enclosed, supervisor_line = True, theirs
                pids_group = bool(group and group.pids)
                # no fanotify group (an ordinary user): the run reads private copies, watched
                data_to_copy = [] if contained or watch else watched
                os._exit(run())
            theirs.close()
            marks = {}
            if group:  # the run, which starts nothing before its supervisor is ready (below):
                # the kernel's wait to move it overlaps the run's set-up; the init stays out,
                # where the kernel's kill for want of memory cannot pick it
                marks["joining"] = timing.now()
                with contextlib.suppress(ProcessLookupError):  # the run ended already
                    group.join(pid)
                marks["joined"] = timing.now()
            copies = _supervise(pid, ours, contained)
            while True:  # reap what is left to it until the run ends
                ended, status = os.wait()
                if ended == pid:
                    marks["run ended"] = timing.now()
                    left = _end_left() if contained else _left_running()
                    marks["left named"] = timing.now()
                    said = Notes(left, list(supervisor.REFUSED), marks=marks)
                    if watch:
                        said.unread = watch.unread()
                    elif copies:
                        said.unread = copies.unread(before)
                    code = struct.pack("i", os.waitstatus_to_exitcode(status))
                    os.write(status_write, code + said.encode()[:PIPE_ROOM])
                    break
        finally:
            if contained:
                _end_left()
            os._exit(0)  # the kernel kills every process left in the namespace
    os.close(status_write)
    os.close(me)
    os.waitpid(init, 0)
    collected = timing.now()
    data = b""
    while chunk := os.read(status_read, 1 << 16):
        data += chunk
    os.close(status_read)
    said = Notes.decode(data[4:])
    if said.unread:  # a file replaced, removed, linked or edited while the run ran: opened
        said.unread = [u for u in said.unread if opened.inodes([u]).get(u) == before.get(u)]
    said.marks["init collected"] = collected
    if group:
        if group.killed():
            said.memory = memory
        group.remove()
    said.marks["groups removed"] = timing.now()
    said.write(notes)
    return struct.unpack("i", data[:4])[0] if len(data) >= 4 else -signal.SIGKILL


@dataclasses.dataclass
class Notes:
    """What the runner's own processes say of a run, beside its result: what it left running
    (named), what the supervisor refused it, and the memory limit the kernel killed at (0:
    none). Sent from the namespace's init through a pipe and written by the run's child to a
    file the run cannot reach (Job.notes), never to its job folder, where a snippet could put
    a link, a FIFO or a file of its own in their place. `unread`: the data files no process of
    the run opened (docpipe.run.opened; absolute paths), None when that is not known.
    """

    left: str = ""
    refused: list[str] = dataclasses.field(default_factory=list)
    memory: int = 0
    unread: list[str] | None = None
    # When each step of the run's end happened (perf_counter_ns: docpipe.run.timing), for the
    # benchmark of the seal (bench_seal.py): at most MARKS of them.
    marks: dict[str, int] = dataclasses.field(default_factory=dict)

    def encode(self) -> bytes:
        """At most PIPE_ROOM bytes, whatever the names: a head of bounded size (JSON: the
        refusals, each cut to 300 characters, at most 16; the memory; the unread files, or
        none when their names take more than half of it), a newline, and as much of `left` as
        fits."""
        refused = [r[:300] for r in self.refused[:16]]
        unread = self.unread if len(json.dumps(self.unread)) <= PIPE_ROOM // 2 else None
        marks = {k[:40]: v for k, v in list(self.marks.items())[:MARKS]}
        head = json.dumps(
            {"refused": refused, "memory": self.memory, "unread": unread, "marks": marks}
        ).encode()
        return head + b"\n" + self.left.encode(errors="replace")[: PIPE_ROOM - len(head) - 1]

    @classmethod
    def decode(cls, data: bytes) -> Notes:
        """The notes; unreadable ones fail the run (a refusal), never pass it silently."""
        head, _, left = data.partition(b"\n")
        try:
            said = json.loads(head) if head else {"refused": [], "memory": 0}
            refused, memory = [str(r) for r in said["refused"]], int(said["memory"])
            unread = said.get("unread")
            if unread is not None and not (
                isinstance(unread, list) and all(isinstance(u, str) for u in unread)
            ):
                raise TypeError("unread")
            marks = {str(k): int(v) for k, v in dict(said.get("marks", {})).items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            unknown = "the runner could not read what its own processes said of the run"
            return cls(left.decode(errors="replace"), [unknown])
        return cls(left.decode(errors="replace"), refused, memory, unread, marks)

    def write(self, path: Path) -> None:
        """To a new file (O_EXCL, no link followed)."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with contextlib.suppress(OSError):
            fd = os.open(path, flags, 0o600)
            try:
                os.write(fd, self.encode())
            finally:
                os.close(fd)


def _supervise(run: int, line: socket.socket, contained: bool = False) -> opened.Copies | None:
    """In the namespace's init: once the run has isolated itself and installed its filter
    (docpipe.run.seccomp), join its namespaces and answer its connect() calls
    (docpipe.run.supervisor). A failure is noted for the runner, which fails the run; the
    run's supervised calls then get ENOSYS. A contained run has no namespace to join: its
    calls are answered for the processes below this one (supervisor.CONTAINED). Returns the
    watch of the run's private copies of its data files, if it sent one (copy_data)."""
    listener, watch, payload = supervisor.receive_all(line)
    copies = None
    if watch >= 0:
        try:
            copies = opened.Copies(watch, json.loads(payload))
        except ValueError:
            os.close(watch)
    try:
        if listener < 0:
            return copies  # the run could not isolate itself, and fails saying so
        try:
            if contained:
                supervisor.contain()
            else:
                supervisor.join(run)  # the run waits for it (supervisor.wait_ready)
        except OSError as e:
            os.close(listener)
            supervisor.refused(f"the runner could not supervise its connections: {e}")
            return copies
        supervisor.start(listener)
    finally:
        supervisor.ready(line)
    return copies


def _left_running() -> str:
    """What the run left when it ended (its processes, adopted by this init): named."""
    return processes.named(processes.descendants("self"))


def _end_left() -> str:
    """A contained run's init, its reaper: kill what the run left (adopted by this process, as
    no PID namespace ends it), and name it."""
    return processes.describe(processes.end_children())


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _mounts() -> list[tuple[str, int]]:
    """(mount point, its own flags) of every mount this namespace has, parents first."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        for line in info:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")  # \040 for a space
            flags = sum(_OPTIONS.get(o, 0) for o in fields[5].split(","))
            found.append((point, flags))
    return found


def _read_only() -> None:
    """Every mount of this namespace read-only (but the kernel's): no file outside the job
    folder can have its mode, owner, times or extended attributes changed, by any route,
    and no process the snippet starts can undo it (Landlock forbids it to mount)."""
    for point, flags in _mounts():
        if point.startswith(_KERNEL) and point not in ("/",):
            continue
        try:
            _mount(None, point, None, MS_BIND | MS_REMOUNT | MS_RDONLY | flags)
        except OSError:
            if point == "/" or not os.path.isdir(point):
                raise
            # a mount hidden under another (overmounted) cannot be reached by its path: the
            # one on top is remounted instead, in its own turn


def _overlay_user_folders(flags: int) -> None:
    """Each user folder (_user_folders) as an overlay of its own: its files as they are,
    writable for a library's tests (matplotlib's), and every change, metadata included, made to
    a private copy that ends with the run (Landlock refuses writes there anyway). The layers'
    tmpfs is mounted on /dev/shm, under the run's shared memory, which then hides it."""
    _mount("tmpfs", SHARED_MEMORY, "tmpfs", flags, "mode=0700")
    for n, folder in enumerate(_user_folders()):
        if any(c in folder for c in ",:\\"):  # overlay's option separators
            raise OSError(f"cannot overlay {folder}: its path holds ',', ':' or a backslash")
        upper, work = f"{SHARED_MEMORY}/{n}/upper", f"{SHARED_MEMORY}/{n}/work"
        os.makedirs(upper)
        os.makedirs(work)
        options = f"lowerdir={folder},upperdir={upper},workdir={work}"
        _mount("overlay", folder, "overlay", flags, options)


def _user_folders() -> list[str]:
    """The user's configuration and cache folders (XDG's, as libraries find them): writable
    overlays (_overlay_user_folders), so that a library that tests them for writing, as
    matplotlib does at import, finds them as on a reader's machine and prints no warning."""
    home = os.path.expanduser("~")
    found = [
        os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
        os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"),
    ]
    return [f for f in found if os.path.isdir(f)]


def _topmost(paths: Iterable[str]) -> list[str]:
    """These paths, less those inside another of them."""
    found: list[str] = []
    for path in sorted(set(paths)):
        if not any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in found):
            found.append(path)
    return found


def isolate(workdir: Path, keep: Iterable[str] = ()) -> str:
    """Move this process into namespaces of its own, as the module docstring says; "" when it
    has them, else why not (the caller fails the run). `keep`: folders (the project, the
    interpreter) that stay as they are, read-only, when they lie in a folder made private."""
    try:
        began = timing.now()
        _unshare()
        began = timing.since("namespaces", began)
        _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the host
        if _enclosed:  # in enclose()'s namespace: its own processes in /proc, and no other
            _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        _loopback_up()
        _read_only()
        _own_terminals_and_queues()
        jobs = str(workdir.parent)
        private = MS_NOSUID | MS_NODEV
        hidden = [SHARED_MEMORY, *(f for f in RUNTIME if _real_folder(f))]
        if jobs not in hidden:  # the other jobs' folders, hidden too
            hidden.append(jobs)
        within = [
            os.path.realpath(k)
            for k in keep
            if any(os.path.realpath(k).startswith(h + os.sep) for h in hidden)
        ]
        fds = {k: os.open(k, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) for k in _topmost(within)}
        job = os.open(workdir, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        pending = None
        try:
            _overlay_user_folders(private)  # hides the job folder, if in /dev/shm: fd above
            if data_to_copy:  # in the layers' tmpfs, which the next mounts hide
                with timing.step("private data"):
                    pending = copy_data(data_to_copy, f"{SHARED_MEMORY}/data")
            for folder in hidden:
                _mount("tmpfs", folder, "tmpfs", private, "mode=1777")
            _loopback_names()
            for path, fd in fds.items():
                os.makedirs(path, exist_ok=True)
                _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
                _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | private)
            os.makedirs(workdir, exist_ok=True)
            _mount(f"/proc/self/fd/{job}", str(workdir), None, MS_BIND)
            _mount(None, str(workdir), None, MS_BIND | MS_REMOUNT | private)
        except OSError:
            if pending:
                _close(pending)
            raise
        finally:
            for fd in [job, *fds.values()]:
                os.close(fd)
            timing.since("mounts", began)
        if pending:
            global data_watch
            with timing.step("private data"):
                data_watch = bind_data(pending)
    except OSError as e:
        return str(e)
    return ""


COPIED = 64 << 20  # bytes: the most a run's private copies of its data files hold in all


@dataclasses.dataclass
class PrivateData:
    """The run's private copies of its data files (copy_data()), until they are bound over the
    files' paths (bind_data())."""

    instance: int  # inotify: an IN_OPEN watch on each copy
    copies: dict[str, tuple[int, list[int]]]  # path -> (an O_PATH descriptor of its copy,
    # [st_dev, st_ino of the original, watch])
    homes: dict[str, list[str] | None]  # path -> where the file lies in its file system (_homes)


def copy_data(paths: list[str], folder: str) -> PrivateData | None:
    """In the run, in its own mount namespace: each data file (absolute paths) copied into
    `folder`, a new folder in a tmpfs of the run's own that its later mounts hide (the user
    folders' overlay layers: _overlay_user_folders), with an IN_OPEN watch on each copy. None
    when there is no inotify. bind_data() then binds each copy read-only over its file's path,
    so that every route to that path in the run's mount namespace (open, fopen, mmap, exec, a
    `cat`, a symbolic link) reaches the copy: an inode that no process outside the namespace
    reaches, and that the run reaches by that path alone, so every open the watch reports is
    the run's (docpipe.run.opened.Copies).

    A file the run could reach by another route is left out (its record: opened): one that is
    no plain file or has more than one link (a hard link elsewhere reaches the original), one
    that changed while it was copied, one past COPIED bytes of copies; bind_data() leaves out
    one that another mount of its file system still shows at another path (a bind mount of a
    folder above it), and all of them when the run holds a descriptor of a folder (opened
    before its mount namespace: a lookup from there crosses none of these mounts). A data file
    made after the run's child listed them is an input of the run anyway
    (fingerprints.run_inputs). Where the kernel refuses a step, nothing is known: the run goes
    on, every data file its input."""
    instance = opened.inotify()
    if instance is None:
        return None
    found = PrivateData(instance, {}, {})
    try:
        os.mkdir(folder, 0o700)
        table = _mount_table()
        room = COPIED
        for n, path in enumerate(paths):
            copy = f"{folder}/{n}"
            original = _copy(path, copy, room)
            if original is None:
                continue
            fd = os.open(copy, os.O_PATH | os.O_CLOEXEC)
            room -= os.fstat(fd).st_size
            found.copies[path] = (fd, [*original, opened.watch_opens(instance, copy)])
            found.homes[path] = _homes(path, table)
    except OSError:
        _close(found)
        return None
    return found


def bind_data(data: PrivateData) -> tuple[int, bytes] | None:
    """In the run, once its mounts are made: each copy (copy_data()) bound read-only over its
    file's path; the inotify instance and, as JSON, path -> [st_dev, st_ino of the original,
    watch] of the copies the run reaches by no other route, for its init (supervisor.hand_over),
    or None when nothing is known."""
    files: dict[str, list[int]] = {}
    try:
        for path, (fd, watched) in data.copies.items():
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND)
            _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
            files[path] = watched
    except OSError:  # nothing is known; what was bound holds the same bytes as the original
        _close(data)
        return None
    for fd, _ in data.copies.values():
        os.close(fd)
    data.copies.clear()
    try:
        table = _mount_table()
        held = _held_inodes()
    except (OSError, ValueError):
        held = None
    if held is None:
        files.clear()
    for path, (dev, ino, _) in list(files.items()):
        if (dev, ino) in held or _reachable(path, (dev, ino), data.homes[path], table):
            del files[path]
    return data.instance, json.dumps(files).encode()


def _close(data: PrivateData) -> None:
    with contextlib.suppress(OSError):
        os.close(data.instance)
    for fd, _ in data.copies.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    data.copies.clear()


def _copy(path: str, copy: str, room: int) -> tuple[int, int] | None:
    """Copy the plain file `path` (one link, at most `room` bytes) to the new file `copy`, mode
    and times kept; (st_dev, st_ino) of the original, or None (no copy) when it is something
    else or changed while it was copied."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        source = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(source)
        if st.st_nlink != 1 or st.st_mode & 0o170000 != 0o100000 or st.st_size > room:
            return None
        target = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            left = st.st_size
            while left > 0:
                sent = os.sendfile(target, source, None, left)
                if sent == 0:
                    break
                left -= sent
            os.fchmod(target, st.st_mode & 0o7777)
            with contextlib.suppress(OSError):
                os.fchown(target, st.st_uid, st.st_gid)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(target)
        now = os.fstat(source)
        same = (now.st_size, now.st_mtime_ns, now.st_ctime_ns, now.st_nlink)
        if left or same != (st.st_size, st.st_mtime_ns, st.st_ctime_ns, 1):
            return None
        return st.st_dev, st.st_ino
    finally:
        os.close(source)


def _mount_table() -> list[tuple[int, str, str]]:
    """(device, root within its file system, mount point) of every mount of this namespace."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        for line in info:
            fields = line.split()
            major, minor = (int(x) for x in fields[2].split(":"))
            root, point = (f.encode().decode("unicode_escape") for f in fields[3:5])
            found.append((os.makedev(major, minor), root, point))
    return found


def _within(path: str, folder: str) -> str | None:
    """`path` relative to `folder` ("" for the folder itself), or None when outside it."""
    if path == folder:
        return ""
    base = folder.rstrip("/") + "/"
    return path[len(base) :] if path.startswith(base) else None


def _homes(path: str, table: list[tuple[int, str, str]]) -> list[str] | None:
    """Where the file at `path` may lie within its file system: its path there, as each mount
    whose mount point holds it would have it; None when its device is no mount's."""
    real = os.path.realpath(path)
    try:
        dev = os.stat(real).st_dev
    except OSError:
        return None
    found = []
    for device, root, point in table:
        rest = _within(real, point)
        if device == dev and rest is not None:
            found.append(root.rstrip("/") + "/" + rest if rest else root)
    return found or None


def _reachable(
    path: str, original: tuple[int, int], homes: list[str] | None, table: list[tuple[int, str, str]]
) -> bool:
    """Whether a mount of the original's file system still shows it at some path, now that
    the copies are bound (a bind mount of a folder above it, elsewhere); True when unknown."""
    if homes is None:
        return True
    for device, root, point in table:
        if device != original[0]:
            continue
        for home in homes:
            rest = _within(home, root)
            if rest is None:
                continue
            try:
                st = os.stat(os.path.join(point, rest) if rest else point)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError:
                return True
            if (st.st_dev, st.st_ino) == original:
                return True
    return False


def _held_inodes() -> set[tuple[int, int]] | None:
    """The inodes of the files this process holds open; None if it holds a folder (or they
    cannot be listed), from which a lookup would not cross this namespace's mounts."""
    found = set()
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for name in names:
        try:
            st = os.fstat(int(name))
        except OSError:
            continue  # the listing's own descriptor, closed
        if st.st_mode & 0o170000 == 0o040000:
            return None
        found.add((st.st_dev, st.st_ino))
    return found


HOSTS = "/etc/hosts"
# The loopback's names, as a resolver on a reader's machine answers them without asking a name
# server: the run's namespace reaches none, and the C library then answers "try again", which
# a program may print (torch's c10d warns, with a timestamp, at a rendezvous on 127.0.0.1).
LOOPBACK_NAMES = {"127.0.0.1": "localhost", "::1": "localhost", "::ffff:127.0.0.1": "localhost"}


def _loopback_names() -> None:
    """The run's /etc/hosts: the machine's, with a line for each loopback address it lacks
    (LOOPBACK_NAMES), written in the run's own /run and bound over /etc/hosts."""
    try:
        text = Path(HOSTS).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    named = {line.split()[0] for line in text.splitlines() if line.split() and line[0] != "#"}
    missing = [f"{a} {n}\n" for a, n in LOOPBACK_NAMES.items() if a not in named]
    if not missing or not os.path.exists(HOSTS) or not _real_folder("/run"):
        return
    own = "/run/docpipe-hosts"
    Path(own).write_text(
        text + ("" if text.endswith("\n") or not text else "\n") + "".join(missing)
    )
    _mount(own, HOSTS, None, MS_BIND)
    _mount(None, HOSTS, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _own_terminals_and_queues() -> None:
    """A devpts of the run's own (its pseudo-terminals, as `pty` makes them; no terminal of the
    machine's to read or type into), and the POSIX message queues of its IPC namespace."""
    if os.path.isdir("/dev/pts"):
        options = "newinstance,ptmxmode=0666,mode=0620"
        _mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, options)
        if os.path.exists("/dev/ptmx"):
            _mount("/dev/pts/ptmx", "/dev/ptmx", None, MS_BIND)
    if os.path.isdir("/dev/mqueue"):
        _mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC)


_PR_CAPBSET_DROP, _PR_SET_SECUREBITS, _PR_CAP_AMBIENT = 24, 28, 47
# SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_KEEP_CAPS, each with its lock
_SECUREBITS = 0b0111111
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> None:
    """Drop every capability of this process for good, as a reader's unprivileged process has
    none: no mount (nor the new mount API's open_tree and mount_setattr), no device ioctl that
    needs privilege (a loop device), no TIOCSTI into a terminal, no hostname, clock, BPF or
    machine-wide perf events; a program it runs as root gains none back (the bounding set is
    empty, SECBIT_NOROOT is locked). It stays uid 0, owner of its job folder. OSError if the
    kernel refuses. A process that holds none (an ordinary user's contained run: no user
    namespace gave it any) has nothing to drop, and no_new_privs, which Landlock set, keeps it
    from gaining one through a set-user-ID program."""
    libc = _libc()
    if not _permitted_capabilities():
        return
    try:
        last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        _check(libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0), "drop a capability")
    _check(libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0), "clear ambient capabilities")
    _check(libc.prctl(_PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0), "securebits")
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), data), "capset")


def _permitted_capabilities() -> int:
    """This process's permitted capabilities (CapPrm of /proc/self/status); all where unread."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapPrm:"):
                return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        pass
    return -1


def _real_folder(path: str) -> bool:
    """A folder, not a link to one (/var/run is mostly a link to /run)."""
    return os.path.isdir(path) and not os.path.islink(path)

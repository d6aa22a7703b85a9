"""Which data files a run opened, by any route: the kernel says so, not the snippet.

An audit hook sees Python's open() (np.fromfile and np.memmap call it), not a C library's
fopen (torch.from_file), an mmap of a file opened in C, or a `cat` the snippet starts. Every
route opens the file first (an exec too: FAN_OPEN_EXEC),
and the kernel reports each open of a watched file (its inode, whatever path, mount or link led
to it) to a fanotify group, with the pid of the process that opened it as the group's reader
sees it. The reader is the init of the run's own PID namespace (docpipe.run.namespaces.enclose):
a process of the run has a pid there; any other process (another run, regen fingerprinting the
file, an editor) has none, and its open is reported with pid 0. So `Watch.unread()` names the
data files no process of this run opened, which are then no input of its record: editing one
re-runs only the snippets that opened it (docpipe.recorded.fingerprints.UNREAD).

It is sound or it answers nothing: the watch is made before the run's first process starts and
read once it ended (a run that leaves a process running fails); a file replaced by another (a
rename, `git checkout`), removed, edited or given another link while the run ran (its inode or
its ctime changed: namespaces.enclose) counts as opened, as do all of them when
the kernel's queue overflowed. An ordinary user has no such group (no CAP_SYS_ADMIN: an
unprivileged group is not told pids); a run in namespaces of its own then reads private copies
of the data files, bound over their paths in its mount namespace, whose opens an unprivileged
inotify watch reports (Copies; namespaces.copy_data says which files it leaves out, as the run
could reach them by another route). Where there is neither (not Linux, no PID namespace: a
contained run), nothing is known (execute.Result.watched is false) and every data file stays
an input of every run, as a run that may have read it unseen.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import struct

FAN_CLASS_NOTIF, FAN_CLOEXEC, FAN_NONBLOCK = 0, 1, 2
# Asked for only to make an unprivileged fanotify_init fail (EPERM): a group made without
# CAP_SYS_ADMIN is told no pids, and could not tell this run's opens from another's.
FAN_REPORT_TID = 0x100
FAN_MARK_ADD, FAN_OPEN, FAN_OPEN_EXEC, FAN_Q_OVERFLOW = 1, 0x20, 0x1000, 0x4000
_EVENT = struct.Struct("IBBHQii")  # fanotify_event_metadata: len, vers, -, size, mask, fd, pid
_METADATA_VERSION = 3


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_mark.argtypes = [
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.c_uint64,
        ctypes.c_int,
        ctypes.c_char_p,
    ]
    return libc


class Watch:
    """The opens of some data files by the processes of the caller's PID namespace, which the
    caller (its init) must have made before it starts the run (start) and read after the run
    ended (unread)."""

    def __init__(self, group: int, files: dict[str, tuple[int, int]]) -> None:
        self.group = group
        self.files = files  # absolute path -> (st_dev, st_ino) of the inode watched

    @classmethod
    def start(cls, paths: list[str]) -> Watch | None:
        """A watch of these files (absolute paths), or None when the kernel gives none."""
        if not paths or fanotify_refused():
            return None
        libc = _libc()
        flags = FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_TID
        try:
            group = libc.fanotify_init(
                flags, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_LARGEFILE", 0)
            )
        except AttributeError:  # a C library without fanotify
            return None
        if group < 0:
            return None
        files = {}
        for path in paths:
            try:  # the inode marked is the one stat names: marked through its descriptor
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY)
            except OSError:
                continue  # gone already: no inode to watch; it stays a read (unread())
            with contextlib.suppress(OSError):
                st = os.fstat(fd)
                if libc.fanotify_mark(group, FAN_MARK_ADD, FAN_OPEN | FAN_OPEN_EXEC, fd, None) == 0:
                    files[path] = (st.st_dev, st.st_ino)
            os.close(fd)
        return cls(group, files)

    def unread(self) -> list[str] | None:
        """The watched files that no process of this PID namespace opened and that are still
        the inode watched; None when the kernel lost events (or they cannot be read)."""
        opened: set[tuple[int, int]] = set()
        me = os.getpid()  # the reader (the init), which opened each file to watch it
        try:
            while True:
                try:
                    data = os.read(self.group, 1 << 16)
                except BlockingIOError:
                    break
                if not data:
                    break
                at = 0
                while at + _EVENT.size <= len(data):
                    length, version, _, _, mask, fd, pid = _EVENT.unpack_from(data, at)
                    if version != _METADATA_VERSION or length < _EVENT.size:
                        return None
                    at += length
                    if mask & FAN_Q_OVERFLOW:
                        return None
                    if fd < 0:  # which file is unknown: the kernel could not open it
                        return None
                    try:
                        if pid and pid != me:  # a process of the run; 0: one outside it
                            st = os.fstat(fd)
                            opened.add((st.st_dev, st.st_ino))
                    finally:
                        os.close(fd)
        except (OSError, ValueError, struct.error):
            return None
        finally:
            with contextlib.suppress(OSError):
                os.close(self.group)
        found = []
        for path, inode in self.files.items():
            try:
                st = os.stat(path)
            except OSError:
                continue  # removed while the run ran: what it read is unknown
            if inode not in opened and (st.st_dev, st.st_ino) == inode:
                found.append(path)
        return sorted(found)


# Where fanotify with pids cannot be had (an ordinary user: no CAP_SYS_ADMIN in the initial
# user namespace), a run in namespaces of its own reads private copies instead (Copies), whose
# opens an unprivileged inotify watch reports. NO_FANOTIFY set (to 1) takes that way as root too.
NO_FANOTIFY = "DOCPIPE_NO_FANOTIFY"
IN_OPEN, IN_Q_OVERFLOW = 0x20, 0x4000
_IN_CLOEXEC, _IN_NONBLOCK = 0o2000000, 0o4000
_INOTIFY_EVENT = struct.Struct("iIII")  # inotify_event: wd, mask, cookie, len (then the name)


def fanotify_refused() -> bool:
    return bool(os.environ.get(NO_FANOTIFY))


def inodes(paths: list[str]) -> dict[str, tuple[int, int, int]]:
    """(st_dev, st_ino, st_ctime_ns) of each of these files that is there (stat: no open, no
    event). Its ctime changes with any new link to it (a route to the original), and with an
    edit, a change of mode or owner."""
    found = {}
    for path in paths:
        with contextlib.suppress(OSError):
            st = os.stat(path)
            found[path] = (st.st_dev, st.st_ino, st.st_ctime_ns)
    return found


def inotify() -> int | None:
    """A new inotify instance (close-on-exec, non-blocking), or None where there is none."""
    try:
        fd = _libc().inotify_init1(_IN_CLOEXEC | _IN_NONBLOCK)
    except AttributeError:
        return None
    return fd if fd >= 0 else None


def watch_opens(instance: int, path: str) -> int:
    """The watch descriptor of IN_OPEN on the inode at `path`; OSError if refused."""
    wd = _libc().inotify_add_watch(instance, os.fsencode(path), IN_OPEN)
    if wd < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"inotify_add_watch {path}: {os.strerror(code)}")
    return wd


class Copies:
    """The opens of the run's private copies of its data files (namespaces.copy_data): an
    inotify instance holding an IN_OPEN watch on each copy, made by the run before its snippet
    and handed to its init (supervisor.hand_over), which alone holds it while the snippet runs,
    and `files`: path -> [st_dev, st_ino of the original the copy was made of, watch]. No
    process outside the run's mount namespace reaches a copy (it lives in a tmpfs of that
    namespace, detached once bound), so every open the watch reports is the run's, whatever
    its route (open, fopen, mmap, exec, a `cat`)."""

    def __init__(self, instance: int, files: dict[str, list[int]]) -> None:
        self.instance = instance
        self.files = files

    def unread(self, before: dict[str, tuple[int, int, int]]) -> list[str] | None:
        """The copied files no process opened and whose copy was made of the inode `before`
        names (the one there when the run's child started); None when the kernel lost events
        (or they cannot be read)."""
        opened: set[int] = set()
        try:
            while True:
                try:
                    data = os.read(self.instance, 1 << 16)
                except BlockingIOError:
                    break
                if not data:
                    break
                at = 0
                while at + _INOTIFY_EVENT.size <= len(data):
                    wd, mask, _, length = _INOTIFY_EVENT.unpack_from(data, at)
                    at += _INOTIFY_EVENT.size + length
                    if mask & IN_Q_OVERFLOW:
                        return None
                    if mask & IN_OPEN:
                        opened.add(wd)
        except (OSError, struct.error):
            return None
        finally:
            with contextlib.suppress(OSError):
                os.close(self.instance)
        found = []
        for path, (dev, ino, wd) in self.files.items():
            if wd not in opened and before.get(path, (0, 0))[:2] == (dev, ino):
                found.append(path)
        return sorted(found)

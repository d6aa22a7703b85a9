"""The kernel's namespaces around one run: what a snippet's processes share with nobody else.

Before it seals itself (docpipe.run.landlock), a run's child moves into a mount namespace and a
network namespace of its own (`unshare`), which every process it starts shares:

- a shared-memory folder of its own: a fresh tmpfs on /dev/shm, mounted `nodev,nosuid`, where
  multiprocessing's semaphores and queues and torch's shared tensors (DataLoader workers) live
  as on a reader's machine; no device node can be made in it;
- its job folder (which the runner made in /dev/shm or the temporary folder), bound back at
  the same path, `nodev,nosuid`; every other job's folder is hidden under the fresh tmpfs;
- a loopback of its own: the snippet's processes reach each other on 127.0.0.1 (a process
  group's rendezvous), and no server of the machine's;
- every other mount read-only (the kernel's own /proc and /sys aside): the mode, owner, times
  and extended attributes of a file outside the job folder cannot change, whatever the route
  (ctypes, a subprocess's chmod, touch or chattr). The user's configuration and cache folders
  stay writable mounts (_user_folders: matplotlib tests them at import, and would warn), which
  Landlock still keeps the run from writing to.

Why our own ctypes calls: the standard library has os.unshare only from Python 3.12, and the
mounts need mount(2), which it lacks. unshare needs CAP_SYS_ADMIN: the runner runs as root on
this project's machines (CI among them); elsewhere a user namespace gives it to an ordinary
user. Where neither can be had, isolate() says so and the run goes on without (the seal still
holds; a snippet's semaphores then fail as they did before).
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import socket
import struct
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
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


def _unshare() -> None:
    if _libc().unshare(CLONE_NEWNS | CLONE_NEWNET) == 0:
        return
    uid, gid = os.getuid(), os.getgid()  # an ordinary user: in a user namespace of its own
    _check(_libc().unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET), "unshare")
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


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


def _user_folders() -> list[str]:
    """The user's configuration and cache folders (XDG's, as libraries find them): left as
    writable mounts, so that a library that tests them for writing, as matplotlib does at
    import, finds them as on a reader's machine and prints no warning. Landlock still refuses
    every write into them."""
    home = os.path.expanduser("~")
    found = [
        os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
        os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"),
    ]
    return [f for f in found if os.path.isdir(f)]


def isolate(workdir: Path) -> str:
    """Move this process into namespaces of its own, as the module docstring says; "" when it
    has them, else why not (the run goes on, sealed all the same)."""
    try:
        _unshare()
        _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the host
        _loopback_up()
        _read_only()
        for folder in _user_folders():
            _mount(folder, folder, None, MS_BIND)
            _mount(None, folder, None, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV)
        job = os.open(workdir, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            jobs = str(workdir.parent)
            private = MS_NOSUID | MS_NODEV
            _mount("tmpfs", SHARED_MEMORY, "tmpfs", private, "mode=1777")
            if jobs != SHARED_MEMORY:  # the other jobs' folders, hidden too
                _mount("tmpfs", jobs, "tmpfs", private, "mode=1777")
            os.makedirs(workdir, exist_ok=True)
            _mount(f"/proc/self/fd/{job}", str(workdir), None, MS_BIND)
            _mount(None, str(workdir), None, MS_BIND | MS_REMOUNT | private)
        finally:
            os.close(job)
    except OSError as e:
        return str(e)
    return ""

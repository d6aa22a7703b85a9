"""Runs where the kernel or its policy refuses namespaces (GitHub's ubuntu-24.04 runners, a
container): contained instead of failing (docpipe.run.namespaces.unavailable). The seal's other
doors stay shut: Landlock, the socket filter and its supervisor, the reaper; the command says in
one line which isolation its runs got, and why.

DOCPIPE_NO_NAMESPACES=1 asks for the contained runs on a machine that has namespaces; the last
test makes the kernel itself refuse them, as an ordinary user without user namespaces."""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_sandbox
from test_seal import PAGE, TRIED, _filtered

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("contained")]

DOORS = (
    """
import ctypes
import errno
import os
import signal
import socket
import stat
"""
    + TRIED
    + """
tried("a block device in scratch", lambda: os.mknod("disk", stat.S_IFBLK | 0o600, 7 << 8))
tried("a file in /dev/shm", lambda: (open(SHM, "w").close(), os.unlink(SHM)))
libc = ctypes.CDLL(None, use_errno=True)  # through libc: only the kernel can refuse


def opened(path, flags):
    fd = libc.open(path.encode(), flags, 0o644)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "refused")
    os.close(fd)


tried("a file in the home folder", lambda: opened(OUTSIDE, os.O_WRONLY | os.O_CREAT))
tried("a repository file", lambda: opened(os.path.abspath(__file__), os.O_WRONLY | os.O_APPEND))
tried("SIGSTOP to the runner", lambda: os.kill(os.getppid(), signal.SIGSTOP))
tried("SIGKILL to a process of the machine", lambda: os.kill(MACHINE_PID, signal.SIGKILL))
with socket.socket() as server:  # a server of its own, on the machine's loopback
    server.bind(("127.0.0.1", 0))
    server.listen()
    with socket.socket() as s:
        tried("its own TCP server", lambda: s.connect(server.getsockname()))
with socket.socket(socket.AF_UNIX) as server:
    server.bind("own.sock")
    server.listen()
    with socket.socket(socket.AF_UNIX) as s:
        tried("its own UNIX socket", lambda: s.connect("own.sock"))
tried("a UDP socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close())
tried("a raw IP socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, 1).close())
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    tried("a datagram sent to an address", lambda: s.sendto(b"x", ("127.0.0.1", 9)))
tried("a vsock socket", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close())
with open("/proc/self/status") as f:
    print("capabilities:", next(line.split()[1] for line in f if line.startswith("CapEff")))
"""
)

REACH = """
import socket
import subprocess

subprocess.Popen(["setsid", "sleep", SECONDS])  # a daemon of its own session, left running
for family, address in MACHINE:
    with socket.socket(family) as s:
        try:
            s.connect(address)
        except OSError as e:
            print("refused:", e.errno)
"""


@pytest.fixture(scope="module")
def contained(tmp_path_factory):
    """Both snippets recorded once, contained, with a TCP server, a UNIX socket in the home
    folder and a process of the machine (this test's) for them to try."""
    box = make_sandbox(tmp_path_factory.mktemp("contained"))
    box.env = {"DOCPIPE_NO_NAMESPACES": "1"}
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    home = Path.home() / f".docpipe-test-contained-{os.getpid()}.sock"
    with contextlib.suppress(FileNotFoundError):
        home.unlink()
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(home))
    unix.listen()
    machine = subprocess.Popen(["sleep", "300"])
    box.outside = Path.home() / f".docpipe-test-contained-{os.getpid()}"
    shm = f"/dev/shm/docpipe-test-contained-{os.getpid()}"
    box.write(
        "snippets/doors.py",
        f"MACHINE_PID = {machine.pid}\nOUTSIDE = {str(box.outside)!r}\nSHM = {shm!r}\n" + DOORS,
    )
    targets = [(int(socket.AF_INET), server.getsockname()), (int(socket.AF_UNIX), str(home))]
    box.seconds = f"17{os.getpid()}"  # the daemon's: unique to this test process
    box.write(
        "snippets/reach.py",
        f"import socket\nMACHINE = {targets!r}\nSECONDS = {box.seconds!r}\n" + REACH,
    )
    box.write("docs/index.md", PAGE.format(name="doors") + PAGE.format(name="reach")[9:])
    try:
        box.doors = box.regen("snippets/doors.py")
        box.reach = box.regen("snippets/reach.py")
        box.machine_alive = machine.poll() is None
        server.setblocking(False)
        unix.setblocking(False)
        box.accepted = 0
        for listener in (server, unix):
            with contextlib.suppress(BlockingIOError):
                while listener.accept():
                    box.accepted += 1
    finally:
        machine.kill()
        server.close()
        unix.close()
        home.unlink()
    return box


def test_contained_runs_say_once_which_isolation_they_got(contained):
    said = "runs are contained without namespaces (DOCPIPE_NO_NAMESPACES is set)"
    for run in (contained.doors, contained.reach):
        assert run.stderr.count(said) == 1, run.stderr
    assert contained.doors.returncode == 0, contained.doors.stderr


def test_a_contained_run_changes_only_its_job_folder_and_dev_shm(contained):
    doors = contained.read("docs/generated/doors.txt").splitlines()
    assert "a block device in scratch refused: EACCES" in doors
    assert "a file in /dev/shm done" in doors  # multiprocessing's semaphores live there
    assert "a file in the home folder refused: EACCES" in doors
    assert "a repository file refused: EACCES" in doors
    assert not contained.outside.exists()


def test_a_contained_run_signals_and_reaches_only_its_own(contained):
    doors = contained.read("docs/generated/doors.txt").splitlines()
    assert "SIGSTOP to the runner refused: EPERM" in doors  # Landlock's signal scope
    assert "SIGKILL to a process of the machine refused: EPERM" in doors
    assert contained.machine_alive
    assert "its own TCP server done" in doors
    assert "its own UNIX socket done" in doors
    assert "a UDP socket done" in doors
    assert "a raw IP socket refused: EPERM" in doors
    assert "a datagram sent to an address refused: EPERM" in doors
    assert "a vsock socket refused: EAFNOSUPPORT" in doors
    assert "capabilities: 0000000000000000" in doors


def test_a_contained_run_reaching_the_machine_fails_naming_each_socket(contained):
    run = contained.reach
    assert run.returncode == 1
    assert contained.accepted == 0
    assert "where no process of its run listens" in run.stderr, run.stderr
    assert "a UNIX socket no process of its run made" in run.stderr
    # the daemon it left is killed and named: no PID namespace ended it
    assert f"sleep {contained.seconds}" in run.stderr
    daemon = f"sleep {contained.seconds}"
    left = subprocess.run(["pgrep", "-f", daemon], capture_output=True, text=True)
    assert left.stdout == ""


@pytest.mark.unit
@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_contained_filter_answers_each_call_as_it_says(machine):
    from docpipe.run import seccomp

    arch = seccomp.ARCHES[machine]
    code = seccomp.program(arch, contained=True)
    allow, eperm = seccomp.RET_ALLOW, seccomp.RET_ERRNO | seccomp.EPERM
    inet, inet6 = socket.AF_INET, socket.AF_INET6
    for family in (inet, inet6):
        for kind, protocols in ((socket.SOCK_STREAM, (0, 6)), (socket.SOCK_DGRAM, (0, 17))):
            for flag in (0, socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC):
                for protocol in protocols:
                    assert (
                        _filtered(code, arch.audit, arch.socket, family, kind | flag, protocol)
                        == allow
                    )
        assert _filtered(code, arch.audit, arch.socket, family, socket.SOCK_RAW, 1) == eperm
        assert _filtered(code, arch.audit, arch.socket, family, socket.SOCK_STREAM, 132) == eperm
    sendto, sendmsg, sendmmsg = (nr for nr, _ in arch.sends)
    # sendto(fd, buffer, length, flags, address, its length): to an IP address, refused
    assert _filtered(code, arch.audit, sendto, 3, 1, 1, 0, 0, 0) == allow
    assert _filtered(code, arch.audit, sendto, 3, 1, 1, 0, 1, 12) == allow  # netlink's
    assert _filtered(code, arch.audit, sendto, 3, 1, 1, 0, 1, 16) == eperm
    assert _filtered(code, arch.audit, sendto, 3, 1, 1, 0, 1, 28) == eperm
    fast_open = seccomp.MSG_FASTOPEN
    assert _filtered(code, arch.audit, sendto, 3, 1, 1, fast_open, 0, 0) == eperm
    assert _filtered(code, arch.audit, sendmsg, 3, 1, fast_open) == eperm
    assert _filtered(code, arch.audit, sendmsg, 3, 1, 0) == allow
    assert _filtered(code, arch.audit, sendmmsg, 3, 1, 1, fast_open) == eperm
    assert _filtered(code, arch.audit, sendmmsg, 3, 1, 1, 0, 99, 99) == allow
    assert _filtered(code, arch.audit, arch.connect, 3) == seccomp.RET_USER_NOTIF
    # with namespaces, the network namespace keeps these to the run: nothing refused
    full = seccomp.program(arch)
    assert _filtered(full, arch.audit, sendto, 3, 1, 1, fast_open, 1, 16) == allow
    assert _filtered(full, arch.audit, arch.socket, inet, socket.SOCK_RAW, 1) == allow


def _without_user_namespaces() -> None:  # pragma: no cover  (in the child, before exec)
    """As ../shared/tools/without-user-namespaces does for an ordinary user: nobody, in a user
    namespace of its own whose limit of user namespaces is 0; its capabilities go at exec."""
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE, which the change of user cleared: its /proc
    if libc.unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
    Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text("65534 65534 1")
    Path("/proc/self/gid_map").write_text("65534 65534 1")
    Path("/proc/sys/user/max_user_namespaces").write_text("0")


@pytest.mark.skipif(os.getuid() != 0, reason="becoming another user needs root")
def test_the_kernels_refusal_is_found_and_said():
    """The probe (namespaces.unavailable) as an ordinary user whose kernel grants no user
    namespace: the kernel's refusal, in its words."""
    scripts = Path(__file__).resolve().parents[1] / "scripts"
    probe = "from docpipe.run import namespaces; print(repr(namespaces.unavailable()))"
    try:
        found = subprocess.run(
            [sys.executable, "-c", probe],
            env={"PYTHONPATH": str(scripts), "PATH": os.environ.get("PATH", "")},
            cwd="/",
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_without_user_namespaces,
        )
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"cannot become an ordinary user without user namespaces here: {e}")
    if found.returncode != 0 and "Permission denied" in found.stderr:
        pytest.skip(f"nobody cannot read the interpreter or the runner here: {found.stderr}")
    assert found.returncode == 0, found.stderr
    assert "No space left on device" in found.stdout  # ENOSPC: the limit of 0
    mine = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(scripts), "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert mine.stdout.strip() == "''"  # root here: namespaces to be had

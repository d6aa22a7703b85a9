"""The seal without side doors (namespaces and Landlock scopes, docpipe.run.namespaces and
docpipe.run.landlock): a snippet's processes lack the privilege to reach past their job, and
what runs on a reader's machine runs here the same way.

One snippet tries every door and prints what the kernel answered; one regen records it, and
the tests read that record. A second snippet uses multiprocessing (fork, spawn, forkserver,
a queue) and DataLoader workers; its recorded output is compared with a reader's run of it.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import make_sandbox, reader_machine
from projects import REPO

# one worker records the sandbox once for every test of the module
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("seal")]

# How the snippets of these tests try a door (after their imports, errno among them): each try
# prints what the kernel answered, "<what> done" or "<what> refused: <its errno name>".
TRIED = """

def tried(what, action):
    try:
        action()
    except OSError as e:
        print(what, "refused:", errno.errorcode[e.errno])
    else:
        print(what, "done")

"""

DOORS = (
    """
import ctypes
import errno
import fcntl
import os
import pty
import signal
import socket
import stat
"""
    + TRIED
    + """
block = stat.S_IFBLK | 0o600
tried("a block device in scratch", lambda: os.mknod("disk", block, os.makedev(7, 0)))
char = stat.S_IFCHR | 0o600
tried("a character device in scratch", lambda: os.mknod("kmsg", char, os.makedev(1, 11)))
tried("a block device in /dev/shm", lambda: os.mknod("/dev/shm/disk", block, os.makedev(7, 0)))
tried("a file in /dev/shm", lambda: open("/dev/shm/mine", "w").close())
tried("SIGSTOP to the runner", lambda: os.kill(os.getppid(), signal.SIGSTOP))
tried("SIGKILL to a process of the machine", lambda: os.kill(MACHINE_PID, signal.SIGKILL))


# Through libc, as no audit hook sees: only the kernel can refuse these.
libc = ctypes.CDLL(None, use_errno=True)


def called(result):
    if result != 0:
        raise OSError(ctypes.get_errno(), "refused")


mine = os.path.abspath(__file__).encode()  # a file of the repository
outside = OUTSIDE.encode()
tried("chmod of a repository file", lambda: called(libc.chmod(mine, 0o777)))
tried("utime of a repository file", lambda: called(libc.utime(mine, None)))
xattr = (mine, b"user.x", b"1", 1, 0)
tried("setxattr of a repository file", lambda: called(libc.setxattr(*xattr)))
tried("chmod of a file outside", lambda: called(libc.chmod(outside, 0o4777)))
tried("chown of a file outside", lambda: called(libc.chown(outside, 4321, 4321)))
config = CONFIG.encode()  # a file in the user's configuration folder (an overlay of its own)
tried("chmod in the user's config", lambda: called(libc.chmod(config, 0o4777)))
tried("utime in the user's config", lambda: called(libc.utime(config, None)))


def connect(family, address):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(address)


tried("the machine's TCP server", lambda: connect(socket.AF_INET, ("127.0.0.1", PORT)))
tried("the machine's abstract socket", lambda: connect(socket.AF_UNIX, ABSTRACT))
for where, path in UNIX_PATHS:
    tried(f"the machine's UNIX socket in {where}", lambda: connect(socket.AF_UNIX, path))
tried("a vsock socket", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close())
tried("a packet socket", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW).close())
for address in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):  # no name server reached
    tried(f"the name of {address}", lambda: socket.getnameinfo((address, 0), 0))
with socket.socket() as server:  # a server of its own, on its own loopback
    server.bind(("127.0.0.1", 0))
    server.listen()
    tried("its own TCP server", lambda: connect(socket.AF_INET, server.getsockname()))
with socket.socket(socket.AF_UNIX) as server:  # a UNIX server of its own, in scratch
    server.bind("own.sock")
    server.listen()
    tried("its own UNIX socket", lambda: connect(socket.AF_UNIX, "own.sock"))
    mine = os.path.abspath("own.sock")
    tried("its own UNIX socket by its full path", lambda: connect(socket.AF_UNIX, mine))
    here = os.open("own.sock", os.O_PATH)  # the way round the 108-byte limit of a path
    by_fd = f"/proc/self/fd/{here}"
    tried("its own UNIX socket by /proc/self/fd", lambda: connect(socket.AF_UNIX, by_fd))
tried("a UNIX socket that is not there", lambda: connect(socket.AF_UNIX, "none.sock"))
tried("a file that is no socket", lambda: connect(socket.AF_UNIX, __file__))


def raw_connect(fd, address):
    called(libc.connect(fd, address, len(address)))


unix_address = socket.AF_UNIX.to_bytes(2, "little")
a_file = os.open(__file__, os.O_RDONLY)
tried("connect() on a file", lambda: raw_connect(a_file, unix_address + b"x.sock\\0"))
with socket.socket(socket.AF_UNIX) as s:
    tried("an address of 111 bytes", lambda: raw_connect(s.fileno(), unix_address + b"a" * 109))


def made(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), "refused")


def status(field):
    with open("/proc/self/status") as f:
        return next(line.split()[1] for line in f if line.startswith(field + ":"))


print("capabilities: effective", status("CapEff"), "bounding", status("CapBnd"))
tried("a pseudo-terminal of its own", lambda: [os.close(fd) for fd in pty.openpty()])
tried("a terminal of the machine", lambda: os.open(MACHINE_TERMINAL, os.O_RDONLY | os.O_NOCTTY))
tried("the hostname", lambda: called(libc.sethostname(b"elsewhere", 9)))
tried("open_tree of /", lambda: made(libc.syscall(428, -100, b"/", 1 | 0x8000)))
tried("io_uring", lambda: made(libc.syscall(425, 1, None)))
tried("a key in a keyring", lambda: made(libc.syscall(248, b"user", b"k", b"v", 1, -4)))
tried("the kernel log", lambda: os.close(os.open("/dev/kmsg", os.O_RDONLY)))
LOOP_CTL_ADD = 0x4C80
try:  # an ordinary user's run may not even open it (root's group, disk)
    loop = os.open("/dev/loop-control", os.O_RDONLY)
except OSError as e:
    print("a loop device refused:", errno.errorcode[e.errno])
else:
    tried("a loop device", lambda: fcntl.ioctl(loop, LOOP_CTL_ADD, 77))
seen = len(os.listdir("/dev/shm")) - os.path.exists("/dev/shm/mine")
print("job folders seen in /dev/shm:", seen)
print("in its /run:", sorted(os.listdir("/run")))
print("processes in its /proc:", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
"""
)

PROCESSES = """
import multiprocessing as mp
import os

import torch
from torch.utils.data import DataLoader, TensorDataset


def square(x):
    return x * x


if __name__ == "__main__":
    child = os.fork()
    if child == 0:
        os._exit(7)
    print("os.fork's child exited with", os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
    for method in ("fork", "spawn", "forkserver"):
        with mp.get_context(method).Pool(2) as pool:
            print(method, "pool:", pool.map(square, range(4)))
    queue = mp.get_context("spawn").Queue()
    queue.put("through a queue")
    print(queue.get())
    generator = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.arange(8.0))
    loader = DataLoader(data, batch_size=4, shuffle=True, num_workers=2, generator=generator)
    print("DataLoader workers:", [batch[0].tolist() for batch in loader])
"""

PAGE = """# Sandbox

```python title="snippets/{name}.py"
--8<-- "snippets/{name}.py"
```

``` text title="python snippets/{name}.py"
--8<-- "docs/generated/{name}.txt"
```
"""


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    """Both snippets recorded once, with a TCP server, an abstract socket and a process of the
    machine (this test's) for the doors snippet to try."""
    from docpipe.run import namespaces

    if why := namespaces.unavailable():
        pytest.skip(
            f"the full seal needs namespaces, which this machine refuses ({why}): its runs are"
            " contained, and tests/test_contained.py checks what a contained run keeps"
        )
    box = make_sandbox(tmp_path_factory.mktemp("seal"))
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    abstract = socket.socket(socket.AF_UNIX)
    name = f"docpipe-test-seal-{os.getpid()}"  # abstract names are the machine's: unique
    abstract.bind(b"\0" + name.encode())
    abstract.listen()
    machine = subprocess.Popen(["sleep", "300"])
    _, terminal = os.openpty()  # a terminal of the machine's, which no run may read
    # pathname UNIX sockets of the machine in the runtime folders (/run's when this user may
    # write there; the doors snippet lists what its /run holds in any case)
    unix = []
    for where, folder in runtime_folders(tmp_path_factory):
        listener = socket.socket(socket.AF_UNIX)
        path = folder / f"docpipe-test-seal-{os.getpid()}.sock"
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        listener.bind(str(path))
        listener.listen()
        unix.append((where, path, listener))
    # a file of the machine the run sees (the temporary folder is hidden from it): the home's
    box.outside = Path.home() / f".docpipe-test-seal-{os.getpid()}"
    box.outside.write_text("not the snippet's")
    box.config = Path.home() / ".config" / f"docpipe-test-seal-{os.getpid()}"
    box.config.parent.mkdir(exist_ok=True)
    box.config.write_text("the user's")
    os.utime(box.config, (1_000_000_000, 1_000_000_000))
    constants = (
        f"MACHINE_PID = {machine.pid}\nPORT = {server.getsockname()[1]}\n"
        f"ABSTRACT = b'\\0{name}'\nOUTSIDE = {str(box.outside)!r}\n"
        f"UNIX_PATHS = {[(where, str(path)) for where, path, _ in unix]!r}\n"
        f"CONFIG = {str(box.config)!r}\nMACHINE_TERMINAL = {os.ttyname(terminal)!r}\n"
    )
    box.write("snippets/doors.py", constants + DOORS)
    box.write("snippets/processes.py", PROCESSES)
    box.write("docs/index.md", PAGE.format(name="doors") + PAGE.format(name="processes")[9:])
    box.run = box.regen()
    box.runtime = [where for where, _, _ in unix]
    box.machine_run = os.listdir("/run")
    box.machine_alive = machine.poll() is None
    machine.kill()
    server.close()
    abstract.close()
    for where, path, listener in unix:
        listener.close()
        path.unlink()
        if where == "/var/tmp":
            path.parent.rmdir()
    box.outside_mode = box.outside.stat().st_mode & 0o7777
    box.outside.unlink()
    box.config_stat = box.config.stat()
    box.config.unlink()
    return box


def runtime_folders(tmp_path_factory) -> list[tuple[str, Path]]:
    """Where the machine's pathname sockets go, as (the folder the doors snippet names, a
    folder this user may bind in): the temporary folders, and /run, or this user's own folder
    there (XDG_RUNTIME_DIR), where there is one to write in (as root, or in a login session)."""
    found = [
        ("/tmp", tmp_path_factory.mktemp("sockets")),
        ("/var/tmp", Path(tempfile.mkdtemp(prefix="docpipe-test-seal-", dir="/var/tmp"))),
    ]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    for folder in ("/run", runtime):
        if folder.startswith("/run") and os.access(folder, os.W_OK | os.X_OK):
            found.append(("/run", Path(folder)))
            break
    return found


def recorded(box, name: str) -> list[str]:
    return box.read(f"docs/generated/{name}.txt").splitlines()


def test_the_run_records_both(sealed):
    assert sealed.run.returncode == 0, sealed.run.stderr


def test_no_device_node_can_be_made_anywhere(sealed):
    doors = recorded(sealed, "doors")
    for where in ("a block device in scratch", "a character device in scratch"):
        assert f"{where} refused: EACCES" in doors
    assert "a block device in /dev/shm refused: EACCES" in doors
    assert "a file in /dev/shm done" in doors  # its own shared memory: semaphores live there


def test_no_process_outside_its_own_can_be_signalled(sealed):
    doors = recorded(sealed, "doors")
    assert "SIGSTOP to the runner refused: EPERM" in doors
    # its own PID namespace: the machine's processes have no pid there (ESRCH), and were they
    # reachable, Landlock's signal scope would refuse (EPERM)
    assert any(line.startswith("SIGKILL to a process of the machine refused: E") for line in doors)
    assert sealed.machine_alive
    assert "processes in its /proc: [1, 2]" in doors  # its namespace's init, and itself


def test_no_socket_of_the_machine_can_be_reached_but_its_own_loopback_works(sealed):
    doors = recorded(sealed, "doors")
    assert "the machine's TCP server refused: ECONNREFUSED" in doors
    # abstract sockets belong to a network namespace: its own has none of the machine's (and
    # Landlock's scope would refuse one, EPERM, where namespaces cannot be had)
    assert any(line.startswith("the machine's abstract socket refused: ") for line in doors)
    assert "its own TCP server done" in doors
    # the loopback's names resolve without a name server, as a reader's resolver answers them
    # (c10d's rendezvous on 127.0.0.1 looks its peer up and warns when that fails)
    for address in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):
        assert f"the name of {address} done" in doors
    # pathname sockets: the run's temporary and runtime folders are empty tmpfs of its own
    for where in sealed.runtime:
        assert f"the machine's UNIX socket in {where} refused: ENOENT" in doors
    assert {"/tmp", "/var/tmp"} <= set(sealed.runtime)
    # and whoever runs this, what its /run holds is its own (the runner's names for the
    # loopback), none of the machine's, of which there are some
    line = next(line for line in doors if line.startswith("in its /run: "))
    run = ast.literal_eval(line.removeprefix("in its /run: "))
    assert sealed.machine_run and not set(run) & set(sealed.machine_run), run
    # its own UNIX sockets, made for it by the supervisor, answer as on a reader's machine
    assert "its own UNIX socket done" in doors
    assert "its own UNIX socket by its full path done" in doors
    assert "its own UNIX socket by /proc/self/fd done" in doors
    assert "a UNIX socket that is not there refused: ENOENT" in doors
    # what the kernel answers a malformed call, the supervisor answers too
    assert "connect() on a file refused: ENOTSOCK" in doors
    assert "an address of 111 bytes refused: EINVAL" in doors
    assert "a file that is no socket refused: ECONNREFUSED" in doors
    # families outside the network stack (vsock) or needing a device (packet): refused
    assert "a vsock socket refused: EAFNOSUPPORT" in doors
    assert "a packet socket refused: EAFNOSUPPORT" in doors


def test_no_file_outside_the_job_folder_changes_its_metadata(sealed):
    doors = recorded(sealed, "doors")
    for what in ("chmod", "utime", "setxattr"):
        assert f"{what} of a repository file refused: EROFS" in doors
    assert "chmod of a file outside refused: EROFS" in doors
    assert "chown of a file outside refused: EROFS" in doors
    assert sealed.outside_mode == 0o644
    # the user's folders: what the run changed there, it changed in its own copy
    assert sealed.config_stat.st_mode & 0o7777 == 0o644
    assert sealed.config_stat.st_mtime == 1_000_000_000
    source = sealed.root / "snippets" / "doors.py"
    assert source.stat().st_mode & 0o7777 == 0o644 and source.stat().st_mtime > 0


def test_no_capability_is_left_to_a_snippet(sealed):
    doors = recorded(sealed, "doors")
    assert "capabilities: effective 0000000000000000 bounding 0000000000000000" in doors
    assert "a pseudo-terminal of its own done" in doors  # pty works as on a reader's machine
    assert any(line.startswith("a terminal of the machine refused: E") for line in doors)
    assert "the hostname refused: EPERM" in doors
    assert "open_tree of / refused: EPERM" in doors  # no mount, old API or new
    assert "io_uring refused: ENOSYS" in doors  # no socket made round the family filter
    assert "a key in a keyring refused: ENOSYS" in doors
    if Path("/proc/sys/kernel/dmesg_restrict").read_text().strip() == "1":  # needs CAP_SYSLOG
        assert any(line.startswith("the kernel log refused: E") for line in doors)
    assert any(line.startswith("a loop device refused: E") for line in doors)


def test_no_other_job_folder_is_seen(sealed):
    assert "job folders seen in /dev/shm: 1" in recorded(sealed, "doors")


def test_multiprocessing_and_dataloader_workers_run_as_on_a_readers_machine(sealed):
    reader = subprocess.run(
        [sys.executable, "snippets/processes.py"],
        cwd=sealed.root,
        capture_output=True,
        text=True,
        timeout=120,
        env=reader_machine(),
    )
    assert reader.returncode == 0, reader.stderr
    shown = sealed.read("docs/generated/processes.txt")
    assert shown == reader.stdout + reader.stderr
    assert "forkserver pool: [0, 1, 4, 9]" in shown
    assert "DataLoader workers:" in shown


REACH = (
    """
import ctypes
import errno
import os
import socket
import threading
"""
    + TRIED
    + """
def connect(path):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)


for path in MACHINE:
    tried("the machine's socket", lambda: connect(path))
os.symlink(MACHINE[0], "link.sock")
tried("the machine's socket by a link", lambda: connect("link.sock"))
tried("a datagram socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close())
tried("a datagram pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))

# The address changes under the call: another thread flips it between a socket of its own and
# the machine's while connect() runs, through libc, as no audit hook sees.
server = socket.socket(socket.AF_UNIX)
server.bind("own.sock")
server.listen(1000)
paths = [os.path.abspath("own.sock").encode(), MACHINE[0].encode()]
length = 3 + max(map(len, paths))
address = ctypes.create_string_buffer(length)
address[0:2] = socket.AF_UNIX.to_bytes(2, "little")
done = threading.Event()


def flip():
    while not done.is_set():
        for path in paths:
            address[2:length] = path.ljust(length - 2, b"\\0")


threading.Thread(target=flip).start()
libc = ctypes.CDLL(None, use_errno=True)
answers = []
for _ in range(300):
    with socket.socket(socket.AF_UNIX) as s:
        answers.append(libc.connect(s.fileno(), address, length))
done.set()
print("flipped:", answers.count(0), "connected,", answers.count(-1), "refused")
"""
)


def test_a_socket_of_the_machine_is_refused_and_fails_the_run_naming_it(tmp_path):
    """A pathname UNIX socket of the machine in a folder a run sees (the home folder, and
    /var/lib or, for an ordinary user, a folder in the home), by its path or a link to it: no
    connection reaches it, by any path or race, and the run fails naming the socket; so does a
    UNIX datagram socket, which sends by path with no connect()."""
    box = make_sandbox(tmp_path)
    listeners = []
    # a second folder the run sees: /var/lib, or, for a user who may not write there, a
    # folder of its own in the home folder
    beside_home = Path("/var/lib")
    if not os.access(beside_home, os.W_OK | os.X_OK):
        beside_home = Path(tempfile.mkdtemp(prefix=".docpipe-test-reach-", dir=Path.home()))
    try:
        # (a socket path has at most 107 bytes: the repository's, under pytest's, is longer)
        for folder in (Path.home(), beside_home):
            path = folder / f".docpipe-test-reach-{os.getpid()}.sock"
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            listener = socket.socket(socket.AF_UNIX)
            listeners.append((path, listener))
            listener.bind(str(path))
            listener.listen(1000)
            listener.setblocking(False)
        machine = [str(path) for path, _ in listeners]
        box.write("snippets/reach.py", f"MACHINE = {machine!r}\n" + REACH)
        box.write("docs/index.md", PAGE.format(name="reach"))
        run = box.regen("snippets/reach.py")
    finally:
        accepted = 0
        for path, listener in listeners:
            with contextlib.suppress(OSError):  # BlockingIOError: none (more) to accept
                while listener.accept():
                    accepted += 1
            listener.close()
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        if beside_home != Path("/var/lib"):
            beside_home.rmdir()
    assert accepted == 0
    assert run.returncode == 1
    for path in machine:
        said = f"tried to connect to {path}, a UNIX socket no process of its run made"
        assert said in run.stderr
    assert "FAILED snippets/reach.py: tried to connect to " in run.stderr
    assert "made a UNIX socket of type SOCK_DGRAM, which sends to any socket" in run.stderr
    assert run.stderr.count("the machine's socket refused: EPERM") == 2
    assert "the machine's socket by a link refused: EPERM" in run.stderr
    assert "a datagram socket refused: EPERM" in run.stderr
    assert "a datagram pair refused: EPERM" in run.stderr
    flipped = re.search(r"flipped: (\d+) connected, (\d+) refused", run.stderr)
    assert flipped and int(flipped[1]) + int(flipped[2]) == 300 and int(flipped[2]) > 0
    assert not (box.root / "docs" / "generated" / "reach.txt").exists()


PLANTED = """
import os
import subprocess
import threading

# where the runner's own processes once wrote their notes, and its output: links out
for name in ("left-running", "memory-exceeded", "refused-connections"):
    os.symlink(TARGET, "../" + name)
subprocess.Popen(["sleep", "1777"])  # left running: the runner names what it killed
threads = []
threading.stack_size(1 << 16)
try:  # the supervisor's threads count in the run's process limit too
    while len(threads) < 5000:
        threads.append(threading.Thread(target=threading.Event().wait))
        threads[-1].daemon = True
        threads[-1].start()
except RuntimeError:
    pass
import socket

with socket.socket(socket.AF_UNIX) as server:
    server.bind("own.sock")
    server.listen()
    with socket.socket(socket.AF_UNIX) as s:
        s.connect("own.sock")
        print("connected at the process limit")
try:  # refused: the refusal is noted, where a link once led the note
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
except OSError:
    pass
print("printed")
os.unlink("../output.txt")
if KIND == "link":
    os.symlink(SECRET, "../output.txt")
else:
    os.mkfifo("../output.txt")
"""


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_the_runner_follows_no_name_in_the_job_folder(tmp_path, kind):
    """The job folder is the snippet's to write: a link or a FIFO it puts where the runner
    reads or writes (its output, the notes of the runner's own processes) is no file of the
    machine written or read, no wait, and the run fails saying so."""
    box = make_sandbox(tmp_path)
    target = Path.home() / f".docpipe-test-planted-{os.getpid()}-{kind}"
    secret = tmp_path / "secret.txt"  # in the temporary folder: hidden from the run
    secret.write_text("not the snippet's to read\n")
    constants = f"TARGET = {str(target)!r}\nSECRET = {str(secret)!r}\nKIND = {kind!r}\n"
    box.write("snippets/planted.py", constants + PLANTED)
    box.write("docs/index.md", PAGE.format(name="planted"))
    try:
        run = box.regen("--timeout", "60", "snippets/planted.py")
        assert not target.exists() and not target.is_symlink()
    finally:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert "not the snippet's to read" not in run.stderr
    said = "a link, not a file" if kind == "link" else "not a regular file"
    assert f"snippets/planted.py: its run left no output file ({said})" in run.stderr
    assert "snippets/planted.py:12: left processes running when it ended" in run.stderr
    assert "(sleep 1777)" in run.stderr
    assert "made a UNIX socket of type SOCK_DGRAM" in run.stderr  # reported all the same
    assert not (box.root / "docs" / "generated" / "planted.txt").exists()


def test_a_snippet_over_its_memory_limit_fails_naming_it(tmp_path):
    box = make_sandbox(tmp_path)
    box.write(
        "snippets/snippets.toml",
        '[defaults]\ntimeout = 60\n\n["hog.py"]\nmemory = 256\n\n["tensors.py"]\nmemory = 256\n',
    )
    box.write("snippets/hog.py", "held = bytearray(1 << 30)\n")
    box.write("snippets/tensors.py", "import torch\n\nheld = torch.ones(1 << 28)\n")
    box.write("docs/index.md", PAGE.format(name="hog") + PAGE.format(name="tensors")[9:])
    run = box.regen()
    assert run.returncode == 1
    limit = (
        " (the runner limits a snippet's process to 256 MiB of memory: raise `memory` for it"
        " in snippets/snippets.toml)"
    )
    failed = [line.strip() for line in run.stderr.splitlines() if "FAILED snippets/" in line]
    assert f"FAILED snippets/hog.py:1: MemoryError: {limit}" in failed
    tensors = next(line for line in failed if line.startswith("FAILED snippets/tensors.py:3:"))
    assert "can't allocate memory" in tensors and tensors.endswith(limit)


@pytest.mark.unit
def test_runs_start_only_while_their_memory_limits_fit_in_the_machine():
    from docpipe.run import machine, pool
    from docpipe.run.messages import Job

    share = machine.memory_mib() * 3 // 4
    big = Job("/r", "big", {}, 1, memory=share // 2 + 1)
    assert pool._fits([(big, 1.0)], {})  # one run alone always starts
    assert not pool._fits([(big, 1.0)], {"a": (None, big, 0.0, 1.0)})  # two would not fit
    small = Job("/r", "small", {}, 1, memory=share // 2 - 1)
    assert pool._fits([(small, 1.0)], {"a": (None, small, 0.0, 1.0)})


def test_in_a_fresh_interpreter_a_snippet_starts_processes_as_on_a_readers_machine(tmp_path):
    # --no-fork (and the audit's second run): the run's process is a spawned one, never a
    # daemonic process, which multiprocessing forbids to have children
    box = make_sandbox(tmp_path)
    box.write("snippets/processes.py", PROCESSES)
    box.write("docs/index.md", PAGE.format(name="processes"))
    run = box.regen("--no-fork")
    assert run.returncode == 0, run.stderr
    assert "forkserver pool: [0, 1, 4, 9]" in box.read("docs/generated/processes.txt")


def test_a_fresh_interpreter_imports_matplotlib_as_a_reader_does(tmp_path):
    # In the run's read-only mounts, matplotlib's import tests its configuration folder for
    # writing; it must find it as on a reader's machine, or it warns into the output.
    box = make_sandbox(tmp_path)
    box.write("snippets/plots.py", 'import matplotlib.pyplot  # noqa: F401\n\nprint("drawn")\n')
    box.write("docs/index.md", PAGE.format(name="plots"))
    run = box.regen("--no-fork")
    assert run.returncode == 0, run.stderr
    assert box.read("docs/generated/plots.txt") == "drawn\n"


DAEMON = """
import subprocess
import time

subprocess.Popen(["setsid", "sleep", "{marker}1"])  # a daemon, in a session of its own
subprocess.Popen(["sleep", "{marker}2"])
print("started", flush=True)
time.sleep(300)
"""


def _running(marker: str) -> list[int]:
    """The pids of the machine's processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit() and marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
    return found


def _end_all(regen: subprocess.Popen, marker: str) -> None:
    """Whatever a test's regen left, ended: its group and the processes named by `marker`."""
    for pid in _running(marker):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(regen.pid, signal.SIGKILL)


def _until(condition, timeout: float = 60) -> bool:
    """Whether `condition()` became true within `timeout` seconds (polled: what it waits on is
    another process's state, which sends no event)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("cancel", ["SIGTERM to its group", "SIGKILL to regen", "SIGINT"])
def test_a_cancelled_regen_leaves_no_process_of_the_run(tmp_path, cancel):
    box = make_sandbox(tmp_path)
    marker = f"31{os.getpid()}{len(cancel)}"  # the sleeps' seconds: unique to this test
    box.write("snippets/daemon.py", DAEMON.replace("{marker}", marker))
    box.write("docs/index.md", PAGE.format(name="daemon"))
    regen = subprocess.Popen(
        [sys.executable, "scripts/regen.py", "snippets/daemon.py"],
        cwd=box.root,
        env=reader_machine(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a CI job's or a shell's
    )
    try:
        assert _until(lambda: len(_running(marker)) == 2), "the snippet's sleeps never started"
        match cancel:
            case "SIGTERM to its group":
                os.killpg(regen.pid, signal.SIGTERM)
            case "SIGKILL to regen":
                regen.kill()
            case "SIGINT":
                regen.send_signal(signal.SIGINT)
        _, stderr = regen.communicate(timeout=60)
        assert _until(lambda: not _running(marker)), f"still running: {_running(marker)}"
        assert "Traceback" not in stderr, stderr
        if cancel != "SIGKILL to regen":  # one line says how it ended
            said = "terminated" if cancel.startswith("SIGTERM") else "interrupted"
            assert f"{said}: every generated file is its old or its new version" in stderr
    finally:
        _end_all(regen, marker)


TREE = """
import multiprocessing as mp
import multiprocessing.connection
import os


def hold(release, let_go):
    os.close(let_go)
    held = b"x" * (400 << 20)  # written, so its pages are the process's own
    os.read(release, 1)  # until the parent lets go: the three hold theirs at once
    print(len(held))


if __name__ == "__main__":
    # a pipe, not a barrier: a process the kernel kills holds no lock the others wait for
    release, let_go = os.pipe()
    fork = mp.get_context("fork")
    workers = [fork.Process(target=hold, args=(release, let_go)) for _ in range(3)]
    for worker in workers:
        worker.start()
    mp.connection.wait([worker.sentinel for worker in workers], timeout=60)  # the first end
    os.close(let_go)
    for worker in workers:
        worker.join()
    print([worker.exitcode for worker in workers])
"""


# A run's control groups are made in the runner's own group: as root, or where the system
# delegates that group to the user (systemd does for a login session's services, not for `su`).
CGROUP_NEEDED = (
    "no {} control group can be made here: this user may write in no such group of its own"
    " (root may, or a user whose group systemd delegates to it)"
)


def _groups_required() -> bool:
    """Whether a missing control group fails these tests rather than skipping them: on CI as
    root (this project's CI machine), where the kernel offers them. GitHub's runners run the
    tests as an ordinary user whom systemd delegates no group."""
    return bool(os.environ.get("CI")) and os.geteuid() == 0


def test_a_process_tree_over_its_memory_limit_fails_naming_it(tmp_path):
    # each process stays under the limit (RLIMIT_DATA); three together do not
    from docpipe.run import cgroups

    if cgroups.parent() is None and not _groups_required():
        pytest.skip(CGROUP_NEEDED.format("memory"))
    box = make_sandbox(tmp_path)
    box.write("snippets/snippets.toml", '["tree.py"]\nmemory = 1024\n')
    box.write("snippets/tree.py", TREE)
    box.write("docs/index.md", PAGE.format(name="tree"))
    run = box.regen("snippets/tree.py")
    assert run.returncode == 1
    failed = next(line for line in run.stderr.splitlines() if "FAILED snippets/tree.py" in line)
    assert "reached the runner's memory limit of 1024 MiB" in failed, run.stderr
    assert "raise `memory` for it in snippets/snippets.toml" in failed


def test_a_stopped_zygote_is_taken_for_dead_at_the_deadline(tmp_path):
    box = make_sandbox(tmp_path)
    marker = f"32{os.getpid()}"
    box.write("snippets/slow.py", f'import subprocess\n\nsubprocess.run(["sleep", "{marker}"])\n')
    box.write("docs/index.md", PAGE.format(name="slow"))
    regen = subprocess.Popen(
        [sys.executable, "scripts/regen.py", "--timeout", "3", "snippets/slow.py"],
        cwd=box.root,
        env=reader_machine(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert _until(lambda: _running(marker)), "the snippet's sleep never started"
        with open(f"/proc/{regen.pid}/task/{regen.pid}/children") as children:
            (zygote,) = map(int, children.read().split())
        os.kill(zygote, signal.SIGSTOP)
        _, stderr = regen.communicate(timeout=60)
        assert regen.returncode == 1
        failed = next(line for line in stderr.splitlines() if "FAILED snippets/slow.py" in line)
        assert "timed out after 3 s" in failed
        assert "the runner's zygote did not answer in time (stopped or hung)" in failed
        assert "Traceback" not in stderr, stderr
        assert _until(lambda: not _running(marker)), f"still running: {_running(marker)}"
    finally:
        _end_all(regen, marker)


# The bomb forks from a small interpreter of its own (no torch in it): each fork is quick.
BOMB = '''
import subprocess
import sys

BOMB = """
import os, signal
children = []
try:
    while len(children) < 10000:
        child = os.fork()
        if child == 0:
            signal.pause()
            os._exit(0)
        children.append(child)
except OSError as e:
    print("fork refused:", e.strerror)
for child in children:
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
print("processes it could start:", len(children))
"""
bomb = [sys.executable, "-I", "-S", "-c", BOMB]
print(subprocess.run(bomb, capture_output=True, text=True).stdout, end="")
'''


def test_a_fork_bomb_stops_at_the_runs_process_limit(tmp_path):
    # by the run's pids group where it has one (root), else by RLIMIT_NPROC in the user
    # namespace of its own an ordinary user's run has (execute._cap_processes)
    from docpipe.run import cgroups, namespaces

    grouped = cgroups.parent() is not None and cgroups.parent("pids") is not None
    own_namespace = os.geteuid() != 0 and not namespaces.unavailable()
    if not (grouped or own_namespace or _groups_required()):
        pytest.skip(
            CGROUP_NEEDED.format("pids") + ", and runs are contained (no user namespace of"
            " their own to count a run's processes in)"
            if os.geteuid() != 0
            else CGROUP_NEEDED.format("pids")
        )
    box = make_sandbox(tmp_path)
    box.write("snippets/bomb.py", BOMB)
    box.write("docs/index.md", PAGE.format(name="bomb"))
    run = box.regen("snippets/bomb.py")
    assert run.returncode == 0, run.stderr
    shown = box.read("docs/generated/bomb.txt").splitlines()
    assert shown[0] == "fork refused: Resource temporarily unavailable"
    started = int(shown[1].rsplit(" ", 1)[1])
    assert 0 < started < cgroups.PIDS_MAX  # the run's own processes and threads count too


# A run in a user namespace it did not make (a container's, or without-user-namespaces'):
# the user's other processes share it, so RLIMIT_NPROC there would count them too.
SHARED_NAMESPACE = """
import ctypes, os, resource, sys
from pathlib import Path
from docpipe.run import execute, namespaces
uid, gid = os.getuid(), os.getgid()
if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:  # CLONE_NEWUSER
    sys.exit(3)
Path("/proc/self/setgroups").write_text("deny")
Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
resource.setrlimit(resource.RLIMIT_NPROC, (50000, 50000))
namespaces._enclosed = True  # a run of enclose(), contained: no namespace of its own
execute._cap_processes()
print(resource.getrlimit(resource.RLIMIT_NPROC)[0])
namespaces.own_user_namespace = True  # what namespaces._unshare says of the one it made
execute._cap_processes()
print(resource.getrlimit(resource.RLIMIT_NPROC)[0])
"""


def test_only_a_user_namespace_the_runner_made_holds_a_run_to_its_process_limit():
    from docpipe.run import cgroups

    env = {"PYTHONPATH": str(REPO / "scripts"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", SHARED_NAMESPACE], env=env, capture_output=True, text=True
    )
    if done.returncode == 3:
        pytest.skip("this kernel or its policy grants no user namespace to try it in")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["50000", str(cgroups.PIDS_MAX)]


def _filtered(code, arch: int, nr: int, *args: int) -> int:
    """What the kernel would answer to a system call under this BPF program: its return."""
    from docpipe.run import seccomp

    data = {seccomp.NR: nr, seccomp.ARCH: arch}
    for n, value in enumerate(args):
        data[seccomp.ARG0 + 8 * n] = value
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == seccomp.LD_W_ABS:
            acc, pc = data.get(k, 0), pc + 1
        elif op == seccomp.AND_K:
            acc, pc = acc & k, pc + 1
        elif op in (seccomp.JEQ_K, seccomp.JGE_K, seccomp.JSET_K):
            taken = {seccomp.JEQ_K: acc == k, seccomp.JGE_K: acc >= k}.get(op, bool(acc & k))
            pc += 1 + (jt if taken else jf)
        else:
            assert op == seccomp.RET_K, op
            return k


@pytest.mark.unit
@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_socket_filter_answers_each_call_as_it_says(machine):
    from docpipe.run import seccomp

    arch = seccomp.ARCHES[machine]
    code = seccomp.program(arch)
    allow, errno_, notify = seccomp.RET_ALLOW, seccomp.RET_ERRNO, seccomp.RET_USER_NOTIF
    nonblock, cloexec = socket.SOCK_NONBLOCK, socket.SOCK_CLOEXEC
    flags = (0, nonblock, cloexec, nonblock | cloexec)
    for call in (arch.socket, arch.socketpair):
        for family in seccomp.ALLOWED[1:]:
            assert _filtered(code, arch.audit, call, family, socket.SOCK_DGRAM) == allow
        for family in (socket.AF_VSOCK, socket.AF_PACKET, 31):  # 31: Bluetooth
            refused = errno_ | seccomp.EAFNOSUPPORT
            assert _filtered(code, arch.audit, call, family, socket.SOCK_STREAM) == refused
        # UNIX sockets: stream and seqpacket as they are; any other type (a datagram socket
        # sends to any path) to the supervisor, whatever flags are or'ed into the type
        for flag in flags:
            for kind in seccomp.UNIX_TYPES:
                assert _filtered(code, arch.audit, call, socket.AF_UNIX, kind | flag) == allow
            for kind in (socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_RDM, 15):
                assert _filtered(code, arch.audit, call, socket.AF_UNIX, kind | flag) == notify
    # every connect() goes to the supervisor, whatever its arguments
    for fd in (0, 3, 2**32 - 1):
        assert _filtered(code, arch.audit, arch.connect, fd) == notify
    # no second supervisor: the kernel would hand it the calls
    for op_flags in (8, 9, 8 | 16, 2**31 | 8):
        assert _filtered(code, arch.audit, arch.seccomp, 1, op_flags) == errno_ | seccomp.EPERM
    for op_flags in (0, 1, 2, 16):
        assert _filtered(code, arch.audit, arch.seccomp, 1, op_flags) == allow
    for nr in arch.refused:
        assert _filtered(code, arch.audit, nr) == errno_ | seccomp.ENOSYS
    assert _filtered(code, arch.audit, 0) == allow  # read (x86-64), io_setup (arm64)
    assert _filtered(code, 0x40000003, arch.socket) == errno_ | seccomp.ENOSYS  # i386's ABI
    if arch.x32:
        for nr in (arch.socket, arch.connect):
            x32 = seccomp.X32 | nr
            assert _filtered(code, arch.audit, x32, socket.AF_UNIX) == errno_ | seccomp.ENOSYS


@pytest.mark.unit
def test_the_runners_notes_fit_the_pipe_and_keep_every_refusal_whatever_the_names():
    """What the namespace's init says of a run travels through a pipe of 64 KiB: names of any
    length and characters (the snippet chooses its processes' command lines) cut only what
    it left running, never a refusal; notes that cannot be read fail the run."""
    from docpipe.run.namespaces import PIPE_ROOM, Notes

    refused = [f"tried to connect to /x/{n}.sock\x01\u00e9" + "\\" * 400 for n in range(20)]
    for left in ("", "pid 3 (sleep 1)", '\x01\u00e9\U0001f600\\"' * 50_000):
        notes = Notes(left, refused, 1024)
        data = notes.encode()
        assert len(data) <= PIPE_ROOM
        back = Notes.decode(data)
        assert back.memory == 1024
        assert back.refused == [r[:300] for r in refused[:16]]
        assert left.startswith(back.left.rstrip("\ufffd"))
    assert Notes.decode(b"").refused == [] and Notes.decode(b"").memory == 0
    assert Notes.decode(b'{"refused": [1, 2]\n').refused == [
        "the runner could not read what its own processes said of the run"
    ]
    # the data files no process of the run opened: kept while they fit, else unknown
    # (None: every data file then stays an input), and a malformed list fails the run
    few = [f"/repo/snippets/{n}.bin" for n in range(3)]
    assert Notes(unread=few).encode() and Notes.decode(Notes(unread=few).encode()).unread == few
    many = Notes("x" * PIPE_ROOM, refused, unread=["/r/" + "y" * 1000] * 100)
    assert len(many.encode()) <= PIPE_ROOM and Notes.decode(many.encode()).unread is None
    assert Notes.decode(Notes().encode()).unread is None and Notes.decode(b"").unread is None
    for bad in (
        b'{"refused": [], "memory": 0, "unread": [1]}\n',
        b'{"refused": [], "memory": 0, "unread": "a"}\n',
    ):
        assert Notes.decode(bad).refused == [
            "the runner could not read what its own processes said of the run"
        ]

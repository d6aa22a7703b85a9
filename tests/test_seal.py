"""The seal without side doors (namespaces and Landlock scopes, docpipe.run.namespaces and
docpipe.run.landlock): a snippet's processes lack the privilege to reach past their job, and
what runs on a reader's machine runs here the same way.

One snippet tries every door and prints what the kernel answered; one regen records it, and
the tests read that record. A second snippet uses multiprocessing (fork, spawn, forkserver,
a queue) and DataLoader workers; its recorded output is compared with a reader's run of it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from conftest import make_sandbox, reader_machine

# one worker records the sandbox once for every test of the module
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("seal")]

DOORS = """
import ctypes
import errno
import os
import signal
import socket
import stat


def tried(what, action):
    try:
        action()
    except OSError as e:
        print(what, "refused:", errno.errorcode[e.errno])
    else:
        print(what, "done")


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


def connect(family, address):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(address)


tried("the machine's TCP server", lambda: connect(socket.AF_INET, ("127.0.0.1", PORT)))
tried("the machine's abstract socket", lambda: connect(socket.AF_UNIX, ABSTRACT))
with socket.socket() as server:  # a server of its own, on its own loopback
    server.bind(("127.0.0.1", 0))
    server.listen()
    tried("its own TCP server", lambda: connect(socket.AF_INET, server.getsockname()))
seen = len(os.listdir("/dev/shm")) - os.path.exists("/dev/shm/mine")
print("job folders seen in /dev/shm:", seen)
"""

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
    box = make_sandbox(tmp_path_factory.mktemp("seal"))
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    abstract = socket.socket(socket.AF_UNIX)
    name = f"docpipe-test-seal-{os.getpid()}"  # abstract names are the machine's: unique
    abstract.bind(b"\0" + name.encode())
    abstract.listen()
    machine = subprocess.Popen(["sleep", "300"])
    box.outside = tmp_path_factory.mktemp("outside") / "file"
    box.outside.write_text("not the snippet's")
    constants = (
        f"MACHINE_PID = {machine.pid}\nPORT = {server.getsockname()[1]}\n"
        f"ABSTRACT = b'\\0{name}'\nOUTSIDE = {str(box.outside)!r}\n"
    )
    box.write("snippets/doors.py", constants + DOORS)
    box.write("snippets/processes.py", PROCESSES)
    box.write("docs/index.md", PAGE.format(name="doors") + PAGE.format(name="processes")[9:])
    box.run = box.regen()
    box.machine_alive = machine.poll() is None
    machine.kill()
    server.close()
    abstract.close()
    return box


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
    assert "SIGKILL to a process of the machine refused: EPERM" in doors
    assert sealed.machine_alive


def test_no_socket_of_the_machine_can_be_reached_but_its_own_loopback_works(sealed):
    doors = recorded(sealed, "doors")
    assert "the machine's TCP server refused: ECONNREFUSED" in doors
    # abstract sockets belong to a network namespace: its own has none of the machine's (and
    # Landlock's scope would refuse one, EPERM, where namespaces cannot be had)
    assert any(line.startswith("the machine's abstract socket refused: ") for line in doors)
    assert "its own TCP server done" in doors


def test_no_file_outside_the_job_folder_changes_its_metadata(sealed):
    doors = recorded(sealed, "doors")
    for what in ("chmod", "utime", "setxattr"):
        assert f"{what} of a repository file refused: EROFS" in doors
    assert "chmod of a file outside refused: EROFS" in doors
    assert "chown of a file outside refused: EROFS" in doors
    assert sealed.outside.stat().st_mode & 0o7777 == 0o644
    source = sealed.root / "snippets" / "doors.py"
    assert source.stat().st_mode & 0o7777 == 0o644 and source.stat().st_mtime > 0


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


def test_a_fresh_interpreter_imports_matplotlib_as_a_reader_does(tmp_path):
    # In the run's read-only mounts, matplotlib's import tests its configuration folder for
    # writing; it must find it as on a reader's machine, or it warns into the output.
    box = make_sandbox(tmp_path)
    box.write("snippets/plots.py", 'import matplotlib.pyplot  # noqa: F401\n\nprint("drawn")\n')
    box.write("docs/index.md", PAGE.format(name="plots"))
    run = box.regen("--no-fork")
    assert run.returncode == 0, run.stderr
    assert box.read("docs/generated/plots.txt") == "drawn\n"

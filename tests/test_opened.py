"""The kernel's word on which data files a run opened (docpipe.run.opened), in a PID namespace
as a run's init has one: an open by the run counts whatever its route, an open by any other
process does not, and a file replaced meanwhile counts as opened."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from docpipe.run import namespaces, opened

pytestmark = pytest.mark.integration  # it starts processes (a cat, an exec)


def _watched_in_a_namespace(paths: list[str], outside, inside) -> list[str] | None:
    """Watch.unread() as the init of a fresh PID namespace reads it, after `inside(paths)` ran
    in a process of that namespace while `outside(paths)` ran in this one."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    said_r, said_w = os.pipe()
    child = os.fork()
    if child == 0:  # as the zygote's child: the namespace's init is its child
        code = 1
        try:
            namespaces._unshare(namespaces.CLONE_NEWPID)
            init = os.fork()
            if init == 0:
                watch = opened.Watch.start(paths)
                os.write(ready_w, b"x")
                os.read(go_r, 1)  # the outside opens are done
                run = os.fork()
                if run == 0:
                    try:
                        inside(paths)
                    except BaseException as e:
                        os.write(2, f"the run failed: {e!r}\n".encode())
                        os._exit(1)
                    os._exit(0)
                if os.waitstatus_to_exitcode(os.waitpid(run, 0)[1]) != 0:
                    os._exit(1)
                unread = watch.unread() if watch else None
                os.write(said_w, json.dumps(unread).encode())
                os._exit(0)
            code = os.waitstatus_to_exitcode(os.waitpid(init, 0)[1])
        finally:
            os._exit(code)
    os.read(ready_r, 1)
    outside(paths)
    os.write(go_w, b"x")
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    os.close(said_w)
    data = b""
    while chunk := os.read(said_r, 1 << 16):
        data += chunk
    return json.loads(data)


def test_only_the_runs_own_opens_count_by_any_route_and_a_replaced_file_counts(tmp_path):
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("fanotify with pids needs CAP_SYS_ADMIN (root); elsewhere nothing is known")
    names = ["by_python", "by_cat", "by_exec", "outside_only", "replaced", "untouched"]
    paths = [str(tmp_path / n) for n in names]
    for path in paths:
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(path, 0o755)

    def outside(paths):  # regen fingerprinting a file, another run, an editor
        with open(paths[3], "rb") as f:
            f.read()

    def inside(paths):
        with open(paths[0], "rb") as f:
            f.read()
        subprocess.run(["cat", paths[1]], stdout=subprocess.DEVNULL, check=True)
        subprocess.run([paths[2]], check=True)  # an exec opens it too
        with open(paths[4] + ".new", "w") as f:  # never opens the watched inode, but
            f.write("new\n")
        os.replace(paths[4] + ".new", paths[4])  # puts another in its place

    unread = _watched_in_a_namespace(paths, outside, inside)
    if unread is None:
        pytest.skip("the kernel gave no fanotify group here")
    assert unread == sorted([paths[3], paths[5]])


def test_no_files_no_watch():
    assert opened.Watch.start([]) is None

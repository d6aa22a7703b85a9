"""The kernel's word on which data files a run opened (docpipe.run.opened), in a PID namespace
as a run's init has one: an open by the run counts whatever its route, an open by any other
process does not, and a file replaced meanwhile counts as opened."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

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


def _copies_watched(folder: str, as_nobody: bool, inside, hold: bool = False) -> list[str] | str:
    """Copies.unread() as an ordinary user's run gets it (docpipe.run.namespaces.copy_data):
    in a mount namespace of its own (in a user namespace of its own, for nobody), with its own
    /run and the folder `folder`/sub bound at /run/other too, `inside(paths)` run by a process
    of that namespace after the copies were bound, while this process opened one original. A
    string: why the kernel gave no such namespace here."""
    names = ["by_python", "by_cat", "by_exec", "by_alias", "outside_only", "untouched"]
    paths = [os.path.join(folder, n) for n in names] + [os.path.join(folder, "sub", "elsewhere")]
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    said_r, said_w = os.pipe()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.close(ready_r)
            os.close(said_r)
            if as_nobody:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                libc = ctypes.CDLL(None, use_errno=True)
                libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE, which the change of user cleared
            if hold:  # a folder's descriptor from before the mount namespace: a lookup
                os.open(folder, os.O_RDONLY | os.O_DIRECTORY)  # from it crosses no copy's mount
            try:
                namespaces._unshare(namespaces.CLONE_NEWNS)
                namespaces._mount(None, "/", None, namespaces.MS_REC | namespaces.MS_PRIVATE)
                namespaces._mount("tmpfs", "/run", "tmpfs", 0, "mode=0755")
            except OSError as e:
                os.write(said_w, json.dumps(f"no mount namespace: {e}").encode())
                os._exit(0)
            os.mkdir("/run/other")
            sub = os.path.join(folder, "sub")
            namespaces._mount(sub, "/run/other", None, namespaces.MS_BIND)
            before = opened.inodes(paths)
            data = namespaces.copy_data(paths, "/run/data")  # hidden by no mount here, but
            assert data is not None  # nobody else reaches this namespace's /run
            watch = namespaces.bind_data(data)
            assert watch is not None
            os.write(ready_w, b"x")
            os.read(go_r, 1)  # the outside open is done
            run = os.fork()
            if run == 0:
                try:
                    os.close(watch[0])  # the run keeps none (supervisor.hand_over)
                    inside(paths)
                except BaseException as e:
                    os.write(2, f"the run failed: {e!r}\n".encode())
                    os._exit(1)
                os._exit(0)
            if os.waitstatus_to_exitcode(os.waitpid(run, 0)[1]) == 0:
                copies = opened.Copies(watch[0], json.loads(watch[1]))
                os.write(said_w, json.dumps(copies.unread(before)).encode())
                code = 0
        except BaseException as e:
            os.write(2, f"the set-up failed: {e!r}\n".encode())
        finally:
            os._exit(code)
    os.close(ready_w)
    os.close(said_w)
    if os.read(ready_r, 1):
        with open(paths[4], "rb") as f:  # regen fingerprinting a file, another run, an editor
            f.read()
    os.write(go_w, b"x")
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    data = b""
    while chunk := os.read(said_r, 1 << 16):
        data += chunk
    return json.loads(data)


@pytest.mark.parametrize("as_nobody", [False, True], ids=["root", "ordinary-user"])
def test_a_runs_private_copies_count_its_opens_by_any_route_and_no_other(as_nobody):
    """The private copies (an ordinary user's way, without fanotify): an open of a copy by the
    run counts whatever its route; an open of the original outside does not; a file the run
    can reach by another route (a hard link, another mount of its folder) counts as opened."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("binding the copies needs a mount namespace; nobody's, becoming nobody")
    with tempfile.TemporaryDirectory() as top:  # pytest's own is root's alone (0700)
        _copies_case(Path(top), as_nobody)


def test_a_run_holding_a_folder_counts_every_data_file_as_opened():
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("binding the copies needs a mount namespace")
    with tempfile.TemporaryDirectory() as top:
        _copies_case(Path(top), False, hold=True)


def _copies_case(tmp_path: Path, as_nobody: bool, hold: bool = False) -> None:
    folder = tmp_path / "data"
    (folder / "sub").mkdir(parents=True)
    for path in tmp_path, folder, folder / "sub":
        path.chmod(0o755)
    for name in ["by_python", "by_cat", "by_exec", "outside_only", "untouched", "sub/elsewhere"]:
        (folder / name).write_text("#!/bin/sh\n")
        (folder / name).chmod(0o755)
    (folder / "by_alias").write_text("aliased\n")
    os.link(folder / "by_alias", tmp_path / "alias")  # a second link, outside the data files

    def inside(paths):
        with open(paths[0], "rb") as f:
            f.read()
        subprocess.run(["cat", paths[1]], stdout=subprocess.DEVNULL, check=True)
        subprocess.run([paths[2]], check=True)  # an exec opens it too
        with open(os.path.join(os.path.dirname(paths[3]), os.pardir, "alias"), "rb") as f:
            f.read()  # the original, through its other link
        with open("/run/other/elsewhere", "rb") as f:
            f.read()  # the original, through another mount of its folder

    unread = _copies_watched(str(folder), as_nobody, inside, hold)
    if isinstance(unread, str):
        pytest.skip(unread)
    expected = [] if hold else [str(folder / "outside_only"), str(folder / "untouched")]
    assert unread == sorted(expected)

"""The fault suite, sealed runner: a snippet's process, and every process it starts, changes
nothing outside its job folder by any route, reads of the repository only what the runner
names, leaves nothing running, reads no input, and cannot print without end.

Each class of fault is tried by several routes at once, one snippet per route in one run of
the pool, in this process, on a project in a temporary folder: each must fail naming its
snippet and line, and every file of the project stay byte-identical. (What a failed run does
to a regen's records is test_faults.py's: here, nothing but the run is under test.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import docpipe
from conftest import reader_machine
from docpipe.project import Project
from docpipe.run import execute, machine, namespaces, pool, processes, zygote

pytestmark = pytest.mark.integration


GOOD = 'print("hello from good")\n'
HEAD = (
    "import os\nfrom pathlib import Path\n\n"
    "record = Path(__file__).parents[1] / 'docs/generated/good.txt'\n"
)
LIBC = "import ctypes\n\nlibc = ctypes.CDLL(None, use_errno=True)\n"
RAISE = "    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(record))\n"

# route -> (the lines after HEAD, the line that must be named). Each changes another snippet's
# record; only the kernel stops the last four (no Python audit event sees a libc call or what
# a subprocess does).
WRITES = {
    "os_open": ("os.open(record, os.O_WRONLY | os.O_TRUNC)\n", 5),
    "symlink": ("os.symlink(record, 'link.txt')\nopen('link.txt', 'w').write('x')\n", 6),
    "remove": ("os.remove(record)\n", 5),
    "rename": ("os.rename(record, 'moved.txt')\n", 5),
    "link": ("os.link(record, 'hard.txt')\nopen('hard.txt', 'w').write('x')\n", 5),
    "mmap": (
        "import mmap\n\nwith open(record, 'r+b') as f:\n    m = mmap.mmap(f.fileno(), 0)\n"
        "    m[:1] = b'X'\n",
        7,
    ),
    "subprocess": (
        "import subprocess\n\nsubprocess.run(['sh', '-c', f'echo x > {record}'], check=True)\n",
        7,
    ),
    # the case: the snippet does not look at sh's exit status
    "subprocess_unchecked": (
        "import subprocess\n\nsubprocess.run(['sh', '-c', f'echo x > {record}'])\n",
        7,
    ),
    "cp_unchecked": (
        "import subprocess\n\nsubprocess.run(['cp', '/dev/null', str(record)])\n",
        7,
    ),
    "libc_unlink": (LIBC + "if libc.unlink(bytes(record)) != 0:\n" + RAISE, 9),
    "libc_open": (LIBC + "if libc.open(bytes(record), os.O_WRONLY | os.O_TRUNC) < 0:\n" + RAISE, 9),
    # outside the repository too: /tmp/<this test's folder name>
    "outside": ("open(f'/tmp/{record.parents[3].name}', 'w').write('x')\n", 5),
}
REFUSED = "refused by the runner: a snippet may change files only in its scratch folder"
HELD = "the runner holds every process a snippet starts to its rule: a snippet may change files"
UNCHECKED = "a process it started was refused a write into the repository"
SNIPPETS_MAY_NOT = "snippets may not write into the repository (docs/generated/good.txt)"


class Box:
    """A project in a temporary folder: snippets/good.py with its record, and what a test adds."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = Project(root)
        self.timeouts: dict[str, float] = {}

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")

    def tree(self) -> dict[str, bytes]:
        """Every file of the project and its bytes."""
        return {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in self.root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }

    def run(self, *keys: str, fork: bool | None = None, timeout: float = 60) -> dict:
        """Run these snippets as regen runs them (two at a time, forked where it can), and
        check that no file of the project changed; each one's Outcome."""
        before = self.tree()
        fork = machine.fork_available() if fork is None else fork
        jobs = [(key, {}, self.timeouts.get(key, timeout)) for key in keys]
        outcomes = pool.run(self.project, jobs, 2, fork)
        assert self.tree() == before, "a run changed the project"
        return outcomes


def failures(outcomes: dict) -> dict[str, str]:
    """The first line of each failed run's error, with its place, by snippet key."""
    return {
        key: str(o.result.problem).splitlines()[0]
        for key, o in outcomes.items()
        if o.result.status == "error"
    }


@pytest.fixture
def recorded(tmp_path):
    """A project whose snippets/good.py is recorded, as a regen would leave it."""
    box = Box(tmp_path / "repo")
    box.write("snippets/good.py", GOOD)
    box.write("snippets/snippets.toml", "[defaults]\ntimeout = 60\n")
    box.write("docs/index.md", '# Sandbox\n\n```python\n--8<-- "snippets/good.py"\n```\n')
    box.write("docs/generated/good.txt", "hello from good\n")
    box.write("docs/generated/good.json", "{}\n")
    box.write("mkdocs.yml", "site_name: Sandbox\n")
    box.write("pyproject.toml", "[project]\nname = 'sandbox'\n")
    return box


def test_no_route_changes_anything_outside_the_job_folder(recorded):
    for name, (code, _) in WRITES.items():
        recorded.write(f"snippets/w_{name}.py", HEAD + code)
    outcomes = recorded.run(*(f"w_{name}" for name in WRITES))  # and the project unchanged
    failed = failures(outcomes)
    for name, (_, line) in WRITES.items():
        said = failed.get(f"w_{name}", "")
        assert said.startswith(f"snippets/w_{name}.py:{line}: "), (name, said)
        assert SNIPPETS_MAY_NOT in said or REFUSED in said or HELD in said or (UNCHECKED in said), (
            name,
            said,
        )
    # what sh said: the kernel refused it (a read-only mount in the run's namespace; Landlock,
    # in a contained run's)
    refused = b"Permission denied" if namespaces.unavailable() else b"Read-only file system"
    assert b"good.txt: " + refused in outcomes["w_subprocess"].output
    assert not (Path("/tmp") / recorded.root.parent.name).exists()


def test_a_sealed_run_reads_of_the_repository_only_what_the_runner_names(recorded):
    # Another snippet's record may be read, and the site settings MkDocs' loader reads
    # (mkdocs.yml): audited reads, inputs of the cache entry. The notebooks regen writes, and
    # the repository's other files above the pages, may not.
    recorded.write(
        "snippets/record_reader.py",
        HEAD + "print(record.read_text())\nlen((record.parents[2] / 'mkdocs.yml').read_text())\n",
    )
    recorded.write(
        "snippets/reader.py",
        HEAD + "print((record.parents[2] / 'pyproject.toml').read_text())\n",
    )
    recorded.write(
        "snippets/settings.py",
        HEAD + "print(record.with_name('snippets.toml').exists())\n"
        "print(len((Path(__file__).parent / 'snippets.toml').read_text()))\n",
    )
    outcomes = recorded.run("record_reader", "reader", "settings")
    failed = failures(outcomes)
    assert "record_reader" not in failed, failed
    assert outcomes["record_reader"].output == b"hello from good\n\n"
    assert outcomes["record_reader"].result.inputs["docs/generated/good.txt"]  # an input
    assert outcomes["record_reader"].result.inputs["mkdocs.yml"]
    assert failed["reader"].startswith("snippets/reader.py:5: PermissionError:"), failed
    assert REFUSED in failed["reader"]
    assert failed["settings"].startswith("snippets/settings.py:6: PermissionError:")


def test_without_landlock_a_change_to_the_repository_fails_naming_the_snippet(
    recorded, monkeypatch
):
    # As on a kernel without Landlock: fresh interpreters, which take the setting from this
    # process's environment (a forked child would take the zygote's).
    monkeypatch.setenv(execute.NO_LANDLOCK, "1")
    for name in ("os_open", "subprocess"):
        recorded.write(f"snippets/w_{name}.py", HEAD + WRITES[name][0])
    json_record = "record = record.with_suffix('.json')\n"  # not the file the others change
    recorded.write("snippets/w_libc_unlink.py", HEAD + json_record + WRITES["libc_unlink"][0])
    keys = ["w_os_open", "w_subprocess", "w_libc_unlink"]
    outcomes = pool.run(recorded.project, [(key, {}, 60) for key in keys], 2, False)
    failed = failures(outcomes)
    # A Python call is still refused before it happens, by name.
    assert SNIPPETS_MAY_NOT in failed["w_os_open"]
    # What only the kernel could refuse happens, and is named, with the snippet.
    assert failed["w_subprocess"] == (
        "snippets/w_subprocess.py: changed the repository, which a snippet may not (this"
        " kernel has no Landlock to refuse it): docs/generated/good.txt (changed)"
    )
    assert failed["w_libc_unlink"].endswith(": docs/generated/good.json (removed)")


def running(command: str) -> list[int]:
    """The pids of processes whose command line is exactly `command`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if b" ".join(w for w in words if w).decode(errors="replace") == command:
            found.append(int(pid))
    return found


WAIT_FOR = """\
import os, time

def started(command):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            words = open(f"/proc/{{pid}}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        if b" ".join(w for w in words if w) == command.encode():
            return True

deadline = time.monotonic() + 10
while not started({command!r}) and time.monotonic() < deadline:
    time.sleep(0.02)
"""

# name -> (code, the sleep it leaves, the line named or None for the snippet alone)
LEFT = {
    "popen": ("import subprocess\n\nsubprocess.Popen(['sleep', '1781'])\n", "sleep 1781", 3),
    "daemon": (  # its parent, sh, is gone when the snippet ends: only a reaper finds it
        "import subprocess\n\n"
        "subprocess.run(['sh', '-c', 'setsid sleep 1782 >/dev/null 2>&1 &'], check=True)\n"
        + WAIT_FOR.format(command="sleep 1782"),
        "sleep 1782",
        3,
    ),
    "exits": (
        "import os\nimport subprocess\n\nsubprocess.Popen(['sleep', '1783'])\nos._exit(0)\n",
        "sleep 1783",
        None,
    ),
}


@pytest.mark.waits("a snippet's timeout")
def test_what_a_snippet_leaves_running_is_killed_and_named(recorded):
    for name, (code, _, _) in LEFT.items():
        recorded.write(f"snippets/l_{name}.py", code)
    recorded.write(
        "snippets/l_timeout.py",
        "import subprocess\nimport time\n\nsubprocess.Popen(['sleep', '1784'])\ntime.sleep(60)\n",
    )
    recorded.timeouts["l_timeout"] = 2
    failed = failures(recorded.run(*(f"l_{name}" for name in [*LEFT, "timeout"])))
    for name, (_, command, line) in LEFT.items():
        where = f"snippets/l_{name}.py:{line}" if line else f"snippets/l_{name}.py"
        said = failed.get(f"l_{name}", "")
        assert said.startswith(f"{where}: "), (name, failed)
        assert "left processes running" in said and f"{command})" in said, said
    said = failed["l_timeout"]
    assert said.startswith("snippets/l_timeout.py:5: timed out after 2 s"), said
    assert "left processes running" in said and said.count("(sleep 1784)") == 1, said
    time.sleep(0.2)
    for command in ("sleep 1781", "sleep 1782", "sleep 1783", "sleep 1784"):
        assert running(command) == [], f"{command} still runs"


def test_a_process_read_in_the_middle_of_its_exec_is_named_by_its_whole_command_line():
    # Popen returns once the child's exec has passed the point where the parent is told, but
    # before the kernel has set its arguments in /proc: read at once, about one in five had
    # none on the 2-core machine, and a left process was named "(?)"
    for _ in range(200):
        child = subprocess.Popen(["sleep", "1786"])
        try:
            assert processes.command_line(child.pid, "sleep") == ["sleep", "1786"]
        finally:
            child.kill()
            child.wait()


def test_kill_tree_ends_a_process_and_every_process_below_it():
    seconds = f"1779{os.getpid()}"  # unique to this test process
    nested = f"sh -c 'sleep {seconds} & wait'"  # a grandchild, below a child
    top = subprocess.Popen(["sh", "-c", f"{nested} & sleep {seconds} & wait"])
    deadline = time.monotonic() + 10
    while len(running(f"sleep {seconds}")) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(running(f"sleep {seconds}")) == 2
    processes.kill_tree(top.pid)
    assert top.wait(timeout=10) == -9
    time.sleep(0.2)
    assert running(f"sleep {seconds}") == []


def test_kill_tree_has_ended_every_process_below_before_it_kills_the_top(monkeypatch):
    # A contained run's init, killed while the run it held was still dying, let the run be
    # adopted, running, by the zygote above, which named it as left running
    seconds = f"1777{os.getpid()}"
    top = subprocess.Popen(["sh", "-c", f"sleep {seconds} & sleep {seconds} & wait"])
    deadline = time.monotonic() + 10
    while len(running(f"sleep {seconds}")) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    below = running(f"sleep {seconds}")
    assert len(below) == 2
    seen = {}
    kill = os.kill

    def watched(pid, sig):
        if pid == top.pid and sig == signal.SIGKILL:  # the state of the rest at that moment
            seen.update({p: (processes.process(p) or processes.Process("", "gone", 0)).state
                         for p in below})  # fmt: skip
        kill(pid, sig)

    monkeypatch.setattr(processes.os, "kill", watched)
    processes.kill_tree(top.pid, wait=5)
    monkeypatch.undo()
    assert top.wait(timeout=10) == -9
    assert set(seen) == set(below) and set(seen.values()) <= {"Z", "gone"}, seen


def test_end_children_names_and_ends_what_a_reaper_adopted():
    """A reaper (as a run's process is) kills its children and what they orphaned, naming
    each one that ran; a child it keeps runs on."""
    seconds = f"1778{os.getpid()}"
    script = f"""
import subprocess, sys, time
from docpipe.run import processes

processes.reap_orphans()
kept = subprocess.Popen(["sleep", "{seconds}1"])
subprocess.run(["sh", "-c", "sleep {seconds} &"])  # its sleep is orphaned, adopted here
subprocess.Popen(["sleep", "{seconds}"])
time.sleep(0.3)
print(processes.describe(processes.end_children(keep={{kept.pid}})))
print("kept:", kept.poll())
kept.kill()
"""
    scripts = str(Path(docpipe.__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": scripts},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    named, kept = done.stdout.splitlines()
    assert named.count(f"(sleep {seconds})") == 2, named
    assert kept == "kept: None"
    assert running(f"sleep {seconds}") == []


@pytest.mark.waits("a snippet's timeout")
def test_in_fresh_interpreters_what_a_timed_out_snippet_started_is_killed_and_named(recorded):
    recorded.write(
        "snippets/l_fresh.py",
        "import subprocess\nimport time\n\nsubprocess.Popen(['sleep', '1785'])\ntime.sleep(60)\n",
    )
    said = failures(recorded.run("l_fresh", fork=False, timeout=3))["l_fresh"]
    assert said.startswith("snippets/l_fresh.py:5: timed out after 3 s"), said
    assert "; left processes running" in said, said
    assert "(sleep 1785)" in said
    time.sleep(0.2)
    assert running("sleep 1785") == []


# key -> (code, the line its failure is placed at, 0 for the snippet alone)
FAILING = {
    "f_syntax": ("x = 1\ny = (\n", 2),
    "f_raise": ("x = 1\nraise ValueError('snippets/other.py:9: no place of this run')\n", 2),
    "f_exit": ("import sys\n\nsys.exit(3)\n", 0),
    "f_section": ("# --8<-- [start:a]\nx = 1\n", 1),
    "f_left": ("import subprocess\n\nsubprocess.Popen(['sleep', '1787'])\n", 3),
}


def test_a_failed_run_carries_its_place_in_fields_and_its_message_alone(recorded):
    """What failed and where travel apart (Result.error, error_path, error_line): the text
    `path:line: message` is composed from them, and a message that looks like a place is
    never read as one."""
    for key, (code, _) in FAILING.items():
        recorded.write(f"snippets/{key}.py", code)
    outcomes = recorded.run(*FAILING)
    for key, (_, line) in FAILING.items():
        result = outcomes[key].result
        place = (result.status, result.error_path, result.error_line)
        assert place == ("error", f"snippets/{key}.py", line), (key, result.error)
        assert not result.error.startswith("snippets/"), result.error
        where = f"snippets/{key}.py:{line}" if line else f"snippets/{key}.py"
        assert str(result.problem) == f"{where}: {result.error}"
    assert outcomes["f_raise"].result.error == (
        "ValueError: snippets/other.py:9: no place of this run"
    )


def test_a_byte_order_mark_is_accepted_as_python_accepts_it(recorded):
    recorded.write("snippets/bom.py", '\ufeffprint("with a mark")\n')
    ran = recorded.run("bom")["bom"]
    assert ran.result.status == "ok", ran.result.error
    assert ran.output == b"with a mark\n"


STDIN = {
    "input": ("answer = input()\n", 1, "RuntimeError: a snippet may not read standard input"),
    "read": ("import sys\n\ndata = sys.stdin.read()\n", 3, "RuntimeError: a snippet may not"),
    "cat": (
        "import subprocess\n\nsubprocess.run(['cat'], check=True)\n",
        3,
        "CalledProcessError: Command '['cat']' returned non-zero exit status 1.",
    ),
}


def test_reading_standard_input_fails_naming_the_line(recorded):
    for name, (code, _, _) in STDIN.items():
        recorded.write(f"snippets/i_{name}.py", code)
    failed = failures(recorded.run(*(f"i_{name}" for name in STDIN)))
    for name, (_, line, error) in STDIN.items():
        assert failed[f"i_{name}"].startswith(f"snippets/i_{name}.py:{line}: {error}")


def test_an_endless_print_is_stopped_while_it_runs(recorded):
    recorded.write("snippets/endless.py", 'while True:\n    print("x" * 4096)\n')
    recorded.write(
        "snippets/endless_child.py", "import subprocess\n\nsubprocess.run(['yes'])\nprint('on')\n"
    )
    started = time.monotonic()
    failed = failures(recorded.run("endless", "endless_child", timeout=50))
    assert time.monotonic() - started < 40  # a timeout would take 50 s
    assert failed["endless"] == (
        "snippets/endless.py:2: OSError: [Errno 27] File too large (the runner caps"
        " every file a run writes, its output among them, at 64 MiB)"
    )
    # `yes` is stopped at the cap (SIGXFSZ); the snippet's next print fails at its line.
    assert failed["endless_child"].startswith(
        "snippets/endless_child.py:4: OSError: [Errno 27] File too large"
    )


HELPER_USER = "from _helper import VALUE\n\nprint(VALUE)\n"


def test_a_helper_edited_within_a_second_of_its_bytecode_runs_from_its_source(recorded):
    # A reader's machine writes .pyc files (reader_machine() keeps PYTHONDONTWRITEBYTECODE
    # unset); Python trusts a .pyc whose recorded source mtime and size match, to the second.
    recorded.write("snippets/_helper.py", "VALUE = 1\n")
    recorded.write("snippets/user.py", HELPER_USER)
    helper = recorded.root / "snippets" / "_helper.py"
    mtime = helper.stat().st_mtime_ns
    subprocess.run(
        [sys.executable, "-c", "import _helper"],
        cwd=helper.parent,
        env=reader_machine(),
        check=True,
    )
    cached = sorted((helper.parent / "__pycache__").iterdir())
    assert cached, "python wrote no .pyc (the test would prove nothing)"
    before = {p: p.read_bytes() for p in cached}
    helper.write_text("VALUE = 2\n")  # the same size
    os.utime(helper, ns=(mtime, mtime))  # and the same mtime: the stale .pyc looks fresh
    ran = recorded.run("user")["user"]
    assert ran.result.status == "ok", ran.result.error
    assert ran.output == b"2\n"
    after = sorted((helper.parent / "__pycache__").iterdir())
    assert {p: p.read_bytes() for p in after} == before, "the run wrote bytecode"


READS = """\
import torch
from pathlib import Path

here = Path(__file__).parent
print(torch.from_file(str(here / "data" / "weights.bin"), size=2, dtype=torch.uint8).tolist())
"""


def in_project(root: Path, files: dict[str, str | bytes]) -> Project:
    """A project on a temporary folder holding these files (no runner copied into it)."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return Project(root)


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "spawned"])
def test_the_child_runs_the_parents_split_of_the_bytes_it_reads_and_its_own_otherwise(
    tmp_path, monkeypatch, fork
):
    """The parent's split (docpipe.run.splits) is what the child runs when it was made of the
    bytes the child reads; of other bytes (the snippet saved meanwhile), the child splits the
    file itself. A split standing for the file's bytes but printing something else shows which
    one ran."""
    import base64
    import marshal

    from docpipe.run import splits

    if fork and not machine.fork_available():
        pytest.skip("no fork here")
    project = in_project(
        tmp_path,
        {"snippets/s.py": 'print("the file")\n', "snippets/snippets.toml": "[defaults]\n"},
    )
    source = project.snippets / "s.py"
    elsewhere = tmp_path / "other.py"
    elsewhere.write_text('print("the split")\n')
    other = splits.made(elsewhere, "snippets/s.py")
    magic, _, chunks, fields = marshal.loads(base64.b64decode(other))
    standing_in = (magic, splits.digest(source.read_bytes()), chunks, fields)
    for payload, printed in [
        (base64.b64encode(marshal.dumps(standing_in)).decode(), b"the split\n"),
        (other, b"the file\n"),  # made of other bytes: not taken
    ]:
        monkeypatch.setattr(splits, "made", lambda *_, p=payload: p)
        out = pool.run(project, [("s", {}, 60)], 1, fork)["s"]
        assert out.result.status == "ok", out.result.error
        assert out.output == printed


def test_reads_names_the_data_files_a_run_may_read_unseen(tmp_path):
    project = in_project(
        tmp_path,
        {
            "snippets/uses_data.py": READS,
            "snippets/data/weights.bin": b"\x01\x02",
            "snippets/data/seen.txt": "seen\n",
            # A tool's cache (hidden, different on every machine) is no snippet's data.
            "snippets/.ruff_cache/CACHEDIR.TAG": "tag\n",
            "snippets/data/.hidden/cache.bin": "cache\n",
            "snippets/snippets.toml": "[defaults]\ntimeout = 60\n",
        },
    )
    out = pool.run(project, [("uses_data", {}, 60)], 1, machine.fork_available())
    r = out["uses_data"].result
    assert r.status == "ok", r.error
    assert "snippets/data/weights.bin" in r.reads  # torch's fopen: no audit hook sees it
    # the kernel saw no process of the run open it (docpipe.run.opened): not read, by name
    if namespaces.unavailable():  # a contained run: nothing tells, every data file a read
        assert "snippets/data/seen.txt" in r.reads and r.unread == []
    else:
        assert "snippets/data/seen.txt" in r.unread and "snippets/data/seen.txt" not in r.reads
    assert "snippets/snippets.toml" not in r.reads  # settings, not readable in a run
    assert not [x for x in r.reads if "/." in x], r.reads
    assert not set(r.reads) & set(r.inputs)
    assert r.reads == sorted(r.reads)


# Run in a project on a temporary folder: where it runs, and what it may change.
WHERE = """\
import errno
import os
from pathlib import Path

project = Path(__file__).resolve().parents[1]
print(project.name, Path.cwd().name)
for target in (project / "docs" / "probe.txt", Path({other!r}) / "docs" / "probe.txt"):
    try:
        open(target, "x").close()
    except OSError as e:
        code = errno.errorcode.get(e.errno, "-")
        print("refused", target.parents[1] == project, type(e).__name__, code)
    else:
        os.remove(target)
        print("WROTE", target)
"""


def refusal(folder: Path) -> str:
    """How the kernel refuses a sealed run a new file in `folder`, outside its project, by where
    the folder lies (a checkout may lie anywhere): not there at all in the run's own temporary,
    runtime and shared-memory folders (ENOENT); refused by Landlock in the user's configuration
    and cache folders, overlays the run may write to as far as its mounts go (EACCES); and a
    read-only mount everywhere else (EROFS)."""
    path = os.path.realpath(folder)
    if namespaces.unavailable():  # a contained run: no mount of its own, Landlock refuses
        return "PermissionError EACCES"

    def within(folders) -> bool:
        return any(path.startswith(os.path.realpath(f).rstrip("/") + "/") for f in folders)

    if within([namespaces.SHARED_MEMORY, *namespaces.RUNTIME]):
        return "FileNotFoundError ENOENT"
    home = Path.home()
    user = [os.environ.get("XDG_CONFIG_HOME") or home / ".config"]
    user.append(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    return "PermissionError EACCES" if within(user) else "OSError EROFS"


@pytest.mark.skipif(not execute.sealable(), reason="the kernel has no Landlock")
def test_one_zygote_runs_each_project_in_its_own_root_sealed_to_it(tmp_path):
    # The first project's snippet tries the real repository, the second's the first project:
    # each runs in its own root, through the same zygote, and changes neither.
    real = Path(docpipe.PACKAGE).parents[1]
    first = in_project(
        tmp_path / "first", {"snippets/where.py": WHERE.format(other=str(real)), "docs/a.md": ""}
    )
    second = in_project(
        tmp_path / "second",
        {"snippets/where.py": WHERE.format(other=str(first.root)), "docs/a.md": ""},
    )
    fork = machine.fork_available()
    zygotes = set()
    for project in (first, second):
        result = pool.run(project, [("where", {}, 60)], 1, fork)["where"]
        assert result.result.status == "ok", result.result.error
        assert result.result.sealed == "landlock"
        # any other: refused by the kernel, as where it lies says (refusal)
        target = real if project is first else first.root
        assert result.output.decode() == (
            f"{project.root.name} scratch\n"
            "refused True PermissionError -\n"  # its own repository: the audit hook names it
            f"refused False {refusal(target)}\n"
        )
        assert sorted(result.result.inputs) == ["scripts/figures/where.py", "snippets/where.py"]
        zygotes.add(id(zygote._shared))
    assert len(zygotes) == 1 or not fork
    assert not (real / "docs" / "probe.txt").exists()
    assert not (first.root / "docs" / "probe.txt").exists()

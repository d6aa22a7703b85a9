"""The fault suite: every failure is named with its file (and line), exits non-zero, and leaves
every recorded file exactly as it was (git status stays clean)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import reader_machine, wait_until_locked

pytestmark = pytest.mark.integration  # real regens in a sandbox repository

PAGE = """
# Sandbox

```python title="snippets/good.py"
--8<-- "snippets/good.py"
```

``` text title="python snippets/good.py"
--8<-- "docs/generated/good.txt"
```
"""


@pytest.fixture
def recorded(sandbox):
    """A sandbox whose one page shows snippets/good.py, recorded and committed."""
    sandbox.write("snippets/good.py", 'print("hello from good")\n')
    sandbox.write("docs/index.md", PAGE)
    first = sandbox.regen()
    assert first.returncode == 0, first.stderr
    sandbox.commit()
    return sandbox


def add_to_page(box, *names: str) -> None:
    box.write(
        "docs/index.md",
        box.read("docs/index.md")
        + "".join(f'\n```python\n--8<-- "snippets/{n}.py"\n```\n' for n in names),
    )


def only_sources_changed(box, *names: str) -> None:
    changed = {line[3:] for line in box.status().splitlines()}
    allowed = {f"snippets/{n}.py" for n in names} | {"docs/index.md", "snippets/snippets.toml"}
    assert changed <= allowed, f"recorded files changed: {sorted(changed - allowed)}"


def test_a_snippet_that_raises_names_file_and_line_and_keeps_its_recording(recorded):
    recorded.write("snippets/good.py", 'print("before")\nraise ValueError("bad input")\n')
    run = recorded.regen()
    assert run.returncode == 1
    assert "FAILED snippets/good.py:2: ValueError: bad input" in run.stderr
    assert 'snippets/good.py", line 2, in <module>' in run.stderr
    assert "its recorded files were left as they were" in run.stderr
    assert recorded.read("docs/generated/good.txt") == "hello from good\n"
    only_sources_changed(recorded, "good")


def test_a_refused_write_the_snippet_catches_still_fails_it(recorded):
    """The runner refuses a write into the repository with PermissionError; a snippet that
    catches it and goes on fails all the same, naming what it tried to write."""
    recorded.write(
        "snippets/caught.py",
        "from pathlib import Path\n\n"
        "record = Path(__file__).parents[1] / 'docs/generated/good.txt'\n"
        "try:\n    open(record, 'w')\nexcept PermissionError:\n    pass\nprint('went on')\n",
    )
    add_to_page(recorded, "caught")
    run = recorded.regen()
    assert run.returncode == 1
    assert "FAILED snippets/caught.py: wrote into the repository: docs/generated/good.txt" in (
        run.stderr
    )
    assert recorded.read("docs/generated/good.txt") == "hello from good\n"
    only_sources_changed(recorded, "caught")


def test_sys_exit_with_a_status_is_a_failure(recorded):
    recorded.write("snippets/quit.py", "import sys\n\nsys.exit(3)\n")
    add_to_page(recorded, "quit")
    run = recorded.regen()
    assert run.returncode == 1
    assert "FAILED snippets/quit.py: exited with status 3" in run.stderr
    only_sources_changed(recorded, "quit")


def test_a_snippet_killed_by_a_signal_is_named(recorded):
    recorded.write(
        "snippets/killed.py", "import os\nimport signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    add_to_page(recorded, "killed")
    run = recorded.regen()
    assert run.returncode == 1
    assert "FAILED snippets/killed.py: was killed by signal SIGKILL" in run.stderr
    only_sources_changed(recorded, "killed")


def test_a_snippet_cannot_kill_the_process_it_was_forked_from(recorded):
    # Its parent is the runner's zygote: outside the snippet's Landlock domain, so the kernel
    # refuses the signal (docpipe.run.landlock's signal scope), and the snippets after it run.
    recorded.write(
        "snippets/a_killer.py",
        "import os\nimport signal\nimport time\n\nos.kill(os.getppid(), signal.SIGKILL)\n"
        "time.sleep(5)\n",
    )
    recorded.write("snippets/good.py", 'print("hello again from good")\n')
    add_to_page(recorded, "a_killer")
    run = recorded.regen("-j", "1")
    assert run.returncode == 1
    assert (
        "FAILED snippets/a_killer.py:5: PermissionError: [Errno 1] Operation not permitted"
    ) in run.stderr
    assert recorded.read("docs/generated/good.txt") == "hello again from good\n"


def children_of(pid: int) -> list[int]:
    found = []
    for listed in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in listed.read_text().split()]
    return found


def zygotes_of(pid: int) -> list[int]:
    """The runner's zygotes among the children of process `pid`."""
    found = []
    for child in children_of(pid):
        with contextlib.suppress(OSError):
            if b"docpipe.run.zygote" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
    return found


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_a_zygote_that_dies_fails_its_snippet_alone(recorded, tmp_path):
    # A snippet cannot kill its zygote (the test above); the machine can (say, out of memory):
    # the test kills it while a snippet waits, and the snippets after it run from a new one.
    # the signal lies where a run can see it: its temporary folders are its own (not /tmp's)
    go = Path.home() / f".docpipe-test-go-{os.getpid()}"
    recorded.write(
        "snippets/a_waits.py",
        f"import os\nimport time\n\nwhile not os.path.exists({str(go)!r}):\n    time.sleep(0.02)\n",
    )
    recorded.write("snippets/good.py", 'print("hello again from good")\n')
    add_to_page(recorded, "a_waits")
    regen = subprocess.Popen(
        [sys.executable, "scripts/regen.py", "-j", "1"],
        cwd=recorded.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_locked(recorded.root, regen)
        running = []
        while not running:  # the zygote whose child is the waiting snippet
            running = [z for z in zygotes_of(regen.pid) if children_of(z)]
            time.sleep(0.02)
        os.kill(running[0], signal.SIGKILL)
        _, err = regen.communicate(timeout=120)
    finally:
        go.touch()  # the orphaned snippet, if any, ends
        regen.kill()
        regen.wait()
        go.unlink()  # nothing of the test left in the home folder
    assert regen.returncode == 1
    assert "FAILED snippets/a_waits.py: stopped: the runner's zygote ended (exit status -9)" in err
    assert recorded.read("docs/generated/good.txt") == "hello again from good\n"


def test_the_timeout_option_overrides_every_snippet(recorded):
    recorded.write("snippets/slow.py", "import time\n\ntime.sleep(60)\n")
    add_to_page(recorded, "slow")
    run = recorded.regen("--timeout", "0.5", "snippets/slow.py")
    assert "FAILED snippets/slow.py:3: timed out after 0.5 s" in run.stderr


# Ways a snippet hangs, and the lines where each one may be when it is stopped. A busy loop is
# stopped wherever its stack is taken (faulthandler, from a signal): in its body (line 3) or at
# its jump back, which Python 3.11 counts as the `while` line (2).
HANGS = {
    "a sleep in a function": (
        "import time\n\n\ndef wait():\n    time.sleep(600)\n\n\nwait()\n",
        {5},
    ),
    "a busy loop": ("x = 0\nwhile True:\n    x += 1\n", {2, 3}),
    "a lock no one releases": (
        "import threading\n\nlock = threading.Lock()\nlock.acquire()\nlock.acquire()\n",
        {5},
    ),
    "a process it waits for": (
        'import subprocess\n\nsubprocess.run(["sleep", "600"])\n',
        {3},
    ),
}


@pytest.mark.waits("snippets that hang until their timeout")
@pytest.mark.parametrize("case", HANGS)
def test_a_hung_snippet_is_stopped_at_its_line_and_told_how_to_raise_the_limit(recorded, case):
    source, lines = HANGS[case]
    recorded.write("snippets/hangs.py", source)
    add_to_page(recorded, "hangs")
    recorded.write("snippets/snippets.toml", '["hangs.py"]\ntimeout = 1\n')
    run = recorded.regen("snippets/hangs.py")
    assert run.returncode == 1
    failed = next(x for x in run.stderr.splitlines() if x.startswith("FAILED snippets/hangs.py:"))
    line = int(failed.split(":")[1])  # where it was stopped: one of the lines it may be at
    assert line in lines and failed.startswith(
        f"FAILED snippets/hangs.py:{line}: timed out after 1 s"
    ), failed
    assert 'set `timeout = <seconds>` under ["hangs.py"] in snippets/snippets.toml' in failed
    assert "docpipe.run.zygote" not in run.stderr  # the runner's own processes are not blamed
    assert f'snippets/hangs.py", line {line} in' in run.stderr  # its stack, at the end
    assert "scripts/docpipe" not in run.stderr.split("its output ended with:")[1]
    only_sources_changed(recorded, "hangs")


# Its stack signal held back past its timeout, as a run the machine is slow to schedule: it
# writes its stack only when it lets the signal through, at line 6.
LATE_STACK = """\
import signal
import time

held = {signal.SIGRTMIN + 7}
signal.pthread_sigmask(signal.SIG_BLOCK, held), time.sleep(1.3)
signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
time.sleep(600)
"""


@pytest.mark.waits("a snippet that hangs until its timeout")
def test_a_hung_snippet_that_writes_its_stack_late_is_still_stopped_at_its_line(recorded):
    recorded.write("snippets/hangs.py", LATE_STACK)
    add_to_page(recorded, "hangs")
    recorded.write("snippets/snippets.toml", '["hangs.py"]\ntimeout = 1\n')
    run = recorded.regen("snippets/hangs.py")
    assert run.returncode == 1
    assert "FAILED snippets/hangs.py:6: timed out after 1 s" in run.stderr, run.stderr


def test_syntax_error_names_file_and_line(recorded):
    recorded.write("snippets/broken.py", 'print("ok")\nx = (\n')
    add_to_page(recorded, "broken")
    run = recorded.regen()
    assert run.returncode == 1
    assert "FAILED snippets/broken.py:2: SyntaxError: '(' was never closed" in run.stderr
    only_sources_changed(recorded, "broken")


def test_output_that_is_not_utf8_is_refused(recorded):
    recorded.write("snippets/bytes.py", 'import os\n\nos.write(1, b"\\xff\\xfe bad\\n")\n')
    add_to_page(recorded, "bytes")
    run = recorded.regen()
    assert run.returncode == 1
    assert (
        "FAILED snippets/bytes.py: printed bytes that are not UTF-8 (at byte 0: b'\\xff\\xfe b')"
        in run.stderr
    )
    only_sources_changed(recorded, "bytes")


def test_huge_output_is_capped_with_a_clear_message(recorded):
    recorded.write("snippets/huge.py", 'print("x" * (10 * 1024 * 1024))\n')
    add_to_page(recorded, "huge")
    run = recorded.regen()
    assert run.returncode == 1
    assert "FAILED snippets/huge.py: printed 10.0 MiB; the cap is 1 MiB" in run.stderr
    assert len(run.stderr) < 20_000
    only_sources_changed(recorded, "huge")


def test_files_written_in_the_working_directory_are_fine(recorded):
    recorded.write(
        "snippets/scratch.py",
        'from pathlib import Path\n\nPath("notes.txt").write_text("x")\n'
        'print(Path("notes.txt").read_text())\n',
    )
    add_to_page(recorded, "scratch")
    run = recorded.regen()
    assert run.returncode == 0, run.stderr
    assert recorded.read("docs/generated/scratch.txt") == "x\n"


def test_a_snippet_may_not_write_into_the_repository(recorded):
    recorded.write(
        "snippets/writer.py",
        "from pathlib import Path\n\nPath(__file__).with_name('good.py').write_text('x')\n",
    )
    add_to_page(recorded, "writer")
    run = recorded.regen()
    assert run.returncode == 1
    assert (
        "FAILED snippets/writer.py:3: PermissionError: snippets may not write into the"
        " repository (snippets/good.py)"
    ) in run.stderr
    assert recorded.read("snippets/good.py") == 'print("hello from good")\n'
    only_sources_changed(recorded, "writer")


def test_unseeded_randomness_is_named_by_the_audit(recorded):
    recorded.write("snippets/dice.py", "import random\n\nprint(random.random())\n")
    recorded.write("snippets/order.py", 'print(list({"alpha", "beta", "gamma", "delta"}))\n')
    add_to_page(recorded, "dice", "order")
    run = recorded.regen("--audit")
    assert run.returncode == 1
    assert "UNSTABLE snippets/dice.py: two runs differ" in run.stderr
    assert "UNSTABLE snippets/order.py: two runs differ" in run.stderr
    assert "UNSTABLE snippets/good.py" not in run.stderr
    assert "audited 3 snippets: 2 unstable" in run.stdout
    only_sources_changed(recorded, "dice", "order")


def test_declared_normalisers_make_volatile_output_stable(recorded):
    recorded.write(
        "snippets/volatile.py",
        "import time\n\nprint(object())\nprint(f'took {time.perf_counter() % 1:.4f} s')\n",
    )
    recorded.write(
        "snippets/snippets.toml",
        '[defaults]\ntimeout = 60\n\n["volatile.py"]\nnormalise = ["timings"]\n',
    )
    add_to_page(recorded, "volatile")
    assert recorded.regen().returncode == 0
    assert recorded.read("docs/generated/volatile.txt") == "<object object at 0x…>\ntook <time>\n"
    audit = recorded.regen("--audit")
    assert audit.returncode == 0, audit.stderr


def test_an_unknown_normaliser_is_named(recorded):
    recorded.write("snippets/snippets.toml", '["good.py"]\nnormalise = ["dates"]\n')
    run = recorded.regen()
    assert run.returncode == 2
    assert run.stderr == (
        "PROBLEM snippets/snippets.toml:2: [\"good.py\"] normalise: unknown normaliser 'dates'"
        " (known: timings)\n"
    )


@pytest.mark.parametrize(
    "text, said",
    [
        ("[defaults]\ntimeout 60\n", "snippets/snippets.toml:2: Expected '=' after a key"),
        (
            '["good.py"]\ntimeout = 5\n\n["good.py"]\nduration = 1\n',
            "snippets/snippets.toml:4: Cannot declare ('good.py',) twice",
        ),
    ],
)
def test_a_broken_metadata_file_is_named_with_its_line(recorded, text, said):
    recorded.write("snippets/snippets.toml", text)
    run = recorded.regen()
    assert run.returncode == 2
    assert run.stderr.startswith(f"error: {said}")
    assert "(at line" not in run.stderr  # the line is said once, as path:line:


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_a_report_that_cannot_be_written_is_said_before_the_check(recorded, tmp_path, where):
    (tmp_path / "report").write_text("a file, not a folder")
    target = tmp_path / "report" if where == "a file" else tmp_path / "report" / "inside"
    run = recorded.regen("--check", "--report", str(target))
    assert run.returncode == 2
    assert run.stderr.startswith(
        f"error: {target}: --report needs a folder to write index.html in ("
    ), run.stderr
    assert "Traceback" not in run.stderr
    assert "checked" not in run.stdout  # nothing was run


def test_missing_include_file_and_section_are_named(recorded):
    recorded.write(
        "docs/index.md",
        recorded.read("docs/index.md")
        + '\n```python\n--8<-- "snippets/good.py:nosuch"\n```\n'
        + '\n```python\n--8<-- "snippets/nothere.py:x"\n```\n',
    )
    run = recorded.regen("--check")
    assert run.returncode == 2
    assert run.stderr.startswith(
        "PROBLEM docs/index.md:12: snippets/good.py has no section 'nosuch' (sections: none)\n"
        "PROBLEM docs/index.md:16: snippets/nothere.py does not exist\n"
    )
    assert run.stdout.endswith(
        "checked 1 snippets: 0 drifted, 0 failed, 2 site problems\n"
        "fix the problems above in the files they name; regen cannot fix them\n"
    )
    regen = recorded.regen()
    assert regen.returncode == 2
    assert regen.stdout == (
        "regen: nothing run or written; 2 site problems\n"
        "fix the problems above in the files they name; regen cannot fix them\n"
    )
    only_sources_changed(recorded)


def test_orphan_snippet_and_orphan_output_are_named(recorded):
    recorded.write("snippets/lonely.py", 'print("nobody shows me")\n')
    recorded.write("docs/generated/ghost.txt", "boo\n")
    run = recorded.regen("--check")
    assert run.returncode == 2
    assert (
        "PROBLEM snippets/lonely.py: no page shows its code or output (orphan snippet)"
        in run.stderr
    )
    assert (
        "PROBLEM docs/generated/ghost.txt: belongs to no snippet (orphan output; delete it)"
        in run.stderr
    )


@pytest.mark.parametrize("lang", ["text", "ansi", "json", "console", "html"])
def test_a_typed_output_block_is_named_whatever_its_language(recorded, lang):
    recorded.write("docs/index.md", recorded.read("docs/index.md") + f"\n```{lang}\nhello\n```\n")
    run = recorded.regen("--check")
    assert run.returncode == 2
    assert (
        f"PROBLEM docs/index.md:11: an output block typed by hand (```{lang}): output is only"
        " ever an include of its recorded file" in run.stderr
    )


WHAT_PAGES_SHOW = {
    # a block titled as a snippet holding code the snippet does not hold
    "typed code under a snippet's title": (
        '```python title="snippets/good.py"\nprint("hello from elsewhere")\n```\n',
        'PROBLEM docs/index.md:11: a block titled "snippets/good.py" shows something other'
        " than snippets/good.py",
    ),
    # an include of the snippet and a line of its own
    "an include and a typed line": (
        '```python title="snippets/good.py"\n--8<-- "snippets/good.py"\nx = 1\n```\n',
        'PROBLEM docs/index.md:11: a block titled "snippets/good.py" shows something other',
    ),
    "a value inside code": (
        "```python\nx = {{ good.py:anything }}\n```\n",
        "PROBLEM docs/index.md:12: {{ good.py:anything }} inside a code block",
    ),
    "the output of a snippet that does not exist": (
        '``` text title="python snippets/gone.py"\n--8<-- "docs/generated/gone.txt"\n```\n',
        "PROBLEM docs/index.md:12: docs/generated/gone.txt would be the output of"
        " snippets/gone.py, which does not exist",
    ),
}


@pytest.mark.parametrize("case", WHAT_PAGES_SHOW)
def test_a_block_shows_only_what_a_file_or_run_holds(recorded, case):
    block, said = WHAT_PAGES_SHOW[case]
    recorded.write("docs/index.md", recorded.read("docs/index.md") + "\n" + block)
    run = recorded.regen("--check")
    assert run.returncode == 2, run.stderr
    assert said in run.stderr, run.stderr
    assert "an output block must be titled" not in run.stderr


def test_a_block_may_copy_a_files_lines_exactly(recorded):
    block = '```python title="snippets/good.py"\nprint("hello from good")\n```\n'
    recorded.write("docs/index.md", recorded.read("docs/index.md") + "\n" + block)
    run = recorded.regen()
    assert run.returncode == 0, run.stderr
    assert "PROBLEM" not in run.stderr


def test_control_characters_are_shown_as_a_terminal_shows_them_or_refused(recorded):
    recorded.write(
        "snippets/progress.py",
        'print("10%\\r50%\\r100%")\nprint("a\\tb\\r\\n", end="")\n',
    )
    recorded.write("snippets/colour.py", 'print("plain")\nprint("\\x1b[31mred\\x1b[0m")\n')
    recorded.write("snippets/nul.py", 'print("a\\x00b")\n')
    add_to_page(recorded, "progress", "colour", "nul")
    run = recorded.regen()
    assert run.returncode == 1
    # a carriage return: the line as the terminal leaves it
    assert recorded.read("docs/generated/progress.txt") == "100%\na\tb\n"
    failed = [line for line in run.stderr.splitlines() if line.startswith("FAILED")]
    assert (
        "FAILED snippets/colour.py: printed U+001B (ESC) at line 2, which a page cannot show"
        " as a terminal does" in "\n".join(failed)
    )
    assert "FAILED snippets/nul.py: printed U+0000 (NUL) at line 1" in "\n".join(failed)
    assert not (recorded.root / "docs/generated/colour.txt").exists()


def test_a_snippet_that_links_outside_the_repository_is_refused(recorded, tmp_path):
    outside = tmp_path / "elsewhere.py"
    outside.write_text('print("from outside")\n')
    (recorded.root / "snippets" / "linked.py").symlink_to(outside)
    add_to_page(recorded, "linked")
    run = recorded.regen()
    assert run.returncode != 0
    assert (
        f"snippets/linked.py: a symbolic link to {outside.resolve()}, outside the repository:"
        " a snippet is a file of the repository" in run.stderr
    ), run.stderr
    assert not (recorded.root / "docs/generated/linked.txt").exists()


def test_a_hand_edited_output_fails_the_check_with_a_diff_and_regen_restores_it(recorded):
    recorded.write("docs/generated/good.txt", "hello from elsewhere\n")
    run = recorded.regen("--check")
    assert run.returncode == 1
    assert run.stderr.startswith("DRIFT snippets/good.py\n  shown on: docs/index.md\n")
    assert "-hello from elsewhere\n" in run.stderr and "+hello from good\n" in run.stderr
    assert "  fix: python scripts/regen.py snippets/good.py" in run.stderr
    assert recorded.regen().returncode == 0
    assert recorded.status() == ""


def test_a_hand_edited_notebook_is_named_with_its_cell(recorded):
    notebook = recorded.root / "docs/notebooks/index.ipynb"
    data = json.loads(notebook.read_text())
    data["cells"][-1]["outputs"][0]["text"] = ["hello from a hand\n"]
    notebook.write_text(json.dumps(data, indent=1) + "\n")
    run = recorded.regen("--check")
    assert run.returncode == 1
    assert (
        "DRIFT docs/notebooks/index.ipynb differs from what regen writes"
        " (generated from docs/index.md)" in run.stderr
    )
    assert "cell 2 [cell-002] (snippets/good.py:) differs" in run.stderr


def test_a_changed_environment_alone_is_told_apart_from_drift(recorded):
    record = recorded.root / "docs/generated/good.json"
    data = json.loads(record.read_text())
    running = data["environment"]["python"]
    data["environment"]["python"] = "3.10"
    record.write_text(json.dumps(data, indent=2) + "\n")
    run = recorded.regen("--check")
    assert run.returncode == 1
    assert "DRIFT" not in run.stderr
    assert run.stderr.startswith(
        "ENVIRONMENT 1 snippet differs from its recording only in the environment stamp"
        f" (recorded with python 3.10, running {running}); output, values, figures and claims"
        " are the same:\n  snippets/good.py\n"
    )
    assert "0 drifted, 1 differ only in the environment stamp, 0 failed" in run.stdout


@pytest.mark.waits("a lock held by a sleeping run")
def test_a_second_regen_waits_for_the_first(recorded, tmp_path):
    # The first regen's snippet runs until the test says go: it holds the lock until then,
    # however slow the machine (events, not sleeps).
    # the signal lies where a run can see it: its temporary folders are its own (not /tmp's)
    go = Path.home() / f".docpipe-test-go-{os.getpid()}"
    recorded.write(
        "snippets/good.py",
        "import os\nimport time\n\n"
        f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.02)\n"
        'print("slow hello")\n',
    )
    first = subprocess.Popen(
        [sys.executable, "scripts/regen.py"],
        cwd=recorded.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_locked(recorded.root, first)
        refused = recorded.regen("--lock-wait", "0.5")
        go.touch()
        waited = recorded.regen()
        first.communicate(timeout=60)
    finally:
        go.touch()
        first.kill()
        first.wait()
        go.unlink()  # nothing of the test left in the home folder
    assert first.returncode == 0
    assert refused.returncode == 1
    assert refused.stderr.endswith(
        "error: another regen.py still holds .regen.lock after 0.5 s; nothing was written\n"
    )
    assert waited.returncode == 0
    assert recorded.read("docs/generated/good.txt") == "slow hello\n"


@pytest.mark.waits("runs interrupted mid-sleep")
def test_interrupting_regen_leaves_old_or_new_files_and_a_rerun_completes(recorded):
    for n in range(4):
        recorded.write(
            f"snippets/s{n}.py", f'import time\n\ntime.sleep({n} * 0.4)\nprint("new {n}")\n'
        )
    add_to_page(recorded, *(f"s{n}" for n in range(4)))
    recorded.write("snippets/good.py", 'print("new good")\n')
    regen = subprocess.Popen(
        [sys.executable, "scripts/regen.py", "-j", "1"],
        cwd=recorded.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until_locked(recorded.root, regen)  # it is writing: from here on, Ctrl-C is its
    time.sleep(0.5)  # into the snippets (how far does not matter: old or new files either way)
    regen.send_signal(signal.SIGINT)
    _, err = regen.communicate(timeout=60)
    assert regen.returncode == 130
    assert "interrupted: every generated file is its old or its new version" in err
    assert recorded.read("docs/generated/good.txt") in ("hello from good\n", "new good\n")
    assert not list(recorded.root.rglob("*.tmp"))
    rerun = recorded.regen()
    assert rerun.returncode == 0, rerun.stderr
    assert recorded.regen("--check").returncode == 0


FIGURE_CODE = """
import matplotlib.pyplot as plt


def line(ns):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(ns["xs"], ns["ys"])
    return fig


FIGURES = {"line": line}
"""


def test_a_hand_edited_figure_is_named(recorded):
    recorded.write("snippets/curve.py", "xs = [0, 1, 2]\nys = [x * x for x in xs]\nprint(ys)\n")
    recorded.write("scripts/figures/curve.py", FIGURE_CODE)
    add_to_page(recorded, "curve")
    assert recorded.regen().returncode == 0
    recorded.commit()
    figure = recorded.root / "docs/generated/curve.line.dark.svg"
    figure.write_text(figure.read_text().replace("<svg ", "<svg data-edited='yes' ", 1))
    run = recorded.regen("--check")
    assert run.returncode == 1
    assert run.stderr.startswith("DRIFT snippets/curve.py\n  shown on: docs/index.md\n")
    assert "  docs/generated/curve.line.dark.svg differs from the actual run:" in run.stderr
    assert "  fix: python scripts/regen.py snippets/curve.py" in run.stderr


def test_broken_figure_code_is_named_and_nothing_is_written(recorded):
    recorded.write("snippets/curve.py", "xs = [0, 1, 2]\nys = [x * x for x in xs]\nprint(ys)\n")
    recorded.write("scripts/figures/curve.py", FIGURE_CODE.replace('ns["ys"]', 'ns["zs"]'))
    add_to_page(recorded, "curve")
    run = recorded.regen()
    assert run.returncode == 1
    assert (
        "FAILED snippets/curve.py: its figure code failed at scripts/figures/curve.py:6:"
        " KeyError: 'zs'"
    ) in run.stderr
    assert not (recorded.root / "docs/generated/curve.txt").exists()


def test_output_that_an_include_would_swallow_is_named(recorded):
    """Found in the output as it would be recorded: regen, which would record it, refuses it
    (the build would fail on it) and writes nothing."""
    recorded.write("snippets/good.py", 'print("# --8<-" + "- [start:oops]")\n')
    run = recorded.regen()
    assert run.returncode == 2
    assert (
        "PROBLEM docs/index.md:8: docs/generated/good.txt:1 would not show as recorded"
        " (pymdownx.snippets acts on it): # --8<-- [start:oops]"
    ) in run.stderr
    assert recorded.read("docs/generated/good.txt") == "hello from good\n"
    only_sources_changed(recorded, "good")


def test_a_snippet_that_replaces_what_the_runner_uses_cannot_corrupt_its_result(recorded):
    recorded.write(
        "snippets/poison.py",
        "import builtins\nimport json\n\njson.dumps = lambda *a, **k: '{not json'\n"
        "builtins.len = lambda x: 0\nprint('poisoned')\n",
    )
    recorded.write(
        "snippets/relpath.py",
        "import os.path\n\nos.path.relpath = lambda p, start=None: '.'\nprint('moved')\n",
    )
    add_to_page(recorded, "poison", "relpath")
    run = recorded.regen()
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert (
        "FAILED snippets/relpath.py: its run left a malformed result (input '.' is no repository"
        " file path); nothing of it is trusted\n"
    ) in run.stderr
    assert recorded.read("docs/generated/poison.txt") == "poisoned\n"
    again = recorded.regen("snippets/poison.py")  # the cache it recorded is sound
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("1 snippets unchanged")


# Loaded first by every Python of the regen (PYTHONPATH): docs/generated/by_hand refuses new
# files, as a read-only folder does for a user who is not root (the tests may run as root) or
# a full disk does.
REFUSING = """
import errno, os

_open = os.open

def _refusing(path, flags, *args, **kwargs):
    if flags & os.O_CREAT and "/docs/generated/by_hand/" in os.fsdecode(path):
        raise OSError(errno.{code}, os.strerror(errno.{code}), os.fsdecode(path))
    return _open(path, flags, *args, **kwargs)

os.open = _refusing
"""


@pytest.mark.parametrize(
    # one OSError case: writing turns any of them into one WriteError; ENOSPC is
    # test_sealed_runner's
    ("code", "reason"),
    [("EACCES", "Permission denied")],
)
def test_a_folder_that_refuses_files_fails_the_regen_in_one_line_and_changes_nothing(
    recorded, tmp_path, code, reason
):
    """A read-only folder, a full disk: every file regen would write stays as it was."""
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "sitecustomize.py").write_text(REFUSING.format(code=code))
    recorded.env["PYTHONPATH"] = str(tmp_path / "hooks")
    recorded.write("snippets/good.py", 'print("hello, changed")\n')
    recorded.write("snippets/by_hand/leaves.py", 'print("leaves")\n')
    add_to_page(recorded, "by_hand/leaves")
    before = recorded.read(".cache/regen.json")
    run = recorded.regen()
    assert run.returncode == 1
    said = "".join(  # but the line a contained run's command says first (namespaces)
        line for line in run.stderr.splitlines(True) if not line.startswith("note: runs are")
    )
    assert said == (
        f"error: docs/generated/by_hand/leaves.json: {reason}; nothing was written"
        " (2 snippets ran, none recorded)\n"
    )
    assert recorded.read("docs/generated/good.txt") == "hello from good\n"
    assert recorded.read(".cache/regen.json") == before
    only_sources_changed(recorded, "good", "by_hand/leaves")
    assert not [p for p in recorded.root.rglob(".*.*") if p.suffix in (".tmp", ".old")]
    del recorded.env["PYTHONPATH"]
    assert recorded.regen().returncode == 0
    assert recorded.read("docs/generated/good.txt") == "hello, changed\n"


def test_what_a_killed_regen_left_is_noted_by_check_and_removed_by_regen(recorded):
    gone = subprocess.Popen(["true"])  # noqa: S607
    gone.wait()
    left = f"docs/generated/.good.txt.{gone.pid}.k1ll3d.tmp"
    recorded.write(left, "half")
    check = recorded.regen("--check")
    assert check.returncode == 0, check.stderr
    assert (
        check.stderr == f"note {left}: left by a regen that was killed; the next regen removes it\n"
    )
    run = recorded.regen()
    assert run.returncode == 0
    assert run.stderr == f"removed {left} (left by a regen that was killed)\n"
    assert recorded.status() == ""


def test_a_recorded_input_that_became_a_folder_reruns_its_snippet(recorded):
    recorded.write("snippets/data.txt", "first\n")
    recorded.write(
        "snippets/reader.py",
        "from pathlib import Path\n\nprint(Path(__file__).with_name('data.txt').read_text())\n",
    )
    add_to_page(recorded, "reader")
    assert recorded.regen().returncode == 0
    recorded.commit()
    (recorded.root / "snippets/data.txt").unlink()
    (recorded.root / "snippets/data.txt").mkdir()
    run = recorded.regen()
    assert run.returncode == 1
    assert (
        "FAILED snippets/reader.py:3: IsADirectoryError: [Errno 21] Is a directory:" in run.stderr
    )
    assert "Traceback (most recent call last)" not in run.stderr.split("its output ended")[0]
    # a data file of snippets/ changed: every snippet's inputs did (recorded.fingerprints),
    # so both run again, and only the one that read it fails
    assert "regen: 2 run, 1 failed" in run.stdout
    assert recorded.regen("--check").returncode == 1
    # the folder; good.py's record names its new inputs; the failed run recorded nothing
    assert recorded.status() == " M docs/generated/good.json\n D snippets/data.txt\n"


# Loaded first by the regen (PYTHONPATH): each generated file's fsync waits, so that the test
# can kill the regen while it writes.
SLOW_WRITES = """
import os, time

_fsync = os.fsync

def _slow(fd):
    time.sleep(0.5)
    return _fsync(fd)

os.fsync = _slow
"""


def test_a_regen_killed_while_writing_is_repaired_by_the_next(recorded, tmp_path):
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "sitecustomize.py").write_text(SLOW_WRITES)
    recorded.write("snippets/good.py", 'print("hello, killed")\n')
    regen = subprocess.Popen(
        [sys.executable, "scripts/regen.py"],
        cwd=recorded.root,
        env={**reader_machine(), "PYTHONPATH": str(tmp_path / "hooks")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    generated = recorded.root / "docs" / "generated"
    deadline = time.monotonic() + 60
    while not list(generated.glob(".*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.02)
    regen.kill()  # SIGKILL: no handler runs, no rollback
    regen.wait()
    left = sorted(p.name for p in generated.glob(".*.*"))
    assert left, "the regen was not killed while it wrote (the test proves nothing)"
    check = recorded.regen("--check")
    assert "Traceback" not in check.stderr
    assert check.stderr.startswith(
        f"note docs/generated/{left[0]}: left by a regen that was killed; the next regen removes it"
    )
    assert "orphan" not in check.stderr
    repair = recorded.regen()
    assert repair.returncode == 0, repair.stderr
    assert f"removed docs/generated/{left[0]} (left by a regen that was killed)" in repair.stderr
    assert not list(generated.glob(".*.*"))
    assert recorded.read("docs/generated/good.txt") == "hello, killed\n"
    assert recorded.regen("--check").returncode == 0


# What --check and the build refuse in a page, whatever rule finds it: regen refuses it too,
# having run the snippets, and writes nothing (pipeline.regen checks the site as it would leave
# it before its files land).
REFUSED_BY_THE_BUILD = {
    "a claim naming a missing section": (
        "\nThe greeting is right. {{ claim good.py:claim-nosuch }}\n",
        "PROBLEM docs/index.md:11: snippets/good.py has no section 'claim-nosuch'",
    ),
    "an exercise solution without a claim": (
        '\n??? note "Solution"\n\n    The gradient of x squared is 2x.\n',
        "PROBLEM docs/index.md:11: an exercise solution without a claim",
    ),
}


@pytest.mark.parametrize("case", REFUSED_BY_THE_BUILD)
@pytest.mark.parametrize("paths", [[], ["snippets/good.py"]], ids=["all", "one snippet"])
def test_regen_refuses_what_check_and_the_build_refuse(recorded, case, paths):
    added, said = REFUSED_BY_THE_BUILD[case]
    recorded.write("docs/index.md", recorded.read("docs/index.md") + added)
    recorded.write("snippets/good.py", 'print("hello, changed")\n')  # so that regen runs it
    check = recorded.regen("--check", *paths)
    assert check.returncode == 2
    assert said in check.stderr
    run = recorded.regen(*paths)
    assert run.returncode == 2, run.stdout + run.stderr
    assert said in run.stderr
    assert "regen: 1 run, nothing written; 1 site problems\n" in run.stdout
    only_sources_changed(recorded, "good")
    assert recorded.read("docs/generated/good.txt") == "hello from good\n"
    assert not [p for p in recorded.root.rglob(".*.*") if p.suffix in (".tmp", ".old")]


# Loaded first by the regen (PYTHONPATH): the root refuses a write, as a read-only checkout
# does for a user who is not root (a file written there is created or opened for writing).
READ_ONLY = """
import errno, os

_open = os.open

def _refusing(path, flags, *args, **kwargs):
    if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR) and os.fsdecode(path).endswith(".regen.lock"):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))
    return _open(path, flags, *args, **kwargs)

os.open = _refusing
"""


def test_a_read_only_checkout_is_named_and_check_still_runs(recorded, tmp_path):
    """An ordinary user's read-only copy (root ignores modes: a hook refuses the lock file as
    the kernel refuses it to such a user): regen names the checkout, --check runs."""
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "sitecustomize.py").write_text(READ_ONLY)
    recorded.env["PYTHONPATH"] = str(tmp_path / "hooks")
    recorded.write("snippets/good.py", 'print("hello, changed")\n')
    run = recorded.regen()
    assert run.returncode == 1
    assert run.stderr == (
        f"error: {recorded.root}: the checkout is not writable (Permission denied: regen takes"
        " its lock .regen.lock there and writes docs/generated/, docs/notebooks/ and .cache/);"
        " nothing was run or written. `regen.py --check` writes nothing: it runs here\n"
    )
    check = recorded.regen("--check")
    assert check.returncode == 1  # the drift of the changed snippet, found
    assert "DRIFT snippets/good.py" in check.stderr
    only_sources_changed(recorded, "good")


# Ways a snippet opens a file by a path from the repository root: each fails in its scratch
# folder, saying so and how to reach the file from the snippet's own place.
FROM_THE_ROOT = {
    "open": 'open("snippets/tables/data.csv")',
    "pathlib": 'Path("snippets/tables/data.csv").read_text()',
    "a folder above": 'open("snippets/data.csv")',
}


@pytest.mark.parametrize("case", FROM_THE_ROOT)
def test_a_path_from_the_repository_root_is_said_to_start_in_the_scratch_folder(recorded, case):
    recorded.write("snippets/tables/data.csv", "a,b\n1,2\n")
    recorded.write("snippets/data.csv", "a,b\n1,2\n")
    recorded.write(
        "snippets/tables/reads.py", f"from pathlib import Path\n\n{FROM_THE_ROOT[case]}\n"
    )
    add_to_page(recorded, "tables/reads")
    run = recorded.regen("snippets/tables/reads.py")
    assert run.returncode == 1
    failed = next(x for x in run.stderr.splitlines() if x.startswith("FAILED snippets/tables/"))
    assert failed.startswith("FAILED snippets/tables/reads.py:3: FileNotFoundError:"), failed
    assert "(a run starts in an empty scratch folder, /" in failed
    assert "/scratch, not the repository root" in failed
    beside = (
        'Path(__file__).resolve().parents[1] / "data.csv")'
        if case == "a folder above"
        else 'Path(__file__).parent / "data.csv")'
    )
    assert failed.endswith(beside), failed


def test_a_missing_file_the_repository_lacks_too_gets_no_such_advice(recorded):
    recorded.write("snippets/reads.py", 'open("nowhere.csv")\n')
    add_to_page(recorded, "reads")
    run = recorded.regen("snippets/reads.py")
    assert (
        "FAILED snippets/reads.py:1: FileNotFoundError: [Errno 2] No such file or directory:"
        " 'nowhere.csv'\n" in run.stderr
    )

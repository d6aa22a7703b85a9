"""The cache is never stale: for every kind of input a snippet's publication depends on, editing
it and running a plain `regen` leaves the generated tree byte-identical to `regen --force`.

Each edit changes what the snippet publishes, so a cache that missed it would keep old bytes.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import reader_machine
from docpipe.run.execute import Result

pytestmark = pytest.mark.integration  # real regens in a sandbox repository

SNIPPET = """\
from pathlib import Path

from _helper import VALUE

data = Path(__file__).with_name("data.txt").read_text().strip()
print(VALUE, data, object())
"""
FIGURE = """\
import matplotlib.pyplot as plt


def draw(ns):
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.set_title(f"value {ns['VALUE']}")
    return fig


FIGURES = {"plot": draw}
"""
PAGE = """\
# Sandbox

```python title="snippets/main.py"
--8<-- "snippets/main.py"
```

``` text title="python snippets/main.py"
--8<-- "docs/generated/main.txt"
```

The value is {{ main.py:shown }}.
"""


def tree(root: Path) -> dict[str, bytes]:
    folders = [root / "docs" / "generated", root / "docs" / "notebooks"]
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in folders
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def fake_numpy(box) -> None:
    """A distribution record claiming another numpy version, first on the path."""
    meta = box.root / "fake-site" / "numpy-9.9.9.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: numpy\nVersion: 9.9.9\n")
    box.env["PYTHONPATH"] = str(box.root / "fake-site")


def bytecode_then_edit(box) -> None:
    """A reader's direct run leaves __pycache__/_helper.*.pyc; then the helper changes."""
    subprocess.run(
        [sys.executable, "snippets/main.py"],
        cwd=box.root,
        env=reader_machine(),
        check=True,
        capture_output=True,
    )
    assert list((box.root / "snippets" / "__pycache__").glob("_helper.*.pyc"))


EDITS = {
    "source": lambda box: box.write("snippets/main.py", SNIPPET + "print('and more')\n"),
    "local module": lambda box: box.write("snippets/_helper.py", "VALUE = 2\n"),
    "local module with bytecode": lambda box: box.write("snippets/_helper.py", "VALUE = 3\n"),
    "data file": lambda box: box.write("snippets/data.txt", "changed\n"),
    "figure code": lambda box: box.write(
        "scripts/figures/main.py", FIGURE.replace("value {", "now {")
    ),
    "new figure code": None,  # set below: figure code appears where there was none
    "removed figure code": lambda box: (box.root / "scripts/figures/main.py").unlink(),
    "snippets.toml entry": lambda box: box.write(
        "snippets/snippets.toml", '["main.py".values]\nshown = "{VALUE * 10}"\n'
    ),
    "runner source": lambda box: box.write(
        "scripts/docpipe/run/normalise.py",
        box.read("scripts/docpipe/run/normalise.py").replace('"0x…"', '"0x(address)"'),
    ),
    "package version": fake_numpy,
}
# The kinds whose snippet has figure code before the edit: the figure kinds, and the package
# version (numpy, which matplotlib imports, is then among the run's packages). The others run
# without it, and so without matplotlib's import in every regen's process.
WITH_FIGURE = {"figure code", "removed figure code", "package version"}


@pytest.mark.parametrize("kind", list(EDITS))
def test_a_plain_regen_after_an_edit_equals_a_forced_one(sandbox, kind):
    # The runner that regens in this process is the test's own: an edit of the sandbox's copy
    # of the runner, and bytecode written as on a reader's machine, need regen.py run there.
    process = kind in ("runner source", "local module with bytecode")
    sandbox.write("snippets/main.py", SNIPPET)
    sandbox.write("snippets/_helper.py", "VALUE = 1\n")
    sandbox.write("snippets/data.txt", "first\n")
    sandbox.write("snippets/snippets.toml", '["main.py".values]\nshown = "{VALUE}"\n')
    sandbox.write("docs/index.md", PAGE)
    if kind in WITH_FIGURE:
        sandbox.write("scripts/figures/main.py", FIGURE)
    if kind == "local module with bytecode":
        bytecode_then_edit(sandbox)  # the .pyc exists before the run the cache remembers
    first = sandbox.regen(process=process)
    assert first.returncode == 0, first.stderr
    # A second, clean regen lets the next one answer from the tree's stamps if nothing moved.
    assert "regen: 0 run, 0 failed" in sandbox.regen(process=process).stdout
    assert json.loads(sandbox.read(".cache/regen.json"))["tree"]["clean"]
    before = tree(sandbox.root)
    if kind == "local module with bytecode":
        bytecode_then_edit(sandbox)
    edit = EDITS[kind] or (lambda box: box.write("scripts/figures/main.py", FIGURE))
    edit(sandbox)
    plain = sandbox.regen(process=process)
    assert plain.returncode == 0, plain.stderr
    after_plain = tree(sandbox.root)
    forced = sandbox.regen("--force", process=process)
    assert forced.returncode == 0, forced.stderr
    assert after_plain == tree(sandbox.root), f"{kind}: the cache kept stale files"
    assert after_plain != before, f"{kind}: the edit changed nothing (the test proves nothing)"


@pytest.mark.waits("an edit made while the run sleeps")
def test_an_input_edited_during_the_run_is_not_taken_as_run(sandbox, tmp_path):
    # A run may write only in its scratch folder (its working directory), in the job folders.
    from docpipe.run import pool

    mark = f"started-{tmp_path.name}"
    jobs = Path(pool._in_memory() or tempfile.gettempdir())
    sandbox.write(
        "snippets/main.py",
        "import time\nfrom pathlib import Path\n\n"
        "data = Path(__file__).with_name('data.txt').read_text()\n"
        f"Path({mark!r}).touch()\n"
        "time.sleep(3)\nprint(data)\n",
    )
    sandbox.write("snippets/data.txt", "first\n")
    sandbox.write("docs/index.md", PAGE.replace("\nThe value is {{ main.py:shown }}.\n", ""))
    run = subprocess.Popen(
        [sys.executable, "scripts/regen.py"],
        cwd=sandbox.root,
        env={**reader_machine(), "CI": "true"},
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(jobs.glob(f"docpipe-*/scratch/{mark}")) and time.monotonic() < deadline:
        time.sleep(0.05)
    sandbox.write("snippets/data.txt", "second\n")  # saved while the snippet still runs
    assert run.wait(timeout=60) == 0
    assert sandbox.read("docs/generated/main.txt") == "first\n\n"
    again = sandbox.regen()
    assert "regen: 1 run, 0 failed" in again.stdout, again.stdout
    assert sandbox.read("docs/generated/main.txt") == "second\n\n"


FROM_FILE = """\
from pathlib import Path

import torch

weights = torch.from_file(str(Path(__file__).with_name("weights.bin")), size=4, dtype=torch.uint8)
print(weights.tolist())
"""


@pytest.mark.skipif(
    "reads" not in {f.name for f in dataclasses.fields(Result)},
    reason="needs execute.Result.reads, what a run read beyond open() (issue 22, child side)",
)
def test_a_data_file_read_without_open_keys_the_cache(sandbox):
    sandbox.write("snippets/main.py", FROM_FILE)
    (sandbox.root / "snippets" / "weights.bin").write_bytes(bytes([1, 2, 3, 4]))
    sandbox.write("docs/index.md", PAGE.replace("\nThe value is {{ main.py:shown }}.\n", ""))
    assert sandbox.regen().returncode == 0
    assert sandbox.read("docs/generated/main.txt") == "[1, 2, 3, 4]\n"
    (sandbox.root / "snippets" / "weights.bin").write_bytes(bytes([5, 6, 7, 8]))
    again = sandbox.regen()
    assert "regen: 1 run, 0 failed" in again.stdout, again.stdout
    assert sandbox.read("docs/generated/main.txt") == "[5, 6, 7, 8]\n"


TWO_PAGES = """\
# Sandbox

```python title="snippets/{0}.py"
--8<-- "snippets/{0}.py"
```

``` text title="python snippets/{0}.py"
--8<-- "docs/generated/{0}.txt"
```
"""


@pytest.mark.parametrize("where", ["snippets/table.csv", "snippets/data/deep/table.csv"])
def test_a_data_file_added_is_an_input_the_cache_and_the_check_agree_on(sandbox, where):
    """Issue 39: a CSV added under snippets/ changed every record's inputs under --check while
    a plain regen answered from its cache. The one list of a run's inputs (run_inputs) now
    makes the plain regen re-run what --check would report, and the check then agrees."""
    from docpipe import catalog
    from docpipe.project import Project
    from docpipe.recorded import fingerprints

    sandbox.write("snippets/first.py", 'print("first")\n')
    sandbox.write("snippets/second.py", 'print("second")\n')
    sandbox.write(
        "docs/index.md", TWO_PAGES.format("first") + "\n" + TWO_PAGES.format("second")[11:]
    )
    assert sandbox.regen().returncode == 0
    assert sandbox.regen("--check").returncode == 0
    sandbox.commit()
    sandbox.write(where, "x,y\n1,2\n")
    cat = catalog.load(Project(sandbox.root))
    for snippet in cat.snippets:  # what `mkdocs serve` and the pages say: changed since
        since = fingerprints.since_recorded(snippet, cat.settings[snippet])
        assert since.changed == [where], (snippet.name, since)
    regen = sandbox.regen()
    assert "regen: 2 run, 0 failed" in regen.stdout, regen.stdout + regen.stderr
    for key in ("first", "second"):
        assert where in json.loads(sandbox.read(f"docs/generated/{key}.json"))["inputs"], key
    check = sandbox.regen("--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 drifted" in check.stdout, check.stdout
    # and the cache answers again (the regen right after the edit may have keyed the CSV as
    # EDITED_DURING_RUN, written within RACY_NS of its start: one more run settles it)
    sandbox.regen()
    again = sandbox.regen()
    assert "regen: 0 run" in again.stdout or "unchanged" in again.stdout, again.stdout


# Issue 48: four snippets beside one data file, which three of them open by a different route
# each (Python's open, which an audit hook sees; torch's C fopen and a `cat`, which none sees)
# and one does not open at all.
OPENERS = {
    "python_open": (
        "from pathlib import Path\n\n"
        'print(Path(__file__).with_name("table.bin").read_bytes().hex())\n'
    ),
    "c_fopen": (
        "from pathlib import Path\n\nimport torch\n\n"
        'path = str(Path(__file__).with_name("table.bin"))\n'
        "print(torch.from_file(path, size=4, dtype=torch.uint8).tolist())\n"
    ),
    "subprocess_cat": (
        "import subprocess\nfrom pathlib import Path\n\n"
        'path = Path(__file__).with_name("table.bin")\n'
        'print(subprocess.run(["cat", path], capture_output=True, check=True).stdout.hex())\n'
    ),
    "opens_none": 'print("no data")\n',
}


def _touched(sandbox, relative: str) -> set[str]:
    from docpipe import catalog
    from docpipe.project import Project
    from docpipe.recorded import touched

    project = Project(sandbox.root)
    cat = catalog.load(project)
    return {s.key for s in touched.snippets(project, [str(sandbox.root / relative)], cat)}


def _changed_records(sandbox) -> set[str]:
    return {
        line[3:].removeprefix("docs/generated/").removesuffix(".json")
        for line in sandbox.status().splitlines()
        if line[3:].endswith(".json") and line[3:].startswith("docs/generated/")
    }


@pytest.mark.parametrize(
    "watched, copies",
    [(True, False), (True, True), (False, False)],
    ids=["kernel-watched", "private-copies", "no-namespaces"],
)
def test_a_data_file_edited_reruns_only_the_snippets_that_opened_it(sandbox, watched, copies):
    """Editing a data file re-runs the snippets whose processes opened it, by any route, and
    rewrites only their records: the kernel saw which did (docpipe.run.opened). Removing a
    data file that no snippet opened re-runs every one (a run may have looked for it). Without
    the run's namespaces (DOCPIPE_NO_LANDLOCK: as on a machine without them) nothing tells,
    and every snippet re-runs, as before; a check there cannot refute a record's "not opened",
    and finds nothing drifted."""
    from docpipe.run import namespaces

    if watched and (why := namespaces.unavailable()):
        pytest.skip(f"which data files a run opened is known only in its namespaces ({why})")
    if not watched:
        sandbox.env["DOCPIPE_NO_LANDLOCK"] = "1"
    if copies:  # as an ordinary user, who has no fanotify group (docpipe.run.opened.Copies)
        sandbox.env["DOCPIPE_NO_FANOTIFY"] = "1"
    for key, code in OPENERS.items():
        sandbox.write(f"snippets/{key}.py", code)
    (sandbox.root / "snippets" / "table.bin").write_bytes(bytes([1, 2, 3, 4]))
    sandbox.write("snippets/unused.txt", "no snippet opens this\n")
    page = "# Sandbox\n" + "".join(TWO_PAGES.format(k)[len("# Sandbox\n") :] for k in OPENERS)
    sandbox.write("docs/index.md", page)
    assert sandbox.regen().returncode == 0
    settled = sandbox.regen()  # a file written within RACY_NS of the first regen settles
    assert settled.returncode == 0, settled.stdout + settled.stderr
    sandbox.commit()
    records = {k: json.loads(sandbox.read(f"docs/generated/{k}.json"))["inputs"] for k in OPENERS}
    unread = "not opened"
    for key, inputs in records.items():
        opened = key != "opens_none" or not watched
        assert (inputs["snippets/table.bin"] != unread) is opened, (key, inputs)
        assert (inputs["snippets/unused.txt"] == unread) is watched, (key, inputs)
    readers = {"python_open", "c_fopen", "subprocess_cat"}
    # the pre-commit hook checks the snippets a commit of the file touches: the same ones
    assert _touched(sandbox, "snippets/table.bin") == (readers if watched else set(OPENERS))
    assert _touched(sandbox, "snippets/unused.txt") == (set() if watched else set(OPENERS))

    (sandbox.root / "snippets" / "table.bin").write_bytes(bytes([5, 6, 7, 8]))
    edited = sandbox.regen()
    ran = len(readers) if watched else len(OPENERS)
    assert f"regen: {ran} run, 0 failed" in edited.stdout, edited.stdout + edited.stderr
    assert _changed_records(sandbox) == (readers if watched else set(OPENERS))
    assert sandbox.read("docs/generated/c_fopen.txt") == "[5, 6, 7, 8]\n"
    assert sandbox.read("docs/generated/subprocess_cat.txt") == "05060708\n"
    sandbox.commit()

    (sandbox.root / "snippets" / "unused.txt").unlink()
    assert _touched(sandbox, "snippets/unused.txt") == set(OPENERS)
    removed = sandbox.regen()
    assert f"regen: {len(OPENERS)} run, 0 failed" in removed.stdout, removed.stdout
    if watched:
        sandbox.commit()
        sandbox.env["DOCPIPE_NO_LANDLOCK"] = "1"
        check = sandbox.regen("--check")
        assert check.returncode == 0 and "0 drifted" in check.stdout, check.stdout + check.stderr

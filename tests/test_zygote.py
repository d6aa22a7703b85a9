"""The zygote every snippet's process is forked from: it imports, before the next run, what the
snippets imported last time, so no child pays an import the zygote could have paid."""

from __future__ import annotations

import json

import pytest

from docpipe.run import pool
from test_sandbox import in_project

pytestmark = pytest.mark.integration


PAGE = """\
# Sandbox

```python title="snippets/lazy.py"
--8<-- "snippets/lazy.py"
```

``` text title="python snippets/lazy.py"
--8<-- "docs/generated/lazy.txt"
```
"""

# `preloaded` says whether the module was already imported when the snippet started: a value,
# so it lands in the record without changing what the page shows.
LAZY = """\
import sys

preloaded = "email.mime.text" in sys.modules
import email.mime.text  # noqa: E402

print(email.mime.text.MIMEText("hi").get_content_type())
"""
SETTINGS = '[defaults]\ntimeout = 60\n\n["lazy.py".values]\npreloaded = "{preloaded}"\n'


def preloaded(sandbox) -> str:
    return json.loads(sandbox.read("docs/generated/lazy.json"))["values"]["preloaded"]


def recorded_imports(sandbox) -> list[str]:
    return json.loads(sandbox.read("docs/generated/lazy.json"))["preloads"]


def test_what_a_snippet_imported_last_time_is_imported_before_its_next_run(sandbox):
    # regen.py as a process: what a run records as its own imports is what a new process's
    # zygote lacked, which a zygote the test process has already preloaded would not show.
    sandbox.write("snippets/lazy.py", LAZY)
    sandbox.write("snippets/snippets.toml", SETTINGS)
    sandbox.write("docs/index.md", PAGE)
    first = sandbox.regen(process=True)
    assert first.returncode == 0, first.stderr
    assert preloaded(sandbox) == "False"
    # What the snippet asked for (email itself came with the runner), not what those modules
    # imported in turn.
    assert recorded_imports(sandbox) == ["email.mime", "email.mime.text"]

    # A new process, so a new zygote, with the preloads the record kept, with no cache (a
    # fresh clone's; this test is about that round trip through a process and its record:
    # the rest of this module runs in this one).
    (sandbox.root / ".cache" / "regen.json").unlink()
    again = sandbox.regen("--force", process=True)
    assert again.returncode == 0, again.stderr
    assert preloaded(sandbox) == "True"
    assert sandbox.read("docs/generated/lazy.txt") == "text/plain\n"
    # A run of a preloaded module does not see its import; it stays known all the same.
    assert recorded_imports(sandbox) == ["email.mime", "email.mime.text"]


def test_a_check_compares_every_field_of_a_record_but_its_preloads(sandbox):
    """The preloads a record lists are the zygote's hint, changed by no output: a check (and
    an audit) keeps what the record lists, and only a regen that runs the snippet adds to it."""
    sandbox.write("snippets/lazy.py", LAZY)
    sandbox.write("snippets/snippets.toml", SETTINGS)
    sandbox.write("docs/index.md", PAGE)
    assert sandbox.regen(process=True).returncode == 0
    record = json.loads(sandbox.read("docs/generated/lazy.json"))
    assert record["preloads"] == ["email.mime", "email.mime.text"]
    sandbox.write(
        "docs/generated/lazy.json", json.dumps({**record, "preloads": []}, indent=2) + "\n"
    )
    check = sandbox.regen("--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert recorded_imports(sandbox) == []
    sandbox.write("docs/generated/lazy.json", json.dumps({**record, "values": {}}, indent=2) + "\n")
    assert sandbox.regen("--check").returncode == 1  # any other field drifts
    assert sandbox.regen("--force", process=True).returncode == 0
    assert recorded_imports(sandbox) == ["email.mime", "email.mime.text"]


# Forked from the extended zygote (which imported email.mime.text for it), it tries to kill it.
EXTENDED_KILLER = """\
import os
import signal
import sys
import time

if "email.mime.text" in sys.modules:
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)
import email.mime.text  # noqa: E402, F401

print("recorded")
"""
AFTER = 'import email.mime.text  # noqa: F401\n\nprint("after")\n'


def test_a_snippet_cannot_kill_the_extended_zygote(tmp_path):
    project = in_project(
        tmp_path,
        {
            "snippets/a_killer.py": EXTENDED_KILLER,
            "snippets/b_after.py": AFTER,
            "snippets/c_plain.py": 'print("plain")\n',
        },
    )
    # What their last runs asked for: both fork from the extended zygote, one at a time.
    asked = {key: ["email.mime", "email.mime.text"] for key in ("a_killer", "b_after")}
    jobs = [("a_killer", {}, 60), ("b_after", {}, 60)]
    outcomes = pool.run(project, jobs, 1, True, snippet_preloads=asked)
    # the kernel refuses the signal (the zygote is outside the snippet's Landlock domain)
    assert str(outcomes["a_killer"].result.problem) == (
        "snippets/a_killer.py:7: PermissionError: [Errno 1] Operation not permitted"
    )
    after = outcomes["b_after"]
    assert after.result.status == "ok", after.result.error
    assert after.output == b"after\n"
    # the next snippet forked from this zygote is not named as leaving anything running
    plain = pool.run(project, [("c_plain", {}, 60)], 1, True)["c_plain"]
    assert plain.result.status == "ok", plain.result.error


# Run from the extended zygote, which imported email.mime.text for the other snippet, it sees it.
SEES = 'import sys\n\nsees = "email.mime.text" in sys.modules\nprint("ran")\n'


def test_only_a_snippet_that_needs_a_module_the_zygote_lacks_forks_from_the_extended_one(
    tmp_path,
):
    project = in_project(tmp_path, {"snippets/lazy.py": LAZY, "snippets/plain.py": SEES})
    # plain.py's last run asked only for what the zygote imports anyway (json: the runner uses
    # it), as a record made before the zygote imported it would say.
    asked = {"lazy": ["email.mime", "email.mime.text"], "plain": ["json"]}
    jobs = [("lazy", {"preloaded": "{preloaded}"}, 60), ("plain", {"sees": "{sees}"}, 60)]
    outcomes = pool.run(project, jobs, 1, True, snippet_preloads=asked)
    assert outcomes["lazy"].result.values == {"preloaded": "True"}  # from the extended zygote
    assert outcomes["plain"].result.values == {"sees": "False"}


def test_while_the_extended_zygote_imports_a_job_that_needs_none_of_it_starts_first():
    from docpipe.run.execute import Job
    from docpipe.run.pool import _next

    needs, plain = Job("/project", "needs", {}, 1), Job("/project", "plain", {}, 1)
    pending = [(needs, 60.0), (plain, 60.0)]
    assert _next(pending, lambda job: job is needs, extended_ready=False) == 1
    assert _next(pending, lambda job: job is needs, extended_ready=True) == 0
    assert _next(pending[:1], lambda job: job is needs, extended_ready=False) == 0
    assert _next(pending[::-1], lambda job: job is needs, extended_ready=False) == 0


SEEDS = """\
import linecache

import torch

cached = torch.random.__file__ in linecache.cache
torch.manual_seed(0)
print("seeded")
"""


def test_the_source_torch_reads_when_a_snippet_seeds_is_read_once_by_the_zygote(tmp_path):
    # manual_seed() keeps the stack it is called from, reading every file on it into linecache.
    # A zygote of its own: what this asks of the zygote's start.
    new_zygote()
    project = in_project(tmp_path, {"snippets/seeds.py": SEEDS})
    ran = pool.run(project, [("seeds", {"cached": "{cached}"}, 60)], 1, True)["seeds"]
    assert ran.result.status == "ok", ran.result.error
    assert ran.result.values == {"cached": "True"}


def new_zygote() -> None:
    """The next run starts this process's zygote again."""
    from docpipe.run import zygote

    if zygote._shared is not None:
        zygote._shared.close()
        zygote._shared = None


def test_what_the_runner_imports_in_a_child_is_no_preload_of_the_snippet(tmp_path):
    """Each child reseeds numpy's generator, which imports numpy.random: the runner's import,
    which a zygote that received numpy by a message after it started pays once, and which is
    not among what the snippet's next run has preloaded for it."""
    new_zygote()
    project = in_project(tmp_path, {"snippets/lazy.py": LAZY})
    job = [("lazy", {"preloaded": "{preloaded}"}, 60)]
    assert pool.run(project, job, 1, True, preloads=[])["lazy"].result.status == "ok"
    ran = pool.run(project, job, 1, True, preloads=["numpy"])["lazy"]  # numpy by a message
    assert ran.result.preloads == ["email.mime", "email.mime.text"]


def test_job_folders_are_in_memory_only_where_it_has_room(tmp_path, monkeypatch):
    import os

    from docpipe.run import pool

    room = os.statvfs(tmp_path)
    free = room.f_bavail * room.f_frsize
    cases = [  # (where /dev/shm would be, bytes it must have free, where job folders go)
        (tmp_path, 1, str(tmp_path)),
        (tmp_path, free + (1 << 30), None),  # too small: the default temporary folder
        (tmp_path / "absent", 1, None),  # no /dev/shm at all
    ]
    from docpipe.run import execute

    if execute.contained():  # a contained run writes in /dev/shm: no job folder goes there
        cases = [(where, needed, None) for where, needed, _ in cases]
    for where, needed, expected in cases:
        monkeypatch.setattr(pool, "IN_MEMORY", str(where))
        monkeypatch.setattr(pool, "IN_MEMORY_ROOM", needed)
        pool._in_memory.cache_clear()
        assert pool._in_memory() == expected, (where, needed)
    pool._in_memory.cache_clear()


def test_a_zygote_that_sends_a_malformed_message_is_stopped_and_said_to_have_died():
    import selectors
    import subprocess

    from docpipe.run import zygote

    z = zygote.Zygote.__new__(zygote.Zygote)  # a "zygote" that prints a line of no message
    z.process = subprocess.Popen(
        ["sh", "-c", "echo '{\"pid\": 3}'; exec sleep 30"], stdout=subprocess.PIPE, bufsize=0
    )
    z.pending, z.selector = b"", selectors.DefaultSelector()
    z.selector.register(z.process.stdout, selectors.EVENT_READ)
    with pytest.raises(zygote.ZygoteDied) as e:
        z.events(10)
    assert str(e.value) == (
        "the runner's zygote sent a malformed message (no message type None); stopped"
    )
    assert not z.alive()


# torch.compile's cache folder, as torch finds it (a first torch.compile makes it there).
COMPILE_CACHE = """\
import os
import tempfile

from torch._inductor.runtime.cache_dir_utils import cache_dir

folder = cache_dir()
print(folder.startswith(tempfile.gettempdir()), os.path.isdir(folder))
"""


def test_a_preload_that_fixed_torch_compiles_cache_leaves_the_run_its_own(tmp_path):
    """Importing torch._dynamo in the extended zygote writes its cache folder, under the
    zygote's temporary folder, into the environment every child inherits; a run may not write
    there, so the run gets torch's cache in its own temporary folder, as a reader's torch.compile
    makes it in theirs."""
    project = in_project(tmp_path, {"snippets/compile_cache.py": COMPILE_CACHE})
    asked = {"compile_cache": ["torch._dynamo"]}
    jobs = [("compile_cache", {}, 120)]
    outcome = pool.run(project, jobs, 1, True, snippet_preloads=asked)["compile_cache"]
    assert outcome.result.status == "ok", outcome.result.error
    assert outcome.output == b"True True\n"


def _huge_pages_offered() -> bool:
    """Whether this kernel can collapse memory into huge pages (MADV_COLLAPSE, Linux 6.1)."""
    import os
    from pathlib import Path

    enabled = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    release = tuple(int(p) for p in os.uname().release.split(".")[:2])
    return enabled.exists() and "[never]" not in enabled.read_text() and release >= (6, 1)


COLLAPSE = """\
import os
from docpipe.run import hugepages

block = bytearray(128 << 20)
for i in range(0, len(block), 4096):
    block[i] = 1  # every page written, as the imports write theirs
huge = hugepages.collapse()
read, write = os.pipe()
pid = os.fork()
if pid == 0:  # a child writes in a huge page it shares with its parent: its own copy
    block[5 << 20] = 2
    os.write(write, bytes([block[5 << 20], block[(5 << 20) + 4096]]))
    os._exit(0)
os.waitpid(pid, 0)
child = os.read(read, 2)
print(huge, hugepages.in_huge_pages(), child[0], child[1], block[5 << 20])
"""


@pytest.mark.skipif(not _huge_pages_offered(), reason="the kernel collapses no huge pages")
def test_collapsed_memory_is_in_huge_pages_and_a_childs_write_stays_its_own():
    import subprocess
    import sys

    from projects import REPO

    env = {"PYTHONPATH": str(REPO / "scripts"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", COLLAPSE], env=env, capture_output=True, text=True, check=True
    )
    huge, still, written, beside, parents = map(int, done.stdout.split())
    assert huge >= 120 << 20, done.stdout  # the 128 MiB but for its edges
    assert still >= 120 << 20, done.stdout  # the parent's stay huge after its child wrote
    assert (written, beside, parents) == (2, 1, 1), done.stdout


@pytest.mark.skipif(not _huge_pages_offered(), reason="the kernel collapses no huge pages")
def test_the_zygote_keeps_what_its_imports_wrote_in_huge_pages(tmp_path):
    from docpipe.run import hugepages, zygote

    new_zygote()
    project = in_project(tmp_path, {"snippets/plain.py": 'print("plain")\n'})
    ran = pool.run(project, [("plain", {}, 60)], 1, True)["plain"]
    assert ran.result.status == "ok", ran.result.error
    pid = zygote._shared.process.pid
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        anonymous = next(int(x.split()[1]) for x in rollup if x.startswith("Anonymous:"))
    assert hugepages.in_huge_pages(pid) >= (anonymous << 10) // 2, anonymous


def test_a_check_starts_the_extended_zygotes_imports_before_its_site_checks(tmp_path, monkeypatch):
    """The extended zygote imports what the snippets' records list while the parent checks
    the site, not after: a check asks for those imports as it starts the zygote, before its
    site checks, and long before its first run."""
    from docpipe import catalog, pipeline
    from docpipe.recorded.record import Record
    from docpipe.run import zygote

    project = in_project(
        tmp_path,
        {"snippets/lazy.py": LAZY, "snippets/snippets.toml": SETTINGS, "docs/index.md": PAGE},
    )
    record = Record("python snippets/lazy.py", {}, [(None, "text/plain\n")], {})
    listed = Record(**{**record.__dict__, "preloads": ["email.mime", "email.mime.text"]})
    (project.generated / "lazy.json").parent.mkdir(parents=True)
    (project.generated / "lazy.json").write_bytes(listed.to_bytes())
    said = []

    class Recorder:
        def preload_extended(self, modules):
            said.append(("extended imports", sorted(set(modules))))

    class Stop(Exception):
        pass

    def run(*args, **kwargs):
        said.append("first run")
        raise Stop

    def site_problems(*args, **kwargs):
        said.append("site checks")
        return []

    monkeypatch.setattr(zygote, "shared", lambda preloads: said.append("zygote") or Recorder())
    monkeypatch.setattr(pipeline, "site_problems", site_problems)
    monkeypatch.setattr(pipeline, "notebook_drift", lambda *args: [])
    monkeypatch.setattr(pipeline, "run", run)
    cat = catalog.load(project)
    with pytest.raises(Stop):
        pipeline.check(cat.snippets, cat, pipeline.Options(jobs=1), whole_site=True)
    wanted = ("extended imports", ["email.mime", "email.mime.text"])
    assert said == ["zygote", wanted, "site checks", "first run"]

"""The fault suite, in-process part (issue 22): every fault of the runner, the cache, the file
system or the settings is one `path:line: message` (or `path: message`) and exit 1 or 2, never a
traceback, and nothing recorded is lost or half-written. Cases about processes (a real regen,
`mkdocs serve`) are in test_faults.py and test_live.py."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from docpipe import catalog, cli
from docpipe.catalog import Settings
from docpipe.problems import RUN, DocpipeError
from docpipe.project import Project
from docpipe.recorded import cache, writing
from docpipe.run import artifacts, execute, messages, pool
from projects import SmallProject

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[defaults]\ntimout = 60\n",
            "snippets.toml:2: [defaults] has unknown setting 'timout' (known: memory, timeout)",
        ),
        (
            "# settings\n\n[defaults]\ntimeout = 0\n",
            "snippets.toml:4: [defaults] timeout = 0: a number of seconds above 0",
        ),
        (
            '[defaults]\ntimeout = "sixty"\n',
            "snippets.toml:2: [defaults] timeout = 'sixty': a number of seconds above 0",
        ),
        ("defaults = 3\n", "snippets.toml:1: [defaults] must be a table"),
        (
            '[defaults]\ntimeout = 9\n\n["examples/fit_line.py"]\nduraton = 1\n',
            "snippets.toml:5: [\"examples/fit_line.py\"] has unknown setting 'duraton'"
            " (known: duration, memory, normalise, timeout, values)",
        ),
        (
            '["examples/fit_line.py"]\ntimeout = -1\n',
            'snippets.toml:2: ["examples/fit_line.py"] timeout = -1: a number of seconds above 0',
        ),
        (
            '["examples/fit_line.py".values]\nw = "{w}"\nloss = 1\n',
            'snippets.toml:3: ["examples/fit_line.py"] values: loss = 1 is no string (an'
            ' f-string over the run\'s globals, e.g. loss = "{loss.item():.4f}")',
        ),
        (
            '["examples/fit_line.py"]\nnormalise = "timings"\n',
            'snippets.toml:2: ["examples/fit_line.py"] normalise: a list of names',
        ),
        ('\n["nothere.py"]\ntimeout = 1\n', 'snippets.toml:2: ["nothere.py"] names no file'),
        ("stray = 1\n", 'snippets.toml:1: ["stray"] names no file snippets/stray'),
        (
            '[[exception]]\npath = "a"\nrule = "not-on-a-page"\nreason = "x"\n\n'
            '[[exception]]\nrule = "r"\n',
            "snippets.toml:6: an [[exception]] lacks ['path', 'reason']",
        ),
    ],
)
def test_every_mistake_in_the_settings_is_one_line_naming_its_line(tmp_path, toml, message):
    small = SmallProject(tmp_path)
    small.project.meta.write_text(toml)  # as written: its lines are the message's
    small.write("snippets/examples/fit_line.py", "")
    with pytest.raises(catalog.CatalogError) as e:
        small.catalog()
    assert str(e.value).startswith("snippets/" + message)
    assert e.value.problem.path == "snippets/snippets.toml"
    assert "\n" not in str(e.value)


# One value per branch: 0 (not above 0), inf (not finite), soon (not a number)
@pytest.mark.parametrize("value", ["0", "inf", "soon"])
def test_a_timeout_that_is_no_positive_number_is_refused(value, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse(["--timeout", value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(
        f"error: argument --timeout: '{value}' is not a number of seconds above 0\n"
    )


def test_a_positive_timeout_is_taken():
    assert cli.parse(["--timeout", "0.5"]).timeout == 0.5


# ---- the child's result: whatever a snippet corrupts is its own failure ----

SOURCE = "0" * 64


FIGURES = "scripts/figures/examples/fit_line.py"
INPUTS = {"snippets/examples/fit_line.py": SOURCE, FIGURES: "absent"}


def result_of(**fields) -> bytes:
    return json.dumps({"inputs": INPUTS, **fields}).encode()


@pytest.fixture
def fit_line(tmp_path):
    """snippets/examples/fit_line.py of a project on a temporary folder, with no figure code."""
    project = Project(tmp_path)
    snippet = project.snippet("examples/fit_line")
    snippet.source.parent.mkdir(parents=True)
    snippet.source.write_text("print(1)\n")
    return snippet


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"{not json", "not JSON: Expecting property name enclosed in double quotes"),
        (b"[1, 2]", "a JSON list, not an object"),
        (b'{"status": "ok", "novel": 1}', "unknown field 'novel'"),
        (b'{"status": "fine"}', "status 'fine'"),
        (b'{"failed_line": true}', "failed_line is a bool"),
        (result_of(values={"x": 1}), "values['x'] is a int"),
        (result_of(inputs={".": SOURCE}), "input '.' is no repository file path"),
        (result_of(inputs={"/etc/passwd": SOURCE}), "input '/etc/passwd' is no repository"),
        (result_of(inputs={"../x": SOURCE}), "input '../x' is no repository file path"),
        (result_of(inputs={FIGURES: "absent"}), "its inputs do not name snippets/examples/fit"),
        (
            result_of(inputs={"snippets/examples/fit_line.py": "x"}),
            "input 'snippets/examples/fit_line.py' has digest 'x'",
        ),
        (
            result_of(inputs={**INPUTS, "snippets/no.dat": SOURCE}),
            "input 'snippets/no.dat' has a digest but no file",
        ),
        (result_of(sections=[["a", 5], ["b", 2]]), "section 'b' ends at 2, before 5"),
        (result_of(sections=[["a"]]), "sections holds ['a'], not a list of 2 of its types"),
        (result_of(sections=[["a", True]]), "sections holds ['a', True], not a list of 2"),
        (b'{"preloads": "torch"}', "preloads is a str"),
        (b'{"failed_section": 3}', "failed_section is a int"),
        (result_of(writes=[3]), "writes holds a int"),
    ],
)
def test_a_malformed_result_is_named_and_never_trusted(fit_line, data, why):
    with pytest.raises(messages.MalformedResult) as e:
        messages.decode_result(data, fit_line)
    assert str(e.value).startswith(why)


def test_a_well_formed_result_is_taken(fit_line):
    result = messages.decode_result(result_of(sections=[[None, 3]]), fit_line)
    assert result.sections == [(None, 3)] and result.status == "ok"


def outcome(figures=None, sections=(), output=b"") -> pool.Outcome:
    result = execute.Result(sections=list(sections), figures=figures or {})
    return pool.Outcome("examples/fit_line", result, output, 0.0)


@pytest.mark.parametrize(
    "name", ["../../../../escaped", "../x.dark", "a/b", "", "fig.light", "é", ".dark"]
)
def test_a_figure_name_outside_the_naming_rule_is_refused(fit_line, name):
    with pytest.raises(artifacts.OutputError) as e:
        artifacts.build(fit_line, Settings(), outcome({name: "<svg/>"}), {}, [])
    figure = name.removesuffix(".dark")
    assert isinstance(e.value, DocpipeError) and e.value.problem.kind == RUN
    assert (e.value.path, e.value.line) == ("snippets/examples/fit_line.py", None)
    assert e.value.message == (
        f"scripts/figures/examples/fit_line.py names a figure {figure!r} (in FIGURES); a"
        " figure's name holds only letters, digits, '_' and '-', as"
        " docs/generated/examples/fit_line.<figure>.svg must stay a file of this snippet"
    )


def test_figure_names_by_the_rule_are_published_in_both_palettes(fit_line):
    files = artifacts.build(
        fit_line, Settings(), outcome({"loss-2_b": "<svg/>", "loss-2_b.dark": "<svg/>"}), {}, []
    )
    assert fit_line.figure("loss-2_b") in files and fit_line.figure("loss-2_b", "dark") in files
    assert all(path.is_relative_to(fit_line.project.root) for path in files)


def test_a_section_that_ends_inside_a_character_is_a_malformed_result(fit_line):
    run = outcome(sections=[("a", 1)], output="é".encode())
    with pytest.raises(artifacts.OutputError) as e:
        artifacts.build(fit_line, Settings(), run, {}, [])
    assert (e.value.path, e.value.line) == ("snippets/examples/fit_line.py", None)
    assert e.value.message == (
        "its run left a malformed result (section 'a' ends at byte 1 of 2, not between two"
        " characters of its output)"
    )


def test_the_project_root_in_an_output_is_recorded_relative_to_it(fit_line):
    root = fit_line.project.root
    printed = f'  File "{root}/snippets/examples/fit_line.py", line 1\n'.encode()
    whole = [("", len(printed))]  # one section, the whole output (the parts make the whole)
    files = artifacts.build(fit_line, Settings(), outcome(sections=whole, output=printed), {}, [])
    assert files[fit_line.output] == b'  File "snippets/examples/fit_line.py", line 1\n'
    record = json.loads(files[fit_line.record])
    assert record["normalised"] == ["repository-path"]


# ---- the cache: a malformed one is rebuilt, an input that is no file is never trusted ----

GOOD_RUN = {"made_from": "k", "inputs": {"snippets/a.py": SOURCE}, "files": {}}


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("{", "unreadable (Expecting property name"),
        ("[]", "malformed (not a JSON object)"),
        ('{"snippets": {"a": {"inputs": {}, "files": {}}}}', "malformed (snippets"),
        ('{"snippets": []}', "malformed (snippets is not an object)"),
        (json.dumps({"snippets": {"a": {**GOOD_RUN, "made_from": 3}}}), "malformed (snippets['a']"),
        (
            json.dumps({"snippets": {"a": {**GOOD_RUN, "inputs": {".": SOURCE}}}}),
            "malformed (snippets['a'] names a path outside the repository)",
        ),
        ('{"digests": {"a": [1, 2]}}', "malformed (digests entries are not"),
        ('{"notebooks": {"n": {"made_from": "k"}}}', "malformed (notebooks entries"),
        ('{"tree": {"stats": {}}}', "malformed (tree lacks or adds keys)"),
        ('{"extra": 1}', "malformed (unknown keys ['extra'])"),
    ],
)
def test_a_malformed_cache_is_discarded_saying_so_in_one_line(tmp_path, data, why):
    project = Project(tmp_path)
    cache.cache_file(project).parent.mkdir()
    cache.cache_file(project).write_text(data)
    found, said = cache.load_checked(project)
    assert found == {}
    assert said.startswith(f".cache/regen.json: {why}")
    assert said.endswith("; discarded, every snippet re-runs") and "\n" not in said
    assert cache.load(project) == {}


def test_a_well_formed_cache_is_taken(tmp_path):
    project = Project(tmp_path)
    cache.cache_file(project).parent.mkdir()
    cache.cache_file(project).write_text(json.dumps({"snippets": {"a": GOOD_RUN}}))
    assert cache.load_checked(project) == ({"snippets": {"a": GOOD_RUN}}, "")


@pytest.mark.parametrize("kind", ["folder", "unreadable"])
def test_an_input_that_is_no_readable_file_is_never_fresh(tmp_path, monkeypatch, kind):
    project = Project(tmp_path)
    data = tmp_path / "data.bin"
    data.write_bytes(b"x")
    digests = cache.Digests(project, {})
    recorded = {"data.bin": digests(data)}
    data.unlink()
    if kind == "folder":
        data.mkdir()
    else:
        data.write_bytes(b"x")
        monkeypatch.setattr(Path, "read_bytes", _refused)
    now = cache.on_disk(recorded, cache.Digests(project, {}))
    assert now["data.bin"] != recorded["data.bin"]
    assert now["data.bin"] == ("absent" if kind == "folder" else "unreadable")


def _refused(self):
    raise PermissionError(13, "Permission denied", str(self))


# ---- writing: all of a regen's files land, or none (nothing recorded lost or half-written) ----


@pytest.fixture
def folder(tmp_path):
    """docs/generated/ of a project at tmp_path (a batch writes only where regen writes)."""
    folder = tmp_path / "docs" / "generated"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_bytes(b"old a")
    (folder / "sub" / "b.txt").write_bytes(b"old b")
    (folder / "gone.txt").write_bytes(b"old gone")
    return folder


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def refuse_in(monkeypatch, where: Path, error: OSError) -> None:
    """Fail every file created in `where`, as a read-only folder or a full disk does."""
    real = os.open

    def opening(path, flags, *args, **kwargs):
        if Path(os.fsdecode(path)).parent == where and flags & os.O_CREAT:
            raise type(error)(error.errno, error.strerror, os.fsdecode(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", opening)


@pytest.mark.parametrize(
    "error",
    [PermissionError(errno.EACCES, "Permission denied"), OSError(errno.ENOSPC, "No space left")],
)
def test_a_refused_write_changes_nothing(folder, monkeypatch, error):
    before = tree(folder)
    refuse_in(monkeypatch, folder / "sub", error)
    with pytest.raises(writing.WriteError) as e, writing.batch(Project(folder.parents[1])) as into:
        assert into.write(folder / "a.txt", b"new a")
        assert into.delete(folder / "gone.txt")
        assert into.write(folder / "new.txt", b"new file")
        into.write(folder / "sub" / "b.txt", b"new b")
    assert str(e.value) == f"docs/generated/sub/b.txt: {error.strerror}"
    assert tree(folder) == before


def test_a_full_disk_midway_through_a_file_changes_nothing(folder, monkeypatch):
    before = tree(folder)
    real = os.write

    def write(fd, data):
        if len(data) > 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    with pytest.raises(writing.WriteError) as e, writing.batch(Project(folder.parents[1])) as into:
        into.write(folder / "a.txt", b"new")
        monkeypatch.setattr(os, "write", write)
        into.write(folder / "sub" / "b.txt", b"a longer new b")
    assert str(e.value) == "docs/generated/sub/b.txt: No space left on device"
    assert tree(folder) == before


def test_an_interrupted_batch_changes_nothing(folder):
    before = tree(folder)
    with pytest.raises(KeyboardInterrupt), writing.batch(Project(folder.parents[1])) as into:
        into.write(folder / "a.txt", b"new a")
        into.delete(folder / "gone.txt")
        raise KeyboardInterrupt
    assert tree(folder) == before


def test_a_batch_that_lands_leaves_nothing_aside(folder):
    with writing.batch(Project(folder.parents[1])) as into:
        assert not into.write(folder / "a.txt", b"old a")  # unchanged: not rewritten
        into.write(folder / "sub" / "b.txt", b"new b")
        into.delete(folder / "gone.txt")
    assert tree(folder) == {"a.txt": b"old a", "sub/b.txt": b"new b"}


def test_what_a_killed_regen_left_is_found_and_removed_and_nothing_else(tmp_path):
    gone = _dead_pid()
    generated = tmp_path / "docs" / "generated" / "by_hand"
    generated.mkdir(parents=True)
    pips = tmp_path / ".cache" / "verify" / "torch-2.14.1" / "lib"  # not written by a batch
    pips.mkdir(parents=True)
    (tmp_path / "verified").mkdir()
    keep = [
        generated / "leaves.txt",
        generated / f".leaves.txt.{os.getpid()}.ab12cd.tmp",  # a live regen's, in flight
        tmp_path / "docs" / "index.md",
        pips / f".record.{gone}.x1.tmp",  # named like ours, in a folder no batch writes in
    ]
    left = [
        generated / f".leaves.txt.{gone}.x_y9.tmp",
        generated / f".leaves.json.{gone}.k2j3.old",
        generated / ".leaves.txt.a1b2c3d4.tmp",  # the runner's old name, before the pid
        tmp_path / ".cache" / f".regen.json.{gone}.zz.tmp",
        tmp_path / "verified" / f".torch-2.14.1.json.{gone}.q8.tmp",  # a killed --verify's
    ]
    for path in keep + left:
        path.write_text("x")
    assert writing.leftovers(Project(tmp_path)) == sorted(left)
    assert writing.repair(Project(tmp_path)) == sorted(left)
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file()) == sorted(keep)


@pytest.mark.parametrize(
    "where", ["docs/index.md", ".cache/verify/torch-2.14.1/x.py", "verified/sub/x.json", "../x"]
)
def test_a_batch_writes_only_where_leftovers_are_looked_for(tmp_path, where):
    """What a killed batch leaves is found only in WRITTEN: a batch writes nowhere else."""
    project = Project(tmp_path / "p")
    for act in (
        lambda b: b.write(project.root / where, b"x"),
        lambda b: b.delete(project.root / where),
    ):
        with (
            pytest.raises(ValueError, match="a batch writes only in"),
            writing.batch(project) as into,
        ):
            act(into)
    assert not (project.root / where).exists()


def _dead_pid() -> int:
    """A pid no process has: above the kernel's largest."""
    with open("/proc/sys/kernel/pid_max") as f:
        return int(f.read()) + 1


def test_job_folders_of_dead_runners_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, "_in_memory", lambda: str(tmp_path))
    monkeypatch.setattr(pool, "IN_MEMORY", str(tmp_path))
    pool._sweep.cache_clear()
    gone = _dead_pid()
    (tmp_path / f"docpipe-{gone}-abc").mkdir()
    (tmp_path / f"docpipe-{gone}-abc" / "output.txt").write_text("x")
    (tmp_path / f"docpipe-{os.getpid()}-def").mkdir()
    (tmp_path / "docpipe-unrelated").mkdir()
    made = Path(pool._workdir())
    assert made.name.startswith(f"docpipe-{os.getpid()}-")
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {f"docpipe-{os.getpid()}-def", "docpipe-unrelated", made.name}
    pool._sweep.cache_clear()


# ---- the cache is keyed on what a run read, however it read it ----


def test_a_file_the_run_read_beyond_its_inputs_keys_the_cache(tmp_path):
    project = Project(tmp_path)
    data = tmp_path / "snippets" / "weights.bin"
    data.parent.mkdir()
    data.write_bytes(b"\x00" * 16)
    inputs = {"snippets/main.py": SOURCE}
    later = time.time_ns() + 10**9  # a regen that started after the file was written
    digests = lambda: cache.Digests(project, {})  # noqa: E731
    recorded = cache.with_reads(inputs, ["snippets/weights.bin"], digests(), later)
    assert recorded["snippets/weights.bin"] == hashlib.sha256(b"\x00" * 16).hexdigest()
    run = cache.entry(recorded, Settings(), {}, digests())
    assert not cache.fresh(Settings(), run, set(), digests())  # main.py: not on disk
    run["made_from"] = cache.made_from(Settings(), cache.on_disk(recorded, digests()))
    assert cache.fresh(Settings(), run, set(), digests())
    data.write_bytes(b"\x01" * 16)  # edited: the next regen runs the snippet again
    assert not cache.fresh(Settings(), run, set(), digests())


def test_a_read_file_edited_during_the_run_is_not_taken_as_read(tmp_path):
    project = Project(tmp_path)
    (tmp_path / "data.bin").write_bytes(b"new")
    earlier = time.time_ns() - 10**9  # the regen started before this edit
    found = cache.with_reads({}, ["data.bin"], cache.Digests(project, {}), earlier)
    assert found == {"data.bin": cache.EDITED_DURING_RUN}
    assert cache.on_disk(found, cache.Digests(project, {})) != found


def test_a_file_the_run_read_beyond_open_is_named_in_its_record(fit_line):
    data = "snippets/data/weights.bin"  # a repository file the run read without open()
    root = fit_line.project.root
    (root / data).parent.mkdir(parents=True)
    (root / data).write_bytes(b"\x01\x02")
    run = outcome()
    run.result.inputs = dict(INPUTS)
    run.result.reads = [data, FIGURES, "docs/index.md"]
    files = artifacts.build(fit_line, Settings(), run, {}, [])
    recorded = json.loads(files[fit_line.record])["inputs"]
    assert recorded[data] == hashlib.sha256(b"\x01\x02").hexdigest()
    assert recorded[FIGURES] == "absent"  # already an input: the run's own fingerprint stays
    assert "docs/index.md" not in recorded  # records name only what an author edits

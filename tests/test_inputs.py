"""A result kept per call (docpipe.inputs.memo) is the function's own answer whatever changed
since: every file or folder the call read, opened, stat-ed or listed, directly or through an
inner kept call, is an input, and a change of any makes the next call run again. The page
rules are kept so (docpipe.pages.rules.page_problems): a page rule result is found again when
its page changes, and not when another page's snippet does."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from docpipe import catalog, inputs
from docpipe.pages import rules
from docpipe.project import Project
from projects import REPO

pytestmark = pytest.mark.unit


def bump(path: Path) -> None:
    """A new modification time for the file, as a save makes (some file systems keep the same
    nanoseconds for two writes in a row)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def make(tmp_path):
    """A kept function over a folder: reads a.txt, lists the folder, stats b.txt (which may
    not exist), and calls a kept inner function reading c.txt; counts its runs."""
    ran = {"outer": 0, "inner": 0}

    @inputs.memo(key=lambda folder: str(folder))
    def inner(folder: Path) -> str:
        ran["inner"] += 1
        return (folder / "c.txt").read_text()

    @inputs.memo(key=lambda folder: str(folder))
    def outer(folder: Path) -> list:
        ran["outer"] += 1
        names = sorted(p.name for p in folder.iterdir())
        return [(folder / "a.txt").read_text(), names, (folder / "b.txt").exists(), inner(folder)]

    for name in ("a.txt", "c.txt"):
        (tmp_path / name).write_text(name)
    return outer, inner, ran


def fresh(folder: Path) -> list:
    names = sorted(p.name for p in folder.iterdir())
    return [
        (folder / "a.txt").read_text(),
        names,
        (folder / "b.txt").exists(),
        (folder / "c.txt").read_text(),
    ]


CHANGES = ["edit a read file", "create a file only stat-ed", "add a file to a listed folder",
           "edit the inner call's file", "delete a read file"]  # fmt: skip


def change_it(folder: Path, change: str) -> None:
    if change == "edit a read file":
        (folder / "a.txt").write_text("edited")
        bump(folder / "a.txt")
    elif change == "create a file only stat-ed":
        (folder / "b.txt").write_text("")
    elif change == "add a file to a listed folder":
        (folder / "z.txt").write_text("")
        bump(folder)
    elif change == "edit the inner call's file":
        (folder / "c.txt").write_text("edited")
        bump(folder / "c.txt")
    else:
        (folder / "a.txt").unlink()


@pytest.mark.parametrize("change", CHANGES)
def test_a_kept_result_is_found_again_after_any_change_of_what_it_read(tmp_path, change):
    outer, inner, ran = make(tmp_path)
    assert outer(tmp_path) == fresh(tmp_path)
    inner(tmp_path)  # answered from its cache inside outer's first run: still an input
    assert outer(tmp_path) == fresh(tmp_path) and ran["outer"] == 1  # nothing changed: kept
    change_it(tmp_path, change)
    if change == "delete a read file":
        with pytest.raises(FileNotFoundError):
            outer(tmp_path)
        (tmp_path / "a.txt").write_text("back")
        bump(tmp_path / "a.txt")
    assert outer(tmp_path) == fresh(tmp_path)
    assert ran["outer"] >= 2


@pytest.mark.parametrize("change", CHANGES)
def test_a_snapshot_asks_once_per_file_and_the_next_build_sees_every_change(tmp_path, change):
    """A build asks once whether each file of a kept result changed (inputs.start_snapshot):
    a change after that is found by the next build, and by another thread at once."""
    outer, inner, ran = make(tmp_path)
    inputs.start_snapshot()
    try:
        before = outer(tmp_path)
        assert outer(tmp_path) == before  # kept: its files looked at
        change_it(tmp_path, change)
        assert outer(tmp_path) == before and ran["outer"] == 1
        elsewhere = []
        other = threading.Thread(target=lambda: elsewhere.append(_answer(outer, tmp_path)))
        other.start()
        other.join()
        assert elsewhere == [_answer(fresh, tmp_path)] and ran["outer"] == 2
    finally:
        inputs.end_snapshot()
    assert _answer(outer, tmp_path) == _answer(fresh, tmp_path)


def _answer(function, folder: Path):
    try:
        return function(folder)
    except FileNotFoundError as e:
        return type(e)


def test_a_check_in_one_snapshot_ends_it_and_inside_a_build_is_part_of_the_builds(tmp_path):
    """inputs.snapshot(): a check of the site looks up each file once; after the check a
    change is seen at once. Inside a build's snapshot the check is part of it, and does not end
    it: the build still answers from what it looked up."""
    outer, inner, ran = make(tmp_path)
    with inputs.snapshot():
        before = outer(tmp_path)
        assert outer(tmp_path) == before  # kept: its files looked at
        change_it(tmp_path, "edit a read file")
        assert outer(tmp_path) == before and ran["outer"] == 1
    assert _answer(outer, tmp_path) == _answer(fresh, tmp_path) and ran["outer"] == 2
    inputs.start_snapshot()
    try:
        now = outer(tmp_path)
        assert outer(tmp_path) == now
        with inputs.snapshot():
            change_it(tmp_path, "edit a read file")
            assert outer(tmp_path) == now
        assert outer(tmp_path) == now and ran["outer"] == 2  # the build's snapshot goes on
    finally:
        inputs.end_snapshot()
    assert _answer(outer, tmp_path) == _answer(fresh, tmp_path) and ran["outer"] == 3


def test_a_snapshot_never_ended_is_dropped_by_the_next(tmp_path):
    outer, inner, ran = make(tmp_path)
    inputs.start_snapshot()
    outer(tmp_path)
    change_it(tmp_path, "edit a read file")
    inputs.start_snapshot()  # a build that failed before its end, then the next build
    try:
        assert outer(tmp_path) == fresh(tmp_path)
    finally:
        inputs.end_snapshot()


@pytest.mark.parametrize(
    "change, runs_again",
    [("add a file to it", False), ("remove a file from it", False),
     ("replace it with a file", True), ("remove it", True)],
)  # fmt: skip
def test_a_folder_only_stat_ed_counts_as_being_one_not_as_what_it_holds(
    tmp_path, change, runs_again
):
    """exists() or is_dir() of a folder asks whether it is there: a lock or an editor's file
    made in it keeps the result, as a listing of the same folder does not (above)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "old.txt").write_text("")
    ran = []

    @inputs.memo(key=lambda path: str(path))
    def is_folder(path: Path) -> bool:
        ran.append(1)
        return path.is_dir()

    assert is_folder(folder) is True
    if change == "add a file to it":
        (folder / ".regen.lock").write_text("")
    elif change == "remove a file from it":
        (folder / "old.txt").unlink()
    elif change == "replace it with a file":
        shutil.rmtree(folder)
        folder.write_text("")
    else:
        shutil.rmtree(folder)
    assert is_folder(folder) == folder.is_dir()
    assert len(ran) == (2 if runs_again else 1)


def test_a_folder_listed_after_it_was_stat_ed_counts_as_what_it_holds(tmp_path):
    ran = []

    @inputs.memo(key=lambda path: str(path))
    def names(path: Path) -> list:
        ran.append(1)
        return sorted(p.name for p in path.iterdir()) if path.exists() else []

    assert names(tmp_path) == []
    (tmp_path / "new.txt").write_text("")
    assert names(tmp_path) == ["new.txt"] and len(ran) == 2


def test_an_inner_kept_call_makes_the_outer_one_depend_on_its_files(tmp_path):
    """The inner call is answered from its cache while the outer one records: the outer still
    sees the inner's file change."""
    outer, inner, ran = make(tmp_path)
    inner(tmp_path)  # kept before outer ever runs
    outer(tmp_path)
    assert ran == {"outer": 1, "inner": 1}
    (tmp_path / "c.txt").write_text("edited")
    bump(tmp_path / "c.txt")
    assert outer(tmp_path)[3] == "edited"


def test_a_kept_list_is_never_the_callers_to_change(tmp_path):
    outer, _, _ = make(tmp_path)
    outer(tmp_path).append("mine")
    assert outer(tmp_path) == fresh(tmp_path)


def test_a_page_rule_result_is_found_again_for_its_page_only(tmp_path):
    """On a copy of the site: a number typed into one page is named at once, and the pages
    whose inputs did not change are answered from the cache."""
    for part in ("docs", "snippets", "overrides", "scripts"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns(".cache"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(REPO / name, tmp_path / name)
    project = Project(tmp_path)
    cat = catalog.load(project)
    page, other = project.docs / "backprop-by-hand.md", project.docs / "build-your-own.md"
    before = rules.page_problems(cat, page)
    rules.page_problems(cat, other)
    runs = rules.page_problems.kept.runs
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "\nThe loss fell to 0.123456 after the step.\n", encoding="utf-8")
    bump(page)
    after = rules.page_problems(cat, page)
    assert rules.page_problems(cat, other) is not None
    assert rules.page_problems.kept.runs == runs + 1  # the edited page alone ran again
    assert [p for p in after if p not in before], "the typed number was not named"
    assert any("0.123456" in p.message for p in after), after


def test_kept_results_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "LIMIT", 3)
    ran = []

    @inputs.memo(key=lambda n: n)
    def square(n: int) -> int:
        ran.append(n)
        return n * n

    for n in range(5):
        square(n)
    assert len(square.kept.results) == 3 and square(4) == 16 and ran == [0, 1, 2, 3, 4]
    assert square(0) == 0 and ran[-1] == 0  # the oldest was dropped, so it ran again


def test_a_folder_that_comes_back_to_its_first_state_during_a_build_is_found_by_the_next(
    tmp_path,
):
    """An editor's save sets the old file aside, writes the new one and removes the aside: a
    listing in between is noted as it was then, not as the build first looked at the folder."""
    (tmp_path / "a.md").write_text("x")

    @inputs.memo(key=lambda folder: str(folder))
    def names(folder: Path) -> list[str]:
        return sorted(os.listdir(folder))

    inputs.start_snapshot()
    try:
        assert inputs.unchanged({str(tmp_path): inputs.state(str(tmp_path))})  # first look
        os.rename(tmp_path / "a.md", tmp_path / "a.md~")
        assert names(tmp_path) == ["a.md~"]
        (tmp_path / "a.md").write_text("y")
        os.unlink(tmp_path / "a.md~")
    finally:
        inputs.end_snapshot()
    inputs.start_snapshot()  # the next build
    try:
        assert names(tmp_path) == ["a.md"]
    finally:
        inputs.end_snapshot()


def test_a_page_read_after_a_save_during_a_build_is_noted_as_read(tmp_path):
    """Its text and its noted state are of the same moment: the next build keeps what was
    made from it (a state noted from before the save would be found changed at every build)."""
    from docpipe.pages.reading import Pages

    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "x.md"
    page.write_text("old\n")
    inputs.start_snapshot()
    try:
        Pages(Project(tmp_path)).page(page)  # the build's first look
        page.write_text("new text\n")
        bump(page)
        read = Pages(Project(tmp_path)).page(page)
    finally:
        inputs.end_snapshot()
    assert read.text == "new text\n"
    inputs.start_snapshot()
    try:
        assert inputs.unchanged({str(page): read.state})
    finally:
        inputs.end_snapshot()

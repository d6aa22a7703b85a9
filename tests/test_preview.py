"""`mkdocs serve` previews a save quickly and never shows a stale page without saying so: a
page's work is kept per page until one of its inputs changes (docpipe.inputs), and a kept page is
the page a fresh build would make, whichever input changed; a build waits a moment for the
re-run it started (docpipe.live), so a quick snippet's new output is on that build's pages and
no second build is needed, while a slow one is shown as running and asks for a build at its
end."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from docpipe import catalog, inputs, live, pagework
from docpipe.project import Project
from projects import REPO

pytestmark = pytest.mark.unit


def bump(path: Path) -> None:
    """A new modification time, as a save makes (two writes may share one on some systems)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


# ---- listing: which files exist, not what they hold ------------------------------------------


def listed(tmp_path: Path):
    ran = []

    @inputs.memo(key=lambda folder: str(folder))
    @inputs.listing
    def names(folder: Path) -> list[str]:
        ran.append(1)
        return sorted(p.name for p in folder.rglob("*") if p.is_file())

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("a")
    return names, ran


def test_a_listing_is_kept_when_a_listed_file_is_saved_or_replaced(tmp_path):
    names, ran = listed(tmp_path)
    assert names(tmp_path) == ["a.txt"]
    (tmp_path / "sub" / "a.txt").write_text("edited")
    bump(tmp_path / "sub" / "a.txt")
    (tmp_path / "sub" / "b.tmp").write_text("new")  # written aside, then renamed over: a regen
    os.replace(tmp_path / "sub" / "b.tmp", tmp_path / "sub" / "a.txt")
    assert names(tmp_path) == ["a.txt"] and len(ran) == 1


@pytest.mark.parametrize("change", ["add", "remove", "rename", "add in a new folder"])
def test_a_listing_is_found_again_when_a_file_is_added_removed_or_renamed(tmp_path, change):
    names, ran = listed(tmp_path)
    names(tmp_path)
    sub = tmp_path / "sub"
    if change == "add":
        (sub / "b.txt").write_text("b")
    elif change == "remove":
        (sub / "a.txt").unlink()
    elif change == "rename":
        (sub / "a.txt").rename(sub / "c.txt")
    else:
        (sub / "deeper").mkdir()
        (sub / "deeper" / "d.txt").write_text("d")
    assert names(tmp_path) == sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    assert len(ran) == 2


def test_a_file_replaced_in_a_listed_folder_is_still_an_input_of_who_reads_it(tmp_path):
    @inputs.memo(key=lambda folder: str(folder))
    def read(folder: Path) -> list[str]:
        return [p.read_text() for p in sorted(folder.iterdir())]

    (tmp_path / "a.txt").write_text("old")
    assert read(tmp_path) == ["old"]
    (tmp_path / "a.tmp").write_text("new")
    os.replace(tmp_path / "a.tmp", tmp_path / "a.txt")
    bump(tmp_path / "a.txt")
    assert read(tmp_path) == ["new"]


# ---- a kept page is the page a fresh build makes ----------------------------------------------

PAGE = "backprop-by-hand.md"
RECORD = "docs/generated/by_hand/square.json"
# an output the page includes whole (pymdownx.snippets reads the file); one included by section
# is read from its record
OUTPUT = "docs/generated/by_hand/recording.txt"
SNIPPET = "snippets/by_hand/square.py"


def _edit_value(root: Path) -> None:
    record = json.loads((root / RECORD).read_text())
    record["values"]["x1"] = "7"
    (root / RECORD).write_text(json.dumps(record, indent=2) + "\n")


def _edit_output(root: Path) -> None:
    path = root / OUTPUT
    text = path.read_text()
    assert "scaled.grad_fn:  MulBackward0" in text
    path.write_text(text.replace("scaled.grad_fn:  MulBackward0", "scaled.grad_fn:  AddBackward0"))


def _edit_snippet(root: Path) -> None:
    path = root / SNIPPET
    path.write_text(path.read_text() + "# a comment, saved\n")


def _add_data_file(root: Path) -> None:
    (root / "snippets" / "by_hand" / "table.csv").write_text("x\n1\n")


def _edit_settings(root: Path) -> None:
    path = root / "snippets" / "snippets.toml"
    path.write_text(path.read_text() + "\n# a comment, saved\n")


def _edit_page(root: Path) -> None:
    path = root / "docs" / PAGE
    path.write_text(path.read_text() + "\nOne more sentence.\n")


CHANGES = {  # what changed -> (the edit, does the page change)
    "a recorded value": (_edit_value, True),
    "the recorded output": (_edit_output, None),  # pymdownx includes it: the page may not
    "the snippet's code": (_edit_snippet, True),  # now out of date: the page says so
    "a data file added": (_add_data_file, True),  # every snippet's inputs now differ
    "snippets.toml": (_edit_settings, None),
    "the page": (_edit_page, True),
}


def copied_site(root: Path) -> Path:
    """The repository's site (pages, snippets, settings) copied into root."""
    for part in ("docs", "snippets", "overrides", "scripts"):
        shutil.copytree(
            REPO / part, root / part, ignore=shutil.ignore_patterns(".cache", "__pycache__")
        )
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(REPO / name, root / name)
    return root


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return copied_site(tmp_path_factory.mktemp("site"))


def page(project: Project, **build) -> str:
    path = project.docs / PAGE
    return pagework.Build(project, **build).page_markdown(path.read_text(), PAGE, path)


@pytest.mark.parametrize("change", CHANGES)
def test_a_kept_page_is_what_a_fresh_build_makes_whatever_input_changed(
    copy, tmp_path, monkeypatch, change
):
    root = tmp_path / "site"
    shutil.copytree(copy, root)
    project = Project(root)
    said = {"notice": live.notice}  # staleness said on the page
    before = page(project, **said)
    assert page(project, **said) == before  # kept
    edit, changes = CHANGES[change]
    edit(root)
    for path in root.rglob("*"):  # a new time for every file, as a save a moment later makes
        if path.is_file():
            bump(path)
    kept = page(project, **said)
    inputs.forget()
    fresh = page(project, **said)
    assert kept == fresh
    if changes:
        assert kept != before, f"{change} did not change the page"
    if change == "the snippet's code":
        assert "Out of date: snippets/by_hand/square.py changed" in kept
    if change == "a recorded value":
        assert "x &= 7:" in kept


def test_a_save_works_again_only_the_pages_that_read_it(copy, tmp_path):
    root = tmp_path / "site"
    shutil.copytree(copy, root)
    project = Project(root)
    pages = sorted(p.name for p in project.docs.glob("*.md"))

    def work(name: str) -> str:
        path = project.docs / name
        return pagework.Build(project).page_markdown(path.read_text(), name, path)

    for name in pages:
        work(name)
    runs = pagework._worked.kept.runs
    _edit_snippet(root)
    bump(root / SNIPPET)
    for name in pages:
        work(name)
    assert pagework._worked.kept.runs - runs == 1  # backprop-by-hand.md alone shows it


# ---- a build waits a moment for the re-run it started -----------------------------------------


class FakeRuns:
    """A serve session whose re-run of one snippet ends when the test says so."""

    def __init__(self, monkeypatch, project: Project):
        self.release = threading.Event()
        self.rebuilds = []
        self.done = threading.Event()
        snippet = catalog.load(project).snippets[0]
        self.snippet = snippet
        outdated = {snippet: type("Since", (), {"now": {"x": "1"}})()}
        monkeypatch.setattr(live, "runnable", lambda: False)  # no zygote
        monkeypatch.setattr(live, "outdated", lambda cat, among=None: dict(outdated))
        self.outdated = outdated

        def regen(snippets, cat, force):
            self.release.wait(30)
            outdated.clear()  # recorded: nothing out of date
            return {}, ""

        monkeypatch.setattr(live, "_regen", regen)
        self.session = live.Session(project)
        self.session.runs = True

        def rebuild():
            self.rebuilds.append(1)
            self.done.set()

        self.session.notify(rebuild)


def test_a_quick_rerun_is_on_the_build_that_started_it_and_asks_for_no_other(copy, monkeypatch):
    runs = FakeRuns(monkeypatch, Project(copy))
    monkeypatch.setattr(live, "WAIT", 30.0)
    runs.release.set()  # the run ends as soon as it starts
    runs.session.refresh()
    assert runs.session.running == set() and not runs.outdated  # this build shows it
    runs.session.worker.join(30)
    assert runs.rebuilds == [] and not runs.session.unseen


def test_a_slow_rerun_is_shown_running_and_asks_for_a_build_at_its_end(copy, monkeypatch):
    runs = FakeRuns(monkeypatch, Project(copy))
    monkeypatch.setattr(live, "WAIT", 0.01)
    runs.session.refresh()  # returns while the run goes on
    assert runs.session.running == {runs.snippet}
    assert runs.rebuilds == []
    runs.release.set()
    assert runs.done.wait(30)
    assert runs.rebuilds == [1] and runs.session.running == set()


# ---- the search index's entries of a page, kept under serve ------------------------------------


def test_kept_search_entries_are_what_the_search_plugin_makes_of_the_page(monkeypatch):
    import importlib.util
    from types import SimpleNamespace

    from material.plugins.search.plugin import SearchIndex, SearchPlugin
    from mkdocs.structure.toc import AnchorLink

    monkeypatch.setattr(SearchPlugin, "on_page_context", SearchPlugin.on_page_context)
    monkeypatch.setattr(SearchIndex, "add_entry_from_context", SearchIndex.add_entry_from_context)
    monkeypatch.setattr(SearchIndex, "docpipe_kept", None, raising=False)
    spec = importlib.util.spec_from_file_location("hooks", REPO / "scripts" / "mkdocs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    fresh = SearchIndex.add_entry_from_context
    hooks._keep_search_entries()

    def page(text: str, heading: str = "Second", tags=None):
        toc = [AnchorLink("First", "first", 1), AnchorLink(heading, "second", 2)]
        content = f'<h1 id="first">First</h1><p>{text}</p><h2 id="second">{heading}</h2><p>x</p>'
        meta = {"tags": tags} if tags else {}
        return SimpleNamespace(url="a/", content=content, toc=toc, title="First", meta=meta)

    def entries(add, p) -> list:
        index = SearchIndex()
        add(index, p)
        return index.entries

    variants = [page("two"), page("one", "Other"), page("one", tags=["t"])]
    for p in (page("one"), page("one"), *variants):
        assert entries(SearchIndex.add_entry_from_context, p) == entries(fresh, p)
    kept = entries(SearchIndex.add_entry_from_context, page("one"))
    kept[0]["text"] = "changed by a caller"
    assert entries(SearchIndex.add_entry_from_context, page("one")) == entries(fresh, page("one"))


def test_a_page_is_left_as_the_search_plugin_leaves_it_with_or_without_search_marks(
    monkeypatch,
):
    import importlib.util
    from types import SimpleNamespace

    from material.plugins.search.plugin import SearchIndex, SearchPlugin

    made = getattr(SearchPlugin.on_page_context, "docpipe_made", SearchPlugin.on_page_context)
    monkeypatch.setattr(SearchPlugin, "on_page_context", made)
    spec = importlib.util.spec_from_file_location("hooks", REPO / "scripts" / "mkdocs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    hooks._strip_search_marks_only_where_there_are_some()
    assert SearchPlugin.on_page_context is not made

    def after(on_page_context, content: str):
        plugin = SearchPlugin()
        plugin.config = SimpleNamespace(enabled=True)
        plugin.search_index = SearchIndex()
        page = SimpleNamespace(url="a/", content=content, toc=[], title="A", meta={})
        on_page_context(plugin, {}, page=page, config={}, nav=None)
        return page.content, plugin.search_index.entries

    for content in (
        "<p>plain</p>",
        '<p data-search-exclude="x">hidden</p><p>shown</p>',
        '<h2 data-search-boost="2">Boosted</h2><p>data-search- in the text</p>',
    ):
        assert after(SearchPlugin.on_page_context, content) == after(made, content)


# ---- the runner's child keeps its file functions ----------------------------------------------


def test_data_files_leave_a_process_without_page_work_as_it_was(copy, monkeypatch):
    """The runner's sealed child lists the data files after a run: that routes none of its file
    functions through the recorders (a page-side process keeps the listing instead)."""
    from docpipe.recorded import fingerprints

    installed = []
    monkeypatch.setattr(inputs, "_installed", False)  # as in a process without page work
    monkeypatch.setattr(inputs, "_install", lambda: installed.append(1))
    project = Project(copy)
    kept = fingerprints.data_files.kept.kept
    assert fingerprints.data_files(project) == fingerprints.data_files(project)
    assert installed == [] and fingerprints.data_files.kept.kept == kept


def test_data_files_are_kept_where_the_page_side_records(copy, tmp_path):
    from docpipe.recorded import fingerprints

    inputs._install()
    project = Project(copy)
    first = fingerprints.data_files(project)
    kept = fingerprints.data_files.kept.kept
    assert fingerprints.data_files(project) == first
    assert fingerprints.data_files.kept.kept == kept + 1


# ---- a save is seen as it happens --------------------------------------------------------------


def _saved_in_place(folder: Path) -> None:
    (folder / "a.py").write_text("x = 2\n")


def _saved_by_rename(folder: Path) -> None:  # an editor's atomic save
    (folder / ".a.py.swp").write_text("x = 2\n")
    os.replace(folder / ".a.py.swp", folder / "a.py")


def _added(folder: Path) -> None:
    (folder / "new").mkdir()
    (folder / "new" / "c.py").write_text("y = 1\n")


def _moved_away(folder: Path) -> None:  # a file manager's or an IDE's delete: to the trash
    os.rename(folder / "sub", folder.parent / f"{folder.name}-trash")


def test_a_rerun_a_save_started_is_waited_for_by_the_build_it_asked_for(copy, monkeypatch):
    """A save seen by the watch starts its re-run before MkDocs starts the build (saved); that
    build waits for it as for its own: a quick one is on its pages and asks for no other
    build, and the build starts no second re-run."""
    runs = FakeRuns(monkeypatch, Project(copy))
    monkeypatch.setattr(live, "WAIT", 30.0)
    runs.session.saved()
    early = runs.session.worker
    assert early.is_alive() and runs.session.running == {runs.snippet}
    runs.session.saved()  # the same save's other event, or another: no second re-run
    assert runs.session.worker is early
    runs.release.set()
    runs.session.refresh()
    assert runs.session.worker is early and not early.is_alive()
    assert runs.session.running == set() and not runs.outdated  # this build shows it
    assert runs.rebuilds == [] and not runs.session.unseen
    assert not runs.session.waiting  # a later re-run's end asks for its build again


def test_a_slow_rerun_a_save_started_is_shown_running_and_asks_for_a_build_at_its_end(
    copy, monkeypatch
):
    runs = FakeRuns(monkeypatch, Project(copy))
    monkeypatch.setattr(live, "WAIT", 0.01)
    runs.session.saved()
    runs.session.refresh()  # waits WAIT, then returns while the run goes on
    assert runs.session.running == {runs.snippet} and runs.rebuilds == []
    runs.release.set()
    assert runs.done.wait(30)
    assert runs.rebuilds == [1] and runs.session.running == set()


def _removed(folder: Path) -> None:
    (folder / "a.py").unlink()


@pytest.mark.parametrize("save", [_saved_in_place, _saved_by_rename, _added, _removed, _moved_away])
def test_a_save_under_a_watched_folder_asks_for_a_build_and_a_read_does_not(
    tmp_path, monkeypatch, save
):
    """A read is not even reported to the process (the kernel is asked for saves only: a
    build reads every snippet); a compiled module written in __pycache__ is no save."""
    from watchdog import events

    saved = threading.Event()
    session = type("S", (), {"observer": None, "saved": lambda self: saved.set()})()
    monkeypatch.setattr(live, "_session", session)
    reported = []
    dispatch = events.FileSystemEventHandler.dispatch
    monkeypatch.setattr(
        events.FileSystemEventHandler,
        "dispatch",
        lambda self, event: (reported.append(event), dispatch(self, event)),
    )
    asked = threading.Event()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 1\n")
    (tmp_path / "__pycache__").mkdir()
    assert live.watch([tmp_path], asked.set)
    try:
        for _ in range(20):
            (tmp_path / "a.py").read_text()  # a run reads its snippet
            os.listdir(tmp_path)
        (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"compiled")
        assert not asked.wait(1.0)
        assert all("__pycache__" in e.src_path for e in reported), reported
        assert not saved.is_set()
        save(tmp_path)
        assert asked.wait(5.0)
        # a save that ended starts its re-run at once (written and closed, renamed into place);
        # a file in a folder made a moment before may be seen only as created: its build's
        # refresh starts it, as any build's does
        if save in (_saved_in_place, _saved_by_rename):
            assert saved.wait(5.0)
        elif save in (_removed, _moved_away):
            assert not saved.wait(1.0)
    finally:
        live._session.observer.stop()


# ---- the theme's files, kept under serve -------------------------------------------------------


def test_kept_theme_files_are_what_mkdocs_finds_whatever_changed_in_the_theme(
    tmp_path, monkeypatch
):
    """MkDocs lists every file of the theme's folders in each build; under serve the list is
    kept until a folder of the theme changes: the files are MkDocs' own after each change (a
    file added, removed, renamed, a new folder, a docs file of the same name), and nothing
    is listed again while nothing changed."""
    import importlib.util

    from mkdocs.config import load_config
    from mkdocs.structure.files import Files, get_files

    monkeypatch.setattr(Files, "add_files_from_theme", Files.add_files_from_theme)
    made = getattr(Files.add_files_from_theme, "docpipe_made", Files.add_files_from_theme)
    listings = []

    def counted(self, env, config):
        listings.append(1)
        return made(self, env, config)

    monkeypatch.setattr(Files, "add_files_from_theme", counted)
    spec = importlib.util.spec_from_file_location("hooks", REPO / "scripts" / "mkdocs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    hooks._keep_theme_files()
    kept = Files.add_files_from_theme
    assert kept is not counted

    theme = tmp_path / "custom"
    (theme / "sub").mkdir(parents=True)
    (theme / "extra.css").write_text("a {}")
    (theme / "sub" / "a.js").write_text("1")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ntheme:\n  name: mkdocs\n  custom_dir: custom\nplugins: []\n"
    )
    config = load_config(str(tmp_path / "mkdocs.yml"))

    def files(add) -> list:
        found = get_files(config)
        add(found, config.theme.get_env(), config)
        return sorted((f.src_uri, f.abs_src_path, f.abs_dest_path, f.url) for f in found)

    def same() -> None:
        assert files(kept) == files(made)

    same()
    before = len(listings)
    assert files(kept) == files(made) and len(listings) == before  # nothing changed: kept
    (theme / "sub" / "a.js").write_text("2")  # a file saved: the list is the same
    assert files(kept) == files(made) and len(listings) == before
    changes = [
        lambda: (theme / "new.css").write_text("b {}"),
        lambda: (theme / "sub" / "a.js").unlink(),
        lambda: (theme / "extra.css").rename(theme / "renamed.css"),
        lambda: (theme / "deep" / "er").mkdir(parents=True),
        lambda: (theme / "deep" / "er" / "c.js").write_text("3"),
        lambda: (tmp_path / "docs" / "renamed.css").write_text("docs {}"),
    ]
    for change in changes:
        change()
        same()
    assert any(f[0] == "deep/er/c.js" for f in files(kept))
    assert ("renamed.css", str(tmp_path / "docs" / "renamed.css")) in {f[:2] for f in files(kept)}

"""`mkdocs serve` keeps each page's render between builds (docpipe.preview): a kept render is
the render a fresh build makes, whatever input of the page changed (its Markdown, an output
pymdownx includes, the snippet, a page it links to), warns as that render did, and a changed
notebook is converted one build later, saying so meanwhile. Not unit tests: MkDocs' config
loads mkdocs-jupyter, whose jupytext asks pandoc its version in a process."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from docpipe import inputs, live, pagework, preview
from test_preview import CHANGES, PAGE, SNIPPET, _edit_snippet, bump, copied_site

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    return copied_site(tmp_path_factory.mktemp("site"))


@pytest.fixture
def site(copy, tmp_path, monkeypatch) -> Path:
    """A copy of the site to change, the current folder (pymdownx.snippets reads includes from
    it, as MkDocs runs in the folder of mkdocs.yml)."""
    root = tmp_path / "site"
    shutil.copytree(copy, root)
    monkeypatch.chdir(root)
    return root


def _mkdocs(root: Path, **build):
    """MkDocs' config and files of the site at root, as a build loads them; with `build`, the
    pagework.Build its pages are converted in (as the hooks' on_config hands one to them)."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    config = load_config(str(root / "mkdocs.yml"))
    if build:
        pagework.Build(pagework.project_at(root), **build).hand_to_pages(config)
    notebooks = config.plugins[pagework.NOTEBOOKS]  # as its build events set it up
    notebooks.on_pre_build(config)
    return config, notebooks.on_files(get_files(config), config)


def _rendered(kept: preview.Rendered, root: Path, src: str = PAGE, config=None, shows=(), **build):
    """The page at src rendered through `kept`, as the hooks hand MkDocs' render to it."""
    from mkdocs.structure.pages import Page

    config, files = _mkdocs(root, **build) if config is None else config
    page = Page(None, files.get_file_from_path(src), config)
    config.plugins.on_pre_page(page, config=config, files=files)  # mkdocs-jupyter's render
    page.read_source(config)
    kept.render(page, config, files, page.render, shows=shows, notebook=src.endswith(".ipynb"))
    return page


def _same(a, b) -> None:
    assert a.content == b.content
    assert [(i.id, i.title) for i in a.toc] == [(i.id, i.title) for i in b.toc]
    assert a.title == b.title and a.present_anchor_ids == b.present_anchor_ids
    assert {f.src_uri: v for f, v in (a.links_to_anchors or {}).items()} == {
        f.src_uri: v for f, v in (b.links_to_anchors or {}).items()
    }


def _remove_linked_page(root: Path) -> None:
    (root / "docs" / "glossary.md").unlink()  # backprop-by-hand.md links to it


RENDER_CHANGES = {
    **CHANGES,
    "a linked page removed": (_remove_linked_page, True),  # the link now warns, unresolved
}


@pytest.mark.parametrize("change", RENDER_CHANGES)
def test_a_kept_render_is_what_a_fresh_render_makes_whatever_input_changed(
    site, monkeypatch, change
):
    root = site
    serving = {"serving": True, "notice": live.notice}  # a problem shown, not raised
    kept = preview.Rendered()
    before = _rendered(kept, root, **serving)
    _same(_rendered(kept, root, **serving), before)
    assert kept.renders == 1  # the second was the kept one
    edit, changes = RENDER_CHANGES[change]
    edit(root)
    for path in root.rglob("*"):  # a save a moment later; mkdocs.yml, part of the key, kept
        if path.is_file() and path.name != "mkdocs.yml":
            bump(path)
    again = _rendered(kept, root, **serving)
    inputs.forget()
    fresh = _rendered(preview.Rendered(), root, **serving)
    _same(again, fresh)
    assert kept.renders == 2, f"{change}: the kept render was reused"
    if changes is not None or change == "the recorded output":  # pymdownx includes it
        assert again.content != before.content, f"{change} did not change the page"


def test_a_kept_render_warns_as_the_render_did(site, caplog):
    root = site
    page = root / "docs" / PAGE
    page.write_text(page.read_text() + "\nSee [the missing page](nowhere.md).\n")
    kept = preview.Rendered()
    loaded = _mkdocs(root)
    warned = []
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mkdocs"):
            _rendered(kept, root, config=loaded)
        warned.append([r.getMessage() for r in caplog.records if "nowhere.md" in r.getMessage()])
    assert kept.renders == 1
    assert warned[0] and warned[1] == warned[0]


def test_a_changed_notebook_is_converted_one_build_later_and_says_so(site):
    root = site
    src = "notebooks/backprop-by-hand.ipynb"
    kept = preview.Rendered()
    before = _rendered(kept, root, src)
    notebook = root / "docs" / src
    data = json.loads(notebook.read_text())
    cell = next(c for c in data["cells"] if c["cell_type"] == "markdown")
    cell["source"] = ["A sentence added to the notebook.\n\n", *cell["source"]]
    notebook.write_text(json.dumps(data))
    put_off = _rendered(kept, root, src)
    assert "is being converted" in put_off.content and before.content in put_off.content
    assert "A sentence added" not in put_off.content
    assert kept.take_later() and not kept.take_later()  # asked once
    converted = _rendered(kept, root, src)
    assert "A sentence added" in converted.content and "is being converted" not in converted.content
    assert not kept.take_later()
    _same(converted, _rendered(preview.Rendered(), root, src))
    renders = kept.renders  # the site around it changed, not the notebook: rendered at once
    around = _rendered(kept, root, src, shows=("a problem of another page",))
    assert kept.renders == renders + 1 and "is being converted" not in around.content
    assert not kept.take_later()


def test_an_unchanged_site_renders_nothing_again(site):
    root = site
    kept = preview.Rendered()
    loaded = _mkdocs(root)
    for src in (PAGE, "index.md", "glossary.md"):
        _rendered(kept, root, src, config=loaded)
    runs = kept.renders
    _edit_snippet(root)  # backprop-by-hand.md shows it
    bump(root / SNIPPET)
    loaded = _mkdocs(root)
    for src in (PAGE, "index.md", "glossary.md"):
        _rendered(kept, root, src, config=loaded)
    assert kept.renders - runs == 1

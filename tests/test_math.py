"""Math rendered at build time (docpipe.pages.katex): a formula KaTeX refuses fails the build naming
page, line and formula; `mkdocs serve` shows it on the page; renderings are cached."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from docpipe.pages import katex
from docpipe.project import Project
from projects import REPO as ROOT
from projects import SITE

pytestmark = pytest.mark.unit

KATEX = katex.katex_dir(SITE)

PAGE = textwrap.dedent(
    r"""
    # Broken formulas

    A good one, $x^2$, then one left open: $\frac{1}{$ and
    an unknown macro, in a display:

    $$
    \notamacro x
    $$

    !!! note "Inside an admonition"

        Still good: $y = 2$; still bad: $\alsonotamacro$.

    \begin{aligned}
    \lastbadmacro &= 1
    \end{aligned}
    """
).lstrip()

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# A notebook\n", "\n", "Fine."]},
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["Good $a + b$,\n", "bad $\\notamacro y$."],
        },
    ],
    "metadata": {"kernelspec": {"language": "python", "name": "python3", "display_name": "Py"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def tiny_site(folder):
    """A site of one page and one notebook, built with this repository's hooks."""
    (folder / "docs" / "assets").mkdir(parents=True)
    (folder / "docs" / "assets" / "katex").symlink_to(KATEX)  # the project's one copy of KaTeX
    (folder / "docs" / "broken.md").write_text(PAGE, encoding="utf-8")
    (folder / "docs" / "book.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (folder / "mkdocs.yml").write_text(
        textwrap.dedent(
            f"""
            site_name: tiny
            hooks: [{ROOT / "scripts" / "mkdocs_hooks.py"}]
            plugins:
              - mkdocs-jupyter:
                  include: ["*.ipynb"]
                  cache: false
            markdown_extensions:
              - admonition
              - pymdownx.arithmatex:
                  generic: true
            """
        ),
        encoding="utf-8",
    )


@pytest.mark.integration  # a real `mkdocs build`
def test_a_formula_katex_refuses_fails_the_build_naming_page_line_and_formula(tmp_path):
    tiny_site(tmp_path)
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=120,
    )
    assert build.returncode != 0, build.stderr
    page, book = "docs/broken.md", "docs/book.ipynb"  # named from the project's root
    for expected in (
        f"{page}:3: KaTeX cannot render $\\frac{{1}}{{$: ",
        f"{page}:6: KaTeX cannot render $$\\notamacro x$$: Undefined control sequence",
        f"{page}:12: KaTeX cannot render $\\alsonotamacro$: Undefined control sequence",
        f"{page}:14: KaTeX cannot render $$\\begin{{aligned}} \\lastbadmacro &= 1",
        f"{book}: cell 2, line 2: KaTeX cannot render $\\notamacro y$: Undefined control",
    ):
        assert expected in build.stderr, build.stderr
    assert build.stderr.count("KaTeX cannot render") == 5, build.stderr
    for good in ("x^2", "y = 2", "a + b"):
        assert f"${good}$" not in build.stderr


def _hooks():
    spec = importlib.util.spec_from_file_location("hooks", ROOT / "scripts" / "mkdocs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


def test_serve_shows_a_refused_formula_on_its_page(tmp_path, monkeypatch):
    """The page says what KaTeX refused, and where; the formula shows in red, the good one
    is rendered."""
    tiny_site(tmp_path)
    hooks = _hooks()
    page = SimpleNamespace(file=SimpleNamespace(abs_src_path=str(tmp_path / "docs" / "broken.md")))
    config = {}  # as the hooks' on_config leaves a serving build's
    hooks.pagework.Build(Project(tmp_path), serving=True, math_later=True).hand_to_pages(config)
    content = (
        '<p>A good one, <span class="arithmatex">\\(x^2\\)</span>, then one left open:'
        ' <span class="arithmatex">\\(\\frac{1}{\\)</span></p>'
    )
    try:
        shown = hooks.on_page_content(content, page=page, config=config, files=None)
        built = hooks.on_post_page(f"<html><body>{shown}</body></html>", page=page, config=config)
    finally:
        hooks.on_shutdown()
    assert "KaTeX cannot render some formulas of this page" in shown
    assert "docs/broken.md:3: KaTeX cannot render $\\frac{1}{$" in shown
    assert built.count('class="katex-error"') == 1
    assert built.count('class="katex"') == 1 and "<math" in built  # KaTeX's MathML stays


@pytest.fixture
def renderer(tmp_path):
    made = []

    def make(katex_dir=KATEX):
        made.append(katex.Renderer(tmp_path / "cache", katex_dir))
        return made[-1]

    yield make
    for r in made:
        r.close()


def test_a_rendering_is_cached_in_memory_and_for_the_next_build(renderer):
    formula = katex.Formula("\\frac{a}{b}", display=False)
    first = renderer()
    html = first.render(formula)
    assert 'class="katex"' in html and "<math" in html
    assert first.render(formula) == html and first.engine.rendered == 1
    assert first.tally() == "katex: rendered 1 formula(s) the cache did not hold"
    assert first.tally() == ""  # what a serve rebuild after a prose edit logs: nothing
    first.save()
    second = renderer()
    assert second.render(formula) == html
    assert second.engine.rendered == 0 and second.engine._racer is None  # no engine started
    assert second.render(katex.Formula("\\frac{a}{b}", display=True)) != html
    assert second.engine.rendered == 1


def test_the_cache_key_follows_katex_and_its_options(tmp_path, monkeypatch):
    copy = tmp_path / "katex"
    shutil.copytree(KATEX, copy)
    key = katex.version_key(copy)
    assert key == katex.version_key(KATEX)
    (copy / "VERSION").write_text("0.0.0\n")
    assert katex.version_key(copy) != key
    shutil.copy(KATEX / "VERSION", copy / "VERSION")
    with (copy / "katex.min.js").open("a") as js:
        js.write("\n")
    assert katex.version_key(copy) != key
    monkeypatch.setitem(katex.OPTIONS, "output", "html")
    assert katex.version_key(KATEX) != key


def test_a_damaged_cache_file_is_rendered_again(renderer, tmp_path):
    formula = katex.Formula("x", display=False)
    good = renderer()
    expected = good.render(formula)
    good.save()
    good.file.write_text("{not json")
    again = renderer()
    assert again.render(formula) == expected and again.engine.rendered == 1


def test_each_source_formula_is_found_on_its_line():
    text = "Take $a$ and\n$b = {{ x.py:v }}$.\n\n$$\nc\n$$\n\n\\begin{align}\nd\n\\end{align}\n"
    assert katex.source_formulas(text) == [
        (1, "a"),
        (2, "b = {{ x.py:v }}"),
        (4, "\nc\n"),
        (8, "\\begin{align}\nd\n\\end{align}"),
    ]


def test_the_cache_file_keeps_what_the_last_build_used(renderer):
    old, new = katex.Formula("a", display=False), katex.Formula("b", display=False)
    first = renderer()
    first.render(old)
    first.save()
    second = renderer()
    second.render(new)  # the page now has b instead of a
    second.save()
    assert set(json.loads(second.file.read_text())) == {"Ib"}
    second.save()  # a second save with nothing used leaves the file alone
    assert set(json.loads(second.file.read_text())) == {"Ib"}


def test_memory_holds_what_the_last_build_used_not_every_formula_of_a_session(renderer):
    """A long `mkdocs serve` renders every version of a formula being edited: each build's
    end (save) keeps what that build's pages used, refused ones too."""
    kept = renderer()
    for tex in ("a", "a^", "a^2", "\\frac{1}{"):  # typed one key at a time, and refused
        kept.render(katex.Formula(tex, display=False))
        kept.save()
    assert set(kept.html) == set() and set(kept.errors) == {"I\\frac{1}{"}
    kept.render(katex.Formula("a^2", display=False))
    kept.save()
    assert set(kept.html) == {"Ia^2"} and kept.errors == {}


def test_a_site_without_math_needs_no_katex_and_missing_katex_is_named(renderer, tmp_path):
    missing = renderer(tmp_path / "no-katex")
    missing.prepare([])  # no formula: nothing read, nothing started
    with pytest.raises(katex.KatexUnavailable, match="no-katex/VERSION is missing"):
        missing.render(katex.Formula("x", display=False))

"""A first-time reader's path (docpipe.mainline): each tutorial page's main line, what a reader
reads without unfolding anything, is at most PROSE_BUDGET prose words, and at most
FIRST_OUTPUT_WORDS prose words and FIRST_OUTPUT_CODE_LINES code lines come before its first
output (a measure of text, not of the screen). What is folded away (`???` blocks) still runs
and is still checked."""

from __future__ import annotations

import pytest
import yaml

from docpipe import mainline
from docpipe.pages.built import parse
from projects import SITE

pytestmark = pytest.mark.unit


def tutorial_pages() -> list[str]:
    """The pages of the nav's Tutorial section, but the glossary (a reference, not a lesson)."""
    nav = yaml.load(SITE.config_file.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)["nav"]
    section = next(
        entry["Tutorial"] for entry in nav if isinstance(entry, dict) and "Tutorial" in entry
    )
    pages = [page for item in section for page in item.values()]
    return [p for p in pages if p != "glossary.md"]


def test_the_main_line_is_what_shows_unfolded():
    page = parse(
        "<article><h1>Title here</h1><p>one two <code>not prose</code></p>"
        '<details class="note"><summary>Going deeper</summary><p>three four five</p></details>'
        '<details class="note" open><summary>Open</summary><p>six</p></details>'
        '<div class="highlight"><span class="filename">snippets/x.py</span><pre>a\nb</pre></div>'
        '<div class="highlight"><span class="filename">python snippets/x.py</span>'
        "<pre>output</pre></div>"
        '<p>seven <span class="arithmatex">x^2</span><a class="checked-claim">\u2713</a></p>'
        "</article>"
    )
    line = mainline.read(page)
    # Title here, one two; the folded block's title (Going deeper); Open, six; seven
    assert line.words == 9
    assert (line.before_words, line.before_code, line.has_output) == (8, 2, True)


@pytest.mark.parametrize("page", tutorial_pages())
def test_each_tutorial_page_keeps_a_first_time_readers_path(page):
    assert mainline.problems(SITE, SITE.docs / page) == []


def test_a_page_over_the_budget_or_late_to_its_first_output_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(mainline, "PROSE_BUDGET", 10)
    monkeypatch.setattr(mainline, "FIRST_OUTPUT_WORDS", 5)
    page = SITE.docs / "autograd-backward.md"
    found = mainline.problems(SITE, page)
    assert len(found) == 2
    assert (
        found[0].startswith("docs/autograd-backward.md: ") and "over the budget of 10" in found[0]
    )
    assert "at most 5 prose words and 15 code lines may come before it" in found[1]

"""The site as a whole: consistent with its snippets, and built by mkdocs --strict."""

from __future__ import annotations

import json

import pytest

from projects import SITE

pytestmark = pytest.mark.site


@pytest.fixture(scope="module")
def built(site_build):
    """The session's one build, which the browser tests serve (conftest.site_build)."""
    return site_build


def test_mkdocs_build_strict_is_clean(built):
    site, build = built
    assert build.returncode == 0, build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    assert (site / "index.html").exists()


def test_an_output_a_normaliser_changed_says_so_beside_its_block(built):
    """A reader's own run prints an absolute path (or an address) where the page shows a
    normalised one: the built page says so right under that block, and only there."""
    from docpipe.pages import reading as pages
    from docpipe.pages.outputs import output_blocks
    from docpipe.recorded.record import load
    from docpipe.run.normalise import BY_NAME

    tmp_path, build = built
    assert build.returncode == 0, build.stderr
    expected_notes = 0
    for page in pages.markdown_pages(SITE):
        html_path = tmp_path / page.relative_to(SITE.docs).with_suffix("") / "index.html"
        if page.name == "index.md":
            html_path = tmp_path / page.relative_to(SITE.docs).parent / "index.html"
        html = html_path.read_text(encoding="utf-8")
        wanted = []
        for inc, part in output_blocks(SITE, page, page.read_text(encoding="utf-8")):
            snippet = SITE.owner(inc.path)
            wanted += [
                BY_NAME[n].reader_sees.split("`")[0]
                for n in load(snippet).normalised
                if part is None or BY_NAME[n].may_have_changed(part.text)  # a part of it
            ]
        name = SITE.rel(page)
        shown = html.count('class="reader-note"')
        assert shown == len(wanted), f"{name}: {shown} reader notes, its outputs need {wanted}"
        for note in wanted:
            assert note in html, f"{name}: no reader note {note!r}"
        expected_notes += len(wanted)
    assert expected_notes >= 1  # by_hand/leaves.py prints a warning with its path


def text_of(page: str) -> str:
    """A built page's text as a reader sees it: tags dropped, entities decoded."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_a_tutorial_page_links_its_notebook_in_colab(built):
    site, _ = built
    page = (site / "autograd-backward" / "index.html").read_text()
    colab = (
        "https://colab.research.google.com/github/autograd-docs/autograd-docs/blob/main/"
        "docs/notebooks/autograd-backward.ipynb"
    )
    assert f'<a class="md-button" href="{colab}">Open in Colab</a>' in page
    assert page.count("colab.research.google.com") == 1  # a plain link: nothing is loaded


def test_the_authoring_example_shows_its_markup_as_written(built):
    site, _ = built
    text = text_of((site / "authoring" / "index.html").read_text())
    for line in (
        "# --8<-- [start:setup]",
        '--8<-- "snippets/authoring/descend.py:setup"',
        '--8<-- "docs/generated/authoring/descend.txt"',
        "$w = {{ authoring/descend.py:final_w }}$.",
    ):
        assert line in text, line
    assert "step 5: w = 2.9062" in text  # and the recorded output, included for real


def test_the_colab_link_follows_repo_url_and_the_edit_branch():
    from dataclasses import replace

    from docpipe import pagework

    notebook = "docs/notebooks/x.ipynb"
    site = SITE.site

    def colab(repo_url: str, edit_uri: str) -> str | None:
        return pagework.colab_url(replace(site, repo_url=repo_url, edit_uri=edit_uri), notebook)

    assert colab("https://github.com/a/b.git", "edit/dev/docs/") == (
        "https://colab.research.google.com/github/a/b/blob/dev/docs/notebooks/x.ipynb"
    )
    assert colab("https://github.com/a/b/", "").endswith("/a/b/blob/main/" + notebook)
    assert colab("https://gitlab.com/a/b", "edit/main/docs/") is None


def _built_pages(site):
    return {
        p.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in site.rglob("*.html")
    }


def formula_findings(site, project) -> list[str]:
    """What is wrong with the math of a built site, one line naming the page each: a marked
    formula KaTeX did not render, an error, HTML without its MathML (for screen readers), a
    page that loads KaTeX's JavaScript, or a notebook that shows no formula while the page it
    is built from holds some. A page without math has no formula to render: nothing applies."""
    import re

    from docpipe.pages import katex, notebooks

    found = []
    if (site / "assets" / "katex" / "katex.min.js").exists():
        found.append("assets/katex/katex.min.js: published, though no page may load it")
    pages = _built_pages(site)
    for name, page in pages.items():
        marked = re.findall(r'<(?:span|div) class="arithmatex">(.{0,40})', page)
        unrendered = [m for m in marked if not m.startswith('<span><span class="katex')]
        if unrendered:
            found.append(f"{name}: formulas left unrendered: {unrendered[:3]}")
        if "katex-error" in page:
            found.append(f"{name}: holds a KaTeX error")
        if page.count('class="katex"') != page.count('class="katex-mathml"'):
            found.append(f"{name}: a rendered formula without its MathML")
        if re.search(r"<script[^>]*katex|renderMathInElement", page, re.I):
            found.append(f"{name}: loads KaTeX's JavaScript")
    for source in notebooks.tutorial_pages(project):  # notebooks' math is marked too
        notebook = notebooks.notebook_path(project, source)
        built = notebook.relative_to(project.docs).with_suffix("").as_posix() + "/index.html"
        has_math = katex.source_formulas(source.read_text(encoding="utf-8"))
        if has_math and built in pages and "arithmatex" not in pages[built]:
            found.append(
                f"{built}: the notebook of {project.rel(source)} shows none of its"
                f" {len(has_math)} formulas marked for KaTeX"
            )
    return found


def test_every_formula_is_rendered_by_the_build_and_no_katex_script_is_published(built):
    """Pages and notebook pages: each marked formula holds KaTeX's HTML and its MathML, none
    is an error, no page loads KaTeX's JavaScript, and a notebook of a page with math shows it
    marked (formula_findings)."""
    from docpipe.pages import katex, notebooks

    site, build = built
    assert build.returncode == 0, build.stderr
    findings = formula_findings(site, SITE)
    assert not findings, "\n".join(findings)
    # the property is exercised: some tutorial page of this site holds math
    assert any(
        katex.source_formulas(p.read_text(encoding="utf-8")) for p in notebooks.tutorial_pages(SITE)
    ), "no tutorial page holds a formula: the notebooks' math goes unchecked"


def search_index(built) -> list[dict]:
    """The entries of the build's search index (Material's search_index.json)."""
    site, _ = built
    return json.loads((site / "search" / "search_index.json").read_text())["docs"]


def test_the_search_index_keeps_the_formulas_source(built):
    docs = search_index(built)
    text = " ".join(d["text"] for d in docs)
    # KaTeX's markup would bring its glyphs (an author writes \partial, KaTeX shows ∂)
    assert "\\partial" in text and "\u2202" not in text
    page_text = " ".join(d["text"] for d in docs if d["location"].startswith("autograd-backward/"))
    assert "\\(w\\)" in page_text  # a formula, as its author wrote it


def test_the_search_index_holds_each_page_once_and_no_notebook_that_repeats_one(built):
    """A notebook built from a tutorial page shows the same text: searching finds the page."""
    from docpipe.pages import reading

    indexed = {d["location"].partition("#")[0] for d in search_index(built)}
    site_url = SITE.site.hosted_url
    pages = {
        SITE.site.page_url(p.relative_to(SITE.docs).as_posix()).removeprefix(site_url)
        for p in reading.markdown_pages(SITE)
    }
    assert len(pages) > 5, f"{len(pages)} pages found"
    assert indexed == pages, "pages the search index holds apart from the site's: " + ", ".join(
        sorted(indexed ^ pages)
    )
    assert (SITE.notebooks / "autograd-backward.ipynb").is_file()  # one notebook left out


def _text_outside_code_and_math(page: str) -> str:
    """A built page's text without code, scripts, styles and rendered math."""
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.stack: list[bool] = []  # per open element: is it skipped?
            self.parts: list[str] = []

        def handle_starttag(self, tag, attrs):
            if tag in ("br", "img", "input", "meta", "link", "hr", "wbr", "source"):
                return
            classes = (dict(attrs).get("class") or "").split()
            skipped = tag in ("code", "pre", "script", "style", "svg") or "katex" in classes
            self.stack.append(skipped or (bool(self.stack) and self.stack[-1]))

        def handle_endtag(self, tag):
            if self.stack and tag not in ("br", "img", "input", "meta", "link", "hr", "wbr"):
                self.stack.pop()

        def handle_data(self, data):
            if not (self.stack and self.stack[-1]):
                self.parts.append(data)

    parser = Text()
    parser.feed(page)
    return " ".join(parser.parts)

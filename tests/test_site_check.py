"""`regen.py --check-site DIR` (docpipe.pages.built) on the session's real build, and on copies of
it with one defect planted each: the verifier passes the build and names each defect's page and
element, and nothing else."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from docpipe import cli, published
from docpipe.pages import built, claims
from projects import SITE

pytestmark = pytest.mark.site


@pytest.fixture(scope="module")
def site(site_build) -> Path:
    """The session's one build (conftest.site_build), which must have succeeded."""
    folder, build = site_build
    assert build.returncode == 0, build.stderr
    return folder


def planted(site: Path, into: Path, page: str, edit) -> Path:
    """A copy of the site (hard links: no page is copied) whose `page` is edit(text)."""
    copy = into / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    target = copy / page
    text = target.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text, f"the defect was not planted in {page}"
    target.unlink()  # a new file: the session's build is not touched through the link
    target.write_text(changed, encoding="utf-8")
    return copy


def only(findings: list[built.Finding], page: str) -> list[str]:
    assert findings, "the planted defect was not found"
    assert {f.page for f in findings} == {page}, findings
    return [str(f) for f in findings]


def test_the_real_build_passes(site, capsys):
    assert built.check(SITE, site) == []
    assert published.check(SITE, site) == []
    assert cli.main(["--check-site", str(site)]) == 0
    assert "0 findings" in capsys.readouterr().out


def test_inline_scripts_are_read_from_the_templates_notebook_pages_render_with():
    """A notebook page is rendered with mkdocs-jupyter's notebook template and what it reaches
    (nbconvert's lab and base templates, the script file it puts inline), not with every
    template of nbconvert: reveal's or classic's inline scripts are no script of this site."""
    names = {f"{p.parent.name}/{p.name}" for p in published._notebook_templates()}
    assert {"mkdocs_html/notebook.html.j2", "lab/index.html.j2", "base/mathjax.html.j2"} <= names
    assert "assets/clipboard.umd.js" in names
    assert not [n for n in names if n.startswith(("reveal/", "classic/", "latex/"))], names


def test_a_raw_marker_is_named(site, tmp_path):
    page = "backprop-by-hand/index.html"
    copy = planted(
        site,
        tmp_path,
        page,
        lambda t: t.replace(
            "<p>Autograd gives the same slopes.",
            "<p>Autograd gives the same slopes {{ by_hand/square.py:x }}.",
            1,
        ),
    )
    assert only(built.check(SITE, copy), page) == [
        f"{page}: <p>: marker left: {{{{ by_hand/square.py:x }}}}"
    ]


def test_a_removed_claim_mark_is_named(site, tmp_path):
    page = "autograd-backward/index.html"
    source = SITE.docs / "autograd-backward.md"
    first = claims.find(SITE, source)[0]  # the first marker, so the first mark of the page
    copy = planted(
        site,
        tmp_path,
        page,
        lambda t: re.sub(r'<a class="checked-claim"[^>]*>\u2713</a>', "", t, count=1),
    )
    assert only(built.check(SITE, copy), page) == [
        f'{page}: <a class="checked-claim">: claim mark missing: docs/autograd-backward.md:'
        f"{first.line} marks a sentence with {{{{ claim {first.snippet.key}.py:{first.section} }}}}"
    ]


def test_a_claim_mark_pointing_nowhere_is_named(site, tmp_path):
    page = "autograd-backward/index.html"
    copy = planted(
        site,
        tmp_path,
        page,
        lambda t: re.sub(r'(<a class="checked-claim" href="[^"#]*#L)\d+', r"\g<1>9999", t, count=1),
    )
    (found,) = only(built.check(SITE, copy), page)[:1]
    assert "claim mark points nowhere: no section of snippets/" in found
    assert "claim mark missing" in " ".join(only(built.check(SITE, copy), page))


def _element_end(text: str, start: int, tag: str) -> int:
    """Where the element opening at `start` ends (after its closing tag)."""
    depth = 0
    for m in re.compile(rf"<(/?){tag}\b[^>]*>").finditer(text, start):
        depth += -1 if m[1] else 1
        if depth == 0:
            return m.end()
    raise AssertionError(f"<{tag}> at {start} never closes")


def test_an_unrendered_formula_is_named(site, tmp_path):
    page = "beyond-scalars/index.html"

    def unrender(text: str) -> str:
        start = text.index('<span class="arithmatex">')
        end = _element_end(text, start, "span")
        return text[:start] + '<span class="arithmatex">\\(w^2\\)</span>' + text[end:]

    copy = planted(site, tmp_path, page, unrender)
    assert only(built.check(SITE, copy), page) == [
        f'{page}: <span class="arithmatex">: formula not rendered: \\(w^2\\)'
    ]


def test_raw_tex_in_the_text_is_named(site, tmp_path):
    page = "beyond-scalars/index.html"
    copy = planted(site, tmp_path, page, lambda t: t.replace("<p>", "<p>$x^2$ ", 1))
    found = only(built.check(SITE, copy), page)
    assert len(found) == 1 and "formula not rendered (raw TeX): $x^2$" in found[0], found


def test_an_edited_output_line_is_named(site, tmp_path):
    page = "backprop-by-hand/index.html"
    line = "x = -2  by hand: -4  autograd: -4"
    assert line in (SITE.generated / "by_hand" / "square.txt").read_text()
    copy = planted(site, tmp_path, page, lambda t: t.replace(line, line[:-1] + "5", 1))
    source = (SITE.docs / "backprop-by-hand.md").read_text().splitlines()
    # the include of the section that printed it, after the page's first (another section's)
    at = next(n for n, x in enumerate(source, 1) if '"docs/generated/by_hand/square.txt:slope' in x)
    assert only(built.check(SITE, copy), page) == [
        f'{page}: <pre title="python snippets/by_hand/square.py, output lines 2-4 of 4">: output'
        " differs from its"
        f" record (docs/generated/by_hand/square.json, included at docs/backprop-by-hand.md:{at}):"
        f" line 2 is {line[:-1] + '5'!r}, the record has {line!r}"
    ]


def test_a_missing_notebook_page_is_named_and_fails_the_command(site, tmp_path, capsys):
    page = "notebooks/beyond-scalars/index.html"
    copy = tmp_path / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    (copy / page).unlink()
    assert only(built.check(SITE, copy), page) == [
        f"{page}: <html>: notebook page missing: docs/notebooks/beyond-scalars.ipynb (in the"
        " nav) was not built"
    ]
    assert cli.main(["--check-site", str(copy)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"{copy}/{page}: <html>: notebook page missing: docs/notebooks/"
                      "beyond-scalars.ipynb (in the nav) was not built")  # fmt: skip
    # and the sitemaps still name it (docpipe.published)
    assert [line.split(": ")[0] for line in err[1:]] == [
        f"{copy}/sitemap.xml",
        f"{copy}/sitemap.xml.gz",
    ]


def test_a_request_to_another_origin_is_named_and_a_link_is_not(site, tmp_path):
    page = "index.html"
    copy = planted(
        site,
        tmp_path,
        page,
        lambda t: t.replace(
            "</head>",
            '<script src="https://cdn.example.org/x.js"></script>'
            '<link rel="alternate" href="https://example.org/feed">'
            '<img src="//cdn.example.org/y.png"></head>',
            1,
        ),
    )
    assert only(built.check(SITE, copy), page) == [
        f'{page}: <script src="https://cdn.example.org/x.js">: a request outside the site:'
        " https://cdn.example.org/x.js",
        f'{page}: <img src="//cdn.example.org/y.png">: a request outside the site:'
        " //cdn.example.org/y.png",
    ]


def test_a_figure_missing_from_the_site_is_named(site, tmp_path):
    page = "backprop-by-hand/index.html"
    copy = tmp_path / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    (copy / "generated" / "by_hand" / "graph.values.svg").unlink()
    found = only(built.check(SITE, copy), page)
    assert found == [
        f'{page}: <img src="../generated/by_hand/graph.values.svg#only-light">: figure'
        " missing: ../generated/by_hand/graph.values.svg#only-light"
    ]


def test_the_command_refuses_a_folder_that_is_no_site(tmp_path, capsys):
    assert cli.main(["--check-site", str(tmp_path / "none")]) == 2
    assert "no such folder" in capsys.readouterr().err


# ---- what a reader reads and what the site serves (docpipe.published) ---------------------


def _bump_first_digit(text: str) -> str:
    """A number of the first sentence that has one, one digit changed."""
    return re.sub(r"(<p>[^<{]*?)(\d)", lambda m: m[1] + str((int(m[2]) + 1) % 10), text, count=1)


def _sub(pattern: str, new: str):
    return lambda t: re.sub(pattern, new, t, count=1)


READER_EDITS = {  # what a reader reads: (page, the edit, what the finding says)
    "a number in a sentence": ("autograd-backward/index.html", _bump_first_digit, "expected"),
    "a formula's TeX and MathML": (
        "backprop-by-hand/index.html",
        _sub(
            r'(<annotation encoding="application/x-tex">)y = x\^2',
            r"\1y = x^3",
        ),
        "'formula y = x^2', found 'formula y = x^3'",
    ),
    "where a link sends the reader": (
        "autograd-backward/index.html",
        _sub(r'href="../glossary/#chain-rule"', 'href="../glossary/#leaf"'),
        "link to glossary/index.html#chain-rule",
    ),
    "a claim mark's tooltip": (
        "autograd-backward/index.html",
        _sub(r'(<a class="checked-claim"[^>]*title=")', r"\1every case held: "),
        "title",
    ),
    "a heading": (
        "autograd-backward/index.html",
        _sub(r"(<h2 id=\"step-1-why-training-needs-gradients\">)Step 1", r"\1Step One"),
        "found 'One:'",
    ),
    "an image's alt text": (
        "autograd-backward/index.html",
        _sub(r'(<img alt=")The loss', r"\1A loss"),
        "alt",
    ),
    "a line of code": (
        "backprop-by-hand/index.html",
        _sub(r"(<code>.*?)requires_grad=True", r"\1requires_grad=False"),
        "requires_grad=False",
    ),
    "a script put into a page": (
        "glossary/index.html",
        _sub("</head>", "<script>fetch('/x')</script></head>"),
        "an inline script the theme does not make",
    ),
    "a redirect": (
        "index.html",
        _sub("</head>", '<meta http-equiv="refresh" content="0; url=https://example.org"></head>'),
        "a redirect",
    ),
    "a script file loaded that the site lacks": (
        "glossary/index.html",
        _sub("</head>", '<script src="../assets/javascripts/extra.js"></script></head>'),
        "no file of the site",
    ),
}


@pytest.mark.parametrize("kind", sorted(READER_EDITS))
def test_each_change_to_what_a_reader_reads_is_named(site, tmp_path, kind):
    page, edit, said = READER_EDITS[kind]
    copy = planted(site, tmp_path, page, edit)
    found = only(published.check(SITE, copy), page)
    assert any(said in f for f in found), found
    if kind not in (
        "a script put into a page",
        "a redirect",
        "a script file loaded that the site lacks",
    ):
        source = page.split("/")[0] if "/" in page else "index"
        assert all(f"docs/{source}.md:" in f for f in found), found  # names the source line


def _file_planted(site: Path, into: Path, rel: str, data: bytes | None) -> Path:
    """A copy of the site with file `rel` replaced by `data` (None: removed), or added."""
    copy = into / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    target = copy / rel
    if target.exists():
        target.unlink()
    if data is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return copy


def test_each_file_the_site_serves_is_accounted_for(site, tmp_path):
    figures = sorted((site / "generated").rglob("*.svg"))
    theme = next((site / "assets" / "javascripts").glob("bundle.*.min.js"))
    notebook = next((site / "notebooks").glob("*/*.ipynb"))
    cases = {  # the file, its new bytes, what the finding says
        figures[0].relative_to(site).as_posix(): (figures[1].read_bytes(), "differs from docs/"),
        theme.relative_to(site).as_posix(): (theme.read_bytes() + b";fetch('/x')", "theme"),
        notebook.relative_to(site).as_posix(): (notebook.read_bytes()[:-2] + b" }", "notebook"),
        "stylesheets/extra.css": (b"body{display:none}", "differs from docs/"),
        "extra/unknown.txt": (b"?", "cannot account for"),
    }
    for n, (rel, (data, said)) in enumerate(cases.items()):
        copy = _file_planted(site, tmp_path / str(n), rel, data)
        found = only(published.check(SITE, copy), rel)
        assert any(said in f for f in found), (rel, found)

"""A new author's first page (issue 39): `regen.py --new-page NAME` writes a one-snippet page
without math, with a value, a claim and a figure, that passes regen, --check and the strict
build as written; and the site's formula test checks only what applies to a page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from test_site import formula_findings


def build(box, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
        cwd=box.root,
        capture_output=True,
        text=True,
    )


@pytest.mark.integration
def test_the_scaffolded_page_without_math_passes_every_check_as_written(sandbox, tmp_path):
    from docpipe.project import Project

    made = sandbox.regen("--new-page", "first_page")
    assert made.returncode == 0, made.stdout + made.stderr
    assert "wrote docs/first-page.md" in made.stdout, made.stdout
    regen = sandbox.regen("snippets/examples/first_page.py")
    assert regen.returncode == 0, regen.stdout + regen.stderr
    assert (sandbox.root / "docs/notebooks/first-page.ipynb").is_file(), regen.stdout
    assert (sandbox.root / "docs/generated/examples/first_page.gradient.svg").is_file()
    check = sandbox.regen("--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "1 checked-claim marker on 1 page" in check.stdout, check.stdout
    built = build(sandbox, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    page = (tmp_path / "site" / "first-page" / "index.html").read_text(encoding="utf-8")
    assert "arithmatex" not in page  # a page without math ...
    # ... passes the site's formula test, which checks only what applies to it
    assert formula_findings(tmp_path / "site", Project(sandbox.root)) == []


@pytest.mark.integration
def test_new_page_refuses_an_existing_file_or_a_bad_name_and_writes_nothing(sandbox):
    sandbox.write("docs/taken.md", "# Taken\n")
    before = {p: p.read_bytes() for p in sandbox.root.rglob("*") if p.is_file()}
    for name, says in [
        ("taken", "docs/taken.md exists; nothing written"),
        ("a.b", "'a.b' is no part of a snippet key"),
        ("examples/_helper", "'_helper' is no part of a snippet key"),
    ]:
        made = sandbox.regen("--new-page", name)
        assert made.returncode == 2, (name, made.stdout, made.stderr)
        assert made.stderr.startswith("error: --new-page ") and says in made.stderr, made.stderr
        assert made.stderr.count("\n") == 1, made.stderr  # one line
    after = {p: p.read_bytes() for p in sandbox.root.rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.unit
def test_the_formula_findings_name_each_page(tmp_path):
    """The findings can fail, and each names its page: a formula left unrendered, and a
    notebook that shows none of its page's formulas."""
    from projects import SITE

    site = tmp_path / "site"
    (site / "broken").mkdir(parents=True)
    (site / "broken" / "index.html").write_text(
        '<p><span class="arithmatex">\\(x\\)</span></p>', encoding="utf-8"
    )
    notebook = site / "notebooks" / "autograd-backward"
    notebook.mkdir(parents=True)
    (notebook / "index.html").write_text("<p>no math here</p>", encoding="utf-8")
    found = formula_findings(site, SITE)
    assert found[0].startswith("broken/index.html: formulas left unrendered"), found
    assert found[1].startswith(
        "notebooks/autograd-backward/index.html: the notebook of docs/autograd-backward.md"
    ), found
    assert len(found) == 2, found


GLOSSARY_OF_ENTRIES = """\
# Glossary

## Entry

An **entry** of a tensor is one of its numbers; see [the page](other.md#entries).
"""


@pytest.mark.unit
@pytest.mark.parametrize("glossary", ["the site's", "another", "none"])
def test_the_scaffolded_page_introduces_every_term_its_sites_glossary_defines(tmp_path, glossary):
    """A new page passes the site's glossary rule as written: the first use of each term the
    glossary defines, whichever terms those are, links to its entry (with no glossary, nothing
    is linked). The rule itself judges, as --check runs it."""
    import re

    from docpipe import scaffold
    from docpipe.pages import rules, terms
    from projects import REPO, SmallProject

    site = SmallProject(tmp_path / "repo")
    if glossary == "the site's":
        site.write("docs/glossary.md", (REPO / "docs" / "glossary.md").read_text(encoding="utf-8"))
    elif glossary == "another":
        site.write("docs/glossary.md", GLOSSARY_OF_ENTRIES)
    page = site.docs / "first-page.md"

    def named(text: str) -> list[str]:
        """The terms the rule names on the page with this text."""
        page.write_text(text, encoding="utf-8")
        found = [str(p) for p in rules.problems(site.catalog(), (terms.RULE,))]
        return sorted(
            re.findall(r"^docs/first-page\.md:\d+: the term '([^']+)'", "\n".join(found), re.M)
        )

    plain = scaffold.PAGE.format(key="examples/first_page", title="First page", alt=scaffold.ALT)
    made = scaffold.introduce_terms(site.project, page, plain)
    assert named(made) == []
    before = named(plain)  # what the rule names in the template as it is
    assert {"another": ["entry"], "none": []}.get(glossary, before) == before
    assert before or glossary == "none"  # the site's glossary names some (tensor, gradient)
    assert made.count("](glossary.md#") == len(before)

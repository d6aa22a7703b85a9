"""Checked claims: a sentence backed by asserts. A broken claim fails regen and --check naming
the page and line, the sentence and the failing assert; a marker that checks nothing is a site
problem; the site carries enough of them, rendered as small links to the checking lines."""

from __future__ import annotations

import json

import pytest

from docpipe.pages import claims, reproduced
from docpipe.pages import reading as pages
from projects import SITE

pytestmark = pytest.mark.unit

PAGE = """
# Sandbox

```python title="snippets/facts.py"
--8<-- "snippets/facts.py:show"
```

``` text title="python snippets/facts.py"
--8<-- "docs/generated/facts.txt"
```

Doubling two gives four. {{ claim facts.py:claim-double }}
"""

FACTS = """
# --8<-- [start:show]
two = 2
print(two * 2)
# --8<-- [end:show]

# --8<-- [start:claim-double]
doubled = two * 2
assert doubled == 4
# --8<-- [end:claim-double]
"""


@pytest.fixture
def claimed(sandbox):
    """A sandbox whose page backs one sentence with a claim section, recorded and committed."""
    sandbox.write("snippets/facts.py", FACTS)
    sandbox.write("docs/index.md", PAGE)
    first = sandbox.regen()
    assert first.returncode == 0, first.stderr
    sandbox.commit()
    return sandbox


def test_a_broken_claim_fails_check_naming_page_sentence_and_assert(claimed):
    claimed.write("snippets/facts.py", FACTS.replace("== 4", "== 5"))
    run = claimed.regen("--check")
    assert run.returncode == 1
    assert "FAILED snippets/facts.py:8: AssertionError: \n" in run.stderr
    assert (
        "  CLAIM NO LONGER HOLDS: snippets/facts.py:8 (section 'claim-double') checks what this"
        ' page says:\n    docs/index.md:11: "Doubling two gives four."\n'
    ) in run.stderr
    assert "checked 1 snippets: 0 drifted, 1 failed" in run.stdout


def test_a_failure_outside_claim_sections_names_no_claim(claimed):
    claimed.write("snippets/facts.py", FACTS.replace("print(two * 2)", "assert two == 3"))
    run = claimed.regen("--check")
    assert run.returncode == 1
    assert "FAILED snippets/facts.py:3: AssertionError" in run.stderr
    assert "CLAIM" not in run.stderr


def test_a_claim_section_without_an_assert_is_a_site_problem(claimed):
    claimed.write("snippets/facts.py", FACTS.replace("assert doubled == 4", "print(doubled)"))
    claimed.regen()
    run = claimed.regen("--check")
    assert run.returncode == 2
    assert (
        "PROBLEM docs/index.md:11: section 'claim-double' of snippets/facts.py holds no assert,"
        " so it checks nothing"
    ) in run.stderr


def test_a_claim_naming_a_missing_section_is_a_site_problem(claimed):
    claimed.write("docs/index.md", PAGE.replace("claim-double", "claim-triple"))
    run = claimed.regen("--check")
    assert run.returncode == 2
    assert (
        "PROBLEM docs/index.md:11: snippets/facts.py has no section 'claim-triple' to check the"
        " claim"
    ) in run.stderr


def test_a_malformed_marker_is_named(claimed):
    claimed.write("docs/index.md", PAGE.replace("facts.py:claim-double", "facts.py"))
    run = claimed.regen("--check")
    assert (
        "PROBLEM docs/index.md:11: {{ claim facts.py }} is not a claim marker"
        " (write {{ claim <key>.py:<section> }})"
    ) in run.stderr


def test_the_sentence_is_the_last_one_before_the_marker():
    text = (
        "First sentence. Second, with `x.grad` and {{ a.py:v }}: it ends here.\n"
        "{{ claim a.py:c }} Next one. {{ claim a.py:d }}\n\n"
        "- a list item that is claimed. {{ claim a.py:e }}\n"
    )
    found = [m.start() for m in pages.CLAIM.finditer(text)]
    assert [claims.sentence_before(text, pos) for pos in found] == [
        "Second, with `x.grad` and {{ a.py:v }}: it ends here.",
        "Next one.",
        "a list item that is claimed.",
    ]


def test_a_marker_renders_as_a_small_link_to_the_checking_lines():
    claim = next(c for p in pages.markdown_pages(SITE) for c in claims.find(SITE, p))
    first, last = claims.checks(claim.snippet, claim.section)
    torch = json.loads(claim.snippet.record.read_text())["environment"]["torch"]
    marker = f"{{{{ claim {claim.snippet.key}.py:{claim.section} }}}}"
    html = claims.render(SITE, f"A sentence.\n{marker} Next.", "docs/x.md")
    url = SITE.site.code_url(claim.snippet.name, (first, last))
    assert (
        url == f"{SITE.site.repo_url}/blob/{SITE.site.branch}/{claim.snippet.name}#L{first}-L{last}"
    )
    held = reproduced.claim_versions(claim.snippet, claim.section)  # docpipe.verify's runs
    runs = json.loads(claim.snippet.record.read_text())["claims"][claim.section]
    scope = claims.cases(claim.snippet, claim.section, {int(k): v for k, v in runs.items()})
    assert scope.startswith(f"checked over {max(runs.values())} case")
    tip = (
        f"Checked claim: the asserts in {claim.snippet.name}, lines {first}\u2013{last},"
        f" hold in the recorded run with torch {torch}, {scope}"
        + (f", and in verified runs with torch {', '.join(held)}" if held else "")
    )
    assert html == (
        f'A sentence.<a class="checked-claim" href="{url}" title="{tip}" aria-label="{tip}">'
        "\u2713</a> Next."
    )


def test_a_marker_naming_no_section_fails_the_build_with_page_and_line():
    with pytest.raises(claims.ClaimError) as e:
        claims.render(SITE, "one\n\ntwo {{ claim examples/fit_line.py:claim-none }}", "docs/x.md")
    assert str(e.value) == (
        "docs/x.md:3: snippets/examples/fit_line.py has no section 'claim-none' to check the claim"
    )


def test_the_site_backs_at_least_twelve_sentences_with_claims_that_check_something():
    found = [c for p in pages.markdown_pages(SITE) for c in claims.find(SITE, p)]
    assert len({(c.snippet, c.section) for c in found}) >= 12
    assert {c.page.name for c in found} >= {"autograd-backward.md", "backprop-by-hand.md"}
    for c in found:
        assert c.sentence, f"{c.page}:{c.line}: a marker with no sentence before it"
        claims.checks(c.snippet, c.section)  # raises if the section has no assert


def test_notebooks_carry_claims_as_links_not_as_markers():
    notebook = (SITE.notebooks / "autograd-backward.ipynb").read_text()
    assert "{{ claim" not in notebook
    assert "[\u2713](https://" in notebook
    assert SITE.snippet("autograd/step5_no_grad").name in notebook


def test_a_claim_section_that_prints_is_a_site_problem(claimed):
    claimed.write(
        "snippets/facts.py",
        FACTS.replace("assert doubled == 4", "assert doubled == 4\nprint(doubled)"),
    )
    run = claimed.regen()  # the record it would write prints: refused, as the build would
    assert run.returncode == 2
    assert (
        "PROBLEM docs/index.md:11: section 'claim-double' of snippets/facts.py prints, but no page"
        " shows a claim's code: check silently with assert"
    ) in run.stderr
    assert "regen: 1 run, nothing written" in run.stdout
    assert claimed.status() == " M snippets/facts.py\n"  # its record as it was


def test_a_claim_section_not_named_claim_is_a_site_problem(claimed):
    """The runner counts the asserts of claim-... sections alone: any other escapes the count."""
    claimed.write("snippets/facts.py", FACTS.replace("claim-double", "double"))
    claimed.write("docs/index.md", PAGE.replace("claim-double", "double"))
    run = claimed.regen("--check")
    assert run.returncode == 2
    assert (
        "PROBLEM docs/index.md:11: a claim's section is named claim-...: the runner counts the"
        " asserts of those alone (rename section 'double' of snippets/facts.py)"
    ) in run.stderr

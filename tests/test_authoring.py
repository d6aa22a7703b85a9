"""The complete example of the authoring page is the real files, and names only real things."""

from __future__ import annotations

import re

import pytest

from docpipe import catalog
from docpipe.pages import reading as pages
from docpipe.sections import find_sections
from projects import REPO as ROOT
from projects import SITE

pytestmark = pytest.mark.unit

BLOCK = re.compile(
    r'^(?P<fence>`{3,})(?P<lang>\w+) title="(?P<title>[^"]+)"\n(?P<body>.*?)^(?P=fence)$',
    re.M | re.S,
)
PAGE = SITE.docs / "authoring.md"


def blocks() -> dict[str, str]:
    """The titled blocks of the section "A complete example", by title."""
    text = PAGE.read_text()
    example = text[text.index("## A complete example") :]
    example = example[: example.index("\n## ", 1)]
    return {m["title"]: m["body"] for m in BLOCK.finditer(example)}


def test_the_example_files_are_shown_exactly():
    shown = blocks()
    for path in ("snippets/authoring/descend.py", "scripts/figures/authoring/descend.py"):
        assert shown[path] == (ROOT / path).read_text(), path
    assert shown["snippets/snippets.toml"] in (ROOT / "snippets/snippets.toml").read_text()


def test_the_example_page_names_real_sections_files_and_values():
    example = blocks()["docs/your-page.md"]
    settings = catalog.load(SITE).settings[SITE.snippet("authoring/descend")]
    includes = [inc.target for inc in pages.includes(SITE, PAGE, example)]
    assert includes == [
        "snippets/authoring/descend.py:setup",
        "snippets/authoring/descend.py:descend",
        "docs/generated/authoring/descend.txt",
    ]
    source = (ROOT / "snippets/authoring/descend.py").read_text()
    assert list(find_sections(source, "descend.py")) == ["setup", "descend", "claim-halves"]
    assert (ROOT / includes[2]).is_file()
    # the example holds a claim section and the page's marker names it (issue 39)
    from docpipe.pages import claims

    (marker,) = claims.CLAIM.finditer(example)
    assert (marker["snippet"], marker["section"]) == ("authoring/descend.py", "claim-halves")
    values = {m["name"] for m in pages.VALUE.finditer(example)}
    assert values == {"target", "lr", "steps", "final_w"} == set(settings.values)
    for figure in re.findall(r"\]\((generated/[^)#]+)", example):
        assert (SITE.docs / figure).is_file(), figure


def test_the_rendered_part_is_the_example_page():
    """What the authoring page renders for real is the example's prose, output and figure."""
    text = PAGE.read_text()
    example = blocks()["docs/your-page.md"]
    prose = "\n".join(example.split("\n\n")[0].splitlines())
    quoted = "\n".join(line.removeprefix("> ") for line in text.splitlines() if line[:2] == "> ")
    assert quoted == prose
    figure = example[example.index("<figure") :]
    assert figure in text.replace(example, "")

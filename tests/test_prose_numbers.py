"""No number typed by hand in prose: the site's pages pass, a typed number is named by page and
line, the allow-list is validated and cannot go stale."""

from __future__ import annotations

import textwrap

import pytest

from docpipe import catalog
from docpipe.pages import prose
from docpipe.pages.reading import Pages
from projects import SmallProject

pytestmark = pytest.mark.unit

PAGE = """
# Step 1: the {{ a.py:n }} points

The slope is 2, and `w = 3` is code, $w = 4$ is math, {{ a.py:w }} is a value.

```python
x = 5  # a code block
```

!!! note "Seen 6 times"
    Inside an admonition: 7.

| a | b |
| --- | --- |
| `8` | nine 9 |

<figure markdown="span">
  ![Alt text with 10 in it](generated/a.svg)
  <figcaption>A caption with 11 and <code>12</code>.</figcaption>
</figure>

$$
13 + 14
$$
"""


def numbers(text: str, allowed: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    found = []
    for chunk in prose.prose(textwrap.dedent(text).lstrip("\n")):
        for m in prose.NUMBER.finditer(chunk.text):
            if not prose.covering(chunk.text, m.start(), m.end(), allowed):
                found.append((chunk.line, m[0]))
    return found


def test_prose_is_read_outside_code_math_and_values_with_the_right_lines():
    assert numbers(PAGE) == [
        (1, "1"),
        (3, "2"),
        (9, "6"),
        (10, "7"),
        (14, "9"),
        (17, "10"),
        (18, "11"),
    ]


def test_an_allowed_phrase_covers_its_number_only():
    assert numbers("Step 1 and 1 more.\n", ("Step 1",)) == [(1, "1")]


def test_a_typed_number_is_named_with_page_and_line(tmp_path):
    small = SmallProject(tmp_path)
    page = small.write("docs/x.md", "# Title\n\nThe slope is\n2 at the start.\n")
    cat = small.catalog()
    found, used = prose.typed_numbers(cat, Pages(cat.project).page(page), ())
    assert len(found) == 1 and not used
    assert (found[0].path, found[0].line) == ("docs/x.md", 4)
    assert str(found[0]) == (
        "docs/x.md:4: the number 2 is typed by hand in prose (...2 at the start....); quote it"
        " from a run with {{ <key>.py:<name> }}, or allow its phrase in snippets.toml (rule"
        " number-in-prose) with the reason"
    )


def write_meta(tmp_path, entry: str) -> SmallProject:
    small = SmallProject(tmp_path)
    small.write("snippets/snippets.toml", "[[exception]]\n" + textwrap.dedent(entry))
    return small


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        (
            'path = "docs/a.md"\nrule = "number-in-prose"\ntext = ["Step"]\nreason = "r"\n',
            "text 'Step' holds no digit (name the phrase around the number)",
        ),
        (
            'path = "docs/a.md"\nrule = "number-in-prose"\ntext = ["Step 1"]\nreason = " "\n',
            "the reason is empty; say why the rule does not apply",
        ),
        (
            'path = "snippets/a.py"\nrule = "not-on-a-page"\ntext = ["1"]\nreason = "r"\n',
            "text applies only to the rules number-in-prose, typed-number, general-sentence,"
            " agreement-asserted, glossary-first-use",
        ),
        (
            'path = "docs/a.md"\nrule = "number-in-prose"\ntext = ["1"]\nreason = "r"\nwhy = 1\n',
            "unknown key(s) ['why']",
        ),
    ],
)
def test_a_bad_allow_list_entry_is_refused_by_the_catalog(tmp_path, entry, error):
    small = write_meta(tmp_path, entry)
    with pytest.raises(catalog.CatalogError) as e:
        small.catalog()
    path = entry.split('"')[1]
    assert str(e.value) == f"snippets/snippets.toml:1: [[exception]] {path}: {error}"


def test_check_fails_on_a_typed_number_and_passes_once_it_is_allowed(sandbox):
    sandbox.write("docs/index.md", "# Sandbox\n\nIt took 3 steps.\n")
    run = sandbox.regen("--check")
    assert run.returncode == 2
    assert "PROBLEM docs/index.md:3: the number 3 is typed by hand in prose" in run.stderr
    sandbox.write(
        "snippets/snippets.toml",
        '[[exception]]\npath = "docs/index.md"\nrule = "number-in-prose"\n'
        'text = ["took 3 steps"]\nreason = "an example"\n',
    )
    assert sandbox.regen("--check").returncode == 0

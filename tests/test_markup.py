"""Markup shown as an example is shown as written: pymdownx.snippets and the value glue leave it
alone, and it names no use of the page."""

from __future__ import annotations

import html
import re

import markdown
import pytest

from docpipe.pages import markup

pytestmark = pytest.mark.unit

PAGE = """# Example
A section opens with
# --8<-- [start:NAME]
and an escaped marker stays as it is: # ;--8<-- [end:NAME]

````markdown title="docs/page.md"
The loss is {{ examples/fit_line.py:final_loss }}.
```python
--8<-- "snippets/examples/fit_line.py:data"
```
````
Real: {{ examples/fit_line.py:final_loss }}
"""


def test_protect_escapes_examples_once_and_restore_brings_back_their_values():
    protected = markup.protect(PAGE)
    assert protected.count("\n") == PAGE.count("\n")
    assert "\n# ;--8<-- [start:NAME]\n" in protected
    assert "# ;--8<-- [end:NAME]" in protected and ";;" not in protected
    assert '\n;--8<-- "snippets/examples/fit_line.py:data"\n' in protected
    assert "The loss is {{" not in protected  # hidden from the glue, inside the example only
    assert protected.endswith("Real: {{ examples/fit_line.py:final_loss }}\n")
    assert markup.restore(protected).count("{{ examples/fit_line.py:final_loss }}") == 2


def test_pymdownx_shows_the_protected_example_as_written():
    rendered = markdown.markdown(
        markup.restore(markup.protect(PAGE)),
        extensions=["pymdownx.superfences", "pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": {"base_path": ["."], "check_paths": True}},
    )
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert "\n--8<-- [start:NAME]\n" in text  # a heading here, as "# ..." is in Markdown
    assert "# --8<-- [end:NAME]" in text
    assert '\n--8<-- "snippets/examples/fit_line.py:data"\n' in text
    assert "The loss is {{ examples/fit_line.py:final_loss }}." in text


def test_an_example_names_no_use():
    blank = markup.without_examples(PAGE)
    assert blank.count("\n") == PAGE.count("\n")
    assert "snippets/examples/fit_line.py:data" not in blank
    assert "Real: {{ examples/fit_line.py:final_loss }}" in blank

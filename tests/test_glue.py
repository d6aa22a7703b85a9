"""Numbers in prose: substituted from the recorded run; unknown names fail loudly."""

from __future__ import annotations

import pytest

from docpipe.pages import values
from docpipe.recorded.record import load
from projects import SITE

pytestmark = pytest.mark.unit


def test_a_value_is_replaced_by_what_the_run_recorded():
    recorded = load(SITE.snippet("examples/fit_line")).values["final_loss"]
    text = "The loss settles at {{ examples/fit_line.py:final_loss }}."
    assert values.substitute(SITE, text, "docs/x.md") == f"The loss settles at {recorded}."


def test_an_unknown_value_names_page_line_and_what_was_recorded():
    recorded = ", ".join(sorted(load(SITE.snippet("examples/fit_line")).values))
    with pytest.raises(values.ValuesError) as e:
        values.substitute(SITE, "one\n{{ examples/fit_line.py:nope }}", "docs/x.md")
    assert str(e.value) == (
        "docs/x.md:2: snippets/examples/fit_line.py recorded no value 'nope'"
        f" (recorded: {recorded})"
    )


def test_an_unknown_snippet_is_named():
    with pytest.raises(values.ValuesError) as e:
        values.substitute(SITE, "{{ examples/nothing.py:w }}", "docs/x.md")
    assert str(e.value) == (
        "docs/x.md:1: {{ examples/nothing.py:w }} names no snippet snippets/examples/nothing.py"
    )

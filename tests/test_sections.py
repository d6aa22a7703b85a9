"""Section markers: found, and every misuse named with file and line."""

from __future__ import annotations

import pytest

from docpipe.sections import SectionError, find_sections, split

pytestmark = pytest.mark.unit

GOOD = """\
import math
# --8<-- [start:first]
x = 1
# --8<-- [end:first]
# --8<-- [start:second]
print(math.pi + x)
# --8<-- [end:second]
"""


def test_sections_are_found_with_their_body_lines():
    assert find_sections(GOOD, "s.py") == {"first": (3, 3), "second": (6, 6)}


def test_chunks_follow_sections_and_keep_line_numbers():
    chunks = split(GOOD, "s.py")
    assert [c.section for c in chunks] == [None, "first", "second"]
    lines = {line for *_, line in chunks[2].code.co_lines() if line}
    assert lines == {6}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "# --8<-- [start:a]\n# --8<-- [start:b]\n",
            "s.py:2: section 'b' starts inside section 'a'",
        ),
        ("# --8<-- [start:a]\nx = 1\n", "s.py:1: section 'a' is never ended"),
        ("# --8<-- [end:a]\n", "s.py:1: end of section 'a', which is not open"),
        (
            "# --8<-- [start:a]\n# --8<-- [end:a]\n# --8<-- [start:a]\n",
            "s.py:3: section 'a' appears twice",
        ),
    ],
)
def test_marker_mistakes_are_named(text, message):
    with pytest.raises(SectionError) as e:
        find_sections(text, "s.py")
    assert str(e.value) == message


def test_a_marker_inside_a_statement_is_refused():
    text = "for i in range(2):\n    # --8<-- [start:a]\n    print(i)\n# --8<-- [end:a]\n"
    with pytest.raises(SectionError) as e:
        split(text, "s.py")
    assert str(e.value) == (
        "s.py:1: a statement crosses a marker of section 'a';"
        " markers must sit between top-level statements"
    )


@pytest.mark.parametrize(
    "future",
    [
        "",
        "from __future__ import annotations\n",
        '"""A docstring."""\nfrom __future__ import annotations\n',
    ],
)
def test_each_chunk_is_compiled_with_the_files_own_future_imports_and_none_of_the_runners(future):
    """A section's code is compiled as `python file.py` compiles the whole file: with the
    file's `from __future__` imports in every chunk (not the first alone), and without the
    runner's own (its modules import annotations from __future__, a snippet does not)."""
    text = future + (
        "def f(x: int) -> float:\n    return x\n"
        "# --8<-- [start:later]\n"
        "def g(y: int) -> float:\n    return y\n"
        "# --8<-- [end:later]\n"
    )
    as_python: dict = {}
    exec(compile(text, "s.py", "exec", dont_inherit=True), as_python)
    split_run: dict = {}
    for chunk in split(text, "s.py"):
        exec(chunk.code, split_run)
    for name in ("f", "g"):
        assert split_run[name].__annotations__ == as_python[name].__annotations__
    assert (as_python["g"].__annotations__["y"] == "int") == bool(future)

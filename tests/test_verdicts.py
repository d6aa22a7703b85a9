"""Check, tests and build agree (issue 22, section 5): every site problem `regen.py --check`
lists makes `mkdocs build --strict` fail with the same line (docpipe.pipeline.site_problems is
their one code path), and regen refuses to run on it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from docpipe.pages import consistency
from projects import SITE

SNIPPET = """\
# --8<-- [start:first]
x = 2
# --8<-- [end:first]
# --8<-- [start:second]
print(x * 3)
# --8<-- [end:second]
"""
PAGE = """\
# Sandbox

Some prose.

```python title="snippets/good.py"
--8<-- "snippets/good.py:first"
```

```python
--8<-- "snippets/good.py:second"
```

``` text title="python snippets/good.py"
--8<-- "docs/generated/good.txt"
```
"""

CASES = {
    "settings": (
        lambda box: box.write("snippets/snippets.toml", "[defaults]\ntimout = 60\n"),
        "snippets/snippets.toml:2: [defaults] has unknown setting 'timout' (known: memory,"
        " timeout)",
    ),
    "a section no longer shown": (
        lambda box: box.write(
            "docs/index.md", PAGE.replace('```python\n--8<-- "snippets/good.py:second"\n```\n', "")
        ),
        "docs/index.md:6: shows snippets/good.py without its section(s) second; a page shows"
        " every section of a snippet it shows, in order (its notebook runs them top to bottom)",
    ),
    "a value with a space after the colon": (
        lambda box: box.write(
            "docs/index.md", PAGE.replace("Some prose.", "It is {{ good.py: x }} here.")
        ),
        "docs/index.md:3: {{ good.py: x }} is neither a value {{ <key>.py:<name> }} nor a claim"
        " {{ claim <key>.py:<section> }} (no space around the colon); the page would show the"
        " braces",
    ),
    "output in a plain fence": (
        lambda box: box.write("docs/index.md", PAGE + "\n```\n6\n```\n"),
        "docs/index.md:17: a code block without a language (a plain ``` fence): name its"
        " language, as ```python; output is only ever an include of its recorded file, in ```"
        ' text title="python snippets/<key>.py"',
    ),
    "output in an indented block": (
        lambda box: box.write("docs/index.md", PAGE + "\nIt printed:\n\n    6\n"),
        "docs/index.md:19: an indented code block: fence it and name its language, as"
        " ```python; output is only ever an include of its recorded file, in ```"
        ' text title="python snippets/<key>.py"',
    ),
}


@pytest.fixture
def site(sandbox):
    """The sandbox site every case edits: test_the_unedited_site_checks_and_builds shows that
    it checks and builds clean (each case starts from these same files, so that is not built
    again before each edit)."""
    # the sandbox has the hooks and the theme's overrides already (tests/conftest.py)
    sandbox.write("snippets/good.py", SNIPPET)
    sandbox.write("docs/index.md", PAGE)
    assert sandbox.regen().returncode == 0
    sandbox.commit()
    return sandbox


def build(box) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(box.root / "site")],
        cwd=box.root,
        capture_output=True,
        text=True,
    )


@pytest.mark.integration
def test_the_unedited_site_checks_and_builds(site):
    assert site.regen("--check").returncode == 0
    built = build(site)
    assert built.returncode == 0, built.stderr


@pytest.mark.integration
@pytest.mark.parametrize("case", list(CASES))
def test_check_regen_and_the_build_fail_on_the_same_line(site, case):
    edit, message = CASES[case]
    edit(site)
    check = site.regen("--check")
    assert check.returncode == 2
    assert message in check.stderr.splitlines()[0]
    regen = site.regen()
    assert regen.returncode == 2
    assert message in regen.stderr
    built = build(site)
    assert built.returncode != 0
    assert f"ERROR   -  {message}" in built.stderr, built.stderr


def page(tmp_path, text: str):
    path = tmp_path / "page.md"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize(
    "text",
    [
        "A value {{ examples/fit_line.py : w }} here.\n",
        "A value {{examples/fit_line.py:}} here.\n",
        "An open {{ examples/fit_line.py:w here.\n",
        "A [link {{ w }}](x.md) here.\n",
        "![alt {{ w }}](x.svg)\n",
        '<p title="{{ x }}">html</p>\n',
        "Math $w = {{ examples/fit_line.py: w }}$ here.\n",
        "$$\nw = {{ examples/fit_line.py: w }}\n$$\n",
        "- a list item {{ w }}\n",
        "!!! note\n    inside an admonition {{ w }}\n",
    ],
)
@pytest.mark.unit
def test_every_unread_marker_is_named_with_its_line(tmp_path, text):
    found = consistency.unread_markers(SITE, page(tmp_path, "# Title\n\n" + text))
    assert len(found) == 1, found
    line = 3 + (text.startswith(("$$", "!!!")))
    assert (found[0].path, found[0].line) == (f"{tmp_path}/page.md", line)
    assert str(found[0]).startswith(f"{tmp_path}/page.md:{line}: {{{{")


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    [
        "A value {{ examples/fit_line.py:w }} and {{claim by_hand/leaves.py:claim-x}}.\n",
        "Code `{{ x }}` and math $\\frac{{a}}{b}$ keep their braces.\n",
        "```python\nd = {{1: 2}}\n```\n",
        "```markdown\nWrite {{ examples/fit_line.py: w }} (an example shown as written).\n```\n",
    ],
)
def test_values_code_latex_and_examples_are_no_unread_marker(tmp_path, text):
    assert consistency.unread_markers(SITE, page(tmp_path, text)) == []


@pytest.mark.unit
def test_sections_shown_out_of_order_are_named(tmp_path):
    shown = page(
        tmp_path,
        '```python\n--8<-- "snippets/examples/fit_line.py:loop"\n```\n\n'
        '```python\n--8<-- "snippets/examples/fit_line.py:data"\n```\n\n'
        '```python\n--8<-- "snippets/examples/fit_line.py:snapshots"\n```\n',
    )
    assert [str(p) for p in consistency.unshown_sections(SITE, shown)] == [
        f"{tmp_path}/page.md:2: shows the sections of snippets/examples/fit_line.py as loop,"
        " data, snapshots; show them in the snippet's order, data, loop, snapshots (its notebook"
        " runs them top to bottom)"
    ]


@pytest.mark.unit
def test_a_whole_file_include_shows_every_section(tmp_path):
    shown = page(tmp_path, '```python\n--8<-- "snippets/examples/fit_line.py"\n```\n')
    assert consistency.unshown_sections(SITE, shown) == []

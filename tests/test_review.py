"""Drift review: on GitHub, `--check` annotates the file to fix and writes a job summary;
`--check --report DIR` writes a self-contained HTML page with each drifted figure beside its
recording, and the browser marks the pixels that differ."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from projects import REPO as ROOT

PAGE = """
# Review

```python title="snippets/hand.py"
--8<-- "snippets/hand.py:main"
```

``` text title="python snippets/hand.py"
--8<-- "docs/generated/hand.txt"
```

```python title="snippets/plot.py"
--8<-- "snippets/plot.py:data"
```

``` text title="python snippets/plot.py"
--8<-- "docs/generated/plot.txt"
```

![The curve](generated/plot.curve.svg#only-light)
![The curve](generated/plot.curve.dark.svg#only-dark)
"""

HAND = """
# --8<-- [start:main]
print("line one")
print("line two")
print("line three")
# --8<-- [end:main]
"""

PLOT = """
# --8<-- [start:data]
xs = [0, 1, 2, 3]
ys = [x * x for x in xs]
print("squares:", ys)
# --8<-- [end:data]
"""

FIGURE = """
import matplotlib.pyplot as plt


def draw(ns):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(ns["xs"], ns["ys"], color="C0", linewidth=3)
    return fig


FIGURES = {"curve": draw}
"""

BROKEN = """
# --8<-- [start:main]
values = [1, 2]
print(values[1])
# --8<-- [end:main]
"""

GITHUB = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "someone/autograd-docs",
    "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
}


def regen(box, env: dict, *args: str) -> subprocess.CompletedProcess:
    """regen.py in the sandbox, in exactly this environment (plus CI=true, as the suite)."""
    return subprocess.run(
        [sys.executable, "scripts/regen.py", *args],
        cwd=box.root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "CI": "true"},
    )


# One drifted check, read by every test of its formatters: they share a worker.
pytestmark = pytest.mark.xdist_group("drift review")


@pytest.fixture(scope="module")
def drifted(tmp_path_factory):
    """A recorded sandbox, then: hand.txt edited by hand, plot.py changed (its output and its
    figure drift), and broken.py broken. Returns the check's result."""
    from conftest import make_sandbox

    tmp_path = tmp_path_factory.mktemp("drifted")
    sandbox = make_sandbox(tmp_path)
    sandbox.write("snippets/hand.py", HAND)
    sandbox.write("snippets/plot.py", PLOT)
    sandbox.write("snippets/broken.py", BROKEN)
    sandbox.write("scripts/figures/plot.py", FIGURE)
    sandbox.write("docs/index.md", PAGE + '\n```python\n--8<-- "snippets/broken.py:main"\n```\n')
    first = sandbox.regen()
    assert first.returncode == 0, first.stderr
    sandbox.commit()
    sandbox.write("docs/generated/hand.txt", "line one\nline 2\nline three\n")
    sandbox.write("snippets/plot.py", PLOT.replace("x * x", "x * x * x"))
    sandbox.write("snippets/broken.py", BROKEN.replace("values[1]", "values[5]"))
    summary = tmp_path / "summary.md"
    summary.write_text("earlier steps wrote this\n")
    env = {**os.environ, **GITHUB, "GITHUB_STEP_SUMMARY": str(summary)}
    report = tmp_path / "report"
    check = regen(sandbox, env, "--check", "--report", str(report))
    assert check.returncode == 1, check.stderr
    return check, summary.read_text(), report / "index.html"


def annotations(stdout: str) -> dict[str, str]:
    """file -> the whole annotation line, for each `::error file=...` line."""
    found = re.findall(r"^(::error file=([^,]+),.*)$", stdout, re.M)
    return {file: line for line, file in found}


@pytest.mark.integration
def test_each_problem_is_annotated_where_the_author_must_look(drifted):
    check, _, _ = drifted
    found = annotations(check.stdout)
    assert set(found) == {
        "snippets/broken.py",
        "docs/generated/hand.txt",
        "snippets/plot.py",
        "docs/notebooks/index.ipynb",
    }
    assert found["snippets/broken.py"].startswith(
        "::error file=snippets/broken.py,line=3,title=snippets/broken.py failed::"
        "FAILED snippets/broken.py:3: IndexError: list index out of range%0A"
    )
    # hand.txt's snippet did not change since its recording: the recorded file was edited.
    assert found["docs/generated/hand.txt"].startswith(
        "::error file=docs/generated/hand.txt,line=2,title=snippets/hand.py drifted::"
        "docs/generated/hand.txt differs from a real run of snippets/hand.py, which has not "
        "changed since it was recorded: the file was edited by hand. Generated files are never "
        "edited; fix: python scripts/regen.py snippets/hand.py%0A%0ADRIFT snippets/hand.py%0A"
    )
    # plot.py changed: the annotation points at the first line of the section whose output moved.
    assert found["snippets/plot.py"].startswith(
        "::error file=snippets/plot.py,line=2,title=snippets/plot.py drifted::"
        "What snippets/plot.py publishes no longer matches its recording. If the change is "
        "intended, run python scripts/regen.py snippets/plot.py, review the diff and commit it."
    )
    assert "-squares: [0, 1, 4, 9]%0A" in found["snippets/plot.py"]
    assert "+squares: [0, 1, 8, 27]%0A" in found["snippets/plot.py"]


@pytest.mark.integration
def test_the_summary_shows_diffs_pages_and_fixes(drifted):
    _, summary, _ = drifted
    assert summary.startswith(
        "earlier steps wrote this\n## Snippet check: 3 drifted, 1 failed (3 snippets checked)\n"
    )
    page = "[docs/index.md](https://github.com/someone/autograd-docs/blob/" + GITHUB["GITHUB_SHA"]
    hand = summary[summary.index("### `snippets/hand.py` drifted") :]
    assert hand.startswith(
        "### `snippets/hand.py` drifted\n\n"
        f"Shown on {page}/docs/index.md).\n\n"
        "`docs/generated/hand.txt` differs from the actual run:\n\n"
        "```diff\n"
        "--- docs/generated/hand.txt (recorded)\n"
        "+++ docs/generated/hand.txt (actual run)\n"
        "@@ -1,3 +1,3 @@\n"
        " line one\n"
        "-line 2\n"
        "+line two\n"
        " line three\n"
        "```\n\n"
        "**Fix:** `python scripts/regen.py snippets/hand.py`, then review the diff and commit it.\n"
    )
    plot = summary[summary.index("### `snippets/plot.py` drifted") :]
    assert "`docs/generated/plot.curve.svg`: the figure differs.\n" in plot
    assert "`docs/generated/plot.curve.dark.svg`: the figure differs.\n" in plot
    assert "shows each figure beside its recording" in plot
    broken = summary[summary.index("### `snippets/broken.py` failed") :]
    assert "```text\nFAILED snippets/broken.py:3: IndexError: list index out of range\n" in broken


@pytest.mark.unit
def test_annotations_point_at_each_problems_own_file_and_line_and_only_on_github(
    tmp_path, monkeypatch, capsys
):
    """The formatters read a Problem's fields, never its text: a problem in any file (here
    pyproject.toml, which no path pattern of old named) is annotated there, at its line."""
    from docpipe.formats import findings
    from docpipe.pipeline import CheckResult, Failure, Verdict
    from docpipe.problems import RUN, Problem
    from docpipe.project import Project
    from docpipe.statuses import CheckStatus

    project = Project(tmp_path)
    snippet = project.snippet("by_hand/x")
    error = Problem(snippet.name, 7, "ValueError: bad: input, with: colons", RUN)
    problems = [
        Problem("pyproject.toml", 25, "torch is pinned to 2.13.0+cpu, but: another runs"),
        Problem("snippets/snippets.toml", None, "unreadable: a message with: colons"),
    ]
    result = CheckResult(
        1,
        problems=problems,
        verdicts=[Verdict(snippet.name, CheckStatus.FAILED, snippet, failure=Failure(error))],
        project=project,
    )
    for name in [k for k in os.environ if k.startswith("GITHUB_")]:
        monkeypatch.delenv(name)
    findings.publish(result, None)
    assert capsys.readouterr() == ("", "")  # not on GitHub: nothing but the terminal
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    findings.publish(result, None)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "::error file=snippets/by_hand/x.py,line=7,title=snippets/by_hand/x.py failed::"
        "FAILED snippets/by_hand/x.py:7: ValueError: bad: input, with: colons"
    )
    assert lines[1:] == [
        "::error file=pyproject.toml,line=25::pyproject.toml:25: torch is pinned to 2.13.0+cpu,"
        " but: another runs",
        "::error file=snippets/snippets.toml::snippets/snippets.toml: unreadable: a message"
        " with: colons",
    ]


@pytest.mark.integration
def test_the_html_report_holds_diffs_and_both_figures_in_both_palettes(drifted):
    check, _, report = drifted
    assert f"drift report: {report}" in check.stderr
    html = report.read_text()
    assert "<title>Drift report: 3 drifted, 1 failed, 0 site problems</title>" in html
    # The hand edit, side by side: the recorded line beside the actual one.
    assert '<span class="diff_sub">line&nbsp;2</span>' in html
    assert '<span class="diff_add">line&nbsp;two</span>' in html
    # The figure: recorded and actual, light and dark, each embedded.
    for theme in ("light", "dark"):
        name = "plot.curve.svg" if theme == "light" else "plot.curve.dark.svg"
        block = html[html.index(f"<div class='compare {theme}'>") :]
        assert f"<code>docs/generated/{name}</code>" in block[:200]
        assert "<img class='rec' alt='Recorded figure' src='data:image/svg+xml;base64," in block
        assert "<img class='act' alt='Actual run figure' src='data:image/svg+xml;base64," in block
    assert "FAILED snippets/broken.py:3: IndexError: list index out of range" in html
    # Self-contained: nothing is fetched from anywhere.
    assert not re.search(r"""(src|href)=['"]?(https?:)?//""", html)


# Run in its own interpreter: the browser tests hold Playwright's sync API for the session.
@pytest.mark.integration
def test_the_report_marks_the_changed_pixels_in_a_browser(drifted, browser):
    _, _, report = drifted
    shots = ROOT / "test-artifacts" / "drift-report"
    shots.mkdir(parents=True, exist_ok=True)
    counts = {}
    for scheme in ("light", "dark"):
        page = browser.new_page(color_scheme=scheme, viewport={"width": 1400, "height": 900})
        try:
            page.goto(report.as_uri())
            page.wait_for_function(
                "[...document.querySelectorAll('.compare .count')].every(c => c.textContent)"
            )
            counts[scheme] = page.locator(".compare .count").all_text_contents()
            page.screenshot(path=shots / f"drift-report-{scheme}.png", full_page=True)
        finally:
            page.close()
    for scheme in ("light", "dark"):
        assert len(counts[scheme]) == 2  # the figure in the light and in the dark palette
        for text in counts[scheme]:
            assert re.fullmatch(r"— [\d,]+ of [\d,]+ pixels \(\d+\.\d\d%\)", text), text

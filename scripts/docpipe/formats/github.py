"""Drift review on GitHub: under GITHUB_ACTIONS, `--check` puts an annotation on the file to fix
and appends a Markdown report to the job summary ($GITHUB_STEP_SUMMARY).

An annotation points where the author should look: the file and line a failure names; for
drift, the section of the snippet whose output changed, or, when the snippet has not changed
since its recording (its recorded digests still match), the recorded file itself, since then
someone edited it by hand.
"""

from __future__ import annotations

import json
import os
import re

from docpipe import catalog
from docpipe.formats.findings import Finding
from docpipe.project import ROOT, Snippet, rel
from docpipe.recorded import fingerprints as sources
from docpipe.recorded import versions
from docpipe.recorded.drift import marked, with_marks
from docpipe.sections import SectionError, find_sections

LOCATION = re.compile(r"((?:snippets|scripts|docs)/[\w/.-]+):(\d+)")
HUNK = re.compile(r"^@@ -(\d+)")


def annotate(findings: list[Finding], problems: list[str]) -> None:
    for f in findings:
        file, line, message = _where(f)
        verb = "failed" if f.failed else "drifted"
        if f.environment_only:
            verb = "differ from their recordings only in the environment stamp"
        print(_command(message, file=file, line=line, title=f"{f.subject} {verb}"))
    for problem in problems:
        m = LOCATION.match(problem)
        print(_command(problem, file=m[1], line=m[2]) if m else _command(problem))


def summarise(findings: list[Finding], problems: list[str], checked: int) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as summary:
        summary.write(summary_markdown(findings, problems, checked))


def summary_markdown(findings: list[Finding], problems: list[str], checked: int) -> str:
    failed = sum(f.failed for f in findings)
    stamp_only = sum(len(f.environment_only) for f in findings)
    drifted = len(findings) - failed - sum(bool(f.environment_only) for f in findings)
    if not findings and not problems:
        return f"## Snippet check: all {checked} snippets match their recordings\n\n"
    counts = (
        f"{drifted} drifted"
        + (f", {stamp_only} differ only in the environment stamp" if stamp_only else "")
        + f", {failed} failed"
        + (f", {len(problems)} site problems" if problems else "")
    )
    out = [f"## Snippet check: {counts} ({checked} snippets checked)\n"]
    for f in findings:
        out.append(
            _failure(f) if f.failed else _environment(f) if f.environment_only else _drift(f)
        )
    if problems:
        out.append("### Site problems\n")
        out += [f"- `{p}`" for p in problems]
        out.append("")
    return "\n".join(out) + "\n"


def _drift(f: Finding) -> str:
    out = [f"### `{f.subject}` drifted\n"]
    if f.pages:
        out.append("Shown on " + ", ".join(_link(p) for p in f.pages) + ".\n")
    if f.env_note:
        out.append(f"The recording's environment differs: {f.env_note}.\n")
    figures = False
    for d in f.drifts:
        name = rel(d.path)
        if d.problem == "missing":
            out.append(f"`{name}` is missing (the run produces it).\n")
        elif d.problem == "stale":
            out.append(f"`{name}` is stale (the run no longer produces it).\n")
        elif d.path.suffix == ".svg":
            figures = True
            out.append(f"`{name}`: the figure differs.\n")
        else:
            out.append(f"`{name}` differs from the actual run:\n")
            out.append(_fenced("diff", d.diff))
            for line, old, new in marked(d):
                out.append(f"Line {line}, what changed between \u00ab and \u00bb:\n")
                text = f"recorded: {with_marks(old)}\nrun:      {with_marks(new)}"
                out.append(_fenced("text", text))
    if figures:
        out.append(
            "The drift report (`--check --report DIR`; CI uploads it as an artifact) shows "
            "each figure beside its recording.\n"
        )
    if not f.drifts:  # a notebook: its report is all there is
        out.append(_fenced("text", f.report))
    out.append(f"**Fix:** `{f.fix}`, then review the diff and commit it.\n")
    return "\n".join(out)


def _environment(f: Finding) -> str:
    """Said once for every snippet whose files differ only in the environment stamp."""
    listed = ", ".join(f"`{name}`" for name in f.environment_only)
    return "\n".join(
        [
            f"### Only the environment stamp differs ({len(f.environment_only)} snippets)\n",
            f"The recordings' environment differs: {f.env_note}. Their output, values, figures"
            f" and claims are the same: {listed}.\n",
            f"**Fix:** {f.fix}.\n",
        ]
    )


def _failure(f: Finding) -> str:
    return "\n".join(
        [
            f"### `{f.subject}` failed\n",
            "Nothing was compared: the run itself failed.\n",
            _fenced("text", f.report),
        ]
    )


def _where(f: Finding) -> tuple[str, int, str]:
    """The file and line an annotation points at, and its message."""
    if f.failed:
        m = LOCATION.search(f.error)
        if m and (ROOT / m[1]).is_file():
            return m[1], int(m[2]), f.report
        return f.subject, 1, f.report
    if f.environment_only:  # on the pin, which names the torch the records should have
        pinned = versions.pin()
        if pinned:
            return rel(pinned.path), pinned.line, f.report
        return f.environment_only[0], 1, f.report
    if not f.subject.endswith(".py"):  # a notebook
        return f.subject, 1, f.report
    snippet = Snippet.from_path(f.subject)
    hand_edited = next((d for d in f.drifts if d.problem == "differs"), None)
    if hand_edited and not f.env_note and _unchanged_since_recorded(snippet):
        line = _first_changed_line(hand_edited.diff)
        name = rel(hand_edited.path)
        message = (
            f"{name} differs from a real run of {f.subject}, which has not changed since it was "
            f"recorded: the file was edited by hand. Generated files are never edited; "
            f"fix: {f.fix}\n\n{f.report}"
        )
        return name, line, message
    message = (
        f"What {f.subject} publishes no longer matches its recording. If the change is "
        f"intended, run {f.fix}, review the diff and commit it.\n\n{f.report}"
    )
    return f.subject, _changed_section_line(snippet, f), message


def _unchanged_since_recorded(snippet: Snippet) -> bool:
    try:
        recorded = json.loads(snippet.record.read_text(encoding="utf-8")).get("inputs")
        settings = catalog.load().settings[snippet]
    except (OSError, ValueError, KeyError, catalog.CatalogError):
        return False
    if not recorded:
        return False
    return not sources.changed(recorded, sources.current(snippet, settings, recorded))


def _changed_section_line(snippet: Snippet, f: Finding) -> int:
    """The first line of the first section whose output changed (1 if none did)."""
    try:
        old = dict(json.loads(snippet.record.read_text(encoding="utf-8"))["sections"])
        new = dict(json.loads(f.actual[snippet.record])["sections"])
        spans = find_sections(snippet.source.read_text(encoding="utf-8"), snippet.name)
    except (OSError, ValueError, KeyError, TypeError, SectionError):
        return 1
    for section, output in new.items():
        if old.get(section) != output and section in spans:
            return spans[section][0]
    return 1


def _first_changed_line(diff: str) -> int:
    """The recorded file's first changed line, read from its unified diff."""
    line = 1
    for text in diff.splitlines()[2:]:
        if m := HUNK.match(text):
            line = int(m[1])
        elif text.startswith(("-", "+")):
            return line
        else:
            line += 1
    return 1


def _command(message: str, **properties) -> str:
    """A GitHub workflow command, `::error file=...,line=...::message`, escaped as it requires."""
    props = ",".join(f"{k}={_escape(str(v), True)}" for k, v in properties.items())
    return f"::error {props}::{_escape(message)}" if props else f"::error::{_escape(message)}"


def _escape(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def _link(page: str) -> str:
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    sha = os.environ.get("GITHUB_SHA")
    return f"[{page}]({server}/{repo}/blob/{sha}/{page})" if server and repo and sha else page


def _fenced(language: str, text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}\n"

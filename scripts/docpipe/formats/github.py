"""Drift review on GitHub: under GITHUB_ACTIONS, `--check` puts an annotation on the file to fix
and appends a Markdown report to the job summary ($GITHUB_STEP_SUMMARY).

An annotation points where the author should look: the file and line a failure names; for
drift, the section of the snippet whose output changed, or, when the snippet has not changed
since its recording (its recorded digests still match), the recorded file itself, since then
someone edited it by hand.
"""

from __future__ import annotations

import os
import re

from docpipe import texts
from docpipe.formats import terminal
from docpipe.recorded import versions
from docpipe.recorded.drift import marked, with_marks
from docpipe.recorded.record import Record, RecordError, load
from docpipe.sections import SectionError, find_sections
from docpipe.statuses import CheckStatus, DriftKind


def annotate(result) -> None:
    """An `::error` workflow command per failure, drift, environment group and problem."""
    for v in result.verdicts:
        if v.status in (CheckStatus.FAILED, CheckStatus.DRIFTED):
            file, line, message = _where(v)
            print(_command(message, file=file, line=line, title=f"{v.subject} {v.status}"))
    for group in terminal.environment_groups(result.verdicts).values():
        file, line = _pin(group)
        title = (
            f"{len(group)} snippets (environment stamp only) differ from their recordings only"
            " in the environment stamp"
        )
        report = terminal.environment_reports(group)[0]
        print(_command(report, file=file, line=line, title=title))
    for problem in result.problems:
        where = {"file": problem.path} if problem.path else {}
        where |= {"line": problem.line} if problem.path and problem.line else {}
        print(_command(str(problem), **where))


def summarise(result) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as summary:
        summary.write(summary_markdown(result))


def summary_markdown(result) -> str:
    problems = result.problems
    shown = [v for v in result.verdicts if v.status in (CheckStatus.FAILED, CheckStatus.DRIFTED)]
    groups = terminal.environment_groups(result.verdicts)
    if not shown and not groups and not problems:
        return f"## Snippet check: all {result.checked} snippets match their recordings\n\n"
    counts = terminal.counts(result) + (f", {len(problems)} site problems" if problems else "")
    out = [f"## Snippet check: {counts} ({result.checked} snippets checked)\n"]
    out += [_failure(v) if v.status == CheckStatus.FAILED else _drift(v) for v in _ordered(shown)]
    out += [_environment(note, group) for note, group in groups.items()]
    if problems:
        out.append("### Site problems\n")
        out += [f"- `{p}`" for p in problems]
        out.append("")
    return "\n".join(out) + "\n"


def _ordered(verdicts: list) -> list:
    """Failures first, then drifted snippets, then notebooks (as the terminal lists them)."""
    return sorted(
        verdicts, key=lambda v: (v.status != CheckStatus.FAILED, v.snippet is None, v.subject)
    )


def _drift(v) -> str:
    out = [f"### `{v.subject}` drifted\n"]
    if v.pages:
        out.append("Shown on " + ", ".join(_link(p) for p in v.pages) + ".\n")
    if v.environment:
        out.append(f"The recording's environment differs: {v.environment}.\n")
    figures = False
    if v.snippet is None:  # a notebook: its report is all there is
        out.append(_fenced("text", terminal.report(v)))
    else:
        rel = v.snippet.project.rel
        for d in v.drifts:
            name = rel(d.path)
            if d.problem == DriftKind.MISSING:
                out.append(f"`{name}` is missing (the run produces it).\n")
            elif d.problem == DriftKind.STALE:
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
    out.append(f"**Fix:** `{terminal.fix(v)}`, then review the diff and commit it.\n")
    return "\n".join(out)


def _environment(note: str, group: list) -> str:
    """Said once for every snippet whose files differ only in the environment stamp."""
    listed = ", ".join(f"`{v.subject}`" for v in group)
    return "\n".join(
        [
            f"### Only the environment stamp differs ({len(group)} snippets)\n",
            f"The recordings' environment differs: {note}. Their output, values, figures"
            f" and claims are the same: {listed}.\n",
            f"**Fix:** {terminal.ENVIRONMENT_FIX}.\n",
        ]
    )


def _failure(v) -> str:
    return "\n".join(
        [
            f"### `{v.subject}` failed\n",
            "Nothing was compared: the run itself failed.\n",
            _fenced("text", terminal.report(v)),
        ]
    )


def _where(v) -> tuple[str, int, str]:
    """The file and line an annotation points at, and its message."""
    report = terminal.report(v)
    if v.status == CheckStatus.FAILED:
        return v.error.path or v.subject, v.error.line or 1, report
    if v.snippet is None:  # a notebook
        return v.subject, 1, report
    snippet, fix = v.snippet, terminal.fix(v)
    hand_edited = next((d for d in v.drifts if d.problem == DriftKind.DIFFERS), None)
    if hand_edited and not v.environment and v.since == []:
        name = snippet.project.rel(hand_edited.path)
        message = (
            f"{name} differs from a real run of {v.subject}, which has not changed since it was "
            f"recorded: the file was edited by hand. Generated files are never edited; "
            f"fix: {fix}\n\n{report}"
        )
        return name, hand_edited.first_line, message
    message = (
        f"What {v.subject} publishes no longer matches its recording. If the change is "
        f"intended, run {fix}, review the diff and commit it.\n\n{report}"
    )
    return v.subject, _changed_section_line(v), message


def _pin(group: list) -> tuple[str, int]:
    """Where environment-only drift points: the pin, which names the torch the records
    should have been made with."""
    try:
        pinned = versions.pin(group[0].snippet.project)
    except versions.PinError:
        pinned = None
    return (pinned.path, pinned.line) if pinned else (group[0].subject, 1)


def _changed_section_line(v) -> int:
    """The first line of the first section whose output changed (1 if none did)."""
    snippet = v.snippet
    try:
        old = dict(load(snippet).sections)
        new = dict(Record.from_bytes(v.files[snippet.record], snippet.name).sections)
        spans = find_sections(texts.read(snippet.source, snippet.name), snippet.name)
    except (OSError, KeyError, RecordError, SectionError):
        return 1
    for section, output in new.items():
        if old.get(section) != output and section in spans:
            return spans[section][0]
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

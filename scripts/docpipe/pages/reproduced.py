"""What a reader is told about the torch versions that reproduce a page, from the records (the
version they were made with) and the committed verifications (docpipe.verify): the line in a
page's "How this page was made" box, a note under an output block that another verified
version prints otherwise, and the versions named in a checked claim's tooltip.

Only a verification that still holds counts: one made before its snippet or recording changed
says "not verified". Nothing here needs torch; the site-only venv builds it all.
"""

from __future__ import annotations

import html
from pathlib import Path

from docpipe import inputs
from docpipe.catalog import CatalogError, current
from docpipe.pages import reading as pages
from docpipe.pages.outputs import output_blocks
from docpipe.project import Project, Snippet
from docpipe.recorded import record as records
from docpipe.recorded import verified as verify
from docpipe.recorded.drift import changed_span, excerpt
from docpipe.recorded.versions import public
from docpipe.statuses import ClaimStatus, VerifiedStatus

NOTED_LINES = 3  # a block's note quotes at most this many changed lines per version


def _settings(snippet: Snippet):
    try:
        return current(snippet.project).settings.get(snippet)
    except CatalogError:
        return None


# Asked for each claim mark and output block of a page, in each build of `mkdocs serve`: kept
# until the snippet, a recorded file, an input, a verification or the settings change.
@inputs.memo(  # keyed on the versions too: which ones are verified is part of the answer
    key=lambda snippet: (str(snippet.source), tuple(verify.versions(snippet.project))),
    also=lambda snippet: [snippet.project.meta, snippet.project.root / "pyproject.toml"],
)
def statuses(snippet: Snippet) -> list[verify.Status]:
    """The snippet's standing under each verified version, in pyproject.toml's order."""
    settings = _settings(snippet)
    return [verify.status(snippet, v, settings) for v in verify.versions(snippet.project)]


def box(project: Project, snippets: set[Snippet]) -> str:
    """ "torch 2.13.0 (recorded), 2.14.1 (same output)", or what differs, for a page's box."""
    made = sorted(
        {public(records.load(s).environment["torch"]) for s in snippets if s.record.exists()}
    )
    parts = [f"{', '.join(made)} (recorded)"]
    for version in verify.versions(project):
        if verify.load(project, version) is None:
            parts.append(f"{version} (not verified yet)")
            continue
        by: dict[VerifiedStatus, list[str]] = {}
        for snippet in sorted(snippets):
            found = verify.status(snippet, version, _settings(snippet))
            by.setdefault(found.verdict, []).append(_failing(found, snippet.name))
        parts.append(f"{version} ({_verdict(by)})")
    return "torch " + ", ".join(parts)


def _failing(found, name: str) -> str:
    """A snippet's name, and for one that failed, the claims that failed and where it stopped
    (its first claim that failed stops the run: the claims after it are not run)."""
    if found.verdict != VerifiedStatus.FAILED:
        return name
    failed = [
        c for c, held in sorted(found.entry.get("claims", {}).items()) if held == ClaimStatus.FAILED
    ]
    error = found.entry.get("error", "").strip().rstrip(":")
    what = f"{name} fails {'its claim ' + ', '.join(failed) if failed else 'its run'}"
    return f"{what} ({error})" if error else what


def _verdict(by: dict[VerifiedStatus, list[str]]) -> str:
    said = []
    if by.get(VerifiedStatus.FAILED):
        said.append("; ".join(by[VerifiedStatus.FAILED]))  # each says what failed (_failing)
    if by.get(VerifiedStatus.DIFFERS):
        differs = by[VerifiedStatus.DIFFERS]
        said.append(
            f"{_names(differs)} {_verb(differs, 'prints', 'print')} otherwise,"
            " as the note under its output says"
        )
    if by.get(VerifiedStatus.STALE):
        stale = by[VerifiedStatus.STALE]
        said.append(f"not verified since {_names(stale)} {_verb(stale, 'changed', 'changed')}")
    if not said:
        return "same output"
    if not by.get(VerifiedStatus.SAME):
        return "; ".join(said)
    return "same output, except: " + "; ".join(said)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _verb(names: list[str], one: str, many: str) -> str:
    return one if len(names) == 1 else many


def block_note(snippet: Snippet, lines: tuple[int, int] | None = None) -> str:
    """What each verified version prints otherwise than an output block of the snippet shows
    ("" when every one prints the same or is not verified); `lines`, the first and last line
    of the whole output that a block of sections shows (docpipe.pages.outputs)."""
    said = []
    for status in statuses(snippet):
        for difference in status.differences:
            if difference["file"] != snippet.project.rel(snippet.output):
                continue
            if lines and difference["lines"]:
                inside = [x for x in difference["lines"] if lines[0] <= x[0] <= lines[1]]
                if not inside:
                    continue
                difference = {**difference, "lines": inside}
            said.append(_difference(status.version, difference))
    return " ".join(said)


def _difference(version: str, difference: dict) -> str:
    lines = difference["lines"]
    if not lines:
        return (
            f"Under torch {html.escape(version)} this output differs by whole lines"
            f" (verified/torch-{html.escape(version)}.json holds the diff)."
        )
    quoted = []
    for line, old, new in lines[:NOTED_LINES]:
        a, b = changed_span(old, new)
        quoted.append(
            f"line {line} reads {_code(excerpt(new, b))} where this block shows"
            f" {_code(excerpt(old, a))}"
        )
    more = len(lines) - NOTED_LINES
    tail = f", and {more} more lines differ" if more > 0 else ""
    return f"Under torch {html.escape(version)}, {'; '.join(quoted)}{tail}."


def _code(parts: tuple[str, str, str]) -> str:
    before, changed, after = (html.escape(p) for p in parts)
    return f"<code>{before}<strong>{changed}</strong>{after}</code>"


def with_notes(project: Project, markdown: str, page: Path) -> str:
    """Under each output block that a verified version prints otherwise, a small note."""
    lines = markdown.split("\n")
    for inc, shown in reversed(output_blocks(project, page, markdown)):
        use = pages.classify(project, inc)
        note = block_note(use.snippet, shown and (shown.first, shown.last))
        if note:
            opening = lines[inc.fence.first - 1]
            indent = opening[: len(opening) - len(opening.lstrip())]
            lines[inc.fence.last : inc.fence.last] = [
                "",
                f'{indent}<small class="version-note">{note}</small>',
            ]
    return "\n".join(lines)


def claim_versions(snippet: Snippet, section: str) -> list[str]:
    """The verified versions under which a claim's asserts held (verifications that hold)."""
    return [
        s.version
        for s in statuses(snippet)
        if s.entry.get("claims", {}).get(section) == ClaimStatus.HELD
    ]

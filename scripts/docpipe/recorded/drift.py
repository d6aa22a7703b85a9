"""Comparing what a run would publish with what is committed, and saying how to fix it."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from docpipe.project import Project, Snippet
from docpipe.recorded.record import RecordError, load
from docpipe.statuses import DriftKind

DIFF_LINES = 60  # a drift report shows at most this many diff lines per file


MARKED_LINES = 10  # a drift report marks the changed part of at most this many lines per file
LONG_LINE = 60  # lines longer than this get their changed part marked
CONTEXT = 30  # characters of an excerpt shown either side of the changed part


@dataclass(frozen=True)
class Change:
    """One line the run prints otherwise: its number in the recorded file, and both texts."""

    line: int
    recorded: str
    actual: str


@dataclass(frozen=True)
class Drift:
    path: Path
    problem: DriftKind
    diff: str = ""
    changes: tuple[Change, ...] = ()  # the changed lines paired one to one, for marking
    first_line: int = 1  # the recorded file's first line that differs (or where lines go in)


def compare(project: Project, expected: dict[Path, bytes], on_disk: set[Path]) -> list[Drift]:
    drifts = []
    for path, data in sorted(expected.items()):
        if not path.exists():
            drifts.append(Drift(path, DriftKind.MISSING))
        elif (old := path.read_bytes()) != data:
            diff = unified(project.rel(path), old, data)
            drifts.append(
                Drift(path, DriftKind.DIFFERS, diff, changes(old, data), first_line(old, data))
            )
    drifts += [Drift(p, DriftKind.STALE) for p in sorted(on_disk - set(expected))]
    return drifts


def changes(recorded: bytes, actual: bytes) -> tuple[Change, ...]:
    """The replaced lines of a difference, paired in order (a line added or removed has no
    partner, and the diff shows it whole)."""
    old = recorded.decode("utf-8", "replace").splitlines()
    new = actual.decode("utf-8", "replace").splitlines()
    found = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            found += [
                Change(i1 + k + 1, old[i1 + k], new[j1 + k]) for k in range(min(i2 - i1, j2 - j1))
            ]
    return tuple(found)


def first_line(recorded: bytes, actual: bytes) -> int:
    """The recorded file's first line that differs from the run's (where lines are added, for
    an addition)."""
    old = recorded.decode("utf-8", "replace").splitlines()
    new = actual.decode("utf-8", "replace").splitlines()
    matcher = difflib.SequenceMatcher(None, old, new)
    tag, i1, *_ = next((op for op in matcher.get_opcodes() if op[0] != "equal"), ("", 0))
    return min(i1 + 1, max(len(old), 1)) if tag else 1


def changed_span(a: str, b: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where two versions of a line differ: (start, end) in each, widened to whole words, so
    "TensorBody.h:493" against "TensorBody.h:488" marks 493 and 488."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    while start and _word(a[start - 1]) and (start > len(b) - end or _word(b[start - 1])):
        start -= 1
    a_end, b_end = len(a) - end, len(b) - end
    while a_end < len(a) and b_end < len(b) and _word(a[a_end]) and a[a_end] == b[b_end]:
        a_end, b_end = a_end + 1, b_end + 1
    return (start, a_end), (start, b_end)


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def excerpt(line: str, span: tuple[int, int]) -> tuple[str, str, str]:
    """A line's changed part, with a little context either side: (before, changed, after)."""
    start, end = span
    head, tail = line[max(0, start - CONTEXT) : start], line[end : end + CONTEXT]
    if start > CONTEXT:  # begin the context at a word, not inside one
        cut = next((i + 1 for i, c in enumerate(head) if not _word(c)), 0)
        head = "\u2026" + head[cut:]
    if end + CONTEXT < len(line):
        cut = max((i for i, c in enumerate(tail) if not _word(c)), default=len(tail))
        tail = tail[: max(cut, 1)] + "\u2026"
    return head, line[start:end], tail


def with_marks(parts: tuple[str, str, str]) -> str:
    """An excerpt as text, its changed part between \u00ab and \u00bb."""
    before, changed, after = parts
    return f"{before}\u00ab{changed}\u00bb{after}"


Excerpt = tuple[str, str, str]


def marked(drift: Drift) -> list[tuple[int, Excerpt, Excerpt]]:
    """(line, recorded excerpt, actual excerpt) for each long changed line of a difference."""
    found = []
    for change in drift.changes:
        if max(len(change.recorded), len(change.actual)) <= LONG_LINE:
            continue
        old, new = changed_span(change.recorded, change.actual)
        found.append((change.line, excerpt(change.recorded, old), excerpt(change.actual, new)))
    return found[:MARKED_LINES]


def unified(name: str, recorded: bytes, actual: bytes) -> str:
    """A unified diff of a file (`name`, as the reader types it) as recorded and as run."""
    lines = list(
        difflib.unified_diff(
            recorded.decode("utf-8", "replace").splitlines(keepends=True),
            actual.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=f"{name} (recorded)",
            tofile=f"{name} (actual run)",
        )
    )
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"... {len(lines) - DIFF_LINES} more diff lines\n"]
    return "".join(lines)


def recorded_environment(snippet: Snippet) -> dict | None:
    try:
        return load(snippet).environment
    except RecordError:  # missing or hand-broken: the drift report names the file itself
        return None


def environment_note(recorded: dict | None, running: dict) -> str:
    if not recorded:
        return ""
    changed = [
        f"{name} {recorded.get(name, '?')}, running {running[name]}"
        for name in running
        if recorded.get(name) != running[name]
    ]
    return "recorded with " + "; ".join(changed) if changed else ""

"""Comparing what a run would publish with what is committed, and saying how to fix it."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from .paths import DOCS, NOTEBOOKS, Snippet, rel

DIFF_LINES = 60  # a drift report shows at most this many diff lines per file


@dataclass(frozen=True)
class Drift:
    path: Path
    problem: str  # "differs", "missing" or "stale"
    diff: str = ""


def compare(expected: dict[Path, bytes], on_disk: set[Path]) -> list[Drift]:
    drifts = []
    for path, data in sorted(expected.items()):
        if not path.exists():
            drifts.append(Drift(path, "missing"))
        elif (old := path.read_bytes()) != data:
            drifts.append(Drift(path, "differs", unified(path, old, data)))
    drifts += [Drift(p, "stale") for p in sorted(on_disk - set(expected))]
    return drifts


def unified(path: Path, recorded: bytes, actual: bytes) -> str:
    lines = list(
        difflib.unified_diff(
            recorded.decode("utf-8", "replace").splitlines(keepends=True),
            actual.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=f"{rel(path)} (recorded)",
            tofile=f"{rel(path)} (actual run)",
        )
    )
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"... {len(lines) - DIFF_LINES} more diff lines\n"]
    return "".join(lines)


def recorded_environment(snippet: Snippet) -> dict | None:
    from .record import RecordError, load

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


def report(snippet: Snippet, drifts: list[Drift], pages: list[str], env_note: str) -> str:
    out = [f"DRIFT {snippet.name}"]
    if env_note:
        out.append(f"  environment differs: {env_note}")
    out.append(f"  shown on: {', '.join(pages) if pages else '(no page)'}")
    for d in drifts:
        if d.problem == "differs":
            out.append(f"  {rel(d.path)} differs from the actual run:")
            out.append("".join("    " + line for line in d.diff.splitlines(keepends=True)).rstrip())
        elif d.problem == "missing":
            out.append(f"  {rel(d.path)} is missing (the run produces it)")
        else:
            out.append(f"  {rel(d.path)} is stale (the run no longer produces it)")
    out.append(f"  fix: python scripts/regen.py {snippet.name}")
    return "\n".join(out)


def notebook_cells(path: Path) -> str:
    """Name the cells of a committed notebook that differ from the regenerated one."""
    import nbformat

    from .notebooks import render

    page = DOCS / path.relative_to(NOTEBOOKS).with_suffix(".md")
    new = nbformat.reads(render(page).decode(), as_version=4).cells
    try:
        old = nbformat.read(path, as_version=4).cells
    except Exception as e:  # a hand-broken file is still named, with why it cannot be read
        return f"  cannot read it: {e}"
    lines = []
    for index in range(max(len(old), len(new))):
        a = old[index] if index < len(old) else None
        b = new[index] if index < len(new) else None
        if a != b:
            cell = b or a
            origin = cell.get("metadata", {}).get("docpipe")
            where = f" ({origin['snippet']}:{origin['section']})" if origin else ""
            lines.append(f"  cell {index} [{cell.get('id', '?')}]{where} differs")
    return "\n".join(lines)


def notebook_report(d: Drift, cells: str) -> str:
    page = "docs/" + d.path.relative_to(NOTEBOOKS).with_suffix(".md").as_posix()
    what = {
        "differs": "differs from what regen writes",
        "missing": "is missing",
        "stale": "belongs to no tutorial page",
    }[d.problem]
    out = [f"DRIFT {rel(d.path)} {what} (generated from {page})"]
    if cells:
        out.append(cells)
    if d.diff:
        out.append("".join("    " + line for line in d.diff.splitlines(keepends=True)).rstrip())
    out.append("  fix: python scripts/regen.py")
    return "\n".join(out)

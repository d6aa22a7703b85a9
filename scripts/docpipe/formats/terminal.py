"""The terminal's text of a check's verdicts: what `regen.py --check` prints, what a failed
test shows, and the report every other formatter quotes (GitHub, the HTML report, serve)."""

from __future__ import annotations

from docpipe.recorded.drift import marked, with_marks
from docpipe.statuses import CheckStatus, DriftKind

ENVIRONMENT_FIX = (
    "install the pinned torch, or upgrade: bump the pin, then regenerate"
    ' (docs/authoring.md, "Upgrade torch")'
)


def fix(verdict) -> str:
    """The command that makes a drifted subject match its run ("" for a failure)."""
    if verdict.status == CheckStatus.FAILED:
        return ""
    if verdict.status == CheckStatus.ENVIRONMENT_ONLY:
        return ENVIRONMENT_FIX
    if verdict.snippet is None:
        return "python scripts/regen.py"
    return f"python scripts/regen.py {verdict.subject}"


def report(verdict) -> str:
    """A verdict as the terminal shows it ("" for a snippet that matches its recording)."""
    if verdict.status == CheckStatus.FAILED:
        return failure(verdict.failure)
    if verdict.status != CheckStatus.DRIFTED:
        return ""
    if verdict.snippet is None:
        return _notebook(verdict)
    rel = verdict.snippet.project.rel
    out = [f"DRIFT {verdict.subject}"]
    if verdict.environment:
        out.append(f"  environment differs too (not shown in the diff): {verdict.environment}")
    out.append(f"  shown on: {', '.join(verdict.pages) if verdict.pages else '(no page)'}")
    for d in verdict.drifts:
        if d.problem == DriftKind.DIFFERS:
            out.append(f"  {rel(d.path)} differs from the actual run:")
            out.append(_indented(d.diff))
            for line, old, new in marked(d):
                out.append(f"    line {line} changed (\u00ab\u00bb mark what differs):")
                out.append(f"      recorded: {with_marks(old)}")
                out.append(f"      run:      {with_marks(new)}")
        elif d.problem == DriftKind.MISSING:
            out.append(f"  {rel(d.path)} is missing (the run produces it)")
        else:
            out.append(f"  {rel(d.path)} is stale (the run no longer produces it)")
    out.append(f"  fix: {fix(verdict)}")
    return "\n".join(out)


def failure(f) -> str:
    """A failed run (pipeline.Failure): its error, the claims it breaks, how its output ended."""
    shown = "\n".join("    " + line for line in f.output)
    told = f"\n  its output ended with:\n{shown}" if f.output else ""
    return f"FAILED {f.error}{f.claims}{told}"


def _notebook(verdict) -> str:
    (d,) = verdict.drifts
    what = {
        DriftKind.DIFFERS: "differs from what regen writes",
        DriftKind.MISSING: "is missing",
        DriftKind.STALE: "belongs to no tutorial page",
    }[d.problem]
    out = [f"DRIFT {verdict.subject} {what} (generated from {verdict.page})"]
    out += [f"  {cell}" for cell in verdict.cells]
    if d.diff:
        out.append(_indented(d.diff))
    out.append(f"  fix: {fix(verdict)}")
    return "\n".join(out)


def _indented(diff: str) -> str:
    return "".join("    " + line for line in diff.splitlines(keepends=True)).rstrip()


def environment_groups(verdicts) -> dict[str, list]:
    """The verdicts that differ only in the environment stamp, by how the stamp differs."""
    groups: dict[str, list] = {}
    for v in sorted(verdicts, key=lambda v: v.subject):
        if v.status == CheckStatus.ENVIRONMENT_ONLY:
            groups.setdefault(v.environment, []).append(v)
    return groups


def environment_reports(verdicts) -> list[str]:
    """One report for all the snippets whose runs differ from their recordings only in the
    environment stamp: their output, values, figures and claims are the same."""
    out = []
    for note, group in environment_groups(verdicts).items():
        count = (
            "1 snippet differs from its recording"
            if len(group) == 1
            else f"{len(group)} snippets differ from their recordings"
        )
        out.append(
            f"ENVIRONMENT {count} only in the environment stamp"
            f" ({note or 'the stamp'}); output, values, figures and claims are the same:\n"
            + "".join(f"  {v.subject}\n" for v in group)
            + f"  fix: {ENVIRONMENT_FIX}"
        )
    return out


def counts(result) -> str:
    """`N drifted, M failed`, as the check's last line and every summary say it."""
    content = len(result.drifted) + len(result.notebooks)
    stamp_only = len(result.environment_only)
    return (
        f"{content} drifted"
        + (f", {stamp_only} differ only in the environment stamp" if stamp_only else "")
        + f", {len(result.failed)} failed"
    )

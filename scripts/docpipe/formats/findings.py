"""What `--check` found, for reviewers who read it elsewhere than in a terminal: annotations and
a job summary on GitHub (docpipe.formats.github), and a self-contained HTML page (docpipe.formats.html)."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from docpipe.recorded.drift import Drift


@dataclass
class Finding:
    subject: str  # what drifted or failed: "snippets/x.py", or a notebook's path
    failed: bool  # True: the run failed; False: what it publishes differs from the record
    report: str  # the report as the terminal shows it
    fix: str = "python scripts/regen.py"  # the command that fixes drift (none fixes a failure)
    error: str = ""  # a failure's one-line error, which names file and line where it can
    pages: list[str] = field(default_factory=list)  # the pages that show the subject
    drifts: list[Drift] = field(default_factory=list)
    actual: dict[Path, bytes] = field(default_factory=dict)  # the files the run publishes
    env_note: str = ""  # how the recording's environment differs from this one
    # Set for the one finding that stands for every snippet whose files differ only in the
    # environment stamp (with this env_note): their names. Content drift comes before it.
    environment_only: list[str] = field(default_factory=list)


def from_check(result) -> list[Finding]:
    """The findings of a docpipe.pipeline.CheckResult, failures first."""
    from docpipe.pages.reading import pages_using
    from docpipe.recorded import drift
    from docpipe.run.environment import stamp

    found = []
    for snippet, why in sorted(result.failed.items()):
        error = why.partition("\n")[0].removeprefix("FAILED ")
        found.append(Finding(snippet.name, True, why, fix="", error=error))
    for snippet, report in sorted(result.drifted.items()):
        drifts, files = result.evidence.get(snippet, ([], {}))
        note = drift.environment_note(drift.recorded_environment(snippet), stamp())
        fix = f"python scripts/regen.py {snippet.name}"
        pages = pages_using(snippet)
        found.append(Finding(snippet.name, False, report, fix, "", pages, drifts, files, note))
    for report in result.notebooks:
        subject = re.match(r"DRIFT (\S+)", report)
        found.append(Finding(subject[1] if subject else "a notebook", False, report))
    reports = drift.environment_reports(result.environment_only)
    for (note, snippets), report in zip(
        drift.environment_groups(result.environment_only).items(), reports, strict=True
    ):
        names = [s.name for s in snippets]
        subject = f"{len(names)} snippets (environment stamp only)"
        found.append(
            Finding(
                subject, False, report, drift.ENVIRONMENT_FIX, env_note=note, environment_only=names
            )
        )
    return found


def publish(result, report_dir: str | None) -> None:
    """Everything a reviewer reads besides the terminal; the check's one call into it."""
    github = os.environ.get("GITHUB_ACTIONS") == "true"
    if not github and not report_dir:
        return
    found = from_check(result)
    if github:
        from docpipe.formats import github as gh

        gh.annotate(found, result.problems)
        gh.summarise(found, result.problems, result.checked)
    if report_dir:
        from docpipe.formats import html as report

        path = report.write(found, result.problems, result.checked, Path(report_dir))
        print(f"drift report: {path}", file=sys.stderr)

"""What `--check` found, for the reviewers who read it elsewhere than in a terminal: annotations
and a job summary on GitHub (docpipe.github), and a self-contained HTML page (docpipe.report)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .drift import Drift


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


def publish(findings: list[Finding], problems: list[str], checked: int, report_dir: str | None):
    """Everything a reviewer reads besides the terminal; the check's one call into it."""
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from . import github

        github.annotate(findings, problems)
        github.summarise(findings, problems, checked)
    if report_dir:
        from . import report

        path = report.write(findings, problems, checked, Path(report_dir))
        print(f"drift report: {path}", file=sys.stderr)

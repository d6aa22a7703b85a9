"""What `--check` found, for reviewers who read it elsewhere than in a terminal: annotations and
a job summary on GitHub (docpipe.formats.github), and a self-contained HTML page
(docpipe.formats.html). Both are formatters over the check's verdicts (docpipe.pipeline)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def publish(result, report_dir: str | None) -> None:
    """Everything a reviewer reads besides the terminal; the check's one call into it. Reads
    the environment as it is at call time."""
    github = os.environ.get("GITHUB_ACTIONS") == "true"
    if github:
        from docpipe.formats import github as gh

        gh.annotate(result)
        gh.summarise(result)
    if report_dir:
        from docpipe.formats import html

        try:
            path = html.write(result, Path(report_dir))
        except OSError as e:  # the folder was checked before the run; a full disk since
            print(
                f"error: {report_dir}: cannot write the drift report ({e.strerror})",
                file=sys.stderr,
            )
            return
        print(f"drift report: {path}", file=sys.stderr)

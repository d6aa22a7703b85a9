"""One Problem type and one exception base for everything the pipeline reports.

A Problem names the file (relative to the project root), the line where there is one, what is
wrong, and its kind. The kind decides the exit code, as cog separates them:

- AUTHOR (exit 2): a mistake in settings, pages or markers that only an author can fix;
  regen writes nothing while one stands, and --check lists them first.
- RUN (exit 1): a snippet that failed, drifted or is unstable.

Every formatter (the terminal, GitHub annotations, the job summary, the HTML report, the live
preview, the pre-commit hook) reads the fields; none parses the text back.
"""

from __future__ import annotations

from dataclasses import dataclass

AUTHOR = "author"
RUN = "run"
EXIT = {AUTHOR: 2, RUN: 1}


@dataclass(frozen=True, order=True)
class Problem:
    path: str  # relative to the project root ("docs/index.md", "snippets/x.py")
    line: int | None
    message: str
    kind: str = AUTHOR
    rule: str = ""  # the page rule that found it (docpipe.pages.rules), if one did

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}" if where else self.message


class DocpipeError(Exception):
    """The base of every error the pipeline raises on bad input: it carries its Problem."""

    kind = AUTHOR

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message, self.path, self.line = message, path, line

    @property
    def problem(self) -> Problem:
        return Problem(self.path or "", self.line, self.message, self.kind)

    def __str__(self) -> str:
        return str(self.problem)


class SettingsError(DocpipeError):
    """mkdocs.yml, snippets/snippets.toml or pyproject.toml says something the pipeline
    cannot use."""


def exit_code(problems) -> int:
    """The exit code for these problems: the highest their kinds call for (0: none)."""
    return max((EXIT[p.kind] for p in problems), default=0)

"""The snippets a change touches, for the pre-commit hook (scripts/check_touched.py).

A snippet is touched when the change edits the snippet itself, its figure code, one of its
recorded files, or an input its record names (a helper module, a data file it opened, or its
settings in snippets.toml, compared by its digest: a new timeout touches nothing), or adds or
removes a data file (fingerprints.UNREAD).
"""

from __future__ import annotations

import os
from pathlib import Path

from docpipe.catalog import Catalog
from docpipe.project import Project, Snippet
from docpipe.recorded import fingerprints


def snippets(project: Project, paths: list[str], cat: Catalog) -> list[Snippet]:
    named = {project.rel(Path(os.path.abspath(p))) for p in paths}
    found: set[Snippet] = set()
    for name in named:
        full = project.root / name
        if full.suffix == ".py" and project.snippets in full.parents:
            found.add(project.snippet_at(full))
        elif full.suffix == ".py" and project.figure_code in full.parents:
            found.add(
                project.snippet(full.relative_to(project.figure_code).with_suffix("").as_posix())
            )
        elif project.generated in full.parents:
            found.add(project.owner(full))
    for snippet, settings in cat.settings.items():
        snippet = project.snippet(snippet.key)
        since = fingerprints.since_recorded(snippet, settings)
        recorded = since.recorded or {}
        opened = {n for n, d in recorded.items() if d != fingerprints.UNREAD}
        if named & (opened - {fingerprints.SETTINGS}):
            found.add(snippet)
        elif named & set(since.changed or []) - {fingerprints.SETTINGS}:
            found.add(snippet)  # a data file it did not open, removed (or one added)
        elif fingerprints.SETTINGS in named and fingerprints.SETTINGS in (since.changed or []):
            found.add(snippet)
    return sorted(found & set(cat.settings))  # helper modules and deleted files are not snippets

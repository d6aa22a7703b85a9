"""The snippets a change touches, for the pre-commit hook (scripts/check_touched.py).

A snippet is touched when the change edits the snippet itself, its figure code, one of its
recorded files, or an input its record names (a helper module, a data file, or its settings
in snippets.toml, compared by digest: a new timeout touches nothing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from docpipe.catalog import Catalog
from docpipe.project import FIGURE_CODE, GENERATED, ROOT, SNIPPETS, Snippet, owner, rel
from docpipe.recorded import fingerprints as sources


def snippets(paths: list[str], cat: Catalog) -> list[Snippet]:
    named = {rel(Path(os.path.abspath(p))) for p in paths}
    found: set[Snippet] = set()
    for name in named:
        full = ROOT / name
        if full.suffix == ".py" and SNIPPETS in full.parents:
            found.add(Snippet.from_path(full))
        elif full.suffix == ".py" and FIGURE_CODE in full.parents:
            found.add(Snippet(full.relative_to(FIGURE_CODE).with_suffix("").as_posix()))
        elif GENERATED in full.parents:
            found.add(owner(full))
    for snippet, settings in cat.settings.items():
        recorded = _inputs(snippet)
        if sources.SETTINGS in named and recorded.get(sources.SETTINGS) not in (
            None,
            sources.settings_digest(settings),
        ):
            found.add(snippet)
        if named & (set(recorded) - {sources.SETTINGS}):
            found.add(snippet)
    return sorted(found & set(cat.settings))  # helper modules and deleted files are not snippets


def _inputs(snippet: Snippet) -> dict:
    try:
        return json.loads(snippet.record.read_text(encoding="utf-8")).get("inputs", {})
    except (OSError, ValueError):
        return {}

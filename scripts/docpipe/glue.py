"""Numbers in prose: `{{ examples/fit_line.py:final_loss }}` becomes the value a run recorded.

Values are declared per snippet in snippets/snippets.toml as f-strings over the snippet's globals
after its run (so the formatting is declared once, beside the name), and recorded in
docs/generated/<key>.json. A page that names an unknown snippet or value fails the build.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from .pages import VALUE
from .paths import SNIPPETS, Snippet, rel


class GlueError(Exception):
    pass


@cache
def _record(path: Path, mtime: float) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def record(snippet: Snippet) -> dict:
    path = snippet.record
    if not path.exists():
        raise GlueError(f"no recorded run for {snippet.name} (run: python scripts/regen.py)")
    return _record(path, path.stat().st_mtime)


def substitute(markdown: str, page: str) -> str:
    def value(m) -> str:
        line = markdown.count("\n", 0, m.start()) + 1
        source = SNIPPETS / m["snippet"]
        if not source.exists():
            raise GlueError(f"{page}:{line}: {m[0]} names no snippet {rel(source)}")
        snippet = Snippet.from_path(source)
        try:
            values = record(snippet)["values"]
        except GlueError as e:
            raise GlueError(f"{page}:{line}: {e}") from None
        if m["name"] not in values:
            known = ", ".join(sorted(values)) or "none"
            raise GlueError(
                f"{page}:{line}: {snippet.name} recorded no value '{m['name']}' (recorded: {known})"
            )
        return values[m["name"]]

    return VALUE.sub(value, markdown)


def stamp(snippets: set[Snippet]) -> str | None:
    """One line naming the environment the page's outputs were recorded in."""
    envs = {
        json.dumps(record(s)["environment"], sort_keys=True) for s in snippets if s.record.exists()
    }
    if not envs:
        return None
    parts = []
    for env in sorted(envs):
        e = json.loads(env)
        parts.append(
            f"Python {e['python']}, torch {e['torch']}, numpy {e['numpy']}, "
            f"matplotlib {e['matplotlib']} on {e['platform']}"
        )
    return "; ".join(parts)

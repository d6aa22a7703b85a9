"""What the pages use: code and output includes, figures and quoted values, by snippet."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import markup
from .paths import DOCS, GENERATED, ROOT, SNIPPETS, Snippet, owner

INCLUDE = re.compile(r'^(?P<indent>[ \t]*)-{1,}8<-{1,}[ \t]+"(?P<target>[^"]+)"[ \t]*$', re.M)
IMAGE = re.compile(r"\]\((?P<target>[^)\s#]+\.svg)(?:#[\w-]+)?\)")
VALUE = re.compile(r"\{\{\s*(?P<snippet>[\w/.-]+\.py):(?P<name>[\w-]+)\s*\}\}")


@dataclass(frozen=True)
class Use:
    page: Path
    line: int
    kind: str  # "code", "output", "figure" or "value"
    snippet: Snippet
    detail: str  # the section, generated file, or value name


def markdown_pages(docs: Path = DOCS) -> list[Path]:
    return sorted(p for p in docs.rglob("*.md") if GENERATED not in p.parents)


def uses(page: Path) -> list[Use]:
    return list(_uses(page, page.stat().st_mtime_ns))


@cache
def _uses(page: Path, mtime: int) -> tuple[Use, ...]:
    text = markup.without_examples(page.read_text(encoding="utf-8"))  # examples name no use
    found = []

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    for m in INCLUDE.finditer(text):
        target = m["target"]
        path, _, section = target.partition(":")
        full = Path(os.path.normpath(ROOT / path))
        if SNIPPETS in full.parents and full.suffix == ".py":
            found.append(Use(page, line_of(m.start()), "code", Snippet.from_path(full), section))
        elif GENERATED in full.parents:
            found.append(Use(page, line_of(m.start()), "output", owner(full), path))
    for m in IMAGE.finditer(text):
        full = Path(os.path.normpath(page.parent / m["target"]))
        if GENERATED in full.parents:
            found.append(Use(page, line_of(m.start()), "figure", owner(full), m["target"]))
    for m in VALUE.finditer(text):
        found.append(
            Use(
                page,
                line_of(m.start()),
                "value",
                Snippet.from_path(SNIPPETS / m["snippet"]),
                m["name"],
            )
        )
    return tuple(found)


def all_uses(docs: Path = DOCS) -> list[Use]:
    return [u for page in markdown_pages(docs) for u in uses(page)]


def pages_using(snippet: Snippet, docs: Path = DOCS) -> list[str]:
    return sorted(
        {u.page.relative_to(ROOT).as_posix() for u in all_uses(docs) if u.snippet == snippet}
    )

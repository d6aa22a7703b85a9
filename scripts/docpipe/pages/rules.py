"""The page rules: what a page's prose may say. One function per page, page_problems, is the only
code path: `regen.py --check` lists its problems with the site's (docpipe.pages.consistency), the tests
call it, and `mkdocs build` warns with the same `page:line: message` lines
(scripts/mkdocs_hooks.py), so that --strict fails the build.

Each rule takes a page and the phrases of that page its [[exception]] entries in
snippets/snippets.toml allow, and returns its problems and the phrases that spared one; a phrase
that spared nothing is reported, so the exceptions cannot go stale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from docpipe.catalog import PHRASE_RULES, Catalog
from docpipe.pages import agreement, generality, prose, typed
from docpipe.pages.reading import markdown_pages, uses
from docpipe.project import DOCS

Rule = Callable[[Catalog, Path, tuple[str, ...]], tuple[list[str], set[str]]]
RULES: dict[str, Rule] = {
    "number-in-prose": lambda cat, page, allowed: prose.typed_numbers(page, allowed),
    typed.RULE: lambda cat, page, allowed: typed.check(page, allowed, cat),
    generality.RULE: lambda cat, page, allowed: generality.check(page, allowed),
    agreement.RULE: lambda cat, page, allowed: agreement.check(page, allowed),
}
assert set(RULES) == set(PHRASE_RULES)


def page_problems(
    cat: Catalog, page: Path, docs: Path = DOCS, only: tuple[str, ...] = tuple(RULES)
) -> list[str]:
    """The problems of one page under the rules named in only, stale exceptions included."""
    name = page.relative_to(docs.parent).as_posix()
    found = []
    for rule in only:
        allowed = cat.allowed(name, rule)
        problems, used = RULES[rule](cat, page, allowed)
        found += problems
        found += [
            f"snippets/snippets.toml: {rule} phrase {p!r} of {name} is not in its"
            " prose any more (remove it)"
            for p in dict.fromkeys(allowed)
            if p not in used
        ]
    if agreement.RULE in only:
        shown = sorted({u.snippet for u in uses(page) if u.kind == "code"})
        for snippet in shown:
            found += agreement.unasserted(snippet)
    return found


def problems(cat: Catalog, docs: Path = DOCS, only: tuple[str, ...] = tuple(RULES)) -> list[str]:
    found: dict[str, None] = {}  # a snippet two pages show is named once
    pages = markdown_pages(docs)
    for page in pages:
        found.update(dict.fromkeys(page_problems(cat, page, docs, only)))
    named = {page.relative_to(docs.parent).as_posix() for page in pages}
    for e in cat.exemptions:
        if e.rule in only and e.path not in named:
            found[f"snippets/snippets.toml: {e.rule} names {e.path}, not a page"] = None
    return list(found)

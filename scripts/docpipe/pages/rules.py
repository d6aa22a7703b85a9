"""The page rules: what a page's prose may say. One function per page, page_problems, is the only
code path: `regen.py --check` lists its problems with the site's (docpipe.pages.consistency),
the tests call it, and `mkdocs build` warns with the same `page:line: message` lines
(scripts/mkdocs_hooks.py), so that --strict fails the build.

Each rule takes the page (a docpipe.pages.reading.Page: read once per build, never by a rule)
and the phrases of that page its [[exception]] entries in
snippets/snippets.toml allow, and returns its problems and the phrases that spared one; a phrase
that spared nothing is reported, so the exceptions cannot go stale.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from docpipe import inputs
from docpipe.catalog import PHRASE_RULES, Catalog
from docpipe.pages import agreement, generality, prose, terms, typed
from docpipe.pages.reading import Page, Pages, as_page, text_key
from docpipe.problems import Problem

Rule = Callable[[Catalog, Page, tuple[str, ...]], tuple[list[Problem], set[str]]]
RULES: dict[str, Rule] = {
    "number-in-prose": prose.typed_numbers,
    typed.RULE: typed.check,
    generality.RULE: generality.check,
    agreement.RULE: agreement.check,
    terms.RULE: terms.check,
}
assert set(RULES) == set(PHRASE_RULES)


@inputs.memo(  # kept until a file it read changes (the page too), or snippets.toml (the catalog)
    key=lambda cat, page, only=tuple(RULES): (str(cat.project.root), str(page), tuple(only)),
    also=lambda cat, *_, **__: [cat.project.meta, cat.project.root / "snippets"],
)
def page_problems(
    cat: Catalog, page: Path | Page, only: tuple[str, ...] = tuple(RULES)
) -> list[Problem]:
    """The problems of one page under the rules named in only, stale exceptions included."""
    project = cat.project
    page = as_page(project, page)
    name = page.name
    meta = project.rel(project.meta)
    found = []
    for rule in only:
        allowed = cat.allowed(name, rule)
        problems, used = _rule(cat, page, rule, allowed)
        found += [replace(p, rule=rule) for p in problems]
        found += [
            Problem(
                meta,
                cat.exemption_line(name, rule, p),
                f"{rule} phrase {p!r} of {name} is not in its prose any more (remove it)",
                rule=rule,
            )
            for p in dict.fromkeys(allowed)
            if p not in used
        ]
    if agreement.RULE in only:
        shown = sorted({u.snippet for u in page.uses if u.kind == "code"})
        for snippet in shown:
            found += [replace(p, rule=agreement.RULE) for p in agreement.unasserted(snippet)]
    return found


# Each rule's answer is kept on its own too: a save that re-records a snippet re-runs the rules
# that read its record (typed values, agreement), not those that read the page's prose alone.
@inputs.memo(
    key=lambda cat, page, rule, allowed: (
        *text_key(cat.project, page.path, page.text),  # the page as the rule got it
        rule,
        allowed,
    ),
    also=lambda cat, *_: [cat.project.meta, cat.project.root / "snippets"],
)
def _rule(
    cat: Catalog, page: Page, rule: str, allowed: tuple[str, ...]
) -> tuple[list[Problem], set[str]]:
    return RULES[rule](cat, page, allowed)


def problems(
    cat: Catalog, only: tuple[str, ...] = tuple(RULES), site: Pages | None = None
) -> list[Problem]:
    project = cat.project
    found: dict[Problem, None] = {}  # a snippet two pages show is named once
    pages = (site or Pages(project)).all()
    for page in pages:
        found.update(dict.fromkeys(page_problems(cat, page, only)))
    named = {page.name for page in pages}
    meta = project.rel(project.meta)
    for e in cat.exemptions:
        if e.rule in only and e.path not in named:
            found[Problem(meta, e.line, f"{e.rule} names {e.path}, not a page")] = None
    return list(found)

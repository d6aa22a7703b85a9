"""Terms before their use (rule "glossary-first-use"): on every page, the first use of a term the
glossary defines comes at or after a link to its glossary entry (or to the section the entry
names as the term's home) or the term's definition on that page, written in bold.

The glossary, docs/glossary.md, is the one list of terms. Each `## ` heading is an entry; the
term's spellings are the heading's text and the bold phrases of the entry's body
("The **backward pass**, or **backpropagation**, ..."); the entry's anchor is its heading's id,
as the toc extension makes it (or the heading's own `{ #id }`). The links of an entry to a
section of another page (`page.md#section`) name the term's homes, where it is taught: a link
to a home whose text uses the term introduces it as well as a link to the entry does (a link to
the entry introduces its term whatever its text).

A use is a spelling, or the plural or singular of its last word ("graphs", "leaves",
"mini-batches"), with a hyphen and a space counted as one ("in-place", "in place"), in a
page's prose: paragraphs, list items, admonition bodies and table cells. Where spellings of two
terms overlap, the longer wins: "gradient descent" is a use of that term, not of "gradient". A
term whose heading is code (`requires_grad`) is used in code spans too, as an identifier.

Not read as uses: headings, admonition titles, figure captions and alt text (titles, which
name the section the term is then introduced in, and where a link would not read well), code
blocks and math (code, not prose), `{{ }}` values and markers. The glossary page itself is the
definition of every term, so the rule does not read it, except to check that each entry has a
spelling and names a home.

An [[exception]] of this rule in snippets/snippets.toml spares a use by a phrase of the page
(text = [...]: a word in another sense, a page's title) or, without text, a whole page that the
glossary does not serve (the contributors' page names the words when it describes the rules).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from docpipe import texts
from docpipe.catalog import Catalog
from docpipe.pages import markup
from docpipe.pages.prose import covering
from docpipe.pages.reading import Page, tokens
from docpipe.problems import Problem

RULE = "glossary-first-use"
GLOSSARY = "glossary.md"  # below docs/
PROSE_OPENERS = ("paragraph_open", "th_open", "td_open")
MARKER = re.compile(r"\{\{.*?\}\}")
ATTR_ID = re.compile(r"\s*\{[^}]*#(?P<id>[\w-]+)[^}]*\}\s*$")


@dataclass(frozen=True)
class Term:
    name: str  # the heading's text, code without its backticks
    anchor: str
    line: int  # of its heading in the glossary
    spellings: tuple[str, ...]  # lower case
    homes: tuple[str, ...]  # "page.md#section" targets, relative to docs/
    code: bool  # the heading is a code span: uses in code spans count

    @property
    def pattern(self) -> re.Pattern:
        return _pattern(self.spellings)


@dataclass(frozen=True)
class Occurrence:
    line: int
    order: tuple[int, int]  # (inline token, offset in it): the order of reading
    term: Term
    introduces: bool  # inside a link to the entry or a home, or in bold
    context: str  # the prose it stands in (a paragraph, an item, a cell)
    span: tuple[int, int]  # where in the context

    @property
    def text(self) -> str:
        return self.context[self.span[0] : self.span[1]]


def inflections(word: str) -> list[str]:
    """The forms of a term's last word the pages may write: its plural, or its singular (a
    generous list: a form that is no English word matches nothing). The terms are nouns; a verb
    made from one ("batched", of vmap's batching) is another word."""
    forms = [word, word + "s", word + "es"]
    if word.endswith("s") and not word.endswith("ss"):
        forms.append(word[:-1])  # a plural spelling ("features") stands for its singular too
    if word.endswith("y"):
        forms.append(word[:-1] + "ies")
    if word.endswith("f"):
        forms.append(word[:-1] + "ves")
    return forms


@lru_cache(maxsize=256)  # bounded: a long `mkdocs serve` may see many glossaries
def _pattern(spellings: tuple[str, ...]) -> re.Pattern:
    alternatives = []
    for spelling in spellings:
        words = re.split(r"[\s-]+", spelling.strip())
        head = [re.escape(w) for w in words[:-1]]
        last = "(?:" + "|".join(re.escape(f) for f in inflections(words[-1])) + ")"
        alternatives.append(r"[\s-]+".join([*head, last]))
    alternatives.sort(key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])", re.I)


def glossary_path(cat_or_project) -> Path:
    project = getattr(cat_or_project, "project", cat_or_project)
    return project.docs / GLOSSARY


def read_glossary(glossary: Path | Page) -> tuple[list[Term], list[tuple[int, str]]]:
    """The glossary's terms, and what is wrong with it as (line, message)."""
    if isinstance(glossary, Page):
        path, all_tokens = glossary.path, glossary.tokens
    elif glossary.is_file():
        path = glossary
        all_tokens = tokens(markup.without_examples(texts.read(path)))
    else:
        return [], []
    from markdown.extensions.toc import slugify

    entries: list[dict] = []
    for i, t in enumerate(all_tokens):
        if t.type == "heading_open" and t.tag == "h2":
            title = all_tokens[i + 1]
            raw = title.content
            explicit = ATTR_ID.search(raw)
            if explicit:
                raw = raw[: explicit.start()]
            code = raw.strip().startswith("`") and raw.strip().endswith("`")
            name = raw.strip().strip("`").strip()
            anchor = explicit["id"] if explicit else slugify(name, "-")
            entries.append(
                {"name": name, "anchor": anchor, "line": t.map[0] + 1, "code": code}
                | {"bold": [name.lower()], "homes": []}
            )
        elif t.type == "heading_open" and t.tag == "h1":
            entries.append({})  # anything above the first entry belongs to no entry
        elif t.type == "inline" and entries and entries[-1]:
            entry, strong = entries[-1], False
            for child in t.children or []:
                if child.type == "strong_open":
                    strong = True
                elif child.type == "strong_close":
                    strong = False
                elif strong and child.type in ("text", "code_inline") and child.content.strip():
                    entry["bold"].append(" ".join(child.content.lower().split()))
                elif child.type == "link_open":
                    href = child.attrs.get("href", "")
                    target, _, fragment = href.partition("#")
                    if fragment and target.endswith(".md") and "://" not in target:
                        home = os.path.normpath(path.parent / target)
                        home = os.path.relpath(home, path.parent).replace(os.sep, "/")
                        entry["homes"].append(f"{home}#{fragment}")
    terms, problems = [], []
    owner: dict[str, str] = {}
    for e in (e for e in entries if e):
        spellings = tuple(dict.fromkeys(e["bold"]))
        for s in spellings:
            if s in owner and owner[s] != e["name"]:
                problems.append(
                    (
                        e["line"],
                        f"the spelling {s!r} is a term of two entries,"
                        f" {owner[s]!r} and {e['name']!r}: keep it in one",
                    )
                )
            owner.setdefault(s, e["name"])
        if not e["homes"]:
            problems.append(
                (
                    e["line"],
                    f"the entry {e['name']!r} links to no section that teaches it:"
                    " link the page section where the tutorial teaches the term (page.md#section)",
                )
            )
        terms.append(
            Term(e["name"], e["anchor"], e["line"], spellings, tuple(e["homes"]), e["code"])
        )
    return terms, problems


def occurrences(text: str, page: Path, glossary: Path, terms: list[Term]) -> list[Occurrence]:
    """Every use of a term in the page's prose, in reading order."""
    text = markup.without_examples(text)
    text = MARKER.sub(lambda m: "\u2022" * len(m[0]), text)  # a marker's names are not words
    found: list[Occurrence] = []
    opener = None
    for n, t in enumerate(tokens(text)):
        if t.type == "inline" and t.map and opener in PROSE_OPENERS:
            found += _inline(n, t, page, glossary, terms)
        opener = t.type
    return sorted(found, key=lambda o: o.order)


def _inline(n: int, token, page: Path, glossary: Path, terms: list[Term]) -> list[Occurrence]:
    # The inline's prose as one string (a spelling may run over a line break), each character
    # with its line and with what it stands in: a link's target, bold. Code and math are one
    # separator character each; a code span is read apart, for the terms that are code.
    chars: list[str] = []
    where: list[tuple[int, str, bool]] = []  # per character: (line, link target or "", bold)
    codes: list[tuple[int, str]] = []  # (offset, content) of each code span
    links: list[tuple[int, str]] = []  # (offset, target) of each link
    line, link, bold = token.map[0] + 1, "", False
    for child in token.children or []:
        kind = child.type
        if kind == "text":
            chars += child.content
            where += [(line, link, bold)] * len(child.content)
            continue
        if kind == "link_open":
            link = child.attrs.get("href", "")
            links.append((len(chars), link))
        elif kind == "link_close":
            link = ""
        elif kind in ("strong_open", "strong_close"):
            bold = kind == "strong_open"
        elif kind in ("softbreak", "hardbreak"):
            chars.append(" ")
            where.append((line, link, bold))
            line += 1
        elif kind in ("em_open", "em_close", "s_open", "s_close"):
            pass
        else:  # code, math, an image, HTML: not words
            if kind == "code_inline":
                codes.append((len(chars), child.content))
            chars.append("\0")
            where.append((line, link, bold))
    prose = "".join(chars)
    spans: list[tuple[int, int, Term]] = []
    for term in terms:
        spans += [(m.start(), m.end(), term) for m in term.pattern.finditer(prose)]
    for offset, content in codes:
        for term in (t for t in terms if t.code):
            if re.search(rf"(?<!\w){re.escape(term.name)}(?!\w)", content):
                spans.append((offset, offset + 1, term))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    found, end = [], -1
    for start, stop, term in spans:
        if start < end:
            continue  # inside a longer spelling of another term
        end = stop
        at_line, href, strong = where[start]
        intro = strong or _introduces(href, page, glossary, term)
        context = prose
        if prose[start] == "\0":  # a code span: its content stands for the separator
            content = next(c for o, c in codes if o == start)
            context = prose[:start] + content + prose[stop:]
            stop = start + len(content)
        found.append(Occurrence(at_line, (n, start), term, intro, context, (start, stop)))
    for offset, href in links:  # a link to an entry introduces its term, whatever its text
        for term in terms:
            if _introduces(href, page, glossary, term, homes=False):
                at_line = where[offset][0] if offset < len(where) else line
                found.append(Occurrence(at_line, (n, offset), term, True, prose, (offset, offset)))
    return found


def _introduces(href: str, page: Path, glossary: Path, term: Term, homes: bool = True) -> bool:
    """Whether a link's target is the term's glossary entry or (homes) one of its homes. A link
    to a home introduces the term only where its text uses the term: a home teaches several
    terms, and "see Step 3" introduces none of them."""
    if not href or "://" in href:
        return False
    target, _, fragment = href.partition("#")
    full = Path(os.path.normpath(page.parent / target)) if target else page
    if full == glossary and fragment == term.anchor:
        return True
    docs = glossary.parent
    name = os.path.relpath(full, docs).replace(os.sep, "/")
    return homes and f"{name}#{fragment}" in term.homes


def check(cat: Catalog, page: Page, allowed: tuple[str, ...]) -> tuple[list[Problem], set[str]]:
    """Problems for each term the page uses before introducing it (a link to its entry or home,
    or its bold definition), and the allowed phrases that spared a use."""
    project = cat.project
    glossary = glossary_path(project)
    terms, wrong = read_glossary(page.site.page(glossary) if glossary.is_file() else glossary)
    if page.path == glossary:
        return [Problem(page.name, line, message) for line, message in wrong], set()
    whole = cat.exempt_page(page.name, RULE)
    found, used, seen = [], set(), set()
    for o in occurrences(page.text, page.path, glossary, terms):
        if o.term.name in seen:
            continue
        if not o.introduces:
            phrase = next((p for p in allowed if _spares(p, o)), None)
            if phrase:
                used.add(phrase)
                continue
        seen.add(o.term.name)
        if o.introduces:
            continue
        link = os.path.relpath(glossary, page.path.parent).replace(os.sep, "/")
        said = o.term.name if o.term.code else o.text
        shown = f"`{said}`" if o.term.code else said
        found.append(
            Problem(
                page.name,
                o.line,
                f"the term {said!r} is used before this page links it to the glossary or"
                f" defines it: link its first use, [{shown}]({link}#{o.term.anchor}), or"
                f" define it there in bold (**{shown}**), or except the phrase in snippets.toml"
                f" (rule {RULE}) with the reason",
            )
        )
    if whole:
        if found:
            return [], used
        meta = project.rel(project.meta)
        stale = f"{RULE} exception of {page.name} spares nothing any more (remove it)"
        return [Problem(meta, whole.line, stale)], used
    return found, used


def _spares(phrase: str, o: Occurrence) -> bool:
    """Whether an allowed phrase covers the use where it stands."""
    return covering(o.context, o.span[0], o.span[1], (phrase,)) is not None

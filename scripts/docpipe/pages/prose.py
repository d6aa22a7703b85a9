"""Numbers typed into prose. The pages promise that every number a reader meets in a sentence
comes from a run, so a digit in prose is a problem unless it is quoted with `{{ <key>.py:<name> }}`
or an [[exception]] of rule "number-in-prose" in snippets/snippets.toml names the phrase it sits
in, with the reason no run produces it (a step number in a heading, "2 billion").

Prose is what markdown-it-py finds outside code, math and raw HTML tags: paragraphs, headings,
list items, table cells, admonition titles, and the alt text and captions of figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from docpipe.pages.reading import Page, parser
from docpipe.problems import Problem

NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?!\w)")
# Values and claim markers become a neutral sign: their digits are not typed by hand.
QUOTED = re.compile(r"\{\{.*?\}\}")
VALUE_MARK = "\u2022"
NOT_PROSE_TAGS = {"code", "pre", "kbd", "script", "style", "svg"}


@dataclass(frozen=True)
class Passage:
    line: int  # 1-based line of the page
    text: str


def prose(text: str | Page) -> list[Passage]:
    """The prose of a page (a Page, or Markdown), as runs of text with their line numbers.
    Parsed with its markers made one neutral sign: another text than the page's own."""
    md = parser()  # the one page reader, as everywhere else
    text = text.text if isinstance(text, Page) else text
    lines = QUOTED.sub(VALUE_MARK, text).split("\n")
    found: list[Passage] = []
    for token in md.parse("\n".join(lines)):
        if token.type == "inline" and token.map:
            found += _inline(token.children or [], lines, token.map[0], token.map[1])
        elif token.type == "html_block" and token.map:
            found += _html(md, token.content, token.map[0])
    return found


def _inline(children, lines: list[str], start: int, end: int) -> list[Passage]:
    found, cursor, hidden = [], start, 0
    for child in _flatten(children):
        if child.type == "html_inline":
            tag = re.match(r"<(/?)(\w+)", child.content)
            if tag and tag[2].lower() in NOT_PROSE_TAGS:
                hidden += -1 if tag[1] else 1
            continue
        if child.type != "text" or hidden or not child.content.strip():
            continue
        line = next((n for n in range(cursor, end) if child.content in lines[n]), cursor)
        cursor = line
        found.append(Passage(line + 1, child.content))
    return found


def _flatten(children):
    for child in children:
        yield child
        if child.children:  # an image's alt text
            yield from _flatten(child.children)


def _html(md, content: str, first: int) -> list[Passage]:
    """The text of an HTML block (a figure): its markdown alt text and its caption."""
    chunks: list[Passage] = []

    class Text(HTMLParser):
        hidden = 0

        def handle_starttag(self, tag, attrs):
            self.hidden += tag in NOT_PROSE_TAGS

        def handle_endtag(self, tag):
            self.hidden -= tag in NOT_PROSE_TAGS

        def handle_data(self, data):
            if self.hidden or not data.strip():
                return
            line = first + self.getpos()[0] - 1
            for offset, part in enumerate(data.split("\n")):
                for token in md.parseInline(part):
                    for child in _flatten(token.children or []):
                        if child.type == "text" and child.content.strip():
                            chunks.append(Passage(line + offset + 1, child.content))

    parser = Text(convert_charrefs=True)
    parser.feed(content)
    parser.close()
    return chunks


def typed_numbers(cat, page: Page, allowed: tuple[str, ...]) -> tuple[list[Problem], set[str]]:
    """Problems for each number typed in the page's prose, and the allowed phrases it used."""
    found, used = [], set()
    for chunk in page.once(prose):
        for m in NUMBER.finditer(chunk.text):
            phrase = covering(chunk.text, m.start(), m.end(), allowed)
            if phrase:
                used.add(phrase)
                continue
            context = chunk.text[max(0, m.start() - 30) : m.end() + 30]
            context = " ".join(context.replace(VALUE_MARK, "{{ }}").split())
            found.append(
                Problem(
                    page.name,
                    chunk.line,
                    f"the number {m[0]} is typed by hand in prose"
                    f" (...{context}...); quote it from a run with {{{{ <key>.py:<name> }}}}, or"
                    " allow its phrase in snippets.toml (rule number-in-prose) with the reason",
                )
            )
    return found, used


def covering(text: str, start: int, end: int, allowed: tuple[str, ...]) -> str | None:
    """The allowed phrase that covers text[start:end] where it stands, if any."""
    for phrase in allowed:
        for m in re.finditer(re.escape(phrase), text):
            if m.start() <= start and end <= m.end():
                return phrase
    return None

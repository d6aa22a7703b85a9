"""The sentences of a page's prose, each with its line, its words and the claim markers it carries.

Prose, for the sentence rules (docpipe.pages.generality, docpipe.pages.agreement), is the text of
paragraphs, wherever they stand (lists, quotes, admonition bodies, exercise solutions), and of
table cells: markdown-it-py's inline tokens of those blocks. Headings, admonition titles, figure
alt text and captions are titles, not statements, and code blocks and math are not prose at all.
Inside a sentence, code spans, math, `{{ }}` values and markers, link targets and HTML tags are
not words.

A sentence ends at `.`, `!` or `?` followed by white space and a capital, a code span, a link,
a value, a marker or math (the rule docpipe.pages.claims reads a marker's sentence with). A
checked-claim marker belongs to the sentence it follows: one written right after the full
stop, as the pages write them, still counts for the sentence before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docpipe.pages.reading import CLAIM, Page, tokens_of

# What is not a word of the sentence. Code first: a code span may hold `$` or `{{`.
HIDDEN = re.compile(
    r"(?P<code>(?P<ticks>`+).+?(?P=ticks)|<code>.*?</code>)"
    r"|(?P<math>\$\$.+?\$\$|\$[^$\s](?:[^$]*?[^$\s])?\$|\\\(.+?\\\))"
    r"|(?P<claim>" + CLAIM.pattern + r")"
    r"|(?P<value>\{\{.*?\}\})"
    r"|(?P<url>(?<=\])\([^)]*\))"
    r"|(?P<tag></?[A-Za-z][^>]*>)",
    re.S,
)
# (closing emphasis, quotes or brackets may stand between the stop and the white space)
SENTENCE_END = re.compile(r"[.!?][*_\"')\]]*\s+(?=[A-Z`*_\[({$\"<])")
# A code span that names a file, a folder, a command, an environment variable or this site's own
# markup (a marker, a value, math shown as source) is about this repository, not PyTorch.
REPOSITORY_CODE = re.compile(
    r"/|\.(?:md|py|toml|json|txt|svg|ipynb|yml|venv)\b|^[-#+.$]|^\{\{|^[A-Z][A-Z0-9_]+$"
    r"|^(?:python|make|git|pip|npm|mkdocs|regen|pre-commit|docpipe)\b"
)


@dataclass(frozen=True)
class Sentence:
    line: int  # 1-based line of the page where the sentence starts
    text: str  # as written in the page, white space collapsed
    words: str  # lower-case words outside code, math, values, markers, link targets and tags
    code: tuple[str, ...]  # the code spans, without their backticks
    claims: tuple[tuple[str, str], ...]  # (snippet path below snippets/, section) of its markers

    @property
    def question(self) -> bool:
        return self.text.rstrip("*_ ").endswith("?")

    def has_word(self, pattern: re.Pattern) -> str | None:
        m = pattern.search(self.words)
        return m[0] if m else None


@dataclass(frozen=True)
class Solution:
    """An exercise's solution: an admonition (folded or not) titled "Solution"."""

    first: int  # 1-based line of its `???` or `!!!` line
    last: int
    claims: tuple[tuple[str, str], ...]


def read(text: str | Page) -> list[Sentence]:
    """Every sentence of the page's prose (a Page, or Markdown), in page order."""
    _, all_tokens = tokens_of(text)  # without examples: they show a page's source, not its prose
    found: list[Sentence] = []
    opener = None
    for t in all_tokens:
        if t.type == "inline" and t.map and opener in ("paragraph_open", "th_open", "td_open"):
            found += _split(t.content, t.map[0] + 1)
        opener = t.type
    return found


def solutions(text: str | Page) -> list[Solution]:
    text, all_tokens = tokens_of(text)
    found = []
    lines = text.split("\n")
    for i, t in enumerate(all_tokens):
        if t.type != "admonition_open" or not t.map:
            continue
        title = next((x.content for x in all_tokens[i + 1 : i + 4] if x.type == "inline"), "")
        if not title.strip().strip("\"'").lower().startswith("solution"):
            continue
        first, last = t.map[0] + 1, t.map[1]
        body = "\n".join(lines[first - 1 : last])
        marks = tuple((m["snippet"], m["section"]) for m in CLAIM.finditer(body))
        found.append(Solution(first, last, marks))
    return found


def _split(content: str, first_line: int) -> list[Sentence]:
    spans = list(HIDDEN.finditer(content))
    masked = list(content)
    for m in spans:  # keep the span's first character, which may start a sentence
        masked[m.start() + 1 : m.end()] = "_" * (m.end() - m.start() - 1)
    masked_text = "".join(masked)
    cuts = [0] + [m.end() for m in SENTENCE_END.finditer(masked_text)] + [len(content)]
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if content[a:b].strip()]
    claims_of: list[list[tuple[str, str]]] = [[] for _ in pieces]
    for m in spans:
        if not m["claim"]:
            continue
        k = next(i for i, (a, b) in enumerate(pieces) if a <= m.start() < b)
        if k and _only_markers(content[pieces[k][0] : m.start()]):
            k -= 1  # written right after the full stop of the sentence before
        claims_of[k].append((m["snippet"], m["section"]))
    found = []
    for (a, b), marks in zip(pieces, claims_of, strict=True):
        inner = [m for m in spans if a <= m.start() < b]
        if _only_markers(content[a:b]):
            continue  # the markers of the sentence before
        words = list(content[a:b])
        for m in inner:
            words[m.start() - a : m.end() - a] = " " * (m.end() - m.start())
        code = tuple(_code(m[0]) for m in inner if m["code"])
        while lead := CLAIM.match(content, a + len(content[a:b]) - len(content[a:b].lstrip())):
            a = lead.end()  # the markers of the sentence before
        start = a + len(content[a:b]) - len(content[a:b].lstrip())
        found.append(
            Sentence(
                first_line + content.count("\n", 0, start),
                " ".join(content[a:b].split()),
                " ".join("".join(words).lower().replace("\u2019", "'").split()),
                code,
                tuple(marks),
            )
        )
    return found


def _only_markers(text: str) -> bool:
    return not CLAIM.sub("", text).strip()


def _code(span: str) -> str:
    if span.startswith("<code>"):
        return span[len("<code>") : -len("</code>")]
    return span.strip("`").strip()


def spared(sentence: Sentence, allowed: tuple[str, ...], used: set[str]) -> bool:
    """Whether an allowed phrase (an [[exception]]'s text) is in the sentence; one that is goes
    into `used`, so that a phrase sparing nothing can be reported."""
    phrase = next((p for p in allowed if p in sentence.text), None)
    if phrase:
        used.add(phrase)
    return phrase is not None


def names_pytorch_code(sentence: Sentence) -> str | None:
    """The first code span of the sentence that is code, not a path or a command."""
    return next((c for c in sentence.code if c and not REPOSITORY_CODE.search(c)), None)

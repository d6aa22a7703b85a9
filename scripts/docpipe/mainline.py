"""A page's main line, as a first-time reader reads it: what is shown without unfolding.

A page's main line is its article less what is folded away (a `???` collapsible admonition, the
"How this page was made" box: a `<details>` without `open`). Its prose words are the words of its
text there, without code blocks, output blocks, inline code, formulas and claim marks; its first
output is the first block titled with the command that printed it (`python snippets/...`), and
what a reader reads before it is counted in prose words and code lines. The page is read as the
build converts it (docpipe.published.expected_html: the same extensions, the page work done).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docpipe import texts
from docpipe.pages.built import Node, parse
from docpipe.project import Project
from docpipe.published import expected_html

# What a first-time reader's page holds at most (issue "a first-time reader's path"): prose
# words on the main line, and what may come before the first output. The second is a measure
# of text, not of the screen: a display formula, a box or a long title takes more room than its
# words, so a page within it can still show its first output below a 1280 x 900 window's fold.
PROSE_BUDGET = 3000
FIRST_OUTPUT_WORDS = 150
FIRST_OUTPUT_CODE_LINES = 15
SKIPPED = {"script", "style", "svg", "math", "template"}


@dataclass(frozen=True)
class MainLine:
    words: int  # prose words on the main line
    before_words: int  # prose words before the first output (all of them when none)
    before_code: int  # code lines before the first output
    has_output: bool


def _folded(node: Node) -> bool:
    return node.tag == "details" and "open" not in node.attrs


def _title(pre: Node) -> str:
    for child in pre.parent.children if pre.parent else []:
        if isinstance(child, Node) and "filename" in child.classes():
            return child.text().strip()
    return ""


def read(root: Node) -> MainLine:
    """The main line of a converted page (its HTML's tree)."""
    words = before_words = before_code = 0
    seen_output = False

    def walk(node: Node) -> None:
        nonlocal words, before_words, before_code, seen_output
        for child in node.children:
            if isinstance(child, str):
                n = len(child.split())
                words += n
                before_words += 0 if seen_output else n
                continue
            if _folded(child):  # its title shows; what it holds is for who opens it
                summary = next(
                    (c for c in child.children if isinstance(c, Node) and c.tag == "summary"), None
                )
                if summary is not None:
                    walk(Node("div", {}, None, [summary]))
                continue
            if child.tag in SKIPPED:
                continue
            if {"arithmatex", "checked-claim", "filename"} & set(child.classes()):
                continue  # a formula, a claim mark, a code block's title
            if child.tag == "code" and (child.parent is None or child.parent.tag != "pre"):
                continue
            if child.tag == "pre":
                if _title(child).startswith("python "):
                    seen_output = True
                elif not seen_output:
                    before_code += child.text().rstrip("\n").count("\n") + 1
                continue
            walk(child)

    walk(root)
    return MainLine(words, before_words, before_code, seen_output)


def of_page(project: Project, path: Path) -> MainLine:
    """The main line of a Markdown page of the project."""
    return read(parse(expected_html(project, path, texts.read(path, project.rel(path)))))


def problems(project: Project, path: Path) -> list[str]:
    """What keeps a tutorial page from a first-time reader's path, each naming the page."""
    line = of_page(project, path)
    found = []
    name = project.rel(path)
    if line.words > PROSE_BUDGET:
        found.append(
            f"{name}: {line.words} prose words on the main line, over the budget of"
            f' {PROSE_BUDGET}: fold reference material into a `??? note "Going deeper"` block'
        )
    late = line.before_words > FIRST_OUTPUT_WORDS or line.before_code > FIRST_OUTPUT_CODE_LINES
    if not line.has_output or late:
        where = (
            f"after {line.before_words} prose words and {line.before_code} code lines"
            if line.has_output
            else "nowhere"
        )
        found.append(
            f"{name}: its first output comes {where} (at most {FIRST_OUTPUT_WORDS} prose words"
            f" and {FIRST_OUTPUT_CODE_LINES} code lines may come before it)"
        )
    return found

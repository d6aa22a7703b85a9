"""Markup a page shows as an example is shown as written, in the raw file and on the site.

pymdownx.snippets acts on two kinds of lines wherever they stand: it expands an include line
and deletes a line holding a section marker. A page never cuts itself into sections, so a
marker line in a page is always an example: it is escaped before pymdownx sees it (pymdownx
shows `;--8<--` as `--8<--`). A fenced ```markdown block shows a page's source: its include
lines are escaped too, its `{{ x.py:value }}` stay as written, and docpipe.pages.reading does not
count what it names as a use of the page. The raw file needs no escape at all.
"""

from __future__ import annotations

import re

from pymdownx.snippets import SnippetPreprocessor

EXAMPLE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*\{?[ \t]*\.?(?:markdown|md)\b[^\n]*\n"
    r".*?^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
HIDDEN = "{\ue000{"  # "{{" inside an example, while values are inserted elsewhere


def protect(markdown: str) -> str:
    """Escape what pymdownx.snippets would act on, and hide example values from
    docpipe.pages.values."""
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        m = SnippetPreprocessor.RE_SNIPPET_SECTION.match(line)
        if m and not m["escape"]:
            lines[i] = line[: m.start("inline_marker")] + ";" + line[m.start("inline_marker") :]
    markdown = "\n".join(lines)
    return EXAMPLE.sub(lambda m: _escape_includes(m[0]).replace("{{", HIDDEN), markdown)


def restore(markdown: str) -> str:
    return markdown.replace(HIDDEN, "{{")


def without_examples(text: str) -> str:
    """The text with every example block blanked, line count kept (for line numbers)."""
    return EXAMPLE.sub(lambda m: "\n" * m[0].count("\n"), text)


def _escape_includes(block: str) -> str:
    lines = block.split("\n")
    for i, line in enumerate(lines):
        m = SnippetPreprocessor.RE_ALL_SNIPPETS.match(line)
        if m and not m["escape"]:
            lines[i] = line[: m.start("escape")] + ";" + line[m.start("escape") :]
    return "\n".join(lines)

"""Numbers in prose: `{{ examples/fit_line.py:final_loss }}` becomes the value a run recorded.

Values are declared per snippet in snippets/snippets.toml as f-strings over the snippet's globals
after its run (so the formatting is declared once, beside the name), and recorded in
docs/generated/<key>.json. A page that names an unknown snippet or value fails the build.
Each value is escaped for where it lands (docpipe.pages.reading.value_contexts): a recorded value is
always shown as text, never read as Markdown, HTML or LaTeX.
"""

from __future__ import annotations

import html
import json
import re

from docpipe.pages.reading import VALUE, value_contexts
from docpipe.problems import DocpipeError
from docpipe.project import Project, Snippet
from docpipe.recorded import record as records

MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]$])")
LATEX_SPECIAL = {
    "\\": r"\backslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "^": r"\^{}", "~": r"\sim{}",
}  # fmt: skip


class ValuesError(DocpipeError):
    """A `{{ key.py:name }}` that names no snippet, or a value its record does not hold."""


def escape(value: str, context: str) -> str:
    if context == "code":  # code spans and blocks show their text as it is
        return value
    if context == "math":
        return "".join(LATEX_SPECIAL.get(c, c) for c in value)
    if context == "alt":  # the alt attribute is escaped by Markdown; only the brackets matter
        return MARKDOWN_SPECIAL.sub(r"\\\1", value.replace("&", "&amp;"))
    text = html.escape(value, quote=context == "html")
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def substitute(project: Project, markdown: str, page: str) -> str:
    contexts = iter(value_contexts(markdown))

    def value(m) -> str:
        context = next(contexts)
        line = markdown.count("\n", 0, m.start()) + 1
        source = project.snippets / m["snippet"]
        if not source.exists():
            raise ValuesError(f"{m[0]} names no snippet {project.rel(source)}", page, line)
        snippet = project.snippet_at(source)
        try:
            values = records.load(snippet).values
        except records.RecordError as e:
            raise ValuesError(str(e), page, line) from None
        if m["name"] not in values:
            known = ", ".join(sorted(values)) or "none"
            raise ValuesError(
                f"{snippet.name} recorded no value '{m['name']}' (recorded: {known})", page, line
            )
        text = escape(values[m["name"]], context)
        starts_line = not markdown[markdown.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
        if context == "prose" and starts_line:
            end = markdown.find("\n", m.end())
            text = _no_block_start(text, markdown[m.end() : None if end < 0 else end])
        return text

    return VALUE.sub(value, markdown)


# What begins a block when a line begins with it: a numbered or bulleted list item, a heading,
# a rule or a setext heading's underline, an admonition, a definition, a quote, a table row.
BLOCK_START = re.compile(
    r"\d+[.)](\s|$)|[-+*](\s|$)|#|[=-]+\s*$|([*_]\s*){3,}$|!!!|\?\?\?|:|>|&gt;|\|"
)


def _no_block_start(text: str, rest: str) -> str:
    """A value that begins a line, followed there by `rest`: if the two would begin a block
    (BLOCK_START: `13` before the page's `. Only` a numbered list, a `-` a bullet, `===` a
    heading's underline), the value's first character becomes a character reference, which
    Markdown shows as that character and never reads as the start of a block."""
    if text and text[0] not in "&\\" and BLOCK_START.match(text + rest):
        return f"&#{ord(text[0])};{text[1:]}"
    return text


def stamp(snippets: set[Snippet]) -> str | None:
    """One line naming the environment the page's outputs were recorded in."""
    envs = {
        json.dumps(records.load(s).environment, sort_keys=True)
        for s in snippets
        if s.record.exists()
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

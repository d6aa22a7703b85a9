"""The one reader of pages: what they include, show and quote, found with markdown-it-py.

Include lines are read with pymdownx.snippets' own pattern and path splitter (what the build
expands is what this sees); fences, math, code and prose come from markdown-it's tokens, so the
site check, the notebooks and the value glue agree on where a line stands.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from docpipe.pages import markup
from docpipe.project import Project, Snippet
from docpipe.sections import preprocessor

IMAGE = re.compile(r"\]\((?P<target>[^)\s#]+\.svg)(?:#[\w-]+)?\)")
VALUE = re.compile(r"\{\{\s*(?P<snippet>[\w/.-]+\.py):(?P<name>[\w-]+)\s*\}\}")
# A checked claim (docpipe.pages.claims): `{{ claim by_hand/leaves.py:claim-only-leaves }}`.
CLAIM = re.compile(r"\{\{\s*claim\s+(?P<snippet>[\w/.-]+\.py):(?P<section>[A-Za-z][\w-]*)\s*\}\}")
PLACEHOLDER = "DOCPIPEVALUE{}X"  # letters and digits only: parsed as plain text anywhere


@dataclass(frozen=True)
class Use:
    page: Path
    line: int
    kind: str  # "code", "output", "figure", "value", "claim", or "file" (any other include)
    snippet: Snippet | None  # None for a "file" include
    detail: str  # the section, generated file, value name, claim's section, or included path
    path: Path | None = None  # the file an include or an image names (None: a value, a claim)


@dataclass(frozen=True)
class Include:
    page: Path
    line: int  # 1-based
    target: str  # as written between the quotes
    path: Path  # the file, resolved against the repository root (pymdownx base_path ".")
    section: str  # "" for the whole file
    problem: str  # "" or why pymdownx would not include it as this site needs
    fence: Fence | None  # the fenced block the include line stands in
    missing: bool = False  # its only problem: the file does not exist (yet: regen writes it)


@dataclass(frozen=True)
class Fence:
    first: int  # 1-based line of the opening fence
    last: int
    info: str
    body: tuple[str, ...]  # non-blank lines between the fences, stripped


@cache
def parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.admon import admon_plugin
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark").enable("table")
    return md.use(admon_plugin).use(dollarmath_plugin, double_inline=True).use(amsmath_plugin)


@lru_cache(maxsize=32)
def tokens(text: str) -> tuple:
    # The same page is read by several checks, and by each rebuild of `mkdocs serve`: parse once.
    return tuple(parser().parse(text))


def fences(text: str) -> list[Fence]:
    found = []
    for t in tokens(text):
        if t.type == "fence":
            body = tuple(x.strip() for x in t.content.splitlines() if x.strip())
            found.append(Fence(t.map[0] + 1, t.map[1], t.info.strip(), body))
    return found


def includes(project: Project, page: Path, text: str | None = None) -> list[Include]:
    """Every include line of a page, as pymdownx.snippets reads it (none of an example's)."""
    text = page.read_text(encoding="utf-8") if text is None else text
    text = markup.without_examples(text)
    pre = preprocessor(project.site.snippets_options)
    base = _base(project)
    by_line = {line: f for f in fences(text) for line in range(f.first, f.last + 1)}
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        m = pre.RE_ALL_SNIPPETS.match(line)
        if not m or m["escape"]:
            continue
        if m["block_marker"]:
            problem = "block includes (a lone --8<--) are not used here; include one file"
            found.append(Include(page, number, "", base, "", problem, by_line.get(number)))
            continue
        target = m["snippet"][1:-1]
        path, lines, section = pre.split_path(target)
        problem = ""
        if lines:
            problem = "include by named section, never by line numbers"
        full = Path(os.path.normpath(base / path))
        if project.snippets in full.parents and full.suffix == ".py":
            try:
                project.snippet_at(full)
            except ValueError as e:
                problem = problem or str(e)
        missing = not problem and not full.is_file()
        if missing:
            problem = f"{path} does not exist"
        section = (section or "")[1:]
        found.append(
            Include(page, number, target, full, section, problem, by_line.get(number), missing)
        )
    return found


def _base(project: Project) -> Path:
    """What pymdownx.snippets resolves an include against: its first base_path, from the root
    (MkDocs runs from the folder of mkdocs.yml)."""
    bases = project.site.snippets_options.get("base_path") or ["."]
    bases = [bases] if isinstance(bases, str) else bases
    return Path(os.path.normpath(project.root / bases[0]))


def markdown_pages(project: Project) -> list[Path]:
    generated = project.generated
    return sorted(p for p in project.docs.rglob("*.md") if generated not in p.parents)


def uses(project: Project, page: Path) -> list[Use]:
    return list(_uses(project, page, page.stat().st_mtime_ns))


def classify(project: Project, inc: Include) -> Use:
    full = inc.path
    snippets, generated = project.snippets, project.generated
    if snippets in full.parents and full.suffix == ".py" and not full.name.startswith("_"):
        return Use(inc.page, inc.line, "code", project.snippet_at(full), inc.section, full)
    if generated in full.parents and full.suffix == ".txt":
        return Use(inc.page, inc.line, "output", project.owner(full), inc.target, full)
    return Use(inc.page, inc.line, "file", None, inc.target, full)


@cache
def _uses(project: Project, page: Path, mtime: int) -> tuple[Use, ...]:
    text = markup.without_examples(page.read_text(encoding="utf-8"))  # examples name no use

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    # What a page uses does not depend on whether a file exists yet: this is cached by the
    # page's time only, and a regen writes the outputs a page includes after reading it.
    found = [
        classify(project, inc)
        for inc in includes(project, page, text)
        if not inc.problem or inc.missing
    ]
    for m in IMAGE.finditer(text):
        full = Path(os.path.normpath(page.parent / m["target"]))
        if project.generated in full.parents:
            owner = project.owner(full)
            found.append(Use(page, line_of(m.start()), "figure", owner, m["target"], full))
    for m in VALUE.finditer(text):
        snippet = project.snippet_at(project.snippets / m["snippet"])
        found.append(Use(page, line_of(m.start()), "value", snippet, m["name"]))
    for m in CLAIM.finditer(text):
        snippet = project.snippet_at(project.snippets / m["snippet"])
        found.append(Use(page, line_of(m.start()), "claim", snippet, m["section"]))
    return tuple(found)


def value_contexts(text: str) -> list[str]:
    """Where each `{{ }}` value of the text lands, in order: "prose", "alt" (image alt text),
    "math", "html" (raw HTML, an attribute, or Markdown inside HTML) or "code"."""
    matches = list(VALUE.finditer(text))
    if not matches:
        return []
    count = iter(range(len(matches)))
    marked = VALUE.sub(lambda m: PLACEHOLDER.format(next(count)), text)
    found: dict[int, str] = {}

    def note(content: str, context: str) -> None:
        for n in re.findall(PLACEHOLDER.format(r"(\d+)"), content):
            found.setdefault(int(n), context)

    lines = marked.split("\n")
    for t in tokens(marked):
        if t.type in ("fence", "code_block"):
            note(t.content, "code")
        elif t.type in ("math_block", "math_block_label", "amsmath"):
            note(t.content, "math")
        elif t.type == "html_block":
            for line in lines[t.map[0] : t.map[1]]:  # markdown inside HTML (md_in_html)
                for alt in re.findall(r"!\[([^\]]*)\]\(", line):
                    note(alt, "alt")
                for math in re.findall(r"\$[^$]+\$", line):
                    note(math, "math")
                note(line, "html")
        elif t.type == "inline":
            for child in t.children or []:
                if child.type == "image":
                    note(child.content, "alt")
                    note(str(child.attrs), "html")
                elif child.type == "code_inline":
                    note(child.content, "code")
                elif child.type.startswith("math_inline"):
                    note(child.content, "math")
                elif child.type == "html_inline":
                    note(child.content, "html")
                elif child.type == "text":
                    note(child.content, "prose")
                else:
                    note(str(child.attrs), "html")
    return [found.get(i, "prose") for i in range(len(matches))]


def all_uses(project: Project) -> list[Use]:
    return [u for page in markdown_pages(project) for u in uses(project, page)]


def pages_using(snippet: Snippet) -> list[str]:
    """The pages (from the root) that show or quote a snippet."""
    project = snippet.project
    return sorted({project.rel(u.page) for u in all_uses(project) if u.snippet == snippet})

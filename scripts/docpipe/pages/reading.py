"""The one reader of pages: what they include, show and quote, found with markdown-it-py.

A page is read once per build into a Page, the value every rule and renderer is handed: its
text, its tokens, fences, includes, uses and markers, each parsed on first use and kept with it.
A build makes one Pages (its session of pages); nothing on the page side opens a page itself.

Include lines are read with pymdownx.snippets' own pattern and path splitter (what the build
expands is what this sees); fences, math, code and prose come from markdown-it's tokens, so the
site check, the notebooks and the value glue agree on where a line stands.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from pathlib import Path

from docpipe import inputs, texts
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


@dataclass(frozen=True, eq=False)
class Page:
    """One page as every rule and renderer sees it: its file's text, read once, and what is
    parsed from it, each part on first use and then kept (a page is parsed once per build).
    `source` is the text without the examples a page shows of other pages' Markdown
    (docpipe.pages.markup): what the page itself says and includes."""

    project: Project
    path: Path
    text: str
    state: tuple | None  # the file's when read (docpipe.inputs.state)
    site: Pages = field(repr=False)  # the build's pages: the others a rule may need
    _made: dict = field(default_factory=dict, repr=False)  # once(): what rules made of it

    @classmethod
    def read(cls, project: Project, path: Path, site: Pages | None = None) -> Page:
        state = inputs.state(os.fspath(path))  # before the read: a later change is seen
        text = texts.read(path, project.rel(path))
        return cls(project, Path(path), text, state, site or Pages(project))

    def __str__(self) -> str:
        return str(self.path)

    @cached_property
    def name(self) -> str:
        return self.project.rel(self.path)

    @cached_property
    def source(self) -> str:
        return markup.without_examples(self.text)

    @cached_property
    def tokens(self) -> tuple:
        return tokens(self.source)

    @cached_property
    def fences(self) -> tuple[Fence, ...]:
        return tuple(_fences(self.tokens))

    @property
    def includes(self) -> tuple[Include, ...]:
        return self._kept(
            "includes",
            lambda: _kept_includes(self.project, self.path, self.source, lambda: self.fences),
        )

    @property
    def uses(self) -> tuple[Use, ...]:
        return self._kept(
            "uses", lambda: _kept_uses(self.project, self.path, self.source, lambda: _uses(self))
        )

    def once(self, make: Callable[[Page], object]):
        """make(page), kept with the page: a part that rules read in their own way (its prose,
        its sentences) is made once per page, however many rules ask. Read-only to callers."""
        return self._kept(make, lambda: _made_of(self, make))

    def _kept(self, part, make: Callable[[], object]):
        """A part made once per page; each asking notes the files it was made from, in whatever
        records now (docpipe.inputs), as making it did: a result kept for a later asker is
        found again when one of them changes, not only the first asker's."""
        found = self._made.get(part)
        if found is None:
            with inputs.recording() as files:
                value = make()
            found = self._made[part] = (value, dict(files))
        else:
            for path, state in found[1].items():
                inputs.note(path, state)
        return found[0]

    def line_of(self, pos: int) -> int:
        """The 1-based line of a position in the text (a marker's, found in page.text)."""
        return self.text.count("\n", 0, pos) + 1


class Pages:
    """The pages of one build, each read from its file once, on first asking: the session the
    page side shares (`regen.py --check`, a regen, one `mkdocs build`). A page handed out is
    noted as read, with its state when read, by whatever is recording (docpipe.inputs), so a
    result kept for it is found again when the file changed."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._read: dict[Path, Page] = {}
        self.reads = 0  # files read: once per page (the tests count them)

    def page(self, page: Path | Page) -> Page:
        if isinstance(page, Page):
            inputs.note(page.path, page.state)
            return page
        path = Path(page)
        found = self._read.get(path)
        if found is None:
            found = self._read[path] = Page.read(self.project, path, self)
            self.reads += 1
        inputs.note(path, found.state)
        return found

    def all(self) -> list[Page]:
        """Every Markdown page of the site (markdown_pages), in order."""
        return [self.page(p) for p in markdown_pages(self.project)]


def as_page(project: Project, page: Path | Page, site: Pages | None = None) -> Page:
    """The Page of a path (read now, or from site), or the Page given."""
    return (site or Pages(project)).page(page)


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


def tokens_of(page: str | Page) -> tuple[str, tuple]:
    """A page's text without its examples, and its tokens: a Page's own, or Markdown's parsed."""
    if isinstance(page, Page):
        return page.source, page.tokens
    source = markup.without_examples(page)
    return source, tokens(source)


def fences(text: str) -> list[Fence]:
    return _fences(tokens(text))


def _fences(all_tokens: tuple) -> list[Fence]:
    found = []
    for t in all_tokens:
        if t.type == "fence":
            body = tuple(x.strip() for x in t.content.splitlines() if x.strip())
            found.append(Fence(t.map[0] + 1, t.map[1], t.info.strip(), body))
    return found


def includes(project: Project, page: Path | Page, text: str | None = None) -> list[Include]:
    """Every include line of a page, as pymdownx.snippets reads it (none of an example's);
    `text`: other Markdown read as if it stood in the page (an example's)."""
    if text is None:
        return list(as_page(project, page).includes)
    text = markup.without_examples(text)
    path = Path(getattr(page, "path", page))
    return list(_kept_includes(project, path, text, lambda: fences(text)))


def _includes(project: Project, page: Path, text: str, found_fences) -> list[Include]:
    pre = preprocessor(project.site.snippets_options)
    base = _base(project)
    by_line = {line: f for f in found_fences for line in range(f.first, f.last + 1)}
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


# A page's includes and uses are asked by each build of `mkdocs serve`, and again by the regen a
# save starts, each with pages read anew: kept per page text until mkdocs.yml or a file they
# looked at (an include's file, a snippet) changes (docpipe.inputs).
def text_key(project: Project, path: Path, text: str) -> tuple:
    """What a result made from one page's text is kept on: the project, the page and the text
    (the key of docpipe.inputs.memo for every such result)."""
    return str(project.root), str(path), hashlib.sha256(text.encode()).hexdigest()


def _text_key(project: Project, path: Path, source: str, _make) -> tuple:
    return text_key(project, path, source)


def _settings(project: Project, *_) -> list[Path]:
    return [project.config_file]


@inputs.memo(
    key=lambda page, make: (make, *text_key(page.project, page.path, page.text)),
    also=lambda page, _make: _settings(page.project),
)
def _made_of(page: Page, make: Callable[[Page], object]):
    return make(page)


@inputs.memo(key=_text_key, also=_settings)
def _kept_includes(project: Project, path: Path, source: str, fences) -> tuple[Include, ...]:
    return tuple(_includes(project, path, source, fences()))


@inputs.memo(key=_text_key, also=_settings)
def _kept_uses(project: Project, path: Path, source: str, make) -> tuple[Use, ...]:
    return make()


def _base(project: Project) -> Path:
    """What pymdownx.snippets resolves an include against: its first base_path, from the root
    (MkDocs runs from the folder of mkdocs.yml)."""
    bases = project.site.snippets_options.get("base_path") or ["."]
    bases = [bases] if isinstance(bases, str) else bases
    return Path(os.path.normpath(project.root / bases[0]))


def markdown_pages(project: Project) -> list[Path]:
    generated = project.generated
    return sorted(p for p in project.docs.rglob("*.md") if generated not in p.parents)


def uses(project: Project, page: Path | Page) -> list[Use]:
    return list(as_page(project, page).uses)


def classify(project: Project, inc: Include) -> Use:
    full = inc.path
    snippets, generated = project.snippets, project.generated
    if snippets in full.parents and full.suffix == ".py" and not full.name.startswith("_"):
        return Use(inc.page, inc.line, "code", project.snippet_at(full), inc.section, full)
    if generated in full.parents and full.suffix == ".txt":
        return Use(inc.page, inc.line, "output", project.owner(full), inc.target, full)
    return Use(inc.page, inc.line, "file", None, inc.target, full)


def _uses(page: Page) -> tuple[Use, ...]:
    project, text = page.project, page.source  # examples name no use
    path = page.path

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    # What a page uses does not depend on whether a file exists yet: a regen writes the
    # outputs a page includes after reading it.
    found = [classify(project, inc) for inc in page.includes if not inc.problem or inc.missing]
    for m in IMAGE.finditer(text):
        full = Path(os.path.normpath(path.parent / m["target"]))
        if project.generated in full.parents:
            owner = project.owner(full)
            found.append(Use(path, line_of(m.start()), "figure", owner, m["target"], full))
    for m in VALUE.finditer(text):
        snippet = project.snippet_at(project.snippets / m["snippet"])
        found.append(Use(path, line_of(m.start()), "value", snippet, m["name"]))
    for m in CLAIM.finditer(text):
        snippet = project.snippet_at(project.snippets / m["snippet"])
        found.append(Use(path, line_of(m.start()), "claim", snippet, m["section"]))
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


def all_uses(project: Project, site: Pages | None = None) -> list[Use]:
    return [u for page in (site or Pages(project)).all() for u in page.uses]


def pages_using(snippet: Snippet, site: Pages | None = None) -> list[str]:
    """The pages (from the root) that show or quote a snippet."""
    project = snippet.project
    return sorted({project.rel(u.page) for u in all_uses(project, site) if u.snippet == snippet})

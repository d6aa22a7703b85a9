r"""Math rendered at build time: every formula of a page becomes KaTeX's HTML and MathML in the
built page, so the reader's browser runs no KaTeX and never shows raw LaTeX.

pymdownx.arithmatex (generic mode) marks a page's math as
`<span class="arithmatex">\(...\)</span>` and `<div class="arithmatex">\[...\]</div>` (or a
bare `\begin{env}...\end{env}` in the div);
mark_notebook_math() makes nbconvert, which mkdocs-jupyter runs over a notebook's Markdown
cells, mark theirs the same way (always a span: display math stands inside a paragraph
there). Both are HTML-escaped inside, so a marked formula holds no `<`.

The renderer is the site's own copy of KaTeX, docs/assets/katex/katex.min.js (the file whose
CSS and fonts the pages load, copied from the npm package by scripts/vendor_katex.sh), run in
V8 embedded in this process by mini-racer (PyPI). The engine starts on the first formula the
cache does not hold and is closed by close() (MkDocs' on_shutdown, and at exit): a V8 left
open can keep the process from exiting.

Each rendering is cached under (KaTeX's version and file, OPTIONS, display mode, formula): in
memory for the rebuilds of one `mkdocs serve`, and in `.cache/katex/` beside mkdocs.yml for the
next build. A formula KaTeX refuses (a parse error, an unknown macro, LaTeX-incompatible input)
is a Problem naming the page, its line and the formula; the page then shows it in red, as
KaTeX itself shows an error.
"""

from __future__ import annotations

import atexit
import hashlib
import html
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from docpipe import texts
from docpipe.problems import Problem
from docpipe.project import Project


def katex_dir(project: Project) -> Path:
    """Where the site's one copy of KaTeX is (scripts/vendor_katex.sh puts it there)."""
    return project.docs / "assets" / "katex"


# throwOnError: a formula KaTeX cannot render is an error of the page, not a red span.
# strict "error": what KaTeX would only warn about in a console (LaTeX-incompatible input) is
# one too, as `mkdocs build --strict` makes every warning an error.
OPTIONS = {"output": "htmlAndMathml", "throwOnError": True, "strict": "error"}
ERROR_COLOUR = "#cc0000"  # KaTeX's own errorColor
MARKED = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<body>[^<]*)</(?P=tag)>')

# Runs in V8 after katex.min.js: for each formula its HTML, or KaTeX's message (without the
# marks it puts in the formula at the error's position). One call per page: each call is a
# round trip to V8's thread.
RENDER_JS = """
function renderFormulas(formulas, options) {
    return formulas.map(([tex, display]) => {
        try {
            const html = katex.renderToString(tex, Object.assign({displayMode: display}, options));
            return {html};
        } catch (e) {
            const where = e.position === undefined ? '' : ` (at position ${e.position + 1})`;
            return {error: (e.rawMessage || String(e.message || e)) + where};
        }
    });
}
"""


@dataclass(frozen=True)
class Formula:
    tex: str
    display: bool

    def shown(self) -> str:
        """The formula on one line, between the delimiters an author types."""
        dollars = "$$" if self.display else "$"
        return f"{dollars}{' '.join(self.tex.split())}{dollars}"


def formula(body: str) -> Formula:
    """The formula in a marked element's text (still HTML-escaped)."""
    tex = html.unescape(body).strip()
    for left, right, display in (("\\(", "\\)", False), ("\\[", "\\]", True)):
        if tex.startswith(left) and tex.endswith(right):
            return Formula(tex[len(left) : -len(right)], display)
    return Formula(tex, True)  # arithmatex's bare \begin{env}...\end{env} block


def formulas(page_html: str) -> list[Formula]:
    return [formula(m["body"]) for m in MARKED.finditer(page_html)]


class KatexUnavailable(Exception):
    """The build cannot render math: mini-racer is not installed, or KaTeX is missing."""


class Engine:
    """katex.min.js in an embedded V8, started on first use."""

    def __init__(self, katex_dir: Path):
        self.katex_dir = katex_dir
        self._racer = None
        self._lock = threading.Lock()  # `mkdocs serve` rebuilds in another thread
        self.rendered = 0  # formulas rendered (not answered by a cache)

    def render(self, formulas: list[Formula]) -> list[dict]:
        with self._lock:
            if self._racer is None:
                try:
                    from py_mini_racer import MiniRacer
                except ImportError:
                    raise KatexUnavailable(
                        "the site renders its math with mini-racer, which is not installed:"
                        " `make serve` installs it, or `pip install -e .`"
                    ) from None

                racer = MiniRacer()
                racer.eval(texts.read(self.katex_dir / "katex.min.js"))
                racer.eval(RENDER_JS)
                self._racer = racer
                atexit.register(self.close)
            self.rendered += len(formulas)
            pairs = [[f.tex, f.display] for f in formulas]
            return [dict(r) for r in self._racer.call("renderFormulas", pairs, OPTIONS)]

    def close(self) -> None:
        with self._lock:
            racer, self._racer = self._racer, None
        if racer is not None:
            racer.close()


def version_key(katex_dir: Path) -> str:
    """What a rendering depends on besides its formula: KaTeX (its version and its very file)
    and the options."""
    h = hashlib.sha256()
    try:
        h.update((katex_dir / "VERSION").read_bytes())
        h.update((katex_dir / "katex.min.js").read_bytes())
    except OSError as e:
        raise KatexUnavailable(
            f"{e.filename} is missing: scripts/vendor_katex.sh copies KaTeX there"
        ) from None
    h.update(json.dumps(OPTIONS, sort_keys=True).encode())
    return h.hexdigest()[:16]


class Renderer:
    """Renders formulas through a cache: in memory, and one JSON file per version_key in
    `folder`, written by save(). Errors are kept in memory only (they are cheap to find)."""

    def __init__(self, folder: Path | None, katex_dir: Path):
        self.engine = Engine(katex_dir)
        self.folder, self.katex_dir = folder, katex_dir
        self.file: Path | None = None
        self.html: dict[str, str] = {}
        self.errors: dict[str, str] = {}
        self.used: set[str] = set()  # what the pages of this build asked for
        self._saved: set[str] = set()  # what the cache file holds
        self._opened = False

    def _open(self) -> None:
        """Read the cache file, on the first formula (a site without math needs no KaTeX)."""
        if self._opened:
            return
        key = version_key(self.katex_dir)
        self._opened = True
        self.file = self.folder / f"{key}.json" if self.folder else None
        if self.file and self.file.exists():
            try:
                self.html = json.loads(self.file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.html = {}  # a damaged cache is rebuilt, never trusted
            self._saved = set(self.html)

    @staticmethod
    def _key(f: Formula) -> str:
        return ("D" if f.display else "I") + f.tex

    def prepare(self, formulas: list[Formula]) -> None:
        """Render, in one call to the engine, each formula the cache does not hold."""
        if not formulas:
            return
        self._open()
        missing = {}
        for f in formulas:
            key = self._key(f)
            self.used.add(key)
            if key not in self.html and key not in self.errors:
                missing[key] = f
        if not missing:
            return
        rendered = self.engine.render(list(missing.values()))
        for key, result in zip(missing, rendered, strict=True):
            if "html" in result:
                self.html[key] = result["html"]
            else:
                self.errors[key] = result["error"]

    def render(self, f: Formula) -> str | None:
        """KaTeX's HTML for the formula, or None when KaTeX refuses it (see error())."""
        self.prepare([f])
        return self.html.get(self._key(f))

    def error(self, f: Formula) -> str | None:
        return None if self.render(f) is not None else self.errors[self._key(f)]

    def tally(self) -> str:
        """What the engine rendered since the last tally ("" when the cache answered all)."""
        rendered, self.engine.rendered = self.engine.rendered, 0
        return f"katex: rendered {rendered} formula(s) the cache did not hold" if rendered else ""

    def save(self) -> None:
        """Write what this build's pages used to the cache file, when that differs from what
        it holds (a formula no page uses any more is dropped, and so is the file of another
        KaTeX or other options). Atomically, as builds may overlap; a cache that cannot be
        written is skipped: the build does not need it."""
        used, self.used = self.used, set()
        keep = {k: self.html[k] for k in used if k in self.html}
        # in memory too: a long `mkdocs serve` holds no formula edited away
        self.html = dict(keep)
        self.errors = {k: e for k, e in self.errors.items() if k in used}
        if not self.file or not keep or set(keep) == self._saved:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.file.parent, prefix=".katex-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(keep, out, ensure_ascii=False, sort_keys=True)
            os.replace(tmp, self.file)
            for other in self.file.parent.glob("*.json"):  # another KaTeX's or options'
                if other != self.file:
                    other.unlink(missing_ok=True)
        except OSError:
            return
        self._saved = set(keep)

    def close(self) -> None:
        self.engine.close()


_RENDERERS: dict[Path, Renderer] = {}


def renderer(project: Project) -> Renderer:
    """The project's renderer, caching in .cache/katex/: one per build or `mkdocs serve`
    session."""
    folder = project.cache_dir / "katex"
    if folder not in _RENDERERS:
        _RENDERERS[folder] = Renderer(folder, katex_dir(project))
    return _RENDERERS[folder]


def close() -> None:
    """Close every engine (MkDocs' on_shutdown; each build saved its cache)."""
    while _RENDERERS:
        _, r = _RENDERERS.popitem()
        r.close()


def problems(project: Project, page_html: str, renderer: Renderer, source: Path) -> list[Problem]:
    """Each formula of the page KaTeX refuses, located in the page's source file (a Markdown
    page, or a notebook's Markdown cells)."""
    found = []
    marked = formulas(page_html)
    renderer.prepare(marked)
    failed = [(f, e) for f in marked if (e := renderer.error(f)) is not None]
    if failed:
        where = _locator(project, source)
        found = []
        for f, e in failed:
            path, line, cell = where(f)
            found.append(Problem(path, line, f"{cell}KaTeX cannot render {f.shown()}: {e}"))
    return found


def render(page_html: str, renderer: Renderer) -> str:
    """The page with each marked formula replaced by KaTeX's rendering, inside its mark and a
    <span>, as KaTeX's auto-render left it in the browser (the span keeps a display's spacing:
    its block sits in an inline box); a refused formula shows as KaTeX shows an error."""

    def one(m: re.Match) -> str:
        f = formula(m["body"])
        rendered = renderer.render(f)
        if rendered is None:
            message = html.escape(f"KaTeX cannot render this formula: {renderer.error(f)}")
            rendered = (
                f'<span class="katex-error" title="{message}" style="color:{ERROR_COLOUR}">'
                f"{html.escape(f.tex, quote=False)}</span>"
            )
        return f'<{m["tag"]} class="arithmatex"><span>{rendered}</span></{m["tag"]}>'

    renderer.prepare(formulas(page_html))
    return MARKED.sub(one, page_html)


def notice(found: list[Problem]) -> str:
    """What `mkdocs serve` shows at the top of a page whose formulas KaTeX refuses."""
    items = "\n".join(f"<li><code>{html.escape(str(p), quote=False)}</code></li>" for p in found)
    return (
        '\n<div class="admonition failure">\n'
        '<p class="admonition-title">KaTeX cannot render some formulas of this page</p>\n'
        f"<ul>\n{items}\n</ul>\n</div>\n"
    )


# ---- where a formula stands in its source --------------------------------------------------

VALUE = re.compile(r"\{\{.*?\}\}", re.S)  # a recorded value, substituted before rendering


def _pattern(source_tex: str) -> re.Pattern:
    """Matches the formula as rendered: whitespace ignored, each `{{ }}` value any text."""
    parts = VALUE.split("".join(source_tex.split()))
    return re.compile(".+?".join(re.escape(p) for p in parts), re.S)


def _matcher(candidates: list[tuple[str, str]]):
    """candidates: (where, source formula) in page order; returns where(formula), which takes
    the first candidate not yet taken whose formula matches."""
    taken: set[int] = set()
    compiled = [(where, _pattern(tex)) for where, tex in candidates]

    def where(f: Formula, fallback: tuple) -> tuple:
        flat = "".join(f.tex.split())
        for i, (place, pattern) in enumerate(compiled):
            if i not in taken and pattern.fullmatch(flat):
                taken.add(i)
                return place
        return fallback

    return where


def _locator(project: Project, source: Path):
    """where(formula) -> (path, line, cell): a notebook's formula is named by its cell and the
    line in it ("cell 3, line 2: "), with no line of the file."""
    name = project.rel(source)
    text = texts.read(source, name) if source.exists() else ""
    if source.suffix == ".ipynb":
        candidates = []
        cells = json.loads(text).get("cells", []) if text else []
        for number, cell in enumerate(cells, 1):
            if cell.get("cell_type") == "markdown":
                body = cell["source"]
                body = "".join(body) if isinstance(body, list) else body
                candidates += [
                    ((name, None, f"cell {number}, line {line}: "), tex)
                    for line, tex in source_formulas(body)
                ]
    else:
        candidates = [((name, line, ""), tex) for line, tex in source_formulas(text)]
    match = _matcher(candidates)
    lines = text.split("\n")

    def where(f: Formula) -> str:
        # not read as math by markdown-it (an environment it does not know): the first line
        # that holds the formula's first line
        first = next((x.strip() for x in f.tex.split("\n") if x.strip()), f.tex)
        line = next((n for n, x in enumerate(lines, 1) if first in x), None)
        fallback = (name, line if source.suffix != ".ipynb" else None, "")
        return match(f, fallback)

    return where


def source_formulas(text: str) -> list[tuple[int, str]]:
    """(1-based line, formula) of each formula of a Markdown text, as markdown-it-py reads it
    (docpipe.pages.reading' reader): `$...$`, `$$...$$` and bare `\\begin{env}` blocks; math inside
    raw HTML (md_in_html) by its `$` delimiters."""
    from docpipe.pages.reading import tokens

    lines = text.split("\n")
    found = []
    for t in tokens(text):
        if t.type in ("math_block", "math_block_label", "amsmath") and t.map:
            found.append((t.map[0] + 1, t.content))
        elif t.type == "html_block" and t.map:
            for n in range(t.map[0], t.map[1]):
                found += [(n + 1, m) for m in re.findall(r"\$\$?([^$]+)\$\$?", lines[n])]
        elif t.type == "inline" and t.map:
            cursor = t.map[0]
            for child in t.children or []:
                if child.type.startswith("math_inline"):
                    first = child.content.split("\n")[0]
                    span = range(cursor, t.map[1])
                    cursor = next((n for n in span if first in lines[n]), cursor)
                    found.append((cursor + 1, child.content))
    return found


# ---- notebooks -----------------------------------------------------------------------------


def mark_notebook_math() -> None:
    """Make nbconvert mark a notebook's math as arithmatex marks a page's. Its renderer writes
    `$x$` back for a browser's MathJax; mkdocs-jupyter offers no way to change it, so its three
    math methods are replaced (in this process only: the MkDocs build)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer

    def marked(tex: str) -> str:
        return f'<span class="arithmatex">{html.escape(tex, quote=False)}</span>'

    IPythonRenderer.inline_math = lambda self, body: marked(f"\\({body}\\)")
    IPythonRenderer.block_math = lambda self, body: marked(f"\\[{body}\\]")
    IPythonRenderer.latex_environment = lambda self, name, body: marked(
        f"\\begin{{{name}}}{body}\\end{{{name}}}"
    )

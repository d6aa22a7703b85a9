"""Page work that every generator runs: a Python-Markdown extension (mkdocs.yml lists it under
`markdown_extensions:` as `docpipe.pagework`), which MkDocs, ProperDocs and Zensical all load,
as they load pymdownx. For each Markdown page it fails the build on every site problem
`regen.py --check` reports (the page rules, with their page:line), checks the page's includes
before pymdownx reads them, inserts recorded values and checked-claim marks, the reader notes
under output blocks, the notebook buttons and the "How this page was made" box; then it renders
the page's formulas with KaTeX (docpipe.pages.katex).

Why an extension and not a pre-build or post-build pass: a generator that loads the site's
Markdown extensions runs it with no command of ours around it (a pass run beside the build is
one a maintainer can forget), and it works on the page's Markdown before pymdownx.snippets
reads the includes, where the hooks worked. What stays in scripts/mkdocs_hooks.py is MkDocs-only
convenience: `mkdocs serve` showing problems on pages instead of failing, its live re-runs,
the notebook pages' math (mkdocs-jupyter, a plugin, renders notebooks without Python-Markdown)
and keeping formulas out of MkDocs' search index (MkDocs renders them after indexing). A
generator without the hooks still gets every page right; what it cannot do (notebook pages)
`regen.py --check-site` names.

The page being converted: Python-Markdown does not say which file it converts, so it is read
from what each generator registers on the Markdown instance: MkDocs' and ProperDocs' link
rewriting treeprocessor holds the page's file and config, Zensical's context preprocessor its
page path and config. A generator offering neither gets a one-line error, not a guess."""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from docpipe import catalog, inputs, pipeline
from docpipe.pages import claims, consistency, katex, markup, notebooks, outputs, values
from docpipe.pages import reading as pages
from docpipe.pages.reproduced import box as reproduced_by
from docpipe.pages.reproduced import with_notes as with_version_notes
from docpipe.problems import DocpipeError, Problem
from docpipe.project import Project
from docpipe.recorded import record as records
from docpipe.run.normalise import BY_NAME

try:  # MkDocs and ProperDocs print a BuildError as one line, without a traceback
    from mkdocs.exceptions import PluginError as _BuildError
except ImportError:  # another generator
    _BuildError = Exception


class PageWorkError(_BuildError):
    """The site cannot be built: what regen.py --check would say, page and line named."""


FOOTER = """

??? info "How this page was made"
    Every output block, figure and quoted number on this page comes from running its snippet
    with {stamp}. `python scripts/regen.py` re-records them; `python scripts/regen.py --check`
    proves they still match. Versions that reproduce it: {versions};
    `python scripts/regen.py --verify` runs it again under each.
"""


# ---- the site's problems, once per state of its inputs --------------------------------------


def inputs_key(project: Project) -> str:
    """What the site's problems depend on: every file under docs/ (but the built notebooks'
    HTML cache) and snippets/, and mkdocs.yml, by name, size and modification time. Itself a
    key: what it reads is no input of whoever asks (docpipe.inputs)."""
    h = hashlib.sha256()
    with inputs.unrecorded():
        for folder in (project.docs, project.root / "snippets"):
            for path in sorted(folder.rglob("*")):
                try:
                    st = path.stat()
                except OSError:
                    continue
                h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        config = project.root / "mkdocs.yml"
        if config.exists():
            h.update(str(config.stat().st_mtime_ns).encode())
    return h.hexdigest()


class _Site:
    """The site's problems, catalog and pages for one state of its inputs (inputs_key): each
    page is read once per state (docpipe.pages.reading.Pages), for the site's checks and the
    page's own."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.key: str | None = None
        self.problems: list[Problem] = []
        self.catalog: catalog.Catalog | None = None
        self.pages: pages.Pages | None = None


_SITES: dict[Path, _Site] = {}


def site_problems(project: Project, key: str | None = None) -> tuple[list[Problem], bool]:
    """Every site problem `regen.py --check` reports first (docpipe.pipeline.site_problems, the
    one code path of both), and whether the catalog could be read. Found again only when an
    input changed."""
    site = _SITES.setdefault(project.root.resolve(), _Site())
    with site.lock:
        key = key or inputs_key(project)
        if site.key != key:
            site.pages = pages.Pages(project)
            try:
                site.catalog = catalog.load(project)
                site.problems = pipeline.site_problems(site.catalog, site=site.pages)
            except DocpipeError as e:
                site.catalog, site.problems = None, [e.problem]
            site.key = key
        return site.problems, site.catalog is not None


def _pages(project: Project) -> pages.Pages | None:
    """The pages the site's problems were found in (read for this state of the inputs)."""
    site = _SITES.get(project.root.resolve())
    return site.pages if site else None


# ---- one page --------------------------------------------------------------------------------


def colab_url(site, notebook: str) -> str | None:
    """Colab's address for a notebook of a GitHub repository: a plain link, so the page asks
    nothing of Colab when it loads. The branch is the one edit_uri names ("edit/main/docs/")."""
    repo = re.fullmatch(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?", site.repo_url or "")
    if not repo:
        return None
    return f"https://colab.research.google.com/github/{repo[1]}/blob/{site.branch}/{notebook}"


def _notebook_links(project: Project, src: str) -> str:
    """The companion notebook's buttons (view, download, Colab), or "" if the page has none."""
    notebook = notebooks.notebook_path(project, project.docs / src)
    if not notebook.exists():
        return ""
    view = notebook.relative_to(project.docs).as_posix()
    depth = len(Path(src).with_suffix("").parts)  # the page is served at <src without .md>/
    download = "../" * depth + f"{Path(view).with_suffix('')}/{notebook.name}"
    buttons = [
        f"[Open this page as a notebook]({view}){{ .md-button }}",
        f'<a class="md-button" href="{download}" download>Download the notebook (.ipynb)</a>',
    ]
    colab = colab_url(project.site, f"docs/{view}")
    if colab:
        buttons.append(f'<a class="md-button" href="{colab}">Open in Colab</a>')
    return '\n<div class="notebook-links" markdown>\n' + "\n".join(buttons) + "\n</div>\n"


def _under_title(markdown: str, block: str) -> str:
    title, newline, rest = markdown.partition("\n")
    return title + newline + block + rest if title.startswith("# ") else block + markdown


def _with_reader_notes(project: Project, markdown: str, page: Path) -> str:
    """Under each output block that a normaliser changed, what a reader's own run shows."""
    lines = markdown.split("\n")
    for inc, shown in reversed(outputs.output_blocks(project, page, markdown)):
        use = pages.classify(project, inc)
        changed = [BY_NAME[n] for n in records.load(use.snippet).normalised]
        if shown is not None:  # a part of the output: the normalisers that may have changed it
            changed = [n for n in changed if n.may_have_changed(shown.text)]
        said = [n.reader_sees for n in changed]
        if said:
            indent = lines[inc.fence.first - 1][: -len(lines[inc.fence.first - 1].lstrip())]
            note = f'{indent}<small class="reader-note">{" ".join(said)}</small>'
            lines[inc.fence.last : inc.fence.last] = ["", note]
    return "\n".join(lines)


def _problem_page(problems: list[Problem]) -> str:
    body = "\n".join(f"    - `{p}`" for p in problems)
    return f'!!! failure "This page cannot be built"\n\n{body}\n'


def _prose_notice(problems: list[Problem]) -> str:
    """The page stays readable: its prose problems go in a box under its title."""
    if not problems:
        return ""
    body = "\n".join(f"    - `` {p} ``" for p in problems)  # a sentence may hold `code`
    return f'\n!!! warning "regen.py --check fails on this page"\n\n{body}\n\n'


# A page's work is kept until a file it read changes (docpipe.inputs): under `mkdocs serve` a
# save re-does the pages that use what was saved, not every page. mkdocs.yml stands for the
# settings read once per process (the repository's address in the notebook buttons).
def _page_key(project: Project, markdown: str, src: str, path: Path) -> tuple:
    return str(project.root), src, str(path), hashlib.sha256(markdown.encode()).hexdigest()


@inputs.memo(key=_page_key, also=lambda project, *_: [project.root / "mkdocs.yml"])
def _worked(project: Project, markdown: str, src: str, path: Path) -> tuple[str, frozenset]:
    """The page's Markdown with values, claim marks, notes, output blocks, the notebook
    buttons and the box, and the snippets it uses."""
    name = project.rel(path)
    read = _pages(project) if project.docs in path.parents else None  # as page_markdown's
    page = pages.as_page(project, path, read) if path.exists() else None
    used = {u.snippet for u in page.uses if u.snippet} if page else set()
    stamp = values.stamp(used) if used else None
    if path.exists():
        markdown = _with_reader_notes(project, markdown, path)
        markdown = with_version_notes(project, markdown, path)
    markdown = markup.protect(markdown)  # what a page shows as an example stays as written
    markdown = values.substitute(project, markdown, name)
    markdown = claims.render(project, markdown, name)
    markdown = markup.restore(markdown)
    markdown = outputs.expand(project, path, markdown, name) if path.exists() else markdown
    markdown = _under_title(markdown, _notebook_links(project, src))
    if stamp:
        markdown += FOOTER.format(stamp=stamp, versions=reproduced_by(project, used))
    return markdown, frozenset(used)


# ---- one build ------------------------------------------------------------------------------


class Build:
    """One build of the site, made once per build: its project, and how it treats a problem
    and the math. The MkDocs hooks make it from each build's config (on_config) and hand it to
    this extension as its setting in the config (`mdx_configs`, through which MkDocs gives every
    extension its settings), where their later events find it too (`of`). A generator without
    the hooks gets the plain build of the project (`plain`): it fails on every problem and
    renders its own math. What outlives a build is kept on inputs, not on it: the site's
    problems per state of the files (site_problems), each page's work (docpipe.inputs), the
    KaTeX renderer's cache (docpipe.pages.katex) and, under `mkdocs serve`, the pages' renders
    (docpipe.live's session)."""

    def __init__(
        self,
        project: Project,
        serving: bool = False,
        math_later: bool = False,
        notice: Callable[[set], str] | None = None,
    ) -> None:
        self.project = project
        self.serving = serving  # `mkdocs serve`: a page shows its problems instead of failing
        self.math_later = math_later  # the hooks render it, after the search plugin's index
        self.notice = notice  # what the live session says of the snippets a page uses
        # The state of the site's files its pages are checked against (inputs_key): taken once
        # by the hooks, after the re-runs; None (a generator without them): at each page.
        self.site_key: str | None = None
        self._saves_at_exit = False  # a plain build has no end but the process's

    @staticmethod
    def of(config) -> Build | None:
        """The build the hooks made for this MkDocs config (on_config), if any."""
        return ((config.get("mdx_configs") or {}).get(EXTENSION) or {}).get("build")

    def hand_to_pages(self, config) -> None:
        """Make this the build every page of `config` is converted in (the hooks' on_config)."""
        config["mdx_configs"] = config.get("mdx_configs") or {}
        config["mdx_configs"][EXTENSION] = {
            **config["mdx_configs"].get(EXTENSION, {}),
            "build": self,
        }

    @property
    def math(self) -> katex.Renderer:
        return katex.renderer(self.project)

    def check_site(self) -> list[Problem]:
        """The site's problems; a build (not `mkdocs serve`) fails on them. A site without
        snippets.toml (a test's tiny site) has none to check."""
        if not self.project.meta.exists():
            return []
        found, _ = site_problems(self.project, self.site_key)
        if found and not self.serving:
            raise PageWorkError("\n".join(map(str, found)))
        return found

    def page_markdown(self, markdown: str, src: str, path: Path) -> str:
        """The page's Markdown with the site's work done: `src` is its path under the docs
        folder, `path` its file. A problem fails the build (PageWorkError); under `mkdocs
        serve` the page shows it instead."""
        project = self.project
        name = project.rel(path)
        on_site = project.docs in path.parents and path.exists()
        site = self.check_site() if on_site else []
        read = _pages(project) if on_site else None  # the pages the site's problems came from
        problems = (
            consistency.include_problems(project, pages.as_page(project, path, read))
            if path.exists()
            else []
        )
        prose = [p for p in site if p.path == name and p.rule]  # only when serving
        problems += [p for p in site if p.path == name and p not in prose and p not in problems]
        if problems:  # pymdownx would raise on these with neither page nor line named
            if self.serving:
                return _problem_page(problems)
            raise PageWorkError("\n".join(map(str, problems)))
        try:
            markdown, used = _worked(project, markdown, src, path)
        except DocpipeError as e:
            if self.serving:
                return _problem_page([e.problem])
            raise PageWorkError(str(e)) from None
        notes = _prose_notice(prose) + (self.notice(set(used)) if self.notice else "")
        return _under_title(markdown, notes) if notes else markdown

    def page_math(self, html: str, path: Path) -> str:
        """The page's HTML with every formula rendered by KaTeX; a formula KaTeX refuses
        fails the build, naming page, line and formula."""
        renderer = self.math
        try:
            found = katex.problems(self.project, html, renderer, path)
        except katex.KatexUnavailable as e:
            raise PageWorkError(str(e)) from None
        if found:
            raise PageWorkError("\n".join(map(str, found)))
        if not self._saves_at_exit:  # the next build reads what this one rendered
            self._saves_at_exit = True
            atexit.register(renderer.save)
        return katex.render(html, renderer)


_PLAIN: dict[Path, Build] = {}  # folder -> the plain build of its project (one per state)


def plain(project: Project) -> Build:
    """The build of a generator without the hooks: one per state of the project's mkdocs.yml
    (project_at), as the hooks make one per config they load."""
    kept = _PLAIN.get(project.root)
    if kept is None or kept.project is not project:
        kept = _PLAIN[project.root] = Build(project)
    return kept


# ---- the page being converted ----------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """What a generator converts: the project, the page's path under the docs folder, its file,
    and whether this generator renders notebooks as pages (mkdocs-jupyter, an MkDocs plugin)."""

    project: Project
    src: str
    path: Path
    renders_notebooks: bool


_PROJECTS: dict[Path, tuple] = {}  # folder -> (state of its mkdocs.yml, its Project)


def project_at(root: Path) -> Project:
    """The project of that folder, one per state of its mkdocs.yml: the settings it reads
    from it (Project.site, MkDocs' config loader) are read once, not once per page."""
    fresh = Project(root)
    now = inputs.state(os.path.abspath(fresh.config_file))
    kept = _PROJECTS.get(root)
    if kept and kept[0] == now and now is not None:
        return kept[1]
    _PROJECTS[root] = (now, fresh)
    return fresh


def current_page(md: Markdown) -> Page:
    """The page `md` converts, from what the generator registered on it."""
    for processor in md.treeprocessors:  # MkDocs, ProperDocs: _RelativePathTreeprocessor
        file, config = getattr(processor, "file", None), getattr(processor, "config", None)
        if getattr(file, "abs_src_path", None) and getattr(config, "config_file_path", None):
            project = project_at(Path(config.config_file_path).parent)
            plugins = config.get("plugins") or {}
            return Page(project, file.src_uri, Path(file.abs_src_path), NOTEBOOKS in plugins)
    for processor in md.preprocessors:  # Zensical: ContextPreprocessor
        page, config = getattr(processor, "page", None), getattr(processor, "config", None)
        if isinstance(config, dict) and "root_dir" in config and getattr(page, "path", None):
            root = Path(config["root_dir"] or ".").resolve()
            docs = root / (config.get("docs_dir") or "docs")
            plugins = config.get("plugins") or {}
            return Page(project_at(root), page.path, docs / page.path, NOTEBOOKS in plugins)
    raise PageWorkError(
        "docpipe.pagework: this generator does not say which page it converts"
        " (neither MkDocs' nor Zensical's page context is on the Markdown instance)"
    )


NOTEBOOKS = "mkdocs-jupyter"  # the plugin that makes docs/notebooks/*.ipynb pages


WITHOUT_NOTEBOOKS = "AUTOGRAD_DOCS_WITHOUT_NOTEBOOKS"  # set to 1: build the rest all the same


def lacks(page: Page) -> str | None:
    """What this generator cannot build of the site, or None: the notebook pages, when it runs
    no notebook plugin (Zensical drops every plugin it does not know, silently). With
    AUTOGRAD_DOCS_WITHOUT_NOTEBOOKS=1 the build goes on (to see the other pages, or measure):
    `regen.py --check-site` still refuses the site, naming each notebook page missing."""
    if page.renders_notebooks or os.environ.get(WITHOUT_NOTEBOOKS) == "1":
        return None
    if not page.project.notebooks.is_dir():
        return None
    found = sorted(page.project.notebooks.glob("*.ipynb"))
    if not found:
        return None
    return (
        f"this generator cannot build the site: it runs no notebook plugin ({NOTEBOOKS}), so the"
        f" {len(found)} notebook pages ({page.project.rel(page.project.notebooks)}/*.ipynb)"
        f" would be missing; build with `mkdocs build --strict` ({WITHOUT_NOTEBOOKS}=1 builds the"
        " rest, which `regen.py --check-site` still refuses)"
    )


EXTENSION = "docpipe.pagework"  # its name in mkdocs.yml, and in MkDocs' mdx_configs


class _Pages(Preprocessor):
    def __init__(self, md: Markdown, ext: PageWork) -> None:
        super().__init__(md)
        self.ext = ext

    def run(self, lines: list[str]) -> list[str]:
        page = current_page(self.md)
        if not page.src.endswith(".md"):
            return lines
        if missing := lacks(page):
            raise PageWorkError(missing)
        build = self.ext.build(page)
        return build.page_markdown("\n".join(lines), page.src, page.path).split("\n")


class _Math(Postprocessor):
    def __init__(self, md: Markdown, ext: PageWork) -> None:
        super().__init__(md)
        self.ext = ext

    def run(self, text: str) -> str:
        page = current_page(self.md)
        build = self.ext.build(page)
        return text if build.math_later else build.page_math(text, page.path)


class PageWork(Extension):
    def __init__(self, **kwargs) -> None:
        # "" and not None: Python-Markdown reads a setting whose default is None as a bool
        self.config = {"build": ["", "the Build this page is part of (the MkDocs hooks')"]}
        super().__init__(**kwargs)

    def build(self, page: Page) -> Build:
        given = self.getConfig("build")
        return given if isinstance(given, Build) else plain(page.project)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        # before every other preprocessor: pymdownx.snippets (32) reads the includes this
        # checks, and Python-Markdown's own start at 30
        md.preprocessors.register(_Pages(md, self), "docpipe-pagework", 200)
        # after every other postprocessor: arithmatex's marks are in their final form
        md.postprocessors.register(_Math(md, self), "docpipe-katex", -100)


def makeExtension(**kwargs) -> PageWork:  # noqa: N802 (Python-Markdown's name)
    return PageWork(**kwargs)

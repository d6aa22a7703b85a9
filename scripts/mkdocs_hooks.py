"""MkDocs hooks: fail the build on every site problem `regen.py --check` reports (the page
rules of docpipe.pages.rules among them), check a page's includes before pymdownx reads them,
insert recorded values and checked-claim markers, say beside an output block where a reader's
own run prints something else (a path), and say what environment recorded the page; render
every formula with KaTeX (docpipe.pages.katex); keep `mkdocs serve` live (docpipe.live re-runs
edited snippets and says on a page what could not be refreshed, and the page shows its own
problems). The project is the folder of the mkdocs.yml being built."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

# MkDocs executes this file again each time a config is loaded (Project.site loads one too):
# put scripts/ on the path once.
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from docpipe import catalog, live, pipeline
from docpipe.pages import claims, consistency, katex, markup, notebooks, outputs, values
from docpipe.pages import reading as pages
from docpipe.pages.reproduced import box as reproduced_by  # noqa: E402
from docpipe.pages.reproduced import with_notes as with_version_notes  # noqa: E402
from docpipe.problems import DocpipeError, Problem  # noqa: E402
from docpipe.project import Project  # noqa: E402
from docpipe.recorded import record as records  # noqa: E402
from docpipe.run.normalise import BY_NAME  # noqa: E402

FOOTER = """

??? info "How this page was made"
    Every output block, figure and quoted number on this page comes from running its snippet
    with {stamp}. `python scripts/regen.py` re-records them; `python scripts/regen.py --check`
    proves they still match. Versions that reproduce it: {versions};
    `python scripts/regen.py --verify` runs it again under each.
"""

SERVING = False  # `mkdocs serve` shows a page's problems on the page instead of failing
CATALOG: catalog.Catalog | None = None  # snippets/snippets.toml, read at the start of each build
PROJECT: Project | None = None  # the folder of the mkdocs.yml being built (on_config)


def on_startup(command, dirty):
    global SERVING
    SERVING = command == "serve"


def on_serve(server, config, builder):
    # Rebuild also when a snippet, its figure code or snippets.toml changes: on_pre_build
    # re-runs what changed first.
    for folder in live.watched(PROJECT):
        if folder.is_dir():
            server.watch(str(folder))
    live.on_finish(lambda: _rebuild(server))
    return server


def _rebuild(server) -> None:
    """Ask `mkdocs serve` for a rebuild, as its own file watcher does (MkDocs 1.6 has no
    public call for it): a background re-run ended, and its page must say how."""
    wanted = getattr(server, "_rebuild_cond", None)
    if wanted is None:
        return
    with wanted:
        server._want_rebuild = True
        wanted.notify_all()


def on_shutdown():
    live.stop()
    katex.close()


SITE_PROBLEMS: list[Problem] = []  # what --check would list first; a build fails on them


def on_pre_build(config):
    """A build fails on every site problem `regen.py --check` reports, by the same code
    (docpipe.pipeline.site_problems), and on broken settings; `mkdocs serve` shows them on
    the pages they name instead, and refreshes what changed."""
    global SITE_PROBLEMS, CATALOG
    if Path(config["docs_dir"]).resolve() != PROJECT.docs.resolve() or not PROJECT.meta.exists():
        return  # no snippets to check (a test's tiny site), or its pages are somewhere else
    try:
        CATALOG = catalog.load(PROJECT)
        SITE_PROBLEMS = pipeline.site_problems(CATALOG)
    except DocpipeError as e:
        CATALOG, SITE_PROBLEMS = None, [e.problem]
    if SITE_PROBLEMS and not SERVING:
        raise PluginError("\n".join(map(str, SITE_PROBLEMS)))
    live.refresh()


def colab_url(site, notebook: str) -> str | None:
    """Colab's address for a notebook of a GitHub repository: a plain link, so the page asks
    nothing of Colab when it loads. The branch is the one edit_uri names ("edit/main/docs/")."""
    repo = re.fullmatch(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?", site.repo_url or "")
    if not repo:
        return None
    return f"https://colab.research.google.com/github/{repo[1]}/blob/{site.branch}/{notebook}"


def _notebook_links(src: str, config) -> str:
    """The companion notebook's buttons (view, download, Colab), or "" if the page has none."""
    notebook = notebooks.notebook_path(PROJECT, PROJECT.docs / src)
    if not notebook.exists():
        return ""
    view = notebook.relative_to(PROJECT.docs).as_posix()
    depth = len(Path(src).with_suffix("").parts)  # the page is served at <src without .md>/
    download = "../" * depth + f"{Path(view).with_suffix('')}/{notebook.name}"
    buttons = [
        f"[Open this page as a notebook]({view}){{ .md-button }}",
        f'<a class="md-button" href="{download}" download>Download the notebook (.ipynb)</a>',
    ]
    colab = colab_url(PROJECT.site, f"docs/{view}")
    if colab:
        buttons.append(f'<a class="md-button" href="{colab}">Open in Colab</a>')
    return '\n<div class="notebook-links" markdown>\n' + "\n".join(buttons) + "\n</div>\n"


def _under_title(markdown: str, block: str) -> str:
    title, newline, rest = markdown.partition("\n")
    return title + newline + block + rest if title.startswith("# ") else block + markdown


def _with_reader_notes(markdown: str, page: Path) -> str:
    """Under each output block that a normaliser changed, what a reader's own run shows."""
    lines = markdown.split("\n")
    for inc, shown in reversed(outputs.output_blocks(PROJECT, page, markdown)):
        use = pages.classify(PROJECT, inc)
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


def _prose_problems(path: Path) -> list[Problem]:
    """Under `mkdocs serve`, what the page rules find in this page's prose: the ones
    on_pre_build found (site_problems ran every page rule), not found again."""
    if not SERVING or CATALOG is None or PROJECT.docs not in path.parents or not path.exists():
        return []
    name = PROJECT.rel(path)
    return [p for p in SITE_PROBLEMS if p.path == name and p.rule]


def _prose_notice(problems: list[Problem]) -> str:
    """The page stays readable: its prose problems go in a box under its title."""
    if not problems:
        return ""
    body = "\n".join(f"    - `` {p} ``" for p in problems)  # a sentence may hold `code`
    return f'\n!!! warning "regen.py --check fails on this page"\n\n{body}\n\n'


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if not src.endswith(".md"):
        return markdown
    path = Path(page.file.abs_src_path)
    problems = consistency.include_problems(PROJECT, path) if path.exists() else []
    prose = _prose_problems(path)
    named = [  # only when serving
        p for p in SITE_PROBLEMS if p.path == PROJECT.rel(path) and p not in prose
    ]
    problems += [p for p in named if p not in problems]
    if problems:  # pymdownx would raise on these with neither page nor line named
        if SERVING:
            return _problem_page(problems)
        raise PluginError("\n".join(map(str, problems)))
    name = PROJECT.rel(path)
    try:
        used = (
            {u.snippet for u in pages.uses(PROJECT, path) if u.snippet} if path.exists() else set()
        )
        stamp = values.stamp(used) if used else None
        markdown = _with_reader_notes(markdown, path) if path.exists() else markdown
        markdown = with_version_notes(PROJECT, markdown, path) if path.exists() else markdown
        markdown = markup.protect(markdown)  # what a page shows as an example stays as written
        markdown = values.substitute(PROJECT, markdown, name)
        markdown = claims.render(PROJECT, markdown, name)
        markdown = markup.restore(markdown)
        markdown = outputs.expand(PROJECT, path, markdown, name) if path.exists() else markdown
    except DocpipeError as e:
        if SERVING:
            return _problem_page([e.problem])
        raise PluginError(str(e)) from None
    notes = _prose_notice(prose) + live.notice(used)
    markdown = _under_title(markdown, notes + _notebook_links(src, config))
    if not stamp:
        return markdown
    return markdown + FOOTER.format(stamp=stamp, versions=reproduced_by(PROJECT, used))


# ---- math (docpipe.pages.katex) ------------------------------------------------------------------
# Rendered in on_post_page, after the search plugin has read each page's content in
# on_page_context: the search index keeps the formulas' LaTeX, not KaTeX's markup.

math_log = logging.getLogger("mkdocs.hooks.katex")


def on_config(config):
    global PROJECT
    PROJECT = Project(Path(config.config_file_path).parent)
    live.start(serving=SERVING, project=PROJECT)
    katex.mark_notebook_math()  # notebooks' math marked as arithmatex marks a page's


def _math(config) -> katex.Renderer:
    return katex.renderer(PROJECT)


def on_page_content(html, page, config, files):
    """A formula KaTeX refuses is an error naming page, line and formula (`--strict` fails
    the build); `mkdocs serve` says so at the top of the page instead. A notebook built from a
    tutorial page repeats that page's text: the search index (read in on_page_context) holds
    it once, as the tutorial page, whose buttons open the notebook."""
    if notebooks.page_of(PROJECT, Path(page.file.abs_src_path)):
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    try:
        found = katex.problems(PROJECT, html, _math(config), Path(page.file.abs_src_path))
    except katex.KatexUnavailable as e:
        raise PluginError(str(e)) from None
    for problem in found:
        (math_log.info if SERVING else math_log.error)(str(problem))
    return katex.notice(found) + html if found and SERVING else html


def on_post_page(output, page, config):
    return katex.render(output, _math(config))


def on_post_build(config):
    renderer = _math(config)
    renderer.save()
    if tally := renderer.tally():
        math_log.info(tally)

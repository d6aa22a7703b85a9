"""MkDocs hooks: what only MkDocs (and ProperDocs, its fork) can do. The page work every
generator runs is a Markdown extension, docpipe.pagework (values, claim marks, the page rules,
the box, the math of Markdown pages); these hooks make `mkdocs serve` show a page's problems on
the page instead of failing and keep it live (docpipe.live re-runs edited snippets and says on a
page what could not be refreshed) and keep each page's render until a file it read changes
(docpipe.preview), fail a build on the site's problems before any page is read,
render the notebook pages' math (mkdocs-jupyter renders notebooks without Python-Markdown), and
render every formula after the search plugin has indexed the page, so that the index keeps the
formulas' LaTeX. A build without them (Zensical runs no hook) still gets every Markdown page
right; `regen.py --check-site` names what it lacks. The project is the folder of the mkdocs.yml
being built."""

from __future__ import annotations

import copy
import json
import logging
import os
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

# MkDocs executes this file again each time a config is loaded (Project.site loads one too):
# put scripts/ on the path once.
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from docpipe import inputs, live, pagework

# Each build's state is its pagework.Build, which on_config makes and hands to the pages in
# the config, where every later event finds it (`_build`): this file keeps none (MkDocs
# executes it anew with each rebuild's config). The `mkdocs serve` session, which outlives
# the builds, is docpipe.live's.
from docpipe.pages import katex, notebooks


def on_startup(command, dirty):
    live.begin(serving=command == "serve")  # MkDocs calls it on the first config's hooks only


def _build(config) -> pagework.Build:
    return pagework.Build.of(config)


def on_serve(server, config, builder):
    # Rebuild also when a snippet, its figure code or snippets.toml changes: on_pre_build
    # re-runs what changed first. Seen as saved (inotify) where it can be, else by MkDocs' poll.
    folders = [f for f in live.watched(_build(config).project) if f.is_dir()]
    if not live.watch(folders, lambda: _rebuild(server)):
        for folder in folders:
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


def on_pre_build(config):
    """A build fails on every site problem `regen.py --check` reports before any page is read
    (docpipe.pagework, which each page asks again, answered from its cache); `mkdocs serve`
    shows them on the pages they name instead, and refreshes what changed."""
    build = _build(config)
    project = build.project
    if Path(config["docs_dir"]).resolve() != project.docs.resolve() or not project.meta.exists():
        return  # no snippets to check (a test's tiny site), or its pages are somewhere else
    live.refresh()  # first: what a quick re-run writes is checked and shown by this build
    inputs.start_snapshot()  # then whether a kept result's files changed is looked up once
    build.site_key = pagework.inputs_key(project)  # and every page is checked against one state
    found = build.check_site()
    if kept := live.rendered():
        kept.site = tuple(map(str, found))  # what every page may show: part of each page's key


def on_pre_page(page, config, files):
    """Under `mkdocs serve`, a page's render is kept until something it was made from changes
    (docpipe.preview): a save re-renders the pages it touches, not the site."""
    kept = live.rendered()
    if kept is None:
        return page
    render = page.render  # MkDocs' own, or mkdocs-jupyter's for a notebook page
    notebook = page.file.src_uri.endswith(".ipynb")

    def kept_render(config, files):
        shows = (kept.site, live.state())
        kept.render(page, config, files, render, shows=shows, notebook=notebook)

    page.render = kept_render
    return page


def on_env(env, config, files):
    """`mkdocs serve` loads the theme anew for each rebuild: its templates are compiled once
    per session (jinja2 keys each on its source), not once per save; and the search plugin's
    entries of a page are kept while all it reads of the page is the same."""
    if _build(config).serving:
        env.bytecode_cache = live.TEMPLATES
        _keep_search_entries()
        _keep_theme_files()
    return env


def _keep_theme_files() -> None:
    """MkDocs finds the theme's static files in every build by listing each file of the theme's
    folders (14,000 with Material's icons, 50 ms a build here). Under `mkdocs serve` the list is
    kept while no folder of the theme changed: a file added, removed or renamed changes its
    folder's modification time, and each folder's is compared (its folders are taken before
    the listing, so a change during one is seen by the next build). Files are made anew for
    each build from the kept list, as MkDocs makes them. Installed once per process."""
    from mkdocs.structure.files import File, Files

    made = Files.add_files_from_theme
    if getattr(made, "docpipe_kept", False):
        return
    kept: dict = {}  # (theme folders, static templates, site folder, URLs) -> (folders, files)

    def add_files_from_theme(self, env, config):
        theme = config.theme
        key = (tuple(theme.dirs), tuple(theme.static_templates), config.site_dir)
        key += (config.use_directory_urls,)
        found = kept.get(key)
        if found is None or _modified(found[0]) != found[0]:
            folders = _modified(_folders(theme.dirs))
            listed = Files([])
            made(listed, env, config)
            found = kept[key] = (folders, [(f.src_uri, f.src_dir) for f in listed])
        for path, folder in found[1]:
            if self.get_file_from_path(path) is None:  # a docs file overrides the theme's
                self.append(File(path, folder, config.site_dir, config.use_directory_urls))

    add_files_from_theme.docpipe_kept = True
    add_files_from_theme.docpipe_made = made  # MkDocs' own (the tests compare the two)
    Files.add_files_from_theme = add_files_from_theme


def _folders(roots) -> list[str]:
    """Each folder under the roots, as jinja2's FileSystemLoader walks them (no symbolic link
    to a folder followed)."""
    return [folder for root in roots for folder, _, _ in os.walk(root)]


def _modified(folders) -> dict[str, int | None]:
    """Each folder's modification time (None: gone)."""
    times = {}
    for folder in folders:
        try:
            times[folder] = os.stat(folder).st_mtime_ns
        except OSError:
            times[folder] = None
    return times


SEARCH_KEPT = 64  # pages' entries kept (a page's HTML each): the newest


def _keep_search_entries() -> None:
    """Material's search index parses each page's HTML in every build (pure Python, half a
    second a build here). Under `mkdocs serve` the entries it made of a page are kept, keyed on
    everything add_entry_from_context reads: the page's address, HTML, table of contents, title
    and front matter. Installed once per process (the class outlives the rebuilds' plugins)."""
    try:
        from material.plugins.search.plugin import SearchIndex
    except ImportError:
        return
    if getattr(SearchIndex, "docpipe_kept", None) is not None:
        return
    made = SearchIndex.add_entry_from_context
    kept: dict = {}

    def toc(items) -> tuple:
        return tuple(
            (i.id, i.url, i.title, getattr(i, "level", None), toc(i.children)) for i in items
        )

    def add_entry_from_context(self, page):
        try:
            meta = json.dumps(page.meta, sort_keys=True, default=repr)
            key = (page.url, page.content, toc(page.toc or ()), page.title, meta)
        except (TypeError, ValueError, AttributeError):
            return made(self, page)  # what cannot be keyed is indexed as always
        if key not in kept:
            start = len(self.entries)
            made(self, page)
            kept[key] = copy.deepcopy(self.entries[start:])
            while len(kept) > SEARCH_KEPT:
                kept.pop(next(iter(kept)))
        else:
            self.entries.extend(copy.deepcopy(kept[key]))

    SearchIndex.add_entry_from_context = add_entry_from_context
    SearchIndex.docpipe_kept = kept
    _strip_search_marks_only_where_there_are_some()


def _strip_search_marks_only_where_there_are_some() -> None:
    """Material's search plugin, after indexing a page, removes its `data-search-*` attributes
    with a regular expression tried at every position of the page's HTML (a tenth of a second
    a build here, for attributes no page of this site has). Under `mkdocs serve` a page without
    the text `data-search-` skips that pass: re.sub would have returned it unchanged."""
    from material.plugins.search.plugin import SearchPlugin

    made = SearchPlugin.on_page_context
    if getattr(made, "docpipe_kept", False):
        return

    def on_page_context(self, context, *, page, config, nav):
        if "data-search-" in (page.content or ""):
            return made(self, context, page=page, config=config, nav=nav)
        if self.config.enabled:
            self.search_index.add_entry_from_context(page)

    on_page_context.docpipe_kept = True
    on_page_context.docpipe_made = made  # Material's own (the tests compare the two)
    SearchPlugin.on_page_context = on_page_context


# ---- math (docpipe.pages.katex) ------------------------------------------------------------------
# Rendered in on_post_page, after the search plugin has read each page's content in
# on_page_context: the search index keeps the formulas' LaTeX, not KaTeX's markup.

math_log = logging.getLogger("mkdocs.hooks.katex")


def on_config(config):
    """This build's pagework.Build: the project of this mkdocs.yml (one per state of it),
    whether it serves, the math rendered here after the search plugin indexed a page."""
    project = pagework.project_at(Path(config.config_file_path).parent)
    live.start(project)
    build = pagework.Build(project, live.serving(), math_later=True, notice=live.notice)
    build.hand_to_pages(config)
    katex.mark_notebook_math()  # notebooks' math marked as arithmatex marks a page's


def on_page_content(html, page, config, files):
    """A formula KaTeX refuses is an error naming page, line and formula (`--strict` fails
    the build); `mkdocs serve` says so at the top of the page instead. A notebook built from a
    tutorial page repeats that page's text: the search index (read in on_page_context) holds
    it once, as the tutorial page, whose buttons open the notebook."""
    build = _build(config)
    if notebooks.page_of(build.project, Path(page.file.abs_src_path)):
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    try:
        found = katex.problems(build.project, html, build.math, Path(page.file.abs_src_path))
    except katex.KatexUnavailable as e:
        raise PluginError(str(e)) from None
    for problem in found:
        (math_log.info if build.serving else math_log.error)(str(problem))
    return katex.notice(found) + html if found and build.serving else html


def on_post_page(output, page, config):
    return katex.render(output, _build(config).math)


def on_build_error(error):
    inputs.end_snapshot()


def on_post_build(config):
    inputs.end_snapshot()
    renderer = _build(config).math
    renderer.save()
    if tally := renderer.tally():
        math_log.info(tally)
    if (kept := live.rendered()) and kept.take_later():
        live.rebuild()  # a notebook page put off its conversion: the next build makes it

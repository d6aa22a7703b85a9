"""What `mkdocs serve` keeps between builds, so that a save is on its page within a moment: each
page's rendered HTML, kept until something it was made from changes.

MkDocs renders every page in every build (Markdown, highlighting, the page work; a notebook
page is converted by mkdocs-jupyter). Under `mkdocs serve` the hooks hand each page's render to
`Rendered.render`, which runs it while recording every file it reads (docpipe.inputs: the page,
its includes, the records, the snippets; a notebook) and keeps what it made:

- the HTML, the table of contents, the title and the anchors it found;
- its links to other pages' anchors, by the linked page's path, given back as this build's
  files;
- what it logged (a broken link's warning), said again each time the HTML is reused, so a
  kept page warns as a rendered one does.

It is reused while every file it read is as it was, and the key is the same: the page's source,
the site's files (a link resolves against them), mkdocs.yml's state, and what the page shows
that no file holds (the site's problems, what the live re-runs are doing: `state`). A kept page
is the page a render would make (tests/test_kept_render.py compares them, whatever changed).

A notebook page whose notebook changed is converted one build later: this build shows its
previous conversion under a notice saying so, and asks for the next build when it ends
(`later`), which converts it. A tutorial page's new output is then on its page one conversion
(about half a second here) sooner. MkDocs' `--dirty` does not serve here: it warns in every
build (fatal under `--strict`) and drops unchanged pages from the search index.
"""

from __future__ import annotations

import hashlib
import html
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from docpipe import inputs


@dataclass
class Made:
    """One render of a page: what MkDocs' Page.render sets, and what it read and logged."""

    key: tuple
    files: dict  # path -> state when read (docpipe.inputs)
    content: str
    toc: object
    title_from_render: str | None
    title: str | None  # set by a render that names the title (mkdocs-jupyter)
    anchors: set | None  # present_anchor_ids
    links: dict[str, dict] | None  # linked page's src_uri -> {anchor: original link}
    logged: list[logging.LogRecord] = field(default_factory=list)


NOTEBOOK_NOTICE = (
    '<div class="admonition info live-notice">\n<p class="admonition-title">{title}</p>\n'
    "<p>This notebook changed with your last save: it shows its previous version, and reloads "
    "by itself once converted.</p>\n</div>\n"
)


class _Logged(logging.Handler):
    """What one thread logs under MkDocs' logger while a page renders."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.thread = threading.get_ident()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.records.append(record)


class Rendered:
    """The pages' renders kept in one `mkdocs serve` session: the newest of each page."""

    def __init__(self) -> None:
        self.kept: dict[str, Made] = {}  # page's src_uri -> its newest render
        self.deferred: set[tuple] = set()  # notebook renders put off once: the next build does them
        self.later = False  # this build put a render off: ask for another when it ends
        self.renders = 0  # renders run (not reused): for the tests and the benchmark
        self.site = ()  # the site's problems this build (every page may show its own)
        self.lock = threading.Lock()

    def render(
        self,
        page,
        config,
        files,
        render: Callable[[object, object], None],
        shows: tuple,
        notebook: bool,
    ) -> None:
        """Render `page` as `render(config, files)` would, or set what a kept render made.
        `shows`: what the page shows that no file holds; `notebook`: a page whose render may
        be put off one build when its source changed."""
        key = _key(page, config, files, shows)
        src = page.file.src_uri
        with self.lock:
            made = self.kept.get(src)
        if made is not None and made.key == key and inputs.unchanged(made.files):
            _apply(page, made, files)
            return
        if notebook and made is not None and made.key[1] != key[1] and key not in self.deferred:
            # the notebook itself changed (not the site around it): its old conversion, once
            with self.lock:
                self.deferred.add(key)
                self.later = True
            _apply(page, made, files)
            title = html.escape(f"{page.file.src_uri} is being converted\u2026")
            page.content = NOTEBOOK_NOTICE.format(title=title) + page.content
            return
        self.deferred.discard(key)
        handler = _Logged()
        logger = logging.getLogger("mkdocs")
        logger.addHandler(handler)
        title_before = page.__dict__.get("title")
        try:
            with inputs.recording() as read:
                render(config, files)
        finally:
            logger.removeHandler(handler)
        self.renders += 1
        title = page.__dict__.get("title")
        links = getattr(page, "links_to_anchors", None)
        made = Made(
            key=key,
            files=dict(read),
            content=page.content,
            toc=page.toc,
            title_from_render=getattr(page, "_title_from_render", None),
            title=title if title != title_before else None,
            anchors=getattr(page, "present_anchor_ids", None),
            links=None if links is None else {f.src_uri: dict(a) for f, a in links.items()},
            logged=handler.records,
        )
        with self.lock:
            self.kept[src] = made

    def take_later(self) -> bool:
        """Whether a render was put off in this build (and forget it: asked once)."""
        with self.lock:
            later, self.later = self.later, False
        return later


def _key(page, config, files, shows: tuple) -> tuple:
    source = page.markdown if isinstance(page.markdown, str) else ""
    return (
        page.file.src_uri,
        hashlib.sha256(source.encode()).hexdigest(),
        _linkable(files),
        inputs.state(config.config_file_path) if config.config_file_path else None,
        shows,
    )


def _linkable(files) -> tuple[str, ...]:
    """The site's files a link may resolve to: all but hidden ones (MkDocs leaves those out of
    a site; a regen writes each record beside its old one as a hidden file, then renames)."""
    return tuple(
        sorted(f.src_uri for f in files if not any(p.startswith(".") for p in f.src_uri.split("/")))
    )


def _apply(page, made: Made, files) -> None:
    """Set on the page what the kept render made, and say again what it logged."""
    for record in made.logged:
        logging.getLogger(record.name).handle(record)
    page.content = made.content
    page.toc = made.toc
    page._title_from_render = made.title_from_render
    if made.title is not None:
        page.title = made.title
    page.present_anchor_ids = None if made.anchors is None else set(made.anchors)
    if made.links is not None:
        by_src = {f.src_uri: f for f in files}
        page.links_to_anchors = {
            by_src[src]: dict(anchors) for src, anchors in made.links.items() if src in by_src
        }

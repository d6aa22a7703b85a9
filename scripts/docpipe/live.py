"""Live outputs in `mkdocs serve`, and pages that say so when their outputs are out of date.

While `mkdocs serve` runs (the hooks make it watch snippets/ and scripts/figures/ too),
every build starts re-running each snippet whose sources changed since its recording
(docpipe.recorded.fingerprints.since_recorded), through docpipe.pipeline.regen and its cache, in
a background thread (a save the watch sees starts it before its build: Session.saved), and
waits a moment for it (WAIT); a longer one goes on while the build does, its pages say which
of their snippets are running, and the end of the re-run asks for another build, which shows
the new outputs or the failure. The MkDocs process itself never imports torch: the runner's
zygote (docpipe.run.zygote), started once per serve session with the run environment
(PYTHONHASHSEED=0 among it), imports torch, numpy and matplotlib once, and each run is a fork
of it.

What could not be refreshed is said under the page title: a snippet whose run failed (with its
error; the page keeps the last recorded run) and, where the run dependencies are missing or in
a plain `mkdocs build`, a snippet that changed since its recording, with the command that
refreshes it. The preview is never silently stale.
"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import jinja2
import jinja2.bccache

from docpipe import catalog, inputs, preview
from docpipe.catalog import Catalog
from docpipe.environment import VERSIONED
from docpipe.project import Project, Snippet
from docpipe.recorded import fingerprints

WAIT = 2.0  # seconds a build waits for the re-run it started, before showing it as running
SERVE_LOCK_WAIT = 5.0  # seconds a refresh waits for a regen started by hand, then says so
RACE_RETRIES = 3  # runs of a snippet saved again while it ran

log = logging.getLogger("mkdocs.hooks.live")


def runnable() -> bool:
    """True when torch, numpy and matplotlib can be imported (checked without importing them)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in VERSIONED)
    except (ImportError, ValueError):
        return False


class Session:
    """One `mkdocs serve`: its background re-runs, and what they could not do, for the pages
    to say. A build never waits for a snippet: refresh() starts the re-runs in a thread and
    returns, the pages show them as running, and the thread asks for a rebuild when it ends
    (`on_finish`, set by the hooks from MkDocs' server), so every request is answered within
    a build's time, whatever a snippet does (hangs until its timeout, crashes, corrupts)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.runs = runnable()
        self.failed: dict[Snippet, tuple[dict, str]] = {}  # snippet -> (its inputs, its error)
        self.problem = ""  # why nothing could be refreshed; shown on every page with snippets
        self.settings = ""  # snippets.toml cannot be read: nothing can be re-run
        self.running: set[Snippet] = set()  # being re-run now, in the background
        self.lock = threading.Lock()  # guards the state above: a build reads it meanwhile
        self.worker: threading.Thread | None = None
        self.on_finish: Callable[[], None] | None = None  # asks MkDocs for a rebuild
        self.unseen = False  # a re-run ended after the last build started
        self.waiting = False  # a build waits for the re-run it started (refresh)
        self.early = False  # the re-run going on was started by a save, before its build
        self.rendered = preview.Rendered()  # the pages' HTML, kept between builds
        self.observer = None  # watches the snippets (watch)
        if self.runs:  # the zygote imports what the snippets import while the first build goes on
            self._start_zygote()

    def _start_zygote(self) -> None:
        """The zygote's preloads as a regen of every snippet starts them (pipeline.preloads):
        torch and the rest only when a snippet imports them."""
        from docpipe import pipeline
        from docpipe.run.machine import fork_available

        try:
            snippets = catalog.load(self.project).snippets
        except catalog.CatalogError:
            return  # refresh() says why on every page; the first re-run starts the zygote
        pipeline.start_zygote(snippets, pipeline.Options(fork=fork_available()))

    def refresh(self) -> None:
        """At the start of a build: start re-running what changed, unless a re-run is going
        on (its end asks for another build, whose refresh sees what changed meanwhile). A
        re-run this build started, or the save that asked for this build (saved), is waited
        for up to WAIT seconds: a quick one (a saved snippet, as an author previews it) is on
        the pages of this very build, and asks for no other; a longer one goes on in the
        background, the pages say so, and its end asks for the build that shows it."""

        try:
            cat = catalog.load(self.project)
        except catalog.CatalogError as e:
            self.settings = f"{e}\nNo snippet can be re-run until this is fixed."
            return
        self.settings = ""
        with self.lock:
            self.unseen = False
            worker = self.worker if self.early else None  # the save's: this build's own
            self.early = False
        worker = worker or self._start(cat, early=False)
        if worker is None:
            return
        worker.join(WAIT)
        with self.lock:
            self.waiting = False  # from now on its end asks for a build (it has not ended)

    def saved(self) -> None:
        """A file of the snippets was saved (written and closed, or renamed into place): start
        re-running what changed now, not when the build this save asks for starts (MkDocs
        waits a tenth of a second for more changes first). That build waits for it as for a
        re-run of its own."""
        try:
            cat = catalog.load(self.project)
        except catalog.CatalogError:
            return  # the build's refresh says why
        self._start(cat, early=True)

    def _start(self, cat: Catalog, early: bool) -> threading.Thread | None:
        """Start re-running what changed since its recording (and did not fail as it is now),
        in the background; None when nothing did, or a re-run is going on."""
        with self.lock:
            if self.worker and self.worker.is_alive():
                return None
            failed = dict(self.failed)
        todo = {
            s: since.now
            for s, since in outdated(cat).items()
            if failed.get(s, (None,))[0] != since.now
        }
        if not todo or not self.runs:
            return None
        with self.lock:
            if self.worker and self.worker.is_alive():
                return None  # a save and a build both started one: the first goes on
            self.running = set(todo)
            self.waiting = True  # its end asks for no build while one waits for it
            self.early = early
            self.worker = threading.Thread(
                target=self._rerun, args=(cat, todo), name="docpipe-live", daemon=True
            )
            self.worker.start()
            return self.worker

    def _rerun(self, cat: Catalog, todo: dict[Snippet, dict]) -> None:
        try:
            for attempt in range(RACE_RETRIES):
                started = time.monotonic()
                # The cache cannot tell a snippet saved again while it ran: the retry passes it.
                failed, problem = _regen(sorted(todo), cat, force=attempt > 0)
                with self.lock:
                    self.problem = problem
                    for snippet, now in todo.items():
                        if snippet in failed:
                            self.failed[snippet] = (now, failed[snippet])
                        else:
                            self.failed.pop(snippet, None)
                took = time.monotonic() - started
                log.info(f"live: re-ran {len(todo)} snippet(s) in {took:.2f} s")
                if problem:
                    return
                todo = {s: since.now for s, since in outdated(cat, set(todo) - set(failed)).items()}
                if not todo:
                    return
                with self.lock:
                    self.running = set(todo)
        except Exception as e:  # a fault of the runner: said on the page, serving goes on
            log.exception("live: refresh failed")
            with self.lock:
                self.problem = f"refreshing the snippets failed: {type(e).__name__}: {e}"
        finally:
            with self.lock:
                self.running = set()
                # a build waiting for this re-run shows it: no other needed
                self.unseen = not self.waiting
                finish = None if self.waiting else self.on_finish
            if finish:
                finish()

    def state(self) -> tuple:
        """What the pages' notices show of this session, as a key (docpipe.preview)."""
        with self.lock:
            failed = sorted((s.name, repr(now), why) for s, (now, why) in self.failed.items())
            running = tuple(sorted(s.name for s in self.running))
            return self.problem, self.settings, running, tuple(failed)

    def notify(self, on_finish: Callable[[], None]) -> None:
        """Call on_finish whenever a re-run ends (now, if one ended before there was a server)."""
        with self.lock:
            self.on_finish = on_finish
            missed = self.unseen
        if missed:
            on_finish()


def _regen(snippets: list[Snippet], cat: Catalog, force: bool) -> tuple[dict, str]:
    """The one call into the runner: regen these snippets as `regen.py` does, and print its
    report to the terminal. Returns {snippet: the failure's report} and a problem for every
    page."""
    from docpipe import cli, pipeline
    from docpipe.formats import terminal
    from docpipe.recorded import writing
    from docpipe.run.machine import fork_available

    try:
        with writing.exclusive(cat.project, SERVE_LOCK_WAIT):
            result = pipeline.regen(snippets, cat, pipeline.Options(fork=fork_available()), force)
    except writing.LockError as e:
        return {}, str(e)
    except Exception as e:  # a fault of the runner: say it on the page and keep serving
        log.exception("live: the runner failed")
        return {}, f"the runner failed: {type(e).__name__}: {e}"
    with contextlib.redirect_stdout(sys.stderr):
        cli.regen(result)
    failed = {s: terminal.failure(f) for s, f in result.failed.items()}
    return failed, "\n".join(str(p) for p in result.problems)


def outdated(cat: Catalog, among: set[Snippet] | None = None) -> dict[Snippet, fingerprints.Since]:
    """Snippet -> what changed since its recording, for each whose recording is not of its
    code (or that has none)."""
    found = {}
    for snippet in sorted(among if among is not None else cat.settings):
        if snippet not in cat.settings:
            continue
        since = _since_recorded(snippet, cat.settings[snippet])
        if since.changed != []:
            found[snippet] = since
    return found


# Asked for each page of each build: kept until a file it read changes (its record, its inputs,
# the listing of the data folders), or its settings.
@inputs.memo(key=lambda s, settings: (str(s.source), fingerprints.settings_digest(settings)))
def _since_recorded(snippet: Snippet, settings) -> fingerprints.Since:
    return fingerprints.since_recorded(snippet, settings)


_session: Session | None = None


def watched(project: Project) -> list[Path]:
    """What `mkdocs serve` watches besides docs/ and mkdocs.yml (which MkDocs watches itself):
    the snippets and their figure code."""
    return [project.snippets, project.figure_code]


_serving = False  # this process runs `mkdocs serve` (begin): its builds get a session


def begin(serving: bool) -> None:
    """Say whether this process serves (the hooks' on_startup, once per `mkdocs serve` or
    `mkdocs build`, before any config's project is known)."""
    global _serving
    _serving = serving


def serving() -> bool:
    return _serving


def start(project: Project) -> None:
    """Begin a serve session (the hooks' on_config, once per serve); a plain build has none."""
    global _session
    if _serving and _session is None:
        _session = Session(project)
        if not _session.runs:
            log.info(
                "live: torch, numpy or matplotlib is not installed, so edited snippets are not "
                "re-run; their pages say so (install the run dependencies for live outputs)"
            )


class _Templates(jinja2.BytecodeCache):
    """The theme's compiled templates, kept in memory for the serve session (jinja2 checks
    each against its template's source)."""

    def __init__(self) -> None:
        self.kept: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if code := self.kept.get(bucket.key):
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.kept[bucket.key] = bucket.bytecode_to_string()


TEMPLATES = _Templates()


def stop() -> None:
    global _session, _serving
    _serving = False
    if _session and _session.observer:
        _session.observer.stop()
    _session = None


SAVES = frozenset({"created", "modified", "deleted", "moved", "closed"})  # not opened, read
COMPLETE = frozenset({"closed", "moved"})  # a save ended: written and closed, or renamed in


def watch(folders: list[Path], changed: Callable[[], None]) -> bool:
    """Call `changed` at each save under the folders, seen by the kernel as it happens (inotify,
    through watchdog's native observer): MkDocs' own watcher polls every half second. A file
    only opened or read (a run reads its snippet) is no save, nor is a compiled module written
    in __pycache__. A save that has ended (a file written and closed, or renamed into place)
    starts its re-run at once (Session.saved), before `changed` asks MkDocs for the build
    that shows it. False when the folders cannot be watched so (no session, no inotify, its
    limits reached): MkDocs' watcher is then asked instead."""
    if _session is None:
        return False
    session = _session
    from watchdog import events
    from watchdog.observers import Observer

    # Asked of the kernel: without a filter it reports each file opened and closed unwritten
    # too (a build reads every snippet: a thousand events a build, each parsed in Python, in
    # this process, while the build waits for the interpreter lock).
    saves = [
        events.FileCreatedEvent,
        events.FileModifiedEvent,
        events.FileDeletedEvent,
        events.FileMovedEvent,
        events.FileClosedEvent,
        events.DirCreatedEvent,
        events.DirDeletedEvent,
        events.DirMovedEvent,
    ]

    class Saved(events.FileSystemEventHandler):
        def on_any_event(self, event) -> None:
            if event.event_type not in SAVES or (
                event.is_directory and event.event_type == "modified"
            ):
                return  # a folder "modified" is a file in it saved (its own event) or touched
            if any("__pycache__" in Path(os.fsdecode(p)).parts for p in _paths(event)):
                return
            if event.event_type in COMPLETE and not event.is_directory:
                session.saved()  # its re-run starts now; the build it asks for waits for it
            changed()

    observer = Observer()
    try:
        for folder in folders:
            observer.schedule(Saved(), str(folder), recursive=True, event_filter=saves)
        observer.start()
    except OSError as e:
        log.info(f"live: watching with MkDocs' polling instead ({e})")
        return False
    _session.observer = observer
    return True


def _paths(event) -> list:
    return [p for p in (event.src_path, getattr(event, "dest_path", "")) if p]


def refresh() -> None:
    """Before each build of a serve session: start re-running what changed, in the
    background. Never fails the build, never waits for a run."""
    if _session:
        try:
            _session.refresh()
        except Exception as e:
            log.exception("live: refresh failed")
            _session.problem = f"refreshing the snippets failed: {type(e).__name__}: {e}"


def state() -> tuple:
    """What the live notices of this serve session depend on (() outside one)."""
    return _session.state() if _session else ()


def rendered() -> preview.Rendered | None:
    """The pages' renders kept by this serve session (None outside one)."""
    return _session.rendered if _session else None


def rebuild() -> None:
    """Ask `mkdocs serve` for another build (once it has a server)."""
    finish = _session.on_finish if _session else None
    if finish:
        finish()


def on_finish(rebuild: Callable[[], None]) -> None:
    """Ask for a rebuild (MkDocs' server) whenever a background re-run ends."""
    if _session:
        _session.notify(rebuild)


def notice(used: set[Snippet]) -> str:
    """HTML admonitions for the top of a page showing these snippets ("" when all is well)."""
    if not used:
        return ""
    blocks = []
    with _session.lock if _session else contextlib.nullcontext():
        problem = (_session.settings or _session.problem) if _session else ""
        running = set(_session.running) if _session else set()
        failed = dict(_session.failed) if _session else {}
    if problem:
        title = "The outputs on this page were not refreshed"
        blocks.append(_admonition("failure", title, _pre(problem)))

    project = _session.project if _session else min(used).project
    try:
        cat = catalog.load(project)
    except catalog.CatalogError as e:
        return "".join(blocks) + _admonition("failure", "Snippet settings are broken", _pre(str(e)))
    for snippet in sorted(used & running):
        title = f"{snippet.name} is running\u2026"
        body = (
            "<p>This page shows its last recorded run and reloads by itself when the new one"
            " ends.</p>"
        )
        blocks.append(_admonition("info", title, body))
    for snippet, since in outdated(cat, used - running).items():
        failure = failed.get(snippet)
        if failure and failure[0] == since.now:
            title = f"{snippet.name} failed: this page shows its last recorded run"
            blocks.append(_admonition("failure", title, _pre(failure[1])))
        else:
            blocks.append(_stale_warning(snippet, since.changed))
    return "".join(blocks)


def _stale_warning(snippet: Snippet, changed: list[str] | None) -> str:
    command = f"<code>{html.escape(f'python scripts/regen.py {snippet.name}')}</code>"
    if changed is None:
        return _admonition(
            "warning", f"{snippet.name} has no recorded run", f"<p>Record it with {command}.</p>"
        )
    names = ", ".join(
        "its settings in snippets/snippets.toml"
        if c == fingerprints.SETTINGS
        else f"<code>{c}</code>"
        for c in changed
    )
    after = "." if runnable() else ", after installing the run dependencies (see the README)."
    body = (
        "<p>The code shown is current, but the output, figures and numbers from this snippet "
        f"come from a run made before these changed: {names}. Refresh them with {command}{after}"
        "</p>"
    )
    title = f"Out of date: {snippet.name} changed since its output was recorded"
    return _admonition("warning", title, body)


def _pre(text: str) -> str:
    return f"<pre><code>{html.escape(text, quote=False)}</code></pre>"


def _admonition(kind: str, title: str, body: str) -> str:
    # Raw HTML, so nothing inside (an error that prints Markdown or an include line) is parsed.
    return (
        f'\n<div class="admonition {kind} live-notice">\n'
        f'<p class="admonition-title">{html.escape(title)}</p>\n{body}\n</div>\n'
    )

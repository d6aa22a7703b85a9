"""Live outputs in `mkdocs serve`, and pages that say so when their outputs are out of date.

While `mkdocs serve` runs (the hooks make it watch snippets/ and scripts/figures/ too),
every build first re-runs each snippet whose sources changed since its recording
(docpipe.sources), through docpipe.pipeline.regen and its cache. The MkDocs process itself never
imports torch: the runner's zygote (docpipe.zygote), started once per serve session with the
run environment (PYTHONHASHSEED=0 among it), imports torch, numpy and matplotlib once, and each
run is a fork of it.

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
import sys
import time

from . import catalog, sources
from . import record as records
from .catalog import Catalog
from .environment import VERSIONED
from .paths import FIGURE_CODE, SNIPPETS, Snippet

LOCK_WAIT = 5.0  # seconds a refresh waits for a regen started by hand, then says so
RACE_RETRIES = 3  # runs of a snippet saved again while it ran
WATCHED = (SNIPPETS, FIGURE_CODE)  # besides docs/ and mkdocs.yml, which MkDocs watches itself

log = logging.getLogger("mkdocs.hooks.live")


def runnable() -> bool:
    """True when torch, numpy and matplotlib can be imported (checked without importing them)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in VERSIONED)
    except (ImportError, ValueError):
        return False


class Session:
    """One `mkdocs serve`: what its refreshes could not do, for the pages to say."""

    def __init__(self) -> None:
        self.runs = runnable()
        self.failed: dict[Snippet, tuple[dict, str]] = {}  # snippet -> (its inputs, its error)
        self.problem = ""  # why nothing could be refreshed; shown on every page with snippets
        if self.runs:  # the zygote imports torch & co. while the first build goes on
            from . import pool, zygote

            zygote.shared(pool.HEAVY)

    def refresh(self) -> None:
        try:
            cat = catalog.load()
        except catalog.CatalogError as e:
            self.problem = f"{e}\nNo snippet can be re-run until this is fixed."
            return
        self.problem = ""
        todo = {s: now for s, now in stale(cat).items() if self.failed.get(s, (None,))[0] != now}
        for attempt in range(RACE_RETRIES):
            if not todo or not self.runs:
                return
            started = time.monotonic()
            # The cache cannot tell a snippet saved again while it ran: the retry passes it.
            failed, self.problem = _regen(sorted(todo), cat, force=attempt > 0)
            for snippet, now in todo.items():
                if snippet in failed:
                    self.failed[snippet] = (now, failed[snippet])
                else:
                    self.failed.pop(snippet, None)
            log.info(f"live: re-ran {len(todo)} snippet(s) in {time.monotonic() - started:.2f} s")
            if self.problem:
                return
            todo = {s: now for s, now in stale(cat).items() if s in todo and s not in failed}


def _regen(snippets: list[Snippet], cat: Catalog, force: bool) -> tuple[dict, str]:
    """The one call into the runner: regen these snippets as `regen.py` does, and print its
    report to the terminal. Returns {snippet: why it failed} and a problem for every page."""
    from . import cli, pipeline, writing
    from .machine import fork_available

    try:
        with writing.exclusive(LOCK_WAIT):
            result = pipeline.regen(snippets, cat, pipeline.Options(fork=fork_available()), force)
    except writing.LockError as e:
        return {}, str(e)
    except Exception as e:  # a fault of the runner: say it on the page and keep serving
        log.exception("live: the runner failed")
        return {}, f"the runner failed: {type(e).__name__}: {e}"
    with contextlib.redirect_stdout(sys.stderr):
        cli.regen(result)
    return result.failed, "\n".join(result.problems)


def recorded_inputs(snippet: Snippet) -> dict | None:
    """The inputs its record names; {} for a record older than them, None if unrecorded."""
    try:
        return records.load(snippet).inputs
    except records.RecordError:
        return None


def stale(cat: Catalog, among: set[Snippet] | None = None) -> dict[Snippet, dict]:
    """Snippet -> its current input digests, for each whose recording is not of its code."""
    found = {}
    for snippet in sorted(among if among is not None else cat.settings):
        if snippet not in cat.settings:
            continue
        recorded = recorded_inputs(snippet)
        if recorded == {}:
            continue  # recorded before records named their inputs: nothing to compare
        now = sources.current(snippet, cat.settings[snippet], recorded)
        if recorded is None or sources.changed(recorded, now):
            found[snippet] = now
    return found


_session: Session | None = None


def start(serving: bool) -> None:
    """Begin a serve session (MkDocs' on_startup); a plain build has none."""
    global _session
    if serving and _session is None:
        _session = Session()
        if not _session.runs:
            log.info(
                "live: torch, numpy or matplotlib is not installed, so edited snippets are not "
                "re-run; their pages say so (install the run dependencies for live outputs)"
            )


def stop() -> None:
    global _session
    _session = None


def refresh() -> None:
    """Before each build of a serve session: re-run what changed. Never fails the build."""
    if _session:
        try:
            _session.refresh()
        except Exception as e:
            log.exception("live: refresh failed")
            _session.problem = f"refreshing the snippets failed: {type(e).__name__}: {e}"


def notice(used: set[Snippet]) -> str:
    """HTML admonitions for the top of a page showing these snippets ("" when all is well)."""
    if not used:
        return ""
    blocks = []
    if _session and _session.problem:
        title = "The outputs on this page were not refreshed"
        blocks.append(_admonition("failure", title, _pre(_session.problem)))
    try:
        cat = catalog.load()
    except catalog.CatalogError as e:
        return "".join(blocks) + _admonition("failure", "Snippet settings are broken", _pre(str(e)))
    for snippet, now in stale(cat, used).items():
        failure = _session.failed.get(snippet) if _session else None
        if failure and failure[0] == now:
            title = f"{snippet.name} failed: this page shows its last recorded run"
            blocks.append(_admonition("failure", title, _pre(failure[1])))
        else:
            recorded = recorded_inputs(snippet)
            changed = sources.changed(recorded, now) if recorded is not None else None
            blocks.append(_stale_warning(snippet, changed))
    return "".join(blocks)


def _stale_warning(snippet: Snippet, changed: list[str] | None) -> str:
    command = f"<code>{html.escape(f'python scripts/regen.py {snippet.name}')}</code>"
    if changed is None:
        return _admonition(
            "warning", f"{snippet.name} has no recorded run", f"<p>Record it with {command}.</p>"
        )
    names = ", ".join(
        "its settings in snippets/snippets.toml" if c == sources.SETTINGS else f"<code>{c}</code>"
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

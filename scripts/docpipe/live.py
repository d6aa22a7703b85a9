"""Live outputs in `mkdocs serve`, and pages that say so when their outputs are out of date.

While `mkdocs serve` runs (it also watches snippets/ and scripts/figures/: `watch` in
mkdocs.yml), every build first re-runs each snippet whose sources changed since its recording
(docpipe.sources), through regen and its cache. The MkDocs process never imports torch: one
worker process per serve session, started with the hash seed the runner requires, imports
torch, numpy and matplotlib once, and runs each snippet in a fork of itself (docpipe.pool).

What could not be refreshed is said under the page title: a snippet whose run failed (with its
error; the page keeps the last recorded run) and, where the run dependencies are missing or
in a plain `mkdocs build`, a snippet that changed since its recording, with the command that
refreshes it. The preview is never silently stale.
"""

from __future__ import annotations

import atexit
import contextlib
import html
import importlib.util
import io
import json
import logging
import os
import queue
import re
import subprocess
import sys
import threading
import time

from . import catalog, glue, sources
from .cache import VERSIONED
from .catalog import Catalog
from .paths import ROOT, Snippet

START_TIMEOUT = 300.0  # seconds the worker may take to import torch, numpy and matplotlib
SLACK = 60.0  # seconds a refresh may take beyond the timeouts of the snippets it runs
LOCK_WAIT = 5.0  # seconds a refresh waits for a regen started by hand, then says so
RACE_RETRIES = 3  # re-runs of a snippet saved again while it ran
SCRIPTS = ROOT / "scripts"

log = logging.getLogger("mkdocs.hooks.live")


def runnable() -> bool:
    """True when torch, numpy and matplotlib can be imported (checked without importing them)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in VERSIONED)
    except (ImportError, ValueError):
        return False


class Session:
    """One `mkdocs serve`: its worker, and what the last refresh could not do."""

    def __init__(self) -> None:
        self.worker = Worker() if runnable() else None
        self.failed: dict[Snippet, tuple[dict, str]] = {}  # snippet -> (its inputs, the error)
        self.problem = ""  # a reason no snippet could be refreshed; shown on every page

    def refresh(self) -> None:
        try:
            cat = catalog.load()
        except catalog.CatalogError as e:
            self.problem = f"{e}\nNo snippet can be re-run until this is fixed."
            return
        self.problem = ""
        todo = {s: now for s, now in _stale(cat).items() if self.failed.get(s, (None,))[0] != now}
        force = False
        for _ in range(RACE_RETRIES):
            if not todo or self.worker is None:
                return
            started = time.monotonic()
            timeout = sum(cat.settings[s].timeout for s in todo) + SLACK
            try:
                failed, self.problem = self.worker.regen(
                    sorted(s.name for s in todo), force, timeout
                )
            except WorkerError as e:
                self.worker.stop()
                self.worker, self.problem = Worker(), str(e)
                return
            for snippet, now in todo.items():
                if snippet.name in failed:
                    self.failed[snippet] = (now, failed[snippet.name])
                else:
                    self.failed.pop(snippet, None)
            log.info(f"live: re-ran {len(todo)} snippet(s) in {time.monotonic() - started:.2f} s")
            # A snippet saved again while it ran has a record naming the new digests but the
            # output of the old code: run it again, past the cache, which cannot tell either.
            todo = {s: now for s, now in _stale(cat).items() if s in todo and s not in self.failed}
            force = True

    def stop(self) -> None:
        if self.worker:
            self.worker.stop()


def _recorded_inputs(snippet: Snippet) -> dict | None:
    """The digests its record names; {} for a record older than digests, None if unrecorded."""
    try:
        return glue.record(snippet).get("inputs", {})
    except (glue.GlueError, json.JSONDecodeError):
        return None


def _stale(cat: Catalog, among: set[Snippet] | None = None) -> dict[Snippet, dict]:
    """Snippet -> its current input digests, for each whose recording is not of its code."""
    found = {}
    for snippet in sorted(among if among is not None else cat.settings):
        if snippet not in cat.settings:
            continue
        recorded = _recorded_inputs(snippet)
        if recorded == {}:
            continue  # recorded before records named their inputs: nothing to compare
        now = sources.current(snippet, cat.settings[snippet], recorded)
        if recorded is None or sources.changed(recorded, now):
            found[snippet] = now
    return found


class WorkerError(Exception):
    pass


class Worker:
    """A process that imported the run dependencies once and runs regen when asked."""

    def __init__(self) -> None:
        code = (
            f"import sys; sys.path.insert(0, {str(SCRIPTS)!r}); "
            "from docpipe import live; live.worker_main()"
        )
        # The runner requires PYTHONHASHSEED=0; every fork of the worker inherits its seed.
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        self.replies: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ready = False

    def _read(self) -> None:
        for line in self.process.stdout:
            self.replies.put(json.loads(line))
        self.replies.put(None)  # the worker ended

    def _reply(self, timeout: float) -> dict:
        try:
            reply = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise WorkerError(f"live outputs: no answer from the run after {timeout:g} s") from None
        if reply is None:
            raise WorkerError("live outputs: the run process ended (its error is in the terminal)")
        return reply

    def regen(self, names: list[str], force: bool, timeout: float) -> tuple[dict[str, str], str]:
        """Re-run these snippets; return {snippet name: its error} and a problem for all."""
        if not self.ready:
            problem = self._reply(START_TIMEOUT).get("problem")
            if problem:
                raise WorkerError(problem)
            self.ready = True
        request = {"snippets": names, "force": force}
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()
        reply = self._reply(timeout)
        return reply["failed"], reply["problem"]

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()  # the worker ends at the end of its input
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def worker_main() -> None:
    """The worker: import the heavy modules once, then run regen for each request line."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # whatever regen prints goes to the terminal, never into the channel
    try:
        from . import pool

        pool.warm_up(pool.HEAVY)
    except Exception as e:
        channel.write(
            json.dumps({"problem": f"live outputs: cannot import the runner: {e}"}) + "\n"
        )
        return
    channel.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        channel.write(json.dumps(_regen(request["snippets"], request["force"])) + "\n")


def _regen(names: list[str], force: bool) -> dict:
    """The one call into the runner: `regen.py NAMES`, with its report read for failures."""
    from . import cli

    argv = [*names, "--lock-wait", str(LOCK_WAIT), *(["--force"] if force else [])]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except Exception as e:  # a fault of the runner: say it on the page, keep serving
            print(f"error: the runner failed: {type(e).__name__}: {e}", file=sys.stderr)
            code = 1
    sys.stderr.write(out.getvalue() + err.getvalue())
    failed, problems = {}, []
    for block in re.split(r"\n(?=\S)", err.getvalue().strip()):
        first = block.partition("\n")[0]
        owner = next((n for n in names if re.search(rf"(?<![\w/]){re.escape(n)}\b", first)), None)
        if first.startswith("FAILED ") and owner:
            failed[owner] = block.removeprefix("FAILED ")
        elif first.startswith("error:"):
            problems.append(block.removeprefix("error: "))
    if code and not failed and not problems:
        problems.append(f"regen.py exited with status {code}; its report is in the terminal")
    return {"failed": failed, "problem": "\n".join(problems)}


_session: Session | None = None


def start(serving: bool) -> None:
    """Begin a serve session (MkDocs' on_startup); a plain build has none."""
    global _session
    if serving and _session is None:
        _session = Session()
        atexit.register(stop)
        if _session.worker is None:
            log.info(
                "live: torch, numpy or matplotlib is not installed, so edited snippets are not "
                "re-run; their pages say so (install the run dependencies for live outputs)"
            )


def stop() -> None:
    global _session
    if _session:
        _session.stop()
        _session = None


def refresh() -> None:
    """Before each build of a serve session: re-run what changed."""
    if _session:
        _session.refresh()


def notice(used: set[Snippet]) -> str:
    """HTML admonitions for the top of a page showing these snippets ("" when all is well)."""
    if not used:
        return ""
    blocks = []
    if _session and _session.problem:
        blocks.append(_admonition("failure", "The outputs on this page were not refreshed",
                                  _pre(_session.problem)))  # fmt: skip
    try:
        cat = catalog.load()
    except catalog.CatalogError as e:
        return "".join(blocks) + _admonition("failure", "Snippet settings are broken", _pre(str(e)))
    for snippet, now in _stale(cat, used).items():
        failure = _session.failed.get(snippet) if _session else None
        if failure and failure[0] == now:
            title = f"{snippet.name} failed: this page shows its last recorded run"
            blocks.append(_admonition("failure", title, _pre(failure[1])))
        else:
            blocks.append(
                _stale_warning(snippet, sources.changed(_recorded_inputs(snippet) or {}, now))
            )
    return "".join(blocks)


def _stale_warning(snippet: Snippet, changed: list[str]) -> str:
    command = f"python scripts/regen.py {snippet.name}"
    if _recorded_inputs(snippet) is None:
        title = f"{snippet.name} has no recorded run"
        body = f"Record it with <code>{html.escape(command)}</code>."
    else:
        title = f"Out of date: {snippet.name} changed since its output was recorded"
        names = ", ".join(
            "its settings in snippets/snippets.toml"
            if c == sources.SETTINGS
            else f"<code>{c}</code>"
            for c in changed
        )
        body = (
            f"The code shown is current, but the output, figures and numbers from this snippet "
            f"come from a run made before these changed: {names}. "
            f"Refresh them with <code>{html.escape(command)}</code>"
        )
        body += "." if runnable() else ", after installing the run dependencies (see the README)."
    return _admonition("warning", title, f"<p>{body}</p>")


def _pre(text: str) -> str:
    return f"<pre><code>{html.escape(text, quote=False)}</code></pre>"


def _admonition(kind: str, title: str, body: str) -> str:
    # Raw HTML, so nothing inside (an error that prints Markdown or an include line) is parsed.
    return (
        f'\n<div class="admonition {kind} live-notice">\n'
        f'<p class="admonition-title">{html.escape(title)}</p>\n{body}\n</div>\n'
    )

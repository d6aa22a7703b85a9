"""The browser tests' plumbing: the site built and served on loopback as when hosted,
Debian's chromium driven by playwright, and a Visit (one tab that records console errors and
blocks every request to another host)."""

from __future__ import annotations

import asyncio
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlparse

import pytest

from projects import REPO, SITE

ROOT = REPO
DOCS = SITE.docs
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
# The CDP key events of page.keyboard.press("Tab") in playwright's Chromium driver: a key
# down without text, then up, with no modifier.
TAB = [
    {"type": t, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "modifiers": 0}
    for t in ("rawKeyDown", "keyUp")
]
# LaTeX a reader would see: a delimiter left in the page's text outside code and math
RAW_MATH = re.compile(r"\\\(|\\\[|\$")


def site_pages() -> list[str]:
    """URL paths of every page, by MkDocs' directory-URL rule."""
    sources = sorted(p for p in DOCS.rglob("*.md") if "generated" not in p.parts)
    sources += sorted((DOCS / "notebooks").glob("*.ipynb"))
    paths = []
    for source in sources:
        rel = source.relative_to(DOCS).with_suffix("").as_posix()
        paths.append("/" if rel == "index" else f"/{rel.removesuffix('/index')}/")
    return paths


PAGES = site_pages()


# Debian's build of chromium's headless shell first: the same Blink and V8 as the chromium
# package, without the desktop browser around them, which the tests never show. It is what
# playwright itself runs for headless tests; here it took a fifth less CPU for the same tours
# (opening a page costs half as much) and found the same tab stops and violations.
BROWSERS = ("chromium-headless-shell", "chromium")


def chromium() -> str:
    """Debian's chromium (its headless shell where installed), or the browser named by
    $CHROMIUM (a hosted CI image's Chrome)."""
    for name in [os.environ["CHROMIUM"]] if os.environ.get("CHROMIUM") else BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    not_run(
        "BROWSER TESTS NOT RUN: Debian's chromium-headless-shell is not installed and could "
        "not be (make test installs it with apt-get when run as root)",
        "browser test",
    )


def not_run(reason: str, what: str) -> NoReturn:
    """Skip a test whose tool is missing; under CI, where `make test` installs it, fail."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; under CI a skipped {what} is a failure")
    pytest.skip(reason)


def serve(site: Path) -> tuple[http.server.HTTPServer, str]:
    """Serve the folder `site` on loopback, under the same path as when hosted; returns the
    server and its origin. conftest.py starts it for the session, before the site exists."""
    base = site_base()
    httpd = _QuietServer(("127.0.0.1", 0), _handler(site, base))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}{base.rstrip('/')}"


def build_site(site: Path, origin: str) -> None:
    """Build the site into `site` with site_url pointing to its server at `origin` (instant
    navigation only follows links under site_url); conftest.py's `server` fixture calls it,
    once per session, for every test that needs the built site. What the build logged is kept
    beside it (build_log), for the test that reads it."""
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "SITE_URL": origin + "/"},
    )
    build_log(site).write_text(f"{build.returncode}\n{build.stderr}", encoding="utf-8")
    assert build.returncode == 0, build.stderr


def build_log(site: Path) -> Path:
    return site.with_name(site.name + ".log")


def site_base() -> str:
    """The path the hosted site lives under: the path of mkdocs.yml's default site_url."""
    return urlparse(SITE.site.hosted_url).path or "/"


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A browser that closes a connection mid-response (it moved on to the next page) is
        no error of the site; anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(site: Path, base: str):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(site), **kwargs)

        def translate_path(self, path: str) -> str:
            inside = path.startswith(base)
            return super().translate_path("/" + path[len(base) :] if inside else "/404.html")

        def log_message(self, *args) -> None:
            pass

    return Handler


@contextmanager
def launched_chromium():
    """Chromium driven by playwright; conftest.py makes it the session's `browser` fixture."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Visit:
    """One browser tab that records console errors and blocks every outside request."""

    def __init__(self, browser, server: str, scheme: str):
        self.origin = server
        self.context = browser.new_context(
            viewport={"width": 1280, "height": 900}, color_scheme=scheme
        )
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.screenshots = SCREENSHOTS  # where screenshot() saves
        # Only a request outside the server reaches _route: the browser's driver matches the
        # pattern, so the page's own requests (dozens for each page opened) never wait for
        # this process to let them through.
        outside = re.compile(rf"^(?!{re.escape(self.origin)}|data:)")
        self.context.route(outside, self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self._cdp = None  # press_tab's CDP session, opened on first use

    def _route(self, route):
        self.outside.append(route.request.url)
        route.abort()

    def _console(self, message):
        if message.type == "error":
            self.errors.append(f"console error: {message.text}")

    def open(self, path: str, until: str = "networkidle") -> None:
        """Open a page; `until` "networkidle" (no request for 500 ms) also waits for what the
        page fetches late; "load" is enough where nothing looks at late requests (tour.py
        reads them at the end of its visit instead, seconds later). Either way it returns
        once the page's images and fonts are ready, as a screenshot needs them."""
        self.page.goto(self.origin + path, wait_until=until)
        self.wait_for_images()
        self.page.evaluate("() => document.fonts.ready.then(() => true)")

    def wait_for_images(self) -> None:
        """After instant navigation the load state is already reached while the new page's
        images still load: wait until each has finished (a broken one finishes too, with
        naturalWidth 0, so problems() still names it)."""
        from playwright.sync_api import TimeoutError as Timeout

        try:
            self.page.wait_for_function(
                "() => [...document.images].every(i => i.complete)", timeout=10_000
            )
        except Timeout:
            pass
        # `complete` can be true before an SVG has its size; decode() settles once it has
        # one (or rejects for a broken image), within a bound.
        self.page.evaluate(
            """() => Promise.race([
                Promise.all([...document.images].map(i => i.decode().catch(() => null))),
                new Promise(done => setTimeout(done, 10000)),
            ])"""
        )

    def problems(self, path: str) -> list[str]:
        """What is wrong with the open page: outside requests, console errors, broken
        images, and math the build left to the browser (a formula not rendered, a KaTeX
        error, LaTeX left in the text, any KaTeX script loaded)."""
        return self.traffic(path) + self.shown(path)

    def traffic(self, path: str) -> list[str]:
        """The requests to outside hosts and the console errors of this tab so far."""
        found = [f"{path}: request to an outside host: {u}" for u in self.outside]
        return found + [f"{path}: {e}" for e in self.errors]

    def shown(self, path: str) -> list[str]:
        """What is wrong with what the page shows: broken images and math the build left
        to the browser."""
        found = []
        state = self.page.evaluate(
            """() => {
                const shown = document.body.cloneNode(true);
                shown.querySelectorAll('code, pre, .katex, script, style, template')
                    .forEach(e => e.remove());
                return {
                    unrendered: [...document.querySelectorAll('.arithmatex')]
                        .filter(e => !e.querySelector('.katex')).map(e => e.textContent.trim()),
                    errors: [...document.querySelectorAll('.katex-error')]
                        .map(e => (e.getAttribute('title') || '') + ' in ' + e.textContent),
                    broken: [...document.images]
                        .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
                    text: shown.textContent,
                    scripts: [...document.scripts].map(s => s.src)
                        .concat(performance.getEntriesByType('resource').map(r => r.name))
                        .filter(src => /katex[^/]*\\.js|auto-render/i.test(src)),
                    globals: ['katex', 'renderMathInElement'].filter(n => n in window),
                };
            }"""
        )
        found += [f"{path}: math not rendered: {m[:120]}" for m in state["unrendered"]]
        found += [f"{path}: KaTeX error: {m[:200]}" for m in state["errors"]]
        found += [f"{path}: image did not load: {src}" for src in state["broken"]]
        found += [f"{path}: KaTeX script loaded: {src}" for src in state["scripts"]]
        found += [f"{path}: KaTeX in the page's scripts: window.{n}" for n in state["globals"]]
        raw = RAW_MATH.search(state["text"])
        if raw:
            start = max(0, raw.start() - 60)
            context = " ".join(state["text"][start : raw.end() + 60].split())
            found.append(f"{path}: raw math delimiters in the text: …{context}…")
        return found

    def screenshot(self, path: str, scheme: str) -> None:
        """The whole page as a JPEG (quality 85): at full size a long page is 30,000 pixels
        tall, and JPEG encodes it in two thirds of PNG's time at about the same size."""
        self.screenshots.mkdir(parents=True, exist_ok=True)
        name = path.strip("/").replace("/", "__") or "index"
        target = self.screenshots / f"{name}-{scheme}.jpg"
        self.page.screenshot(path=target, full_page=True, type="jpeg", quality=85)

    def press_tab(self, times: int) -> None:
        """Press the Tab key `times` times, as page.keyboard.press("Tab") does each time (the
        same CDP key events), but sent together: chromium still handles each key in turn,
        the focus moved before the next one is read, and the walk waits for the last. One
        at a time, a press cost about 7 ms, most of it a frame painted between two presses
        and the trip through playwright's driver; sent together they took half the CPU and
        moved the focus through the same elements (test_tabs_sent_together_move_the_focus_
        as_tabs_pressed_one_by_one). The sync API waits for each command, so this sends
        them through its asynchronous implementation (playwright's private _impl_obj and
        _sync, hence pyproject.toml's narrow playwright pin)."""
        if self._cdp is None:
            self._cdp = self.context.new_cdp_session(self.page)
        send = self._cdp._impl_obj.send

        async def presses() -> None:
            events = [event for _ in range(times) for event in TAB]
            await asyncio.gather(*(send("Input.dispatchKeyEvent", e, None) for e in events))

        self.page._sync(presses())

    def close(self) -> None:
        self.context.close()

"""The site as a reader meets it: built, served on loopback, driven in Debian's chromium.

Every page (notebook pages too) in the light and the dark palette: every formula rendered by
the build (none left to the browser, no LaTeX in the text, no KaTeX error, no KaTeX script),
no console errors, every image loaded, no request to any host but the local server. Instant
navigation by clicking keeps math and figures working. Full-page screenshots are saved for a
reviewer (the path is printed at the end of the run).
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

import tour
from browsing import DOCS, PAGES, ROOT, Visit, site_base
from docpipe.run.figures import PALETTES

pytestmark = pytest.mark.browser

SLATE_BACKGROUND = (0x1E, 0x21, 0x29)  # Material's slate scheme: hsl(232, 15%, 14%)


@pytest.mark.parametrize(("path", "scheme"), tour.params(PAGES))
def test_page_renders_completely_offline(path, scheme, browser, server, shared_folder):
    problems = tour.tour(browser, server, path, scheme, shared_folder).part("offline")
    assert not problems, "\n".join(problems)


def test_instant_navigation_by_clicking_renders_math_and_figures(browser, server):
    visit = Visit(browser, server, "light")
    try:
        visit.open("/")
        visit.page.evaluate("() => { window.__sameDocument = true; }")
        seen = []
        for _ in range(len(PAGES) - 1):
            link = visit.page.locator("a.md-footer__link--next")
            if not link.count():
                break
            # the content in place is marked: the click has navigated once it is replaced
            visit.page.evaluate("() => { document.querySelector('article').dataset.old = 1; }")
            link.first.click()
            visit.page.wait_for_function("() => !document.querySelector('article[data-old]')")
            # the new content is in place: wait for its images, not for an idle network (what
            # a page fetches late is the tours' check, which reads a whole visit's requests)
            visit.wait_for_images()
            path = urlparse(visit.page.url).path.removeprefix(site_base().rstrip("/"))
            seen.append(path)
            assert visit.page.evaluate("() => window.__sameDocument === true"), (
                f"{path}: the click reloaded the page instead of navigating instantly"
            )
            problems = visit.problems(path)
            assert not problems, "\n".join(problems)
    finally:
        visit.close()
    assert len(seen) >= 2, f"clicked through too few pages: {seen}"


def test_every_request_outside_the_server_is_blocked_and_named(browser, server):
    visit = Visit(browser, server, "light")
    try:
        visit.open("/")
        answered = visit.page.evaluate(
            """async (own) => {
                new Image().src = 'https://cdn.example/font.woff2';
                const tries = ['http://127.0.0.2/x.js', own + '/index.html', 'data:text/plain,x'];
                return Promise.all(tries.map(u => fetch(u).then(r => r.ok, () => false)));
            }""",
            server,
        )
        visit.page.wait_for_timeout(300)  # the image's request, which nothing awaits
        found = [line for line in visit.traffic("/") if "outside host" in line]
    finally:
        visit.close()
    assert answered == [False, True, True]  # blocked; the server's own page; a data: URL
    assert sorted(found) == [
        "/: request to an outside host: http://127.0.0.2/x.js",
        "/: request to an outside host: https://cdn.example/font.woff2",
    ], found


def test_palette_toggle_shows_dark_figures(browser, server):
    visit = Visit(browser, server, "light")
    try:
        visit.open("/autograd-backward/")
        visit.page.locator("label[for='__palette_1']").first.click()
        assert visit.page.evaluate("() => document.body.dataset.mdColorScheme") == "slate"
        shown = visit.page.evaluate(
            """() => [...document.querySelectorAll('.md-content img')]
                .filter(i => i.offsetParent !== null).map(i => i.getAttribute('src'))"""
        )
    finally:
        visit.close()
    assert shown, "no figure is shown on the main page"
    assert all(src.split("#")[0].endswith(".dark.svg") for src in shown), shown


def _luminance(rgb) -> float:
    def channel(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


DARK_FIGURES = sorted((DOCS / "generated").rglob("*.dark.svg"))


@pytest.mark.parametrize("svg", DARK_FIGURES, ids=[p.name for p in DARK_FIGURES])
def test_dark_figures_have_no_dark_ink(svg):
    """Text and lines of a dark-palette figure stand out from the dark page (contrast >= 3).
    Grid lines are meant to recede: the palette's grid colour is the one exception."""
    text = svg.read_text(encoding="utf-8")
    inks = set(re.findall(r"stroke:\s*#([0-9a-fA-F]{6})", text))
    inks |= set(re.findall(r'<g[^>]*style="fill:\s*#([0-9a-fA-F]{6})[^"]*"[^>]*>\s*<use', text))
    inks.discard(PALETTES["dark"]["grid"].lstrip("#"))
    low = sorted(
        f"#{c}"
        for c in inks
        if _contrast(tuple(int(c[i : i + 2], 16) for i in (0, 2, 4)), SLATE_BACKGROUND) < 3
    )
    assert not low, f"{svg.relative_to(ROOT)}: colours too dark for the dark page: {low}"

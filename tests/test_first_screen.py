"""A first-time reader sees a page's first output without scrolling: on each tutorial page
(test_reader_path.tutorial_pages), opened at the top in a 1280 x 900 window, in the light and
the dark palette, the first output block a reader sees (the first block titled with the command
that printed it, `python snippets/...`, outside a folded block) shows its first line of text
within the first screen. docpipe.mainline counts the words and code lines before the first
output; this measures the screen, where a display formula, a box or a long title takes more
room than its words. A picture of each first screen is saved beside the tours' screenshots.
"""

from __future__ import annotations

import pytest

from browsing import SCREENSHOTS, Visit
from test_reader_path import tutorial_pages
from tour import SCHEMES, VIEWPORTS

pytestmark = pytest.mark.browser

SCREEN = VIEWPORTS["desktop"]  # 1280 x 900
FOLD = SCREEN["height"]  # what lies above y = FOLD, page at the top, is the first screen
MATERIAL_SCHEME = {"light": "default", "dark": "slate"}  # the palette mkdocs.yml gives each

# The first output block shown: titled with a command, and rendered (what a folded block holds
# has no client rects).
SHOWN_OUTPUT = """[...document.querySelectorAll('article div.highlight')].find(div => {
    const title = div.querySelector(':scope > .filename');
    return title && title.textContent.trim().startsWith('python ')
        && div.getClientRects().length > 0;
})"""

# Its title, its top and the bottom of its first line of text (of its first character that is
# not blank), in page coordinates with the page scrolled to the top.
FIRST_OUTPUT = """() => {
    window.scrollTo(0, 0);
    const block = SHOWN_OUTPUT;
    if (!block) return null;
    const code = block.querySelector('pre code') || block.querySelector('pre');
    const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let line = null;
    for (let node = walk.nextNode(); node && !line; node = walk.nextNode()) {
        const at = node.data.search(/\\S/);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        line = range.getBoundingClientRect();
    }
    const box = block.getBoundingClientRect();
    return {
        title: block.querySelector(':scope > .filename').textContent.trim(),
        top: box.top + window.scrollY,
        y: (line || box).bottom + window.scrollY,
    };
}""".replace("SHOWN_OUTPUT", SHOWN_OUTPUT)


def url(page: str) -> str:
    """The site path of a page of docs/ (MkDocs' directory URLs)."""
    return "/" + page.removesuffix(".md") + "/"


def first_screen_problem(visit: Visit, page: str, scheme: str) -> str | None:
    """Why the open page's first output is not on its first screen (naming the page, the
    palette and the y found against FOLD), or None when its first line shows there."""
    found = visit.page.evaluate(FIRST_OUTPUT)
    where = f"docs/{page} ({scheme} palette, {SCREEN['width']} x {SCREEN['height']})"
    if found is None:
        return f"{where}: no output block is shown on the page"
    if found["y"] < FOLD:
        return None
    return (
        f"{where}: its first output ({found['title']}) starts at y = {found['top']:.0f} and shows"
        f" its first line at y = {found['y']:.0f}, not within the first screen (y < {FOLD}):"
        " put a small example with its output nearer the top"
    )


def opened(browser, server: str, page: str, scheme: str) -> Visit:
    visit = Visit(browser, server, scheme)
    visit.open(url(page))
    shown = visit.page.evaluate("() => document.body.dataset.mdColorScheme")
    assert shown == MATERIAL_SCHEME[scheme], f"{page}: {scheme} asked, {shown} shown"
    return visit


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("page", tutorial_pages())
def test_each_tutorial_page_shows_its_first_output_on_the_first_screen(
    page, scheme, browser, server
):
    visit = opened(browser, server, page, scheme)
    try:
        problem = first_screen_problem(visit, page, scheme)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = page.removesuffix(".md")
        visit.page.screenshot(path=SCREENSHOTS / f"first-screen-{name}-{scheme}.png")
    finally:
        visit.close()
    assert problem is None, problem


# A block of `height` pixels put just before the first output block shown: everything from
# there on moves down by `height`.
PUSH_DOWN = """height => {
    const block = SHOWN_OUTPUT;
    const spacer = document.createElement('div');
    spacer.id = 'pushed-down';
    spacer.style.height = height + 'px';
    block.before(spacer);
}""".replace("SHOWN_OUTPUT", SHOWN_OUTPUT)


def test_a_first_output_pushed_below_the_first_screen_is_named(browser, server):
    """The check fails on a page whose first output is pushed down: by a whole screen, and by
    just enough that the block's top is still on the first screen while its first line is cut
    by the fold (and passes one pixel before that)."""
    page = tutorial_pages()[0]
    visit = opened(browser, server, page, "dark")
    try:
        assert first_screen_problem(visit, page, "dark") is None

        def pushed(height: float) -> tuple[str | None, dict]:
            visit.page.evaluate("() => document.getElementById('pushed-down')?.remove()")
            visit.page.evaluate(PUSH_DOWN, height)
            return first_screen_problem(visit, page, "dark"), visit.page.evaluate(FIRST_OUTPUT)

        # a spacer of 1 pixel keeps the margins around it from collapsing: from there on the
        # first line moves down by what the spacer grows
        _, base = pushed(1)
        fits = 1 + FOLD - 1 - base["y"]  # the push that leaves the first line's bottom at 899

        problem, moved = pushed(FOLD)
        assert moved["y"] >= FOLD and problem is not None
        assert problem.startswith(f"docs/{page} (dark palette, 1280 x 900): its first output")
        assert f"at y = {moved['y']:.0f}, not within the first screen (y < 900)" in problem
        problem, moved = pushed(fits + 2)
        assert moved["top"] < FOLD <= moved["y"], moved  # the top shows, the line is cut
        assert problem is not None and f"y = {moved['y']:.0f}, not within" in problem
        problem, moved = pushed(fits)
        assert moved["y"] < FOLD and problem is None, (moved, problem)
    finally:
        visit.close()


def test_a_page_without_an_output_shown_is_named(browser, server):
    page = tutorial_pages()[0]
    visit = opened(browser, server, page, "light")
    try:
        visit.page.evaluate(
            """() => document.querySelectorAll('article div.highlight')
                .forEach(div => div.remove())"""
        )
        problem = first_screen_problem(visit, page, "light")
    finally:
        visit.close()
    assert (
        problem == f"docs/{page} (light palette, 1280 x 900): no output block is shown on the page"
    )

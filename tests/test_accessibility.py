"""Accessibility: an axe-core audit of every page, and every page used with the keyboard alone.

A serious or critical axe violation fails the audit, named with its page, palette, viewport,
rule and element. The keyboard tests press Tab through each whole page and check that focus
reaches the notebook buttons, the code copy buttons, the palette toggle and the footer links,
always on something visible that shows it has the focus. Both look at the visit tour.py takes
of each page in each palette.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tour
from browsing import PAGES, ROOT, Visit, site_base
from tour import FOCUS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("path", "scheme"), tour.params(PAGES))
def test_page_has_no_serious_accessibility_violation(path, scheme, browser, server, shared_folder):
    """Every viewport, with collapsed content opened as a reader who opens it."""
    found = tour.tour(browser, server, path, scheme, shared_folder).part("axe")
    assert not found, f"{len(found)} serious accessibility violations:\n" + "\n".join(found)


@pytest.mark.parametrize(("path", "scheme"), tour.params(PAGES))
def test_keyboard_reaches_every_control_with_visible_focus(
    path, scheme, browser, server, shared_folder
):
    walked = tour.tour(browser, server, path, scheme, shared_folder).part("keyboard")
    problems = tour.keyboard_problems(f"{path} ({scheme} palette)", walked)
    assert not problems, "\n".join(problems)


# Defects planted in one palette only, each where a single check must see it: focus rings
# removed in the header (the keyboard walk), a footer link unreadable only while focused (the
# focused colours), and paragraphs unreadable only at the phone width (the phone audit). The
# suite runs each check in both palettes; each must catch its defect in the palette it is in.
PLANTED = """
[data-md-color-scheme="{scheme}"] .md-header :focus-visible {{
    outline: none !important; box-shadow: none !important;
}}
[data-md-color-scheme="{scheme}"] .md-footer a:focus-visible {{ color: #2a2a2a !important; }}
@media (max-width: 600px) {{
    [data-md-color-scheme="{scheme}"] .md-typeset p {{ color: {faint} !important; }}
}}
"""
FAINT = {"light": "#d8d8d8", "dark": "#3a3a3a"}  # on white, on Material's slate background
PLANT = """(css) => document.addEventListener('DOMContentLoaded', () => {
    const style = document.createElement('style');
    style.textContent = css;
    document.head.append(style);
})"""


@pytest.mark.parametrize("scheme", tour.SCHEMES)
def test_a_defect_planted_in_one_palette_fails_its_checks(scheme, browser, server, tmp_path):
    visit = Visit(browser, server, scheme)
    visit.screenshots = tmp_path  # not the reviewer's screenshot of the real page
    name = {"light": "default", "dark": "slate"}[scheme]
    css = PLANTED.format(scheme=name, faint=FAINT[scheme])
    visit.context.add_init_script(script=f"({PLANT})({css!r})")
    taken = tour.take(visit, "/", scheme, set(), set())
    keyboard = "\n".join(tour.keyboard_problems(scheme, taken.part("keyboard")))
    audit = "\n".join(taken.part("axe"))
    assert 'no visible focus indicator (outline or shadow) on <a class="md-header' in keyboard
    assert re.search(r"focused <a class=\"md-footer__link.*: color-contrast", keyboard), keyboard
    assert re.search(r"phone\): color-contrast .* at `[^`]*p\b", audit), audit
    assert "desktop): color-contrast" not in audit, audit


# One page of each template and stylesheet: a tutorial page (Material's) and a notebook page
# (mkdocs-jupyter's, whose stylesheet has dark-palette rules of its own).
TEMPLATES = ["/backprop-by-hand/", "/notebooks/backprop-by-hand/"]


@pytest.mark.parametrize("path", TEMPLATES)
def test_switching_the_palette_moves_no_element_but_a_figures_images(path, browser, server):
    """tour.audited_rules runs only the colour rules in the dark palette at the phone width,
    because the layout there is the light palette's: checked on the page as laid out."""
    assert palette_moves(browser, server, path) == []


def test_a_palette_rule_that_moves_an_element_is_named(browser, server):
    planted = '[data-md-color-scheme="slate"] .md-typeset h2 { padding-top: 3px; }'
    moved = palette_moves(browser, server, "/backprop-by-hand/", planted)
    assert moved and all(m.startswith("<") for m in moved), moved
    assert any(m.startswith("<h2") for m in moved), moved


def palette_moves(browser, server, path: str, css: str = "") -> list[str]:
    """tour.PALETTE_MOVES on `path` in the dark palette at the phone width, `css` planted."""
    visit = Visit(browser, server, "dark")
    if css:
        visit.context.add_init_script(script=f"({PLANT})({css!r})")
    try:
        visit.page.set_viewport_size(tour.VIEWPORTS["phone"])
        visit.open(path, until="load")
        visit.page.evaluate(tour.OPEN_DETAILS)  # as tour._axe audits it
        return visit.page.evaluate(tour.PALETTE_MOVES, "default")
    finally:
        visit.close()


LOOKS_PAGE = """<!doctype html><html><head><style>
#i::before { content: "> "; color: #999 } #j::before { color: #999 }
</style></head><body style="margin: 0">
<p id="a" style="color: #222">first</p>
<p id="b" style="color: #222">second, other text</p>
<p id="c" style="color: #999">fainter</p>
<div style="background: #eee"><p id="d" style="color: #222">on grey</p></div>
<p id="e" style="color: #222"><a href="#x" id="f">a link</a> in text</p>
<p id="g" style="color: #222; margin-top: 40px">under a box</p>
<div style="position: absolute; top: 205px; left: 0; width: 300px; height: 30px;
     background: rgba(255, 0, 0, 0.5)"></div>
<p id="h" style="color: #222; display: none">hidden</p>
<p id="i" style="color: #222">drawn before</p>
<p id="j" style="color: #222">nothing drawn before</p>
<a href="#k" id="k"></a>
<p id="l" style="color: #222; height: 0; margin: 0">in a box with no height</p>
<p id="m" style="color: #222; opacity: 0">transparent</p>
</body></html>"""


def test_elements_that_are_painted_alike_share_one_colour_look(browser, server):
    """tour.COLOUR_LOOKS: other text, a link inside, or the colour of a pseudo-element with
    no content changes no look; a colour, a background behind, being a link and a drawn
    pseudo-element do; an element under a painted box, or in a box with no size, is audited
    every time; one not painted, or a link without text, never."""
    visit = Visit(browser, server, "light")
    try:
        visit.page.set_content(LOOKS_PAGE)
        looks = tour.colour_looks(visit)
        ids = visit.page.evaluate("() => window.__colourLooks.map(e => e.id)")
        seen = set()
        marked = tour.colour_looks_to_audit(visit, seen)
        chosen = visit.page.evaluate(
            "() => [...document.querySelectorAll('[data-colours-audited]')].map(e => e.id)"
        )
        again = tour.colour_looks_to_audit(visit, seen)
    finally:
        visit.close()
    look = dict(zip(ids, looks, strict=True))
    assert look["a"] == look["b"] == look["e"] == look["j"] is not None
    assert len({look[i] for i in "acdfi"}) == 5, look
    assert look["g"] is None and look["l"] is None, look  # overlapped; no height
    assert look["h"] is look["k"] is look["m"] is False, look  # not painted; no text
    assert chosen == ["a", "c", "d", "f", "g", "i", "l"] and marked == 7, chosen
    assert again == 2  # the second audit of the page looks only at g and l


# Marks too the content's first shown paragraph with text of its own, which the audit looks
# at, and makes every marked element faint.
FAINT_MARKED = """() => {
    [...document.querySelectorAll('.md-content p')].find(p => p.checkVisibility()
        && [...p.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.data.trim()))
        .setAttribute('data-colours-audited', '');
    const style = document.createElement('style');
    style.textContent = '[data-colours-audited] { color: #f2f2f2 !important; }';
    document.head.append(style);
}"""


@pytest.mark.parametrize("path", ["/autograd-backward/", "/notebooks/autograd-backward/"])
def test_what_the_colour_audit_leaves_out_cannot_fail_it(path, browser, server):
    """The elements COLOUR_LOOKS leaves out (hundreds on a page of each template: code line
    anchors, collapsed navigation, MathML annotations) made faint fail neither colour rule;
    a paragraph the audit looks at, made faint with them, fails it, alone."""
    visit = Visit(browser, server, "light")
    try:
        visit.open(path, until="load")
        visit.page.evaluate(tour.OPEN_DETAILS)  # as tour._axe audits it
        left = [i for i, look in enumerate(tour.colour_looks(visit)) if look is False]
        visit.page.evaluate(tour.MARK_FOR_COLOURS, left)
        visit.page.evaluate(FAINT_MARKED)
        found = tour.describe(path, tour.serious_violations(visit, tour.COLOUR_RULES, marked=True))
    finally:
        visit.close()
    assert len(left) > 100, len(left)
    assert len(found) == 1 and " color-contrast " in found[0], "\n".join(found)
    assert re.search(r"at `[^`]*p[^`]*` '<p", found[0]), found[0]


def colour_audit(browser, server, path: str, looks: set[str], css: str = "") -> list[str]:
    """The colour rules' audit of `path` (light palette, desktop width) with `css` planted,
    on the looks not in `looks`, as tour._axe runs it."""
    visit = Visit(browser, server, "light")
    if css:
        visit.context.add_init_script(script=f"({PLANT})({css!r})")
    try:
        visit.open(path, until="load")
        tour.axe_script()
        return tour.audit(visit, f"{path} (light palette, desktop)", tour.COLOUR_RULES, looks)
    finally:
        visit.close()


def test_a_colour_defect_on_a_later_page_fails_its_audit(browser, server):
    """A page whose looks were audited on another is audited only where it differs from it:
    one paragraph made faint on that page alone fails the audit, named on that page."""
    looks: set[str] = set()
    assert colour_audit(browser, server, "/build-your-own/", looks) == []
    seen = set(looks)
    faint = ".md-content .md-typeset > p:nth-of-type(2) { color: #d8d8d8 !important; }"
    audit = colour_audit(browser, server, "/training-code/", looks, faint)
    assert len(audit) == 1, "\n".join(audit)
    where = r"/training-code/ \(light palette, desktop\): color-contrast .* at `[^`]*p"
    assert re.match(where, audit[0]), audit[0]
    assert len(looks - seen) < len(seen) / 4  # few looks of the later page were new


class _AllChecked(tour.CheckedKinds):
    """Every focused kind already checked: a walk that checks no focused colours."""

    def __init__(self):
        pass

    def claim_all(self, kinds: list[str]) -> set[str]:
        return set()


def test_tabs_sent_together_move_the_focus_as_tabs_pressed_one_by_one(browser, server):
    """Visit.press_tab sends a batch's key events together; the walk it drives stops on the
    same elements, in the same order and as shown, as one driven by page.keyboard.press."""
    walks = []
    for together in (True, False):
        visit = Visit(browser, server, "light")
        if not together:
            visit.press_tab = lambda n, page=visit.page: [
                page.keyboard.press("Tab") for _ in range(n)
            ]
        try:
            visit.open("/", until="load")
            stops = tour.tab_through(visit, _AllChecked())
        finally:
            visit.close()
        # Two things the theme does a moment after a key, a moment that depends on how fast
        # the keys come (and a loaded machine slows either way), are left out: the back-to-top
        # button it shows while the page scrolls up, which a walk may or may not meet, and
        # the search box's colours as it opens (the walk checks focused colours of links and
        # buttons only).
        walks.append(
            [
                (s["name"], s["visible"], s["indicator"], s["textKind"] and s["look"])
                for s in stops
                if '"md-top ' not in s["name"]
            ]
        )
    assert len(walks[0]) > tour.BATCH, len(walks[0])  # more than one batch
    assert walks[0] == walks[1]


def test_the_walk_ends_where_focus_leaves_the_page_and_wraps_around():
    """tour.walked() reads the record of Tab presses: the end is a press without focus
    followed by the first stop again (or by none); a focus trap never ends."""
    a, b, c = ({"name": n} for n in "abc")
    assert tour.walked([a, b, None, a]) == [a, b]
    assert tour.walked([a, b, None, None]) == [a, b]
    assert tour.walked([a, None, b, c, None, a, b]) == [a, b, c]  # a moment without focus
    assert tour.walked([a, b, None]) is None  # not known yet
    assert tour.walked([a, b, c, a, b, c]) is None  # focus trapped in the page


def test_palette_toggle_works_from_the_keyboard(browser, server):
    """Tab to the toggle, Enter switches the palette and keeps the focus on the toggle."""
    visit = Visit(browser, server, "light")
    try:
        visit.open("/")
        for _ in range(20):
            visit.page.keyboard.press("Tab")
            if visit.page.evaluate("() => document.activeElement.matches('.md-option')"):
                break
        seen = []
        for _ in range(2):
            seen.append(visit.page.evaluate(FOCUS))
            visit.page.keyboard.press("Enter")
            seen.append(visit.page.evaluate("() => document.body.dataset.mdColorScheme"))
    finally:
        visit.close()
    toggles, schemes = seen[0::2], seen[1::2]
    assert all(t and "md-option" in t["name"] and t["visible"] for t in toggles), toggles
    assert schemes == ["slate", "default"]


def test_search_works_from_the_keyboard(browser, server):
    visit = Visit(browser, server, "light")
    try:
        visit.open("/")
        visit.page.keyboard.press("/")  # Material's shortcut for the search box
        visit.page.keyboard.type("zero_grad")
        visit.page.wait_for_selector(".md-search-result__link")
        visit.page.keyboard.press("ArrowDown")
        focused = visit.page.evaluate("() => document.activeElement.className")
        before = visit.page.url
        visit.page.keyboard.press("Enter")
        # Instant navigation fetches the result's page and then changes the address: an idle
        # network right after the key (before that fetch starts) said nothing, and the test
        # once read the address of the page it started from. Wait for the address to change.
        visit.page.wait_for_url(lambda url: url != before)
        landed = visit.page.url
    finally:
        visit.close()
    assert "md-search-result__link" in focused, focused
    # the first result for zero_grad: a tutorial page that teaches it
    assert landed.split(site_base(), 1)[1].startswith(
        ("autograd-backward/", "backprop-by-hand/", "training-code/")
    ), landed


def test_search_partial_differs_from_the_theme_only_by_the_dialog_name():
    """overrides/partials/search.html is the theme's partial plus an aria-label: a theme
    upgrade that changes the partial fails here instead of silently keeping old markup."""
    import material

    theme = Path(material.__file__).parent / "templates" / "partials" / "search.html"
    ours = ROOT / "overrides" / "partials" / "search.html"
    comment = re.compile(r"\A\{#-.*?-#\}\n", re.S)
    theme_body = comment.sub("", theme.read_text(encoding="utf-8"))
    our_body = comment.sub("", ours.read_text(encoding="utf-8"))
    dialog = '<div class="md-search" data-md-component="search" role="dialog">'
    named = dialog[:-1] + " aria-label=\"{{ lang.t('search') }}\">"
    assert dialog in theme_body, f"{theme}: the search dialog's markup changed"
    assert our_body == theme_body.replace(dialog, named), (
        f"{ours.relative_to(ROOT)} differs from {theme} by more than the dialog's name"
    )

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
from tour import FOCUS, describe


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
    stops, unreached, present = walked["stops"], walked["unreached"], walked["present"]
    where = f"{path} ({scheme} palette)"
    problems = [
        f"{where}: the Tab key never reaches the {k} {e}" for k, v in unreached.items() for e in v
    ]
    problems += [
        f"{where}: focus is on something invisible: {s['name']}" for s in stops if not s["visible"]
    ]
    problems += [
        f"{where}: no visible focus indicator (outline or shadow) on {s['name']}"
        for s in stops
        if s["visible"] and not s["indicator"]
    ]
    for s in stops:
        problems += describe(f"{where}, focused {s['name']}", s.get("contrast", []))
    assert not problems, "\n".join(problems)
    assert present["palette toggle"] == 1 and present["footer link"] >= 1, present


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
        visit.page.keyboard.press("Enter")
        visit.page.wait_for_load_state("networkidle")
        landed = visit.page.url
    finally:
        visit.close()
    assert "md-search-result__link" in focused, focused
    assert landed.split(site_base(), 1)[1].startswith(
        ("autograd-backward/", "backprop-by-hand/")
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

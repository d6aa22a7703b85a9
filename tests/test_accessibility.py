"""Accessibility: an axe-core audit of every page, and every page used with the keyboard alone.

axe-core is the accessibility engine of the browsers' own developer tools. It comes from npm
(package.json pins it; `make test` installs it with `npm ci`) and playwright injects
node_modules/axe-core/axe.min.js into each page under test: the site never loads it itself.
A serious or critical violation fails the audit, named with its page, palette, rule and element.

The keyboard tests press Tab through each whole page and check that focus reaches the
notebook buttons, the code copy buttons, the palette toggle and the footer links, always
on something visible that shows it has the focus.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from docpipe.paths import ROOT
from test_browser import PAGES, Visit, site_base

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}

# Runs axe over the whole document, or with `rules` only those rules on the focused element.
RUN_AXE = """async ({ blocking, rules }) => {
    const only = rules ? { runOnly: rules } : {};
    const context = rules ? document.activeElement : document;
    const result = await axe.run(context, { resultTypes: ['violations'], ...only });
    return result.violations
        .filter(v => blocking.includes(v.impact))
        .map(v => ({
            rule: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map(n => ({
                target: n.target.join(' '),
                html: n.html,
                summary: n.failureSummary || '',
            })),
        }));
}"""


def axe_script() -> Path:
    if AXE.exists():
        return AXE
    reason = (
        "ACCESSIBILITY AUDIT NOT RUN: node_modules/axe-core is missing "
        "(make test installs it with `npm ci`)"
    )
    if os.environ.get("CI"):
        pytest.fail(reason + "; under CI a skipped audit is a failure")
    pytest.skip(reason)


def serious_violations(visit: Visit, rules: list[str] | None = None) -> list[dict]:
    """The page's serious and critical axe violations (rule, impact, help, nodes); with
    `rules`, only those rules and only on the focused element."""
    if not visit.page.evaluate("() => typeof axe !== 'undefined'"):
        visit.page.add_script_tag(path=axe_script())
    return visit.page.evaluate(RUN_AXE, {"blocking": list(BLOCKING), "rules": rules})


def describe(where: str, violations: list[dict]) -> list[str]:
    """One line per failing element: where (page and palette), rule, element and why."""
    lines = []
    for v in violations:
        for node in v["nodes"]:
            why = " ".join(node["summary"].split())
            lines.append(
                f"{where}: {v['rule']} ({v['impact']}: {v['help']}) "
                f"at `{node['target']}` {node['html'][:160]!r}: {why[:300]}"
            )
    return lines


# Waits until the theme's animations and transitions (after a resize) end, within a bound.
SETTLED = """() => Promise.race([
    Promise.all(document.getAnimations().map(a => a.finished.catch(() => null))),
    new Promise(done => setTimeout(done, 2000)),
])"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_page_has_no_serious_accessibility_violation(path, scheme, browser, server):
    """Each viewport in turn, in one visit: the page opens at the first size and is resized
    to the next once audited."""
    axe_script()
    visit = Visit(browser, server, scheme)
    found = []
    try:
        visit.page.set_viewport_size(next(iter(VIEWPORTS.values())))
        visit.open(path, until="load")
        # audit collapsed content (the "How this page was made" note) as a reader who opens it
        visit.page.evaluate(
            "() => document.querySelectorAll('details').forEach(d => d.open = true)"
        )
        for viewport, size in VIEWPORTS.items():
            visit.page.set_viewport_size(size)
            visit.page.evaluate(SETTLED)
            where = f"{path} ({scheme} palette, {viewport})"
            found += describe(where, serious_violations(visit))
    finally:
        visit.close()
    assert not found, f"{len(found)} serious accessibility violations:\n" + "\n".join(found)


# What the focused element is and whether the reader can see that it has the focus. The
# palette toggle is a visually hidden radio button that shows its focus on the label after
# it; the search box shows it by opening the search dialog over the page. A link or button
# with text gets a kind (page region, tag and classes): each kind's focused colours are
# checked once per page, because a focused link takes other colours than a resting one.
SEARCH_OPEN = "() => document.getElementById('__search').checked"
FOCUS = """() => {
    const e = document.activeElement;
    if (!e || e === document.body) return null;
    e.dataset.tabStop = '';
    const shown = e.matches('input.md-option') ? e.nextElementSibling : e;
    const style = getComputedStyle(shown);
    const box = shown.getBoundingClientRect();
    const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0)
        || style.boxShadow !== 'none';
    const search = e.matches('.md-search__input');
    const searchOpen = search && document.getElementById('__search').checked;
    const label = (e.getAttribute('aria-label') || e.title || e.textContent || '').trim();
    const regions = ['.md-header', '.md-sidebar--primary', '.md-sidebar--secondary',
                     '.jupyter-wrapper', '.md-content', '.md-footer'];
    const region = regions.find(r => e.closest(r)) || 'page';
    const classes = [...e.classList].filter(c => c !== 'focus-visible').join('.');
    return {
        name: `<${e.tagName.toLowerCase()} class="${e.className}"> ${label.slice(0, 50)}`,
        visible: box.width > 0 && box.height > 0 && shown.checkVisibility(),
        indicator: ring || searchOpen,
        search,
        textKind: e.matches('a, button') && e.textContent.trim()
            ? `${region} ${e.tagName.toLowerCase()}.${classes}` : null,
    };
}"""
# Colours are checked as they end up on focus, not halfway through the theme's transitions.
NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; }"

# The controls the keyboard must reach on every page that has them (those inside a closed
# <details> block are not shown, and the reader reaches them after opening it).
MUST_REACH = {
    "notebook button": ".notebook-links a",
    "code copy button": ".md-code__button, clipboard-copy",
    "palette toggle": "input.md-option[name='__palette']:checked",
    "footer link": ".md-footer a",
}
UNREACHED = """(selector) => [...document.querySelectorAll(selector)]
    .filter(e => e.matches('input.md-option') || e.checkVisibility())
    .filter(e => !('tabStop' in e.dataset))
    .map(e => `<${e.tagName.toLowerCase()} class="${e.className}"> `
        + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 50))"""
MOST_TAB_STOPS = 2000  # far more than any page has: a page that traps focus fails here


# The focused kinds (region, tag and classes) whose colours this process has checked, per
# palette: a kind takes its colours from the theme's CSS, the same on every page, so each is
# checked on the first page that has it. The keyboard tests of one palette share a worker.
CHECKED_KINDS: dict[str, set[str]] = {"light": set(), "dark": set()}


def tab_through(visit: Visit, checked: set[str]) -> list[dict]:
    """Press Tab from the top of the page until focus leaves the page's last element; check
    the colours of each focused kind not in `checked` (and add it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    visit.page.add_style_tag(content=NO_TRANSITIONS)
    stops = []
    for _ in range(MOST_TAB_STOPS):
        visit.page.keyboard.press("Tab")
        stop = visit.page.evaluate(FOCUS)
        if stop is None:
            # Past the last element focus leaves the page, and one more Tab wraps around to
            # the first stop. Anything else was a moment without focus (search closing).
            visit.page.keyboard.press("Tab")
            stop = visit.page.evaluate(FOCUS)
            if stop is None or not stops or stop["name"] == stops[0]["name"]:
                return stops
        if stop["search"] and not stop["indicator"]:  # the dialog opens a moment later
            try:
                visit.page.wait_for_function(SEARCH_OPEN, timeout=10_000)
            except PlaywrightTimeout:
                pass  # reported as focus without an indicator
            stop = visit.page.evaluate(FOCUS)
        if stop["textKind"] and stop["textKind"] not in checked:
            checked.add(stop["textKind"])
            stop["contrast"] = serious_violations(visit, ["color-contrast"])
        stops.append(stop)
    raise AssertionError(f"focus never left the page after {MOST_TAB_STOPS} Tab presses")


@pytest.mark.parametrize(
    "scheme", [pytest.param(s, marks=pytest.mark.xdist_group(f"keyboard-{s}")) for s in SCHEMES]
)
@pytest.mark.parametrize("path", PAGES)
def test_keyboard_reaches_every_control_with_visible_focus(path, scheme, browser, server):
    axe_script()
    visit = Visit(browser, server, scheme)
    try:
        visit.open(path, until="load")
        stops = tab_through(visit, CHECKED_KINDS[scheme])
        unreached = {kind: visit.page.evaluate(UNREACHED, css) for kind, css in MUST_REACH.items()}
        present = {
            kind: visit.page.evaluate("(css) => document.querySelectorAll(css).length", css)
            for kind, css in MUST_REACH.items()
        }
    finally:
        visit.close()
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

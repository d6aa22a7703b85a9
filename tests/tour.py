"""One visit to each page in each palette, shared by the tests that look at it.

Opening a page costs more than most checks made on it, so the offline check (with its
screenshot), the keyboard walk and the axe audit of a page in one palette happen in one tab,
in that order, each on the page as the one before left it, tidied: the walk's focus and scroll
are reset before the audit. The tests of one page and palette share an xdist group, hence a
worker, which takes the tour once and keeps what each part found (or the error it raised) for
the test that asserts on it.

axe-core is the accessibility engine of the browsers' own developer tools. It comes from npm
(package.json pins it; `make test` installs it with `npm ci`) and playwright injects
node_modules/axe-core/axe.min.js into each page under test: the site never loads it itself.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from filelock import FileLock

from browsing import ROOT, Visit, not_run

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}

# Runs axe over the whole document, or the focused element; all rules, or only `rules`; with
# `marked`, the colour rules only on the elements marked for them (colour_looks_to_audit).
RUN_AXE = """async ({ blocking, rules, focused, marked }) => {
    const only = rules ? { runOnly: rules } : {};
    const context = focused ? document.activeElement : document;
    if (marked) axe.configure({ rules: [
        { id: 'color-contrast', selector: '[data-colours-audited]' },
        { id: 'link-in-text-block',
          selector: 'a[href][data-colours-audited], [role=link][data-colours-audited]' },
    ] });
    let result;
    try {
        result = await axe.run(context, { resultTypes: ['violations'], ...only });
    } finally {
        if (marked) axe.reset();
    }
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
    not_run(
        "ACCESSIBILITY AUDIT NOT RUN: node_modules/axe-core is missing "
        "(make test installs it with `npm ci`)",
        "audit",
    )


def serious_violations(
    visit: Visit, rules: list[str] | None = None, focused: bool = False, marked: bool = False
) -> list[dict]:
    """The page's serious and critical axe violations (rule, impact, help, nodes); with
    `rules`, only those rules; with `focused`, only on the focused element; with `marked`,
    the colour rules only on the elements colour_looks_to_audit marked."""
    if not visit.page.evaluate("() => typeof axe !== 'undefined'"):
        visit.page.add_script_tag(path=axe_script())
    return visit.page.evaluate(
        RUN_AXE,
        {"blocking": list(BLOCKING), "rules": rules, "focused": focused, "marked": marked},
    )


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


class CheckedKinds:
    """What this test session has checked in one palette, shared by every xdist worker
    through a file: the focused kinds (region, tag and classes) whose colours were checked,
    or the colour looks audited (COLOUR_LOOKS). A kind takes its colours from the theme's
    CSS, the same on every page, so each is checked on the first page that has it (checking
    one costs an axe run over the whole page, half a second)."""

    def __init__(self, path: Path):
        self.path = path

    def claim_all(self, kinds: list[str]) -> set[str]:
        """Those of `kinds` no caller has claimed yet, now claimed by this one."""
        with FileLock(f"{self.path}.lock"):
            known = json.loads(self.path.read_text()) if self.path.exists() else []
            new = set(kinds) - set(known)
            if new:
                self.path.write_text(json.dumps([*known, *sorted(new)]))
            return new


# The walk's record, kept in the page: after each Tab key has moved the focus (at its keyup,
# which reaches the page even when the focus has left it), what FOCUS finds, with the focused
# element numbered (data-stop) and its focused look noted for the colour check after the walk.
# The walk sends each batch of Tab keys together (Visit.press_tab) and asks the page for their
# record once per batch: asking after each key cost 2 ms more than the key itself.
LOOK = """(e) => {
    const s = getComputedStyle(e.matches('input.md-option') ? e.nextElementSibling : e);
    return [s.color, s.backgroundColor, s.outlineStyle, s.outlineColor, s.boxShadow].join(' / ');
}"""
RECORD_STOPS = (
    "() => { const focus = "
    + FOCUS
    + "; const look = "
    + LOOK
    + """;
    window.__stops = [];
    let n = 0;
    document.addEventListener('keyup', event => {
        if (event.key !== 'Tab') return;
        const stop = focus();
        if (stop) {
            const e = document.activeElement;
            if (!('stop' in e.dataset)) e.dataset.stop = n++;  // its number on its first visit
            stop.n = Number(e.dataset.stop);
            stop.look = look(e);
        }
        window.__stops.push(stop);
    }, true);
}"""
)
RECORDED = "() => window.__stops.splice(0)"
# How many stops to expect, roughly: the batch size shrinks as the walk nears the end, so
# that it presses Tab few times past the end.
TABBABLE = """() => [...document.querySelectorAll(
    'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
    .filter(e => e.checkVisibility()).length"""
FOCUSED_LOOK = (
    "(n) => { const e = document.querySelector(`[data-stop='${n}']`); e.focus(); return ("
    + LOOK
    + ")(e); }"
)
BATCH = 25


def tab_through(visit: Visit, checked: CheckedKinds | set[str]) -> list[dict]:
    """Press Tab from the top of the page until focus leaves the page's last element; check
    the colours of each focused kind not yet `checked` (and add it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    visit.page.add_style_tag(content=NO_TRANSITIONS)
    visit.page.evaluate(RECORD_STOPS)
    search = visit.page.evaluate("() => !!document.querySelector('.md-search__input')")
    expected = visit.page.evaluate(TABBABLE)
    log: list[dict | None] = []
    while len(log) < MOST_TAB_STOPS:
        # Up to the search box one key at a time: focusing it opens the search dialog a
        # moment later, and the walk waits for it as a reader would. Then in batches.
        one = search and not any(stop and stop["search"] for stop in log)
        visit.press_tab(1 if one else max(4, min(BATCH, expected - len(log))))
        new = visit.page.evaluate(RECORDED)
        if not new:  # every keyup records a stop or its absence
            raise AssertionError("the Tab keys sent reached the page without a keyup")
        last = new[-1]
        if one and last and last["search"] and not last["indicator"]:
            try:
                visit.page.wait_for_function(SEARCH_OPEN, timeout=10_000)
            except PlaywrightTimeout:
                pass  # reported as focus without an indicator
            last["indicator"] = visit.page.evaluate(FOCUS)["indicator"]
        log += new
        stops = walked(log)
        if stops is not None:
            break
    else:
        raise AssertionError(f"focus never left the page after {MOST_TAB_STOPS} Tab presses")
    for stop in stops:
        if stop["textKind"] and _claim(checked, stop["textKind"]):
            stop["contrast"] = focused_contrast(visit, stop)
    return stops


def walked(log: list[dict | None]) -> list[dict] | None:
    """The stops of one walk through the page, from the record of each Tab press; None if
    the record does not reach the end yet. Past the last element focus leaves the page (no
    stop), and one more Tab wraps around to the first stop; a moment without focus followed
    by another stop (search closing) is no end."""
    stops: list[dict] = []
    for i, stop in enumerate(log):
        if stop is None:
            if i + 1 == len(log):
                return None
            after = log[i + 1]
            if after is None or not stops or after["name"] == stops[0]["name"]:
                return stops
        else:
            stops.append(stop)
    return None


def focused_contrast(visit: Visit, stop: dict) -> list[dict]:
    """color-contrast on the element of `stop`, focused again (after the walk, so as not to
    change where the walk's next Tab went). The page's last focus came from the keyboard, so
    it matches :focus-visible as it did then; its look must be the one the walk noted."""
    look = visit.page.evaluate(FOCUSED_LOOK, stop["n"])
    if look != stop["look"]:
        summary = f"{stop['look']} -> {look}"
        return [
            {
                "rule": "focus-look",
                "impact": "serious",
                "help": "focused again, it does not look as it did when the Tab key focused it",
                "nodes": [{"target": stop["name"], "html": "", "summary": summary}],
            }
        ]
    return serious_violations(visit, ["color-contrast"], focused=True)


def _claim(checked: CheckedKinds | set[str], kind: str) -> bool:
    return kind in _claim_all(checked, [kind])


def _claim_all(checked: CheckedKinds | set[str], kinds: list[str]) -> set[str]:
    if isinstance(checked, CheckedKinds):
        return checked.claim_all(kinds)
    new = set(kinds) - checked
    checked |= new
    return new


@dataclass
class Tour:
    """What each part of one visit found, or the exception it raised."""

    found: dict[str, object] = field(default_factory=dict)

    def part(self, name: str):
        """What the part `name` found; its exception, raised again, if it failed."""
        value = self.found[name]
        if isinstance(value, BaseException):
            raise value
        return value


def group(path: str, scheme: str) -> pytest.MarkDecorator:
    """The xdist group of every test that looks at this page in this palette."""
    return pytest.mark.xdist_group(f"tour {path} {scheme}")


def params(pages: list[str]) -> list:
    """(path, scheme) parameters for every page in both palettes, grouped by visit."""
    return [pytest.param(p, s, marks=group(p, s)) for p in pages for s in SCHEMES]


_TAKEN: dict[tuple[str, str], Tour] = {}


def tour(browser, server: str, path: str, scheme: str, shared: Path) -> Tour:
    """The visit to `path` in the `scheme` palette, taken on first use in this process;
    `shared` is a folder every worker of the session sees (for CheckedKinds)."""
    if (path, scheme) not in _TAKEN:
        kinds = CheckedKinds(shared / f"focused-kinds-{scheme}.json")
        looks = CheckedKinds(shared / f"colour-looks-{scheme}.json")
        _TAKEN[path, scheme] = take(Visit(browser, server, scheme), path, scheme, kinds, looks)
    return _TAKEN[path, scheme]


def take(
    visit: Visit,
    path: str,
    scheme: str,
    kinds: CheckedKinds | set[str],
    looks: CheckedKinds | set[str],
) -> Tour:
    """Every part of the visit in turn, in `visit`'s tab (closed at the end); `kinds` and
    `looks` are the focused kinds and the colour looks already checked."""
    taken = Tour()
    parts = {
        "offline": lambda: _offline(visit, path, scheme),
        "keyboard": lambda: _keyboard(visit, kinds),
        "axe": lambda: _axe(visit, path, scheme, looks),
    }
    try:
        for name, part in parts.items():
            try:
                taken.found[name] = part()
            # kept for the test of that part, pytest's skip and fail (a missing tool) too
            except (Exception, pytest.skip.Exception, pytest.fail.Exception) as error:
                taken.found[name] = error
        # What the page fetched late (after it loaded) or logged while the keyboard and the
        # audit used it: the offline check reads the requests and errors of the whole visit,
        # seconds long, instead of waiting for the network to idle before the screenshot.
        if isinstance(taken.found["offline"], list):
            taken.found["offline"] = visit.traffic(path) + taken.found["offline"]
    finally:
        visit.close()
    return taken


# A full-page screenshot of a long page renders all of it (30,000 pixels and more): what a
# person reviews, not what a test asserts, so `make test` takes none and `make screenshots`
# takes all 24 (every page in both palettes), with the same tours.
SCREENSHOTS_WANTED = "AUTOGRAD_DOCS_SCREENSHOTS"


def _offline(visit: Visit, path: str, scheme: str) -> list[str]:
    """Opens the page (once it has loaded, with its images and fonts), checks what it shows
    and takes its full-page screenshot; take() adds the visit's requests and errors."""
    visit.open(path, until="load")
    problems = visit.shown(path)
    if os.environ.get(SCREENSHOTS_WANTED):  # `make screenshots`: for a person to look at
        visit.screenshot(path, scheme)
    return problems


def keyboard_problems(where: str, walked: dict) -> list[str]:
    """What the keyboard part found wrong, one line each, `where` naming page and palette."""
    stops, unreached, present = walked["stops"], walked["unreached"], walked["present"]
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
    if present["palette toggle"] != 1 or present["footer link"] < 1:
        problems.append(f"{where}: no palette toggle or no footer link: {present}")
    return problems


def _keyboard(visit: Visit, kinds: CheckedKinds | set[str]) -> dict:
    stops = tab_through(visit, kinds)
    unreached = {kind: visit.page.evaluate(UNREACHED, css) for kind, css in MUST_REACH.items()}
    present = {
        kind: visit.page.evaluate("(css) => document.querySelectorAll(css).length", css)
        for kind, css in MUST_REACH.items()
    }
    return {"stops": stops, "unreached": unreached, "present": present}


# The walk leaves focus on the page's first stop and the page scrolled; the audit starts, as a
# reader does, from the top with nothing focused and the search closed.
UNFOCUSED_AT_TOP = """() => {
    document.activeElement?.blur();
    const search = document.getElementById('__search');
    if (search && search.checked) {
        search.checked = false;
        search.dispatchEvent(new Event('change'));
    }
    window.scrollTo(0, 0);
    return !(search && search.checked);
}"""

# The page reacts to its own size with ResizeObservers: Material makes a code block that
# overflows focusable (tabindex 0) and docs/javascripts does so for the other boxes that
# scroll. Observers are told in the next rendering step after a resize, not when the resize
# returns; an audit run before that step (a loaded machine delays it) finds every newly
# overflowing box unfocusable. This resolves once a ResizeObserver made now has been told of
# the layout at `width`: observers are told in the order they were made, so the page's own,
# made when it loaded, have then been told too. false if that never happens, within a bound.
LAYOUT_SEEN = """(width) => new Promise(done => {
    const seen = new ResizeObserver(() => {
        if (window.innerWidth !== width) return;  // the new size is not laid out yet
        seen.disconnect();
        done(true);
    });
    seen.observe(document.documentElement);
    setTimeout(() => { seen.disconnect(); done(false); }, 10000);
})"""


def settle(visit: Visit, width: int) -> None:
    """Wait until the page has reacted to its layout at `width`: its observers, then the
    theme's animations and transitions."""
    assert visit.page.evaluate(LAYOUT_SEEN, width), f"the page was never laid out at {width}px"
    visit.page.evaluate(SETTLED)


# The axe rules whose outcome depends on colours: contrast of text, and links told apart from
# the text around them (color-contrast-enhanced, the AAA level, is off by default).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

# The colour rules look at each element with text, a few thousand on a long page, and cost
# three quarters of an audit. Their outcome for an element follows from what the browser
# paints it with: its computed colours, fonts, opacity, decorations and those of its
# pseudo-elements, the same of every ancestor (the backgrounds behind it), and whatever else
# is painted under or over it. Two elements that agree on all of that cannot differ, on one
# page or two, at one width or another: the theme's stylesheet gives a paragraph, a code token
# or a link of the same kind the same look everywhere. So each look is audited once per test
# session (shared by the workers, as CheckedKinds), on the first element shown with it, and
# the audit of every later page and width looks only at the elements it has not seen:
#   - an element's look is its own and its ancestors' computed values of LOOK_PROPERTIES
#     (and its tag, role and disabled state), hashed; the palette changes the colours, so it
#     changes every look;
#   - an element that another painted element (positioned, with a background, where its
#     clipping ancestors let it show) overlaps, or whose box has no size, is audited every
#     time and its look not counted as seen;
#   - an element that neither rule can fail is not audited, and its look not counted as
#     seen: one the browser does not paint (checkVisibility false: display none, visibility
#     hidden, opacity 0, content-visibility hidden, on it or an ancestor), which axe passes
#     as hidden, and a link with no text (a code line's anchor), which color-contrast (text
#     of its own) and link-in-text-block (the link's text) do not apply to. Hundreds of them
#     on a long page cost more than half of its colour audit.
#     test_what_the_colour_audit_leaves_out_cannot_fail_it makes them all faint and finds
#     nothing.
# A colour defect on one page, at one width or in one palette changes the look of the
# elements it touches, which are then audited where they show it:
# test_a_colour_defect_on_a_later_page_fails_its_audit plants one on a page whose look is
# otherwise all seen, and test_a_defect_planted_in_one_palette_fails_its_checks one at the
# phone width only. A violation that many pages share is named on the first one audited.
LOOK_PROPERTIES = [
    "color", "-webkit-text-fill-color", "opacity", "background-color", "background-image",
    "background-clip", "font-size", "font-weight", "text-shadow", "filter", "backdrop-filter",
    "mix-blend-mode", "visibility", "display", "clip", "clip-path", "text-decoration-line",
    "text-decoration-style", "text-decoration-color", "border-bottom-style",
    "border-bottom-color", "box-shadow",
]  # fmt: skip
PSEUDO_PROPERTIES = ["content", "color", "opacity", "background-color", "background-image"]
COLOUR_LOOKS = r"""({ own, pseudo }) => {
    const hash = text => {  // 53 bits of cyrb53
        let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
        for (let i = 0; i < text.length; i++) {
            const c = text.charCodeAt(i);
            h1 = Math.imul(h1 ^ c, 2654435761);
            h2 = Math.imul(h2 ^ c, 1597334677);
        }
        h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
        h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
        return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
    };
    const values = (style, names) => names.map(n => style.getPropertyValue(n)).join('|');
    // a pseudo-element whose content is none (or normal: none for ::before and ::after) is
    // not drawn, so its other properties cannot change what the element looks like
    const drawn = (e, which) => {
        const style = getComputedStyle(e, which);
        const content = style.getPropertyValue('content');
        return content === 'none' || content === 'normal' ? 'none' : values(style, pseudo);
    };
    const looks = new Map();
    const look = e => {
        if (!e) return '';
        if (!looks.has(e)) {
            const mine = [e.tagName, e.getAttribute('role'), e.matches(':disabled'),
                e.getAttribute('aria-disabled'), values(getComputedStyle(e), own),
                drawn(e, '::before'), drawn(e, '::after')].join(' ');
            looks.set(e, hash(look(e.parentElement) + ' > ' + mine));
        }
        return looks.get(e);
    };
    const clear = c => c === 'transparent' || /^rgba\(.*,\s*0\)$/.test(c);
    // what of a painted element shows: its box, clipped by every ancestor that clips
    const clipped = e => {
        let { left, top, right, bottom } = e.getBoundingClientRect();
        for (let a = e.parentElement; a; a = a.parentElement) {
            const style = getComputedStyle(a);
            if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
            const c = a.getBoundingClientRect();
            left = Math.max(left, c.left); top = Math.max(top, c.top);
            right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
        }
        return { left, top, right, bottom };
    };
    const all = [...document.querySelectorAll('body *')];
    const painters = all.filter(e => {
        const style = getComputedStyle(e);
        return style.position !== 'static' && e.checkVisibility()
            && (style.backgroundImage !== 'none' || !clear(style.backgroundColor));
    }).map(e => [e, clipped(e)]);
    const texts = all.filter(e => e.matches('a[href], [role=link], input, select, textarea')
        || [...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.data.trim()));
    window.__colourLooks = texts;
    return texts.map(e => {
        if (!e.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
        if (e.matches('a[href], [role=link]') && !e.textContent.trim()) return false;
        const r = e.getBoundingClientRect();
        const shown = r.width > 0 && r.height > 0;
        const overlapped = painters.some(([p, q]) => q.left < r.right && r.left < q.right
            && q.top < r.bottom && r.top < q.bottom && p !== e && !p.contains(e));
        return shown && !overlapped ? look(e) : null;
    });
}"""
MARK_FOR_COLOURS = """(chosen) => {
    document.querySelectorAll('[data-colours-audited]')
        .forEach(e => e.removeAttribute('data-colours-audited'));
    chosen.forEach(i => window.__colourLooks[i].setAttribute('data-colours-audited', ''));
}"""


def colour_looks(visit: Visit) -> list[str | None | bool]:
    """COLOUR_LOOKS of the open page: for each element with text, in document order, its
    look, None (audited every time) or False (the colour rules cannot fail it)."""
    return visit.page.evaluate(COLOUR_LOOKS, {"own": LOOK_PROPERTIES, "pseudo": PSEUDO_PROPERTIES})


def colour_looks_to_audit(visit: Visit, seen: CheckedKinds | set[str]) -> int:
    """Marks for the colour rules the elements whose look is not `seen` yet (one each, the
    look then seen) and those audited every time; how many it marked."""
    looks = colour_looks(visit)
    new = _claim_all(seen, sorted({k for k in looks if isinstance(k, str)}))
    chosen = []
    for i, key in enumerate(looks):
        if key is None or key in new:
            chosen.append(i)
            new.discard(key)
    visit.page.evaluate(MARK_FOR_COLOURS, chosen)
    return len(chosen)


OPEN_DETAILS = "() => document.querySelectorAll('details').forEach(d => d.open = true)"

# The elements whose box or visibility changes when the page's palette is switched in place
# (the scheme attribute Material sets on <body>), but a figure's image for one palette.
PALETTE_MOVES = r"""(other) => {
    const all = [...document.querySelectorAll('body *')];
    const shapes = () => all.map(e => {
        const r = e.getBoundingClientRect();
        return [r.left, r.top, r.width, r.height, e.checkVisibility()].join(' ');
    });
    const body = document.body;
    const mine = body.getAttribute('data-md-color-scheme');
    const here = shapes();
    body.setAttribute('data-md-color-scheme', other);
    const there = shapes();
    body.setAttribute('data-md-color-scheme', mine);
    const figure = e => e.matches('img') && /#only-(light|dark)$/.test(e.getAttribute('src'));
    return all.flatMap((e, i) => here[i] === there[i] || figure(e) ? [] : [
        `<${e.tagName.toLowerCase()} class="${e.className}">: ${here[i]} in this palette,`
        + ` ${there[i]} in the other`]);
}"""


def audited_rules(scheme: str, viewport: str) -> list[str] | None:
    """The rules audited in this palette at this width (None: all of them).

    Everything is audited at the desktop width in both palettes, and at the phone width in
    the light one. At the phone width in the dark palette only the colour rules run again,
    because the others cannot find anything new there: they read the markup, the layout and
    which elements are shown. Both palettes share the markup (one template), and Material's
    palette stylesheet and docs/stylesheets/extra.css's palette rules set colours only (and
    `color-scheme`); mkdocs-jupyter's stylesheet, on notebook pages only, also gives
    `.highlight pre` a padding and overflow in the dark palette, and notebook pages have no
    `.highlight` (their code is `.highlight-ipynb`). So the layout at one width is the same in
    both: switching the palette in place moves or shows no element but a figure's light and
    dark images (PALETTE_MOVES; test_switching_the_palette_moves_no_element_but_a_figures_
    images checks a page of each template at the phone width). What a palette shows or
    hides (a figure's #only-light or #only-dark image, the toggle's label for the other
    palette) has every rule run on it at the desktop width in its own palette. The colour
    rules run in both palettes at both widths, on the looks not audited yet (COLOUR_LOOKS);
    test_a_defect_planted_in_one_palette_fails_its_checks plants a defect that shows at the
    phone width only, in either palette.
    """
    return COLOUR_RULES if (scheme, viewport) == ("dark", "phone") else None


def _axe(visit: Visit, path: str, scheme: str, looks: CheckedKinds | set[str]) -> list[str]:
    """Each viewport in turn: the page is audited at the first size and resized to the next;
    the colour rules look only at the elements whose look is not in `looks` yet."""
    axe_script()
    assert visit.page.evaluate(UNFOCUSED_AT_TOP), f"{path}: the search would not close"
    # audit collapsed content (the "How this page was made" note) as a reader who opens it
    visit.page.evaluate(OPEN_DETAILS)
    found = []
    for viewport, size in VIEWPORTS.items():
        visit.page.set_viewport_size(size)
        settle(visit, size["width"])
        where = f"{path} ({scheme} palette, {viewport})"
        found += audit(visit, where, audited_rules(scheme, viewport), looks)
    return found


def audit(
    visit: Visit, where: str, rules: list[str] | None, looks: CheckedKinds | set[str]
) -> list[str]:
    """One audit of the page as it is laid out now (`where` names page, palette and width):
    `rules` (None: all), the colour rules only on the looks not in `looks` yet."""
    if not colour_looks_to_audit(visit, looks) and rules == COLOUR_RULES:
        return []  # every look here is audited already
    return describe(where, serious_violations(visit, rules, marked=True))

"""The drift report: one self-contained HTML page, written by `regen.py --check --report DIR`.

Text files are compared side by side, line by line (difflib.HtmlDiff). Every drifted figure is
shown as recorded and as the run draws it now, in both palettes, each on its own background,
beside a third panel where the browser marks each pixel that differs and counts them. Figures
are embedded as data: URIs and the page loads nothing else, so it opens from an artifact
download as it is.
"""

from __future__ import annotations

import base64
import difflib
import html
import os
from collections import defaultdict
from pathlib import Path

from docpipe.formats import terminal
from docpipe.project import THEMES as PALETTES
from docpipe.recorded.drift import Drift, marked
from docpipe.statuses import CheckStatus, DriftKind

THEMES = {"light": "Light palette", "dark": "Dark palette"}
assert tuple(THEMES) == PALETTES  # the palettes the naming rule draws every figure in
# Nothing but what the page holds: its own style and script, and images from data: URIs.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


def write(result, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "index.html"
    path.write_text(page(result), encoding="utf-8")
    return path


def page(result) -> str:
    """The report of a check (pipeline.CheckResult): failures, drift, then the snippets that
    differ only in the environment stamp (one card per way it differs), then site problems."""
    problems, checked = result.problems, result.checked
    counts = f"{terminal.counts(result)}, {len(problems)} site problems"
    where = os.environ.get("GITHUB_SHA", "")
    shown = sorted(
        (v for v in result.verdicts if v.status in (CheckStatus.FAILED, CheckStatus.DRIFTED)),
        key=lambda v: (v.status != CheckStatus.FAILED, v.snippet is None, v.subject),
    )
    cards = [(_badge(v.status), v.subject, _verdict(v)) for v in shown]
    for note, group in terminal.environment_groups(result.verdicts).items():
        subject = f"{len(group)} snippets (environment stamp only)"
        cards.append((_badge(CheckStatus.ENVIRONMENT_ONLY), subject, _environment(note, group)))
    contents = "".join(
        f'<li><a href="#f{i}">{badge} <code>{_e(subject)}</code></a></li>'
        for i, (badge, subject, _) in enumerate(cards)
    )
    body = "".join(
        f'<section class="card" id="f{i}"><h2>{badge} <code>{_e(subject)}</code></h2>{inner}'
        "</section>"
        for i, (badge, subject, inner) in enumerate(cards)
    )
    if problems:
        items = "".join(f"<li><code>{_e(str(p))}</code></li>" for p in problems)
        body += f'<section class="card"><h2>Site problems</h2><ul>{items}</ul></section>'
    if not cards and not problems:
        body = '<section class="card"><h2>No drift</h2><p>Every snippet checked matches its recording.</p></section>'  # noqa: E501
    return TEMPLATE.format(
        counts=_e(counts),
        checked=checked,
        commit=f" at commit <code>{_e(where[:12])}</code>" if where else "",
        contents=f"<ol class='contents'>{contents}</ol>" if contents else "",
        body=body,
        csp=CSP,
        style=STYLE,
        script=SCRIPT,
    )


def _environment(note: str, group: list) -> str:
    names = ", ".join(f"<code>{_e(v.subject)}</code>" for v in group)
    return (
        f"<p class='note'>The recording's environment differs: {_e(note)}.</p>"
        f"<p>Only the environment stamp differs; the output, values, figures and claims of"
        f" these snippets are the same: {names}.</p>"
        f"<p class='fix'>Fix: {_e(terminal.ENVIRONMENT_FIX)}.</p>"
    )


def _verdict(v) -> str:
    parts = []
    if v.pages:
        parts.append("<p>Shown on " + ", ".join(f"<code>{_e(p)}</code>" for p in v.pages) + ".</p>")
    if v.environment:
        parts.append(
            f"<p class='note'>The recording's environment differs: {_e(v.environment)}.</p>"
        )
    if v.status == CheckStatus.FAILED:
        parts.append("<p>The run failed, so nothing was compared:</p>")
        parts.append(f"<pre>{_e(terminal.report(v))}</pre>")
        return "".join(parts)
    if v.snippet is None:  # a notebook: its report is what there is
        parts.append(f"<pre>{_e(terminal.report(v))}</pre>")
        return "".join(parts)
    rel = v.snippet.project.rel
    figures: dict[str, dict[str, Drift]] = defaultdict(dict)
    for d in v.drifts:
        found = v.snippet.figure_of(d.path)
        if found:
            name, theme = found
            figures[name][theme] = d
        else:
            parts.append(_text(rel(d.path), d, v.files.get(d.path)))
    for name, themes in figures.items():
        parts.append(f"<h3>Figure <code>{_e(name)}</code></h3>")
        for theme in THEMES:
            if theme in themes:
                d = themes[theme]
                parts.append(_figure(rel(d.path), d, v.files.get(d.path), theme))
    fix = _e(terminal.fix(v))
    parts.append(f"<p class='fix'>Fix: <code>{fix}</code>, then review the diff and commit it.</p>")
    return "".join(parts)


def _badge(status: CheckStatus) -> str:
    if status == CheckStatus.ENVIRONMENT_ONLY:
        return '<span class="badge drifted">environment only</span>'
    if status == CheckStatus.FAILED:
        return '<span class="badge failed">failed</span>'
    return '<span class="badge drifted">drifted</span>'


def _text(name: str, d: Drift, actual: bytes | None) -> str:
    name = _e(name)
    if d.problem == DriftKind.MISSING:
        return f"<h3><code>{name}</code> is missing</h3><p>The run produces it; nothing is recorded.</p>"  # noqa: E501
    if d.problem == DriftKind.STALE:
        return f"<h3><code>{name}</code> is stale</h3><p>The run no longer produces it.</p>"
    recorded = d.path.read_text(encoding="utf-8", errors="replace").splitlines()
    now = (actual or b"").decode("utf-8", "replace").splitlines()
    table = difflib.HtmlDiff(tabsize=4).make_table(
        recorded, now, "recorded", "actual run", context=True, numlines=3
    )
    changed = "".join(
        f"<li>line {line}: recorded <code>{_marked(old)}</code>,"
        f" run <code>{_marked(new)}</code></li>"
        for line, old, new in marked(d)
    )
    changed = f"<ul class='changed'>{changed}</ul>" if changed else ""
    return f"<h3><code>{name}</code> differs</h3>{changed}<div class='diff-wrap'>{table}</div>"


def _marked(parts: tuple[str, str, str]) -> str:
    """An excerpt of docpipe.recorded.drift.marked, its changed part in <mark>."""
    before, changed, after = parts
    return f"{_e(before)}<mark>{_e(changed)}</mark>{_e(after)}"


def _figure(name: str, d: Drift, actual: bytes | None, theme: str) -> str:
    recorded = d.path.read_bytes() if d.path.exists() else None
    return (
        f"<div class='compare {theme}'><h4>{THEMES[theme]} <code>{_e(name)}</code></h4>"
        "<div class='panels'>"
        f"{_panel('Recorded', recorded, 'rec', 'not recorded: the run draws a new figure')}"
        f"{_panel('Actual run', actual, 'act', 'the run no longer draws this figure')}"
        "<figure class='panel'><figcaption>Changed pixels <span class='count'></span></figcaption>"
        "<canvas></canvas></figure></div></div>"
    )


def _panel(title: str, svg: bytes | None, role: str, absent: str) -> str:
    if svg is None:
        return f"<figure class='panel'><figcaption>{title}</figcaption><p class='absent'>{absent}</p></figure>"  # noqa: E501
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    return (
        f"<figure class='panel'><figcaption>{title}</figcaption>"
        f"<img class='{role}' alt='{title} figure' src='{uri}'></figure>"
    )


def _e(text: str) -> str:
    return html.escape(text, quote=True)


TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>Drift report: {counts}</title>
<style>{style}</style>
</head>
<body>
<header>
<h1>Drift report</h1>
<p class="summary">{counts}, of {checked} snippets checked{commit}.</p>
{contents}
</header>
<main>
{body}
</main>
<script>{script}</script>
</body>
</html>
"""

STYLE = """
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #fff; --ink: #1f2328;
  --muted: #59636e; --line: #d0d7de; --add: #dafbe1; --sub: #ffebe9; --chg: #fff8c5;
  --drifted: #9a6700; --failed: #cf222e; --accent: #3451b2; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171c; --card: #1e2129; --ink: #e6edf3; --muted: #9198a1; --line: #3d444d;
    --add: #1b4721; --sub: #5d1f21; --chg: #4d3d05; --drifted: #d29922; --failed: #ff7b72;
    --accent: #8fa6ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main { max-width: 1400px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { margin: 0 0 4px; font-size: 28px; }
h2 { margin: 0 0 12px; font-size: 20px; }
h3 { margin: 24px 0 8px; font-size: 16px; }
h4 { margin: 16px 0 8px; font-size: 14px; color: var(--muted); font-weight: 600; }
code, pre, table.diff { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 13px; }
a { color: var(--accent); }
.summary { color: var(--muted); margin: 0 0 12px; }
.contents { margin: 0 0 16px; padding-left: 20px; }
.contents li { margin: 2px 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 20px 24px; margin: 16px 0; }
.badge { display: inline-block; font-size: 12px; font-weight: 700; text-transform: uppercase;
  letter-spacing: .04em; padding: 2px 8px; border-radius: 999px; vertical-align: 2px;
  border: 1px solid currentColor; }
.badge.drifted { color: var(--drifted); }
.badge.failed { color: var(--failed); }
.note { color: var(--drifted); }
.fix { margin-top: 20px; padding: 10px 14px; border-left: 4px solid var(--accent);
  background: var(--bg); }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 12px;
  overflow-x: auto; }
.diff-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table.diff { border-collapse: collapse; width: 100%; }
table.diff td, table.diff th { padding: 1px 8px; white-space: pre; vertical-align: top; }
table.diff .diff_next { display: none; }
table.diff .diff_header { color: var(--muted); text-align: right; user-select: none; width: 1%;
  border-right: 1px solid var(--line); }
table.diff thead th.diff_header { text-align: left; background: var(--bg);
  border-bottom: 1px solid var(--line); }
.diff_add { background: var(--add); }
.diff_sub { background: var(--sub); }
.diff_chg { background: var(--chg); }
.panels { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; }
.panel { margin: 0; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.compare.light .panel { background: #ffffff; color: #1f2328; }
.compare.dark .panel { background: #1e2129; color: #e6edf3; }
.panel figcaption { font-size: 13px; font-weight: 600; padding: 6px 10px;
  border-bottom: 1px solid rgba(128, 128, 128, .35); }
.panel img, .panel canvas { display: block; width: 100%; height: auto; }
.panel .absent { padding: 24px 10px; margin: 0; font-style: italic; opacity: .7; }
.count { font-weight: 400; opacity: .8; }
@media (max-width: 900px) { .panels { grid-template-columns: 1fr; } }
"""

# Marks each pixel that differs between the recorded and the actual figure: the recorded one
# faded to its background, every changed pixel in a strong colour, and a count.
SCRIPT = """
const MARK = {light: [229, 0, 110], dark: [255, 95, 175]};
const BACKGROUND = {light: [255, 255, 255], dark: [30, 33, 41]};
function pixels(img, width, height, background) {
  const canvas = document.createElement("canvas");
  canvas.width = width; canvas.height = height;
  const context = canvas.getContext("2d");
  context.fillStyle = `rgb(${background})`;
  context.fillRect(0, 0, width, height);
  if (img) context.drawImage(img, 0, 0, width, height);
  return context.getImageData(0, 0, width, height).data;
}
async function compare(block) {
  const theme = block.classList.contains("dark") ? "dark" : "light";
  const recorded = block.querySelector("img.rec"), actual = block.querySelector("img.act");
  const canvas = block.querySelector("canvas"), count = block.querySelector(".count");
  const images = [recorded, actual].filter(Boolean);
  await Promise.all(images.map((img) => img.decode()));
  const scale = 2;  // draw at twice the figure's size, so thin lines stay visible
  const width = Math.max(...images.map((i) => i.naturalWidth)) * scale;
  const height = Math.max(...images.map((i) => i.naturalHeight)) * scale;
  const a = pixels(recorded, width, height, BACKGROUND[theme]);
  const b = pixels(actual, width, height, BACKGROUND[theme]);
  canvas.width = width; canvas.height = height;
  const context = canvas.getContext("2d");
  const out = context.createImageData(width, height);
  const mark = MARK[theme], back = BACKGROUND[theme];
  let changed = 0;
  for (let i = 0; i < a.length; i += 4) {
    const delta = Math.max(Math.abs(a[i] - b[i]), Math.abs(a[i + 1] - b[i + 1]),
                           Math.abs(a[i + 2] - b[i + 2]));
    if (delta > 24) {
      changed++;
      out.data.set(mark, i);
    } else {
      for (let c = 0; c < 3; c++) out.data[i + c] = back[c] + (a[i + c] - back[c]) * 0.25;
    }
    out.data[i + 3] = 255;
  }
  context.putImageData(out, 0, 0);
  const total = width * height, share = (100 * changed / total).toFixed(2);
  count.textContent = changed
    ? `— ${changed.toLocaleString("en")} of ${total.toLocaleString("en")} pixels (${share}%)`
    : "— no visible pixel differs (the SVG text does)";
}
for (const block of document.querySelectorAll(".compare")) {
  compare(block).catch((error) => {
    block.querySelector(".count").textContent = `— this browser cannot compare: ${error}`;
  });
}
"""

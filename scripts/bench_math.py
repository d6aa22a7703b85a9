"""Math rendered at build time against math rendered in the browser (KaTeX's auto-render),
for each tutorial page: the bytes a reader's browser transfers (each response gzipped, as a
web server sends it), the time from navigation to the last formula visible in headless
Chromium, and the site's build time. `scripts/bench.py` runs it (`--math`: this alone).

"Before" is the site at BEFORE, the last commit whose pages rendered their math in the
browser, taken with `git archive`; "after" is the working tree. Both are copied to a scratch
folder (the repository is never touched) and each is built once to warm its caches.
"""

from __future__ import annotations

import gzip
import http.server
import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

from docpipe.cli import default_project

ROOT = default_project().root

BEFORE = "3dd29a6"  # the last commit with KaTeX's auto-render in the browser
TUTORIAL = ("autograd-backward/", "backprop-by-hand/", "beyond-scalars/")
LOADS = 5  # page loads per page and site, each in a fresh browser context (empty cache)
BUILDS = 3
SKIP = shutil.ignore_patterns(
    ".git", ".venv", "site", ".cache", "test-artifacts", "__pycache__", "node_modules"
)

# Resolves with the time (ms since navigation start) of the first frame at which the page
# holds all its `count` formulas (the parser has reached the last), each with KaTeX's HTML
# styled by KaTeX's stylesheet, and every KaTeX font the page asked for has loaded (fonts.ready
# would also wait for the parser to finish the page).
LAST_FORMULA = """
window.__lastFormula = count => new Promise(resolve => {
    const check = () => {
        const marks = [...document.querySelectorAll('.arithmatex')];
        const katex = marks.map(m => m.querySelector('.katex'));
        const asked = [...document.fonts]
            .filter(f => f.family.replace(/"/g, '').startsWith('KaTeX') && f.status !== 'unloaded');
        const ready = marks.length >= count && katex.every(k => k)
            && getComputedStyle(katex[katex.length - 1]).fontFamily.includes('KaTeX')
            && asked.length && asked.every(f => f.status === 'loaded');
        if (ready) resolve(performance.now());
        else requestAnimationFrame(check);
    };
    check();
});
window.__waiting = window.__lastFormula(__COUNT__);
"""


def trees(tmp: Path) -> dict[str, Path]:
    """Scratch copies of the site before and after, each with its own caches."""
    before, after = tmp / "before", tmp / "after"
    archive = subprocess.run(
        ["git", "archive", "--format=tar", BEFORE], cwd=ROOT, capture_output=True, check=True
    ).stdout
    before.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(before, filter="data")
    shutil.copytree(ROOT, after, ignore=SKIP)
    return {"before": before, "after": after}


def build(tree: Path, site: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one `mkdocs build --strict`; CPU counts every thread of the
    build (V8's too) and hardly depends on what else the machine runs."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=tree,
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench: mkdocs build failed in {tree}:\n{done.stderr}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (now.ru_utime - cpu.ru_utime) + (now.ru_stime - cpu.ru_stime)


def build_times(tree: dict[str, Path], sites: dict[str, Path]) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) of BUILDS builds of each site, taking turns (a busy moment of the
    machine falls on all of them), after a warming build of each; "after, KaTeX cache empty"
    removes the KaTeX cache before each."""
    cold = tree["after"] / ".cache" / "katex"
    runs = {
        "before": (tree["before"], sites["before"], None),
        "after": (tree["after"], sites["after"], None),
        "after, KaTeX cache empty": (tree["after"], sites["after"], cold),
    }
    for where, site, _ in runs.values():
        build(where, site)
    times: dict[str, list] = {name: [] for name in runs}
    for _ in range(BUILDS):
        for name, (where, site, cache) in runs.items():
            if cache is not None:
                shutil.rmtree(cache, ignore_errors=True)
            times[name].append(build(where, site))
    return {
        name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
        for name, t in times.items()
    }


def serve(site: Path) -> tuple[http.server.HTTPServer, str]:
    handler = partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def load(browser, url: str, count: int) -> tuple[int, float]:
    """(bytes transferred, gzipped per response; ms to the last formula) of one cold load of a
    page with `count` formulas."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(LAST_FORMULA.replace("__COUNT__", str(count)))
        page = context.new_page()
        bodies = []
        page.on("response", lambda r: bodies.append(r))
        page.goto(url, wait_until="load")
        ms = page.evaluate("() => window.__waiting")
        page.wait_for_load_state("networkidle")
        sent = sum(len(gzip.compress(r.body(), 6)) for r in bodies if r.url.startswith("http"))
        return sent, ms
    finally:
        context.close()


def measure() -> dict:
    """{"pages": {page: {site: (bytes, ms)}}, "build": {name: (wall, CPU seconds)}}."""
    from playwright.sync_api import sync_playwright

    # Debian's headless shell first, as the browser tests take it (tests/browsing.py)
    names = (os.environ.get("CHROMIUM"), "chromium-headless-shell", "chromium")
    chromium = next((found for n in names if n and (found := shutil.which(n))), None)
    if not chromium:
        sys.exit("bench: the math figures need chromium (make system-deps installs it)")
    figures: dict = {"pages": {p: {} for p in TUTORIAL}, "build": {}}
    with tempfile.TemporaryDirectory(prefix="bench-math-") as tmp:
        tree = trees(Path(tmp))
        sites = {name: Path(tmp) / f"site-{name}" for name in tree}
        figures["build"] = build_times(tree, sites)
        servers = {name: serve(site) for name, site in sites.items()}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            try:
                for page in TUTORIAL:
                    loads: dict[str, list] = {name: [] for name in sites}
                    for _ in range(LOADS):  # taking turns, as the builds
                        for name, site in sites.items():
                            html = (site / page / "index.html").read_text(encoding="utf-8")
                            count = html.count('class="arithmatex"')
                            url = servers[name][1] + page
                            loads[name].append(load(browser, url, count))
                    for name, done in loads.items():
                        figures["pages"][page][name] = (
                            statistics.median(b for b, _ in done),
                            statistics.median(ms for _, ms in done),
                        )
            finally:
                browser.close()
                for httpd, _ in servers.values():
                    httpd.shutdown()
    return figures


def table(figures: dict) -> str:
    rows = []
    for page, by in figures["pages"].items():
        (b0, t0), (b1, t1) = by["before"], by["after"]
        rows.append(
            f"| {page} | {b0 / 1024:.0f} KiB | {b1 / 1024:.0f} KiB | {t0:.0f} ms | {t1:.0f} ms |"
        )
    builds = "\n".join(
        f"| {name} | {wall:.2f} s | {cpu:.2f} s |" for name, (wall, cpu) in figures["build"].items()
    )
    return (
        "| page | bytes before | bytes after | last formula before | last formula after |\n"
        "| --- | --- | --- | --- | --- |\n" + "\n".join(rows) + "\n\n"
        "| `mkdocs build --strict` | wall time | CPU time |\n| --- | --- | --- |\n" + builds + "\n"
    )


HEADING = "## Math rendered at build time"


def section(figures: dict) -> str:
    """BENCHMARKS.md's last section (bench.py --math replaces it from HEADING on)."""
    return f"""{HEADING}

Before: the site at `{BEFORE}`, KaTeX's auto-render in the reader's browser. After: every
formula rendered by the build (`scripts/docpipe/pages/katex.py`). Bytes: every response of a cold
page load, each gzipped (level 6), summed. Last formula: from navigation to the moment every
formula of the page has KaTeX's HTML, styled, with its fonts loaded, in headless Chromium at
1280x900 (median of {LOADS} cold loads, before and after taking turns). Builds: median of
{BUILDS}, taking turns, after a warming build of each; CPU time counts every thread of the build
(V8's too) and hardly depends on the machine's other load, wall time does; "KaTeX cache empty"
removes `.cache/katex` before each (`scripts/bench_math.py`).

{table(figures)}"""


if __name__ == "__main__":
    print(table(measure()))

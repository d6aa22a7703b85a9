"""Benchmark regen, check and the tests: prints each target with its measured value and the
ratio, and writes BENCHMARKS.md (with benchmarks/scale.svg).

    check      python scripts/regen.py --check                (process reuse, default -j)
    verify     python scripts/regen.py --verify VERSION --check, the first version verified
    naive      python scripts/regen.py --check --no-fork -j 1 (one fresh interpreter per snippet)
    floor      one import of what the snippets import (as the zygote imports it) + the
               snippets' own compute and figure drawing, summed and shared among the jobs
    no-change  python scripts/regen.py with nothing changed (the cache answers)
    serve      save to page: while `mkdocs serve` runs on a copy of the repository, a small
               snippet is saved with a new value, until the page shows its new output
    scale      check, no-change regen and the naive loop with N small snippets added
               (bench_scale.py), on copies of the repository
    tests      make test, as the README gives it
    author     a new author's loop, on a copy of the repository and the warm .venv: add a
               one-snippet page (regen.py --new-page), record it, then --check and the strict
               build green; each step's wall time and the loop over one plain --check
               (bench.py --author runs it alone)
    seal       one small snippet run 30 times sealed and 30 times as a plain fork from the
               same warm process: each set-up step of a sealed run (namespaces, mounts,
               Landlock, seccomp and its supervisor, cgroups, capabilities, the ledger) as a
               median and as a ratio to the plain fork's whole run (bench_seal.py;
               bench.py --seal runs it alone)
    math       per tutorial page, math rendered at build time against KaTeX in the browser:
               bytes transferred (gzip), navigation to the last formula visible in headless
               Chromium, and the build time (bench_math.py)

A benchmark, not a test: it asserts nothing. `--quick` skips the test suite and serve;
`--math` measures the math alone and rewrites only its section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_math  # noqa: E402
import bench_scale  # noqa: E402
import bench_seal  # noqa: E402
from docpipe import catalog, pipeline  # noqa: E402
from docpipe.cli import default_project  # noqa: E402
from docpipe.run import execute, machine  # noqa: E402

PROJECT = default_project()
ROOT = PROJECT.root

RESULTS = ROOT / "BENCHMARKS.md"
PLOT = ROOT / "benchmarks" / "scale.svg"
REGEN = bench_scale.REGEN
REPEAT = 3


def wall(command: list[str], repeat: int = REPEAT, env: dict | None = None) -> float:
    """Median wall time of a command that must succeed, run from the repository's root."""
    return bench_scale.timed(command, ROOT, repeat, env)


def one_import() -> float:
    """A fresh interpreter importing, as the zygote does, everything the snippets import: the
    runner, the heavy packages and every module their last runs asked for (the extended
    zygote's share too), once."""
    cat = catalog.load(PROJECT)
    modules = pipeline.preloads(cat.snippets)
    for preloaded in pipeline.last_preloads(PROJECT, cat.snippets).values():
        modules += [m for m in preloaded if m not in modules]
    return imported("docpipe.run.preload", DOCPIPE_PRELOADS=",".join(modules))


def imported(modules: str, **env: str) -> float:
    """A fresh interpreter with the run environment importing `modules`, and leaving at once:
    the zygote never exits while snippets run, so the interpreter's own shutdown (about 1 s
    with torch and sympy loaded) is no part of an import's time."""
    env = {**os.environ, **execute.RUN_ENV, "PYTHONPATH": str(ROOT / "scripts"), **env}
    return wall([sys.executable, "-P", "-c", f"import {modules}, os; os._exit(0)"], env=env)


def compute_seconds() -> tuple[float, int, float, str]:
    """The snippets' own work (run + figures), each in a forked child, one at a time; the
    per-snippet figures are the `duration` settings --shard balances by. Also the largest
    cost of a child beyond its own work (a lazy import the zygote did not pay shows here)."""
    cat = catalog.load(PROJECT)
    opts = pipeline.Options(jobs=1, fork=machine.fork_available())
    outcomes = pipeline.run(cat.snippets, cat, opts, "bench")
    for snippet, o in sorted(outcomes.items()):
        own = o.result.run_seconds + o.result.figure_seconds
        print(
            f"duration {own:6.2f} s  (snippets.toml: {cat.settings[snippet].duration:g})"
            f"  child {o.seconds:6.2f} s  {snippet.name}"
        )
    for page, (seconds, count) in page_seconds(outcomes).items():
        print(f"page {seconds:6.2f} s  ({count} snippets)  {page}")
    total = sum(o.result.run_seconds + o.result.figure_seconds for o in outcomes.values())
    extra = {
        s.name: o.seconds - o.result.run_seconds - o.result.figure_seconds
        for s, o in outcomes.items()
    }
    worst = max(extra, key=extra.get)
    return total, len(outcomes), extra[worst], worst


def page_seconds(outcomes) -> dict[str, tuple[float, int]]:
    """Per page, the seconds of the snippets it shows (run + figures) and how many they are;
    a snippet shown on two pages counts for each."""
    from docpipe.pages.reading import pages_using

    pages: dict[str, tuple[float, int]] = {}
    for snippet, o in outcomes.items():
        own = o.result.run_seconds + o.result.figure_seconds
        for page in pages_using(snippet):
            seconds, count = pages.get(page, (0.0, 0))
            pages[page] = (seconds + own, count + 1)
    return dict(sorted(pages.items()))


def verification_seconds() -> tuple[str, float, float]:
    """The first version pyproject.toml verifies with, the seconds its venv took to build
    (0 when it was there), and the median wall time of verifying it once the venv exists:
    `regen.py --verify VERSION --check`, every snippet run under that torch and compared, as
    CI runs it (nothing written)."""
    from docpipe import verify

    version = verify.versions(PROJECT)[0]
    _, installed = verify.ensure_venv(PROJECT, version)
    return version, installed, wall([*REGEN, "--verify", version, "--check"])


SERVED_SNIPPET = "snippets/by_hand/square.py"  # a small snippet: three gradients, no figure
SERVED_PAGE = "backprop-by-hand/"
SERVED_LINE = re.compile(r"^points = \[.*\]$", re.M)
# Each saves a new value, printed as "x = 0.375 ...". Seven: the first save of a session pays
# what a session pays once (the refresh's own imports, the notebooks' first regen), and a
# median of seven is not the slower of two.
NEW_POINTS = (0.375, 0.625, 0.875, 0.125, 0.25, 0.5, 0.75)


def serve_latency() -> list[tuple[float, float, float]]:
    """(save to page, the snippet's refresh, the site's rebuild) in seconds, once per value in
    NEW_POINTS, on a copy of the repository (the real one is never touched)."""
    skip = shutil.ignore_patterns(
        ".git", ".venv", "site", ".cache", "test-artifacts", "__pycache__"
    )
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=skip)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}/autograd-docs/{SERVED_PAGE}"
        log_path = Path(tmp) / "serve.log"
        log = log_path.open("w")
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=copy,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_for_page(url, "x =  3", timeout=300)
            time.sleep(5)  # let the worker finish importing torch: a session pays that once
            source = copy / SERVED_SNIPPET
            measured = []
            for value in NEW_POINTS:
                _wait_until_quiet(log_path)
                done_before = len(log_path.read_text())
                text = SERVED_LINE.sub(f"points = [3.0, -2.0, {value}]", source.read_text())
                started = time.perf_counter()
                source.write_text(text)
                _wait_for_page(url, f"x = {value:g}", timeout=60)
                seconds = time.perf_counter() - started
                _wait_until_quiet(log_path)
                measured.append((seconds, *_refresh_and_build(log_path.read_text()[done_before:])))
        finally:
            server.terminate()
            server.wait()
            log.close()
    return measured


def _refresh_and_build(log: str) -> tuple[float, float]:
    """The live refresh and the rest of the rebuild that ran it, as `mkdocs serve` logged them
    (MkDocs' "built in" time includes the refresh, which runs before the build proper)."""
    refresh = re.search(r"live: re-ran 1 snippet\(s\) in ([\d.]+) s", log)
    build = refresh and re.search(r"Documentation built in ([\d.]+) seconds", log[refresh.end() :])
    if not build:  # not as expected: the save is still timed, its parts are not
        print(f"bench: the serve log does not say this save's refresh and build:\n{log}")
        return math.nan, math.nan
    return float(refresh[1]), float(build[1]) - float(refresh[1])


def _wait_until_quiet(log: Path, quiet: float = 1.5) -> None:
    """Until `mkdocs serve` has logged nothing for `quiet` seconds (no build running)."""
    size, since = -1, time.monotonic()
    while time.monotonic() - since < quiet:
        time.sleep(0.1)
        if (now := log.stat().st_size) != size:
            size, since = now, time.monotonic()


def _wait_for_page(url: str, text: str, timeout: float) -> None:
    """Poll the page (MkDocs holds a request until its rebuild is done) until it shows text."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                if text in response.read().decode():
                    return
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit(f"bench: {url} never showed {text!r} within {timeout:g} s")


# (name, unit, target, what it measures); a ratio is measured / target, <= 1 meets it.
TARGETS = (
    ("marginal check cost", "ms", 10, "--check wall time per added small snippet, -j {jobs}"),
    ("no-change regen, N=250", "s", 0.3, "python scripts/regen.py with nothing changed"),
    ("no-change regen growth", "", 1.1, "no-change regen at N=250 / at N=0 (flat: near 1)"),
    ("check / floor", "", 1.1, "--check / (one import + summed compute / jobs)"),
    ("check / naive", "", 0.2, "--check / one fresh interpreter per snippet"),
    # issue 51: the seal's cost, 0.03 s (0.019 s before the seal)
    ("largest child overhead", "s", 0.03, "a child's wall time beyond its own compute"),
    ("make test", "s", 120, "the README's test command, wall time"),
    # issue 40 asked for 2 s, issue 51 for 1 s: a saved snippet's new output on its page
    # (median of three saves)
    (
        "serve: save to page",
        "s",
        1,
        "mkdocs serve: a snippet saved, until its page shows the new output",
    ),
)


AUTHOR_HEADING = "## A new author's loop"
AUTHOR_PAGE = "examples/bench_page"


def author_loop() -> dict[str, float]:
    """A new author's loop on a copy of the repository (git's tracked files, the warm .venv
    of this one): the wall time of each step, from adding a one-snippet page (the scaffold,
    regen.py --new-page) to regen.py --check and mkdocs build --strict green. The check is
    --unverified-ok: the new snippet is not verified with the other torch yet, which
    `make verify` does once (its time is the site figure **verify: one more torch**). Also a
    plain --check of the copy before the page, so the loop reads as a ratio of it."""
    steps = {
        "add the page": [*REGEN, "--new-page", AUTHOR_PAGE],
        "record it": [*REGEN, f"snippets/{AUTHOR_PAGE}.py"],
        "check": [*REGEN, "--check", "--unverified-ok"],
        "strict build": [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", "out"],
    }
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    with tempfile.TemporaryDirectory(prefix="bench-author-") as tmp:
        repo = Path(tmp) / "repo"
        subprocess.run(
            ["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(repo)],
            check=True,
            capture_output=True,
        )
        plain = [*REGEN, "--check", "--unverified-ok"]
        bench_scale.timed(plain, repo)  # once to warm what a first run pays (bytecode, caches)
        found = {"plain check, before the page": bench_scale.timed(plain, repo)}
        started = time.perf_counter()
        for name, command in steps.items():
            found[name] = bench_scale.timed(command, repo, env=env)
        found["the loop"] = time.perf_counter() - started
    return found


def author_section(found: dict[str, float]) -> str:
    rows = "\n".join(f"| {name} | {seconds:.2f} s |" for name, seconds in found.items())
    ratio = found["the loop"] / found["plain check, before the page"]
    return f"""{AUTHOR_HEADING}

Measured by `python scripts/bench.py --author` ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC): a
clone of the repository using this `.venv` (warm), a one-snippet page added with
`regen.py --new-page {AUTHOR_PAGE}`, recorded, then `regen.py --check --unverified-ok` and
`mkdocs build --strict`, each once and green. The page's snippet is not verified with the
other torch yet: `make verify` does that once (**verify: one more torch** above, with its venv
built).

| step | wall time |
| --- | --- |
{rows}

The whole loop takes {ratio:.2f} times one plain `--check` of the same clone (a ratio, so that
the machine's speed cancels out).
"""


def author_only() -> int:
    """The author's loop alone, written over its section of BENCHMARKS.md."""
    found = author_loop()
    for name, seconds in found.items():
        print(f"{name:30} {seconds:8.2f} s")
    ratio = found["the loop"] / found["plain check, before the page"]
    print(f"{'the loop / plain check':30} {ratio:8.2f}")
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    before, _, after = old.partition(AUTHOR_HEADING)
    rest = after[after.index("\n## ") :] if "\n## " in after else ""
    text = before.rstrip("\n") + "\n\n" + author_section(found) + rest
    RESULTS.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0


def make_test_in_fresh_clone(ref: str = "HEAD") -> float | None:
    """`make test`'s wall time in a fresh clone of `ref`, as CI runs it on a clean checkout.
    What `make test` installs first (the clone's own .venv and .venv-zensical, its npm tools,
    Debian's chromium) is installed before the clock starts: CI's install is not the suite.
    The venv is the clone's own, not a link to this checkout's: a sealed run sees only its own
    repository, and this checkout's venv is installed from this checkout's scripts."""
    with tempfile.TemporaryDirectory(prefix="bench-clone-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", ref], check=True)
        make = ["make", "-C", str(clone)]
        installs = [".venv/.dev", ".venv-zensical/bin/zensical", "node-deps", "system-deps"]
        subprocess.run([*make, *installs], check=True, capture_output=True)
        started = time.perf_counter()
        run = subprocess.run([*make, "test"], capture_output=True, text=True)
        took = time.perf_counter() - started
        log = ROOT / "test-artifacts" / f"bench-make-test-{ref}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(run.stdout + run.stderr, encoding="utf-8")
        summary = [line for line in run.stdout.splitlines() if " in " in line and "passed" in line]
        print(
            f"make test in a fresh clone of {ref}: {took:.0f} s, exit {run.returncode}"
            f" ({summary[-1].strip('= ') if summary else 'see ' + str(log)})"
        )
        return took if run.returncode == 0 else None  # a failed suite's time measures nothing


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the test suite and serve")
    parser.add_argument("--math", action="store_true", help="only the math figures")
    parser.add_argument("--author", action="store_true", help="only a new author's loop")
    parser.add_argument("--seal", action="store_true", help="only the seal's cost, per step")
    parser.add_argument(
        "--tests",
        nargs="?",
        const="",
        metavar="BEFORE",
        help="only make test, in fresh clones of HEAD (and of the commit BEFORE, if given)",
    )
    args = parser.parse_args(argv)
    if args.math:
        return math_only()
    if args.author:
        return author_only()
    if args.seal:
        return seal_only()
    if args.tests is not None:
        before = make_test_in_fresh_clone(args.tests) if args.tests else None
        after = make_test_in_fresh_clone("HEAD")
        if after is None or (args.tests and before is None):
            return 1  # no row for a suite that failed
        record_make_test(after, args.tests, before)
        return 0
    quick = args.quick
    os.environ["CI"] = "true"
    subprocess.run(REGEN, cwd=ROOT, capture_output=True)  # make the cache current first
    jobs = machine.default_jobs()
    figures = {}
    figures["import"] = one_import()
    figures["import: torch, numpy, matplotlib only"] = imported("torch, numpy, matplotlib.pyplot")
    figures["compute"], count, overhead, worst = compute_seconds()
    figures["floor"] = figures["import"] + figures["compute"] / jobs
    figures["check"] = wall([*REGEN, "--check"])
    figures["naive"] = wall([*REGEN, "--check", "--no-fork", "-j", "1"], repeat=1)
    figures["no-change regen"] = wall(REGEN)
    _, _, figures["verify: one more torch"] = verification_seconds()
    if not quick:
        served = serve_latency()
        for total, refresh, build in served:
            print(f"serve: save to page {total:.2f} s (refresh {refresh:.2f} s,", end=" ")
            print(f"rebuild {build:.2f} s)")
        figures["serve"] = statistics.median(total for total, _, _ in served)
        for i, part in ((1, "serve: refresh"), (2, "serve: rebuild")):
            said = [row[i] for row in served if not math.isnan(row[i])]
            figures[part] = statistics.median(said) if said else math.nan
    rows = bench_scale.series()
    bench_scale.plot(rows, PLOT)
    largest = rows[-1]
    measured = {
        "marginal check cost": 1000 * bench_scale.slope(rows, "check"),
        "no-change regen, N=250": largest["no-change regen"],
        "no-change regen growth": largest["no-change regen"] / rows[0]["no-change regen"],
        "check / floor": figures["check"] / figures["floor"],
        "check / naive": figures["check"] / figures["naive"],
        "largest child overhead": overhead,
    }
    if not quick:
        measured["serve: save to page"] = figures["serve"]
        if (seconds := make_test_in_fresh_clone("HEAD")) is not None:
            measured["make test"] = seconds  # else no row: the line above says it failed
    seal = bench_seal.summary(bench_seal.measure(ROOT))
    print(bench_seal.table(seal))
    formulas = bench_math.measure()
    print(bench_math.table(formulas))
    author = author_loop()
    for name, seconds in figures.items():
        print(f"{name:24} {seconds:8.3f} s")
    print(f"(largest child overhead: {worst})")
    print(f"{'target':24} {'measured':>10} {'target':>10} {'ratio':>7}")
    for name, unit, target, _ in TARGETS:
        if name in measured:
            value = measured[name]
            print(f"{name:24} {value:8.3f} {unit:2} <= {target:<6g} {unit:2} {value / target:6.2f}")
    text = (
        report(figures, measured, rows, count, jobs, worst, seal)
        + "\n"
        + bench_seal.section(seal)
        + "\n"
        + author_section(author)
        + "\n"
        + bench_math.section(formulas)
    )
    RESULTS.write_text(text, encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)} and {PLOT.relative_to(ROOT)}")
    return 0


def seal_only() -> int:
    """The seal's cost alone, written over its section of BENCHMARKS.md (placed before the
    author's loop when there is none yet)."""
    found = bench_seal.summary(bench_seal.measure(ROOT))
    print(bench_seal.table(found))
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    if bench_seal.HEADING in old:
        before, _, after = old.partition(bench_seal.HEADING)
        rest = after[after.index("\n## ") :] if "\n## " in after else ""
    else:
        before, found_author, after = old.partition(AUTHOR_HEADING)
        rest = "\n" + found_author + after if found_author else ""
    text = before.rstrip("\n") + "\n\n" + bench_seal.section(found) + rest
    RESULTS.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0


def math_only() -> int:
    """The math figures alone, written over the math section of BENCHMARKS.md (the other
    figures stay as their last full run left them)."""
    math = bench_math.measure()
    print(bench_math.table(math))
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    kept = old.split(bench_math.HEADING)[0].rstrip("\n")
    RESULTS.write_text(kept + "\n\n" + bench_math.section(math), encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0


def record_make_test(seconds: float, before_ref: str, before: float | None) -> None:
    """Write the make-test row of BENCHMARKS.md from a `--tests` run, which measures nothing
    else (the other rows stay those of the last full run, and the row says so)."""
    name = "make test"
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    compared = f", {before:.0f} s for {before_ref}" if before is not None else ""
    row = target_row(
        name,
        seconds,
        f", in a fresh clone (`bench.py --tests{' ' + before_ref if before_ref else ''}`,"
        f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {head}{compared}; the other rows are from"
        " the last full run)",
    )
    lines = RESULTS.read_text(encoding="utf-8").splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith(f"| {name} |")]
    if at:
        lines[at[0]] = row
    else:  # after the last target row
        last = max(i for i, line in enumerate(lines) if line.startswith("| ") and " <= " in line)
        lines.insert(last + 1, row)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}: {row}")


def target_row(name: str, value: float, said: str = "", jobs: int = 0) -> str:
    """The Targets table's row of target `name` measured at `value`; `said` ends its text."""
    unit, target, what = next(t[1:] for t in TARGETS if t[0] == name)
    return (
        f"| {name} | {value:.3f} {unit} | <= {target:g} {unit} | {value / target:.2f} |"
        f" {what.format(jobs=jobs)}{said} |"
    )


def report(
    figures: dict, measured: dict, rows: list, count: int, jobs: int, worst: str, seal: dict
) -> str:
    marginal_cpu = 1000 * bench_scale.slope(rows, "check CPU")
    marginal_target = next(t[2] for t in TARGETS if t[0] == "marginal check cost")
    base_floor = figures["import: torch, numpy, matplotlib only"] + figures["compute"] / jobs
    base_ratio = figures["check"] / base_floor
    figure_rows = "\n".join(f"| {name} | {seconds:.3f} s |" for name, seconds in figures.items())
    target_rows = "\n".join(
        target_row(name, measured[name], jobs=jobs) for name, *_ in TARGETS if name in measured
    )
    scale_rows = "\n".join(
        f"| {r['n']} | {r['check']:.2f} s | {r['check CPU']:.2f} s | {r['no-change regen']:.3f} s"
        f" | {r['naive']:.1f} s |"
        for r in rows
    )
    return f"""# Benchmarks

Written by `python scripts/bench.py` (`make bench`); do not edit by hand. Last run:
{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {count} snippets, {jobs} cores,
Python {platform.python_version()} on {platform.system()} {platform.machine()}.

## Targets

A ratio is the measured value over the target: at most 1 meets it.

| target | measured | target | ratio | what |
| --- | --- | --- | --- | --- |
{target_rows}

The largest child overhead was {worst}'s.

## The site

| measure | median wall time |
| --- | --- |
{figure_rows}

- **check**: `python scripts/regen.py --check`, torch imported once (by the zygote), one forked
  child per snippet, {jobs} at a time.
- **naive**: the same check with one fresh interpreter per snippet, one at a time
  (`--no-fork -j 1`).
- **import**: one fresh interpreter importing what the zygote imports for the whole site (the
  runner, torch, numpy, matplotlib, and every module the snippets' last runs asked for, which
  a snippet would otherwise import lazily in its own run), as the zygote does it.
- **floor**: that import plus the snippets' own compute and figure drawing (each timed in a
  warm child), summed and shared among {jobs} jobs. With the import of torch, numpy and
  matplotlib only (the modules the snippets import lazily left out), check / floor would be
  {base_ratio:.2f}.
- **no-change regen**: `python scripts/regen.py` when nothing changed.
- **verify: one more torch**: `python scripts/regen.py --verify VERSION --check` for the first
  version `pyproject.toml` verifies with: every snippet run under that torch in its own venv
  (already built) and compared with its recording, beside **check** for the recorded torch.
- **serve**: save to page in `mkdocs serve`: `{SERVED_SNIPPET}` saved with a new value, until
  `{SERVED_PAGE}` shows the new output (median of {len(NEW_POINTS)}; aim <= 1 s). It is the
  kernel's notice of the save (inotify, `docpipe.live.watch`) and MkDocs' wait of 0.1 s for
  more changes, then one MkDocs build: it starts with **serve: refresh**, the snippet re-run
  through regen in a fork of the warm zygote, which the build waits for (up to
  `docpipe.live.WAIT`), then **serve: rebuild**, the rest of that build (as `mkdocs serve` logs
  them): every page of the site, each page's own work and rules found again only where one of
  its inputs changed (docpipe.inputs), the theme's files listed again only where its folders
  changed. The changed notebook is converted by the next build, after the page shows it
  (docpipe.preview).

## Scale

N small snippets (each seeds itself, trains a 64x64 weight for 20 steps and prints one number)
added to a copy of the repository, on one page of their own (`scripts/bench_scale.py`).

| N | check | check CPU | no-change regen | naive loop |
| --- | --- | --- | --- | --- |
{scale_rows}

- **check CPU**: the user and system time of every process of that check (regen, its zygotes,
  every process of every run), the median of its runs.
- **naive loop**: `python snippets/scale/sNNN.py` for each added snippet, one after another.
- **marginal check cost**: the slope of the least-squares line through the check column.
- **marginal check CPU**: {marginal_cpu:.1f} ms per added snippet, the slope through the check
  CPU column. On {jobs} cores a check's wall time cannot grow by less than that over {jobs} per
  added snippet: {marginal_cpu / jobs:.1f} ms. The target ({marginal_target:g} ms) leaves
  {marginal_target * jobs:g} ms of CPU per snippet, all its processes together; the seal's small
  snippet (`snippets/{bench_seal.SNIPPET}.py`, the table below) takes {seal["plain cpu"]:.1f} ms
  of CPU forked with no seal at all, {seal["sealed cpu"]:.1f} ms sealed.

![Wall time against the number of added snippets](benchmarks/scale.svg)
"""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Benchmark regen and check: prints each figure and the ratios, and writes BENCHMARKS.md.

    check      python scripts/regen.py --check                (process reuse, default -j)
    naive      python scripts/regen.py --check --no-fork -j 1 (one fresh interpreter per snippet)
    floor      one import of torch, numpy and matplotlib + the snippets' own compute and
               figure drawing, summed, measured in-process
    no-change  python scripts/regen.py with nothing changed (the cache answers)

A benchmark, not a test: it asserts nothing; the targets are in BENCHMARKS.md and the README.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docpipe import catalog, cli, machine  # noqa: E402
from docpipe.paths import ROOT  # noqa: E402

RESULTS = ROOT / "BENCHMARKS.md"
REGEN = [sys.executable, "scripts/regen.py"]
IMPORT = "import torch, numpy, matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot"
REPEAT = 3


def wall(command: list[str], repeat: int = REPEAT) -> float:
    """Median wall time of a command that must succeed."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            sys.exit(f"bench: {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return statistics.median(times)


def compute_seconds() -> tuple[float, int]:
    """The snippets' own work (run + figures), each in a forked child, one at a time; the
    per-snippet figures are the `duration` settings --shard balances by."""
    cat = catalog.load()
    outcomes = cli.run(cat.snippets, cat, 1, machine.fork_available(), "bench")
    for snippet, o in sorted(outcomes.items()):
        own = o.result.run_seconds + o.result.figure_seconds
        print(
            f"duration {own:6.2f} s  (snippets.toml: {cat.settings[snippet].duration:g})"
            f"  {snippet.name}"
        )
    total = sum(o.result.run_seconds + o.result.figure_seconds for o in outcomes.values())
    return total, len(outcomes)


def main() -> int:
    env = {**os.environ, "CI": "true"}
    os.environ.update(env)
    subprocess.run(REGEN, cwd=ROOT, capture_output=True)  # make the cache current first
    figures = {}
    figures["import"] = wall([sys.executable, "-c", IMPORT])
    figures["compute"], count = compute_seconds()
    figures["floor"] = figures["import"] + figures["compute"]
    figures["check"] = wall([*REGEN, "--check"])
    figures["naive"] = wall([*REGEN, "--check", "--no-fork", "-j", "1"], repeat=1)
    figures["no-change regen"] = wall(REGEN)
    ratios = {
        "check/naive": figures["check"] / figures["naive"],
        "check/floor": figures["check"] / figures["floor"],
    }
    lines = [f"{name:16} {seconds:7.3f} s" for name, seconds in figures.items()]
    lines += [f"{name:16} {ratio:7.3f}" for name, ratio in ratios.items()]
    print("\n".join(lines))
    RESULTS.write_text(report(figures, ratios, count), encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0


def report(figures: dict, ratios: dict, count: int) -> str:
    rows = "\n".join(f"| {name} | {seconds:.3f} s |" for name, seconds in figures.items())
    targets = {"check/naive": "<= 0.2", "check/floor": "<= 1.25"}
    ratio_rows = "\n".join(
        f"| {name} | {ratio:.3f} | {targets[name]} |" for name, ratio in ratios.items()
    )
    return f"""# Benchmarks

Written by `python scripts/bench.py` (`make bench`); do not edit by hand. Last run:
{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {count} snippets, {machine.default_jobs()} cores,
Python {platform.python_version()} on {platform.system()} {platform.machine()}.

| measure | median wall time |
| --- | --- |
{rows}

| ratio | value | target |
| --- | --- | --- |
{ratio_rows}

- **check**: `python scripts/regen.py --check`, torch imported once, one forked child per
  snippet, {machine.default_jobs()} at a time.
- **naive**: the same check with one fresh interpreter per snippet, one at a time
  (`--no-fork -j 1`).
- **floor**: one `import torch, numpy, matplotlib.pyplot` in a fresh interpreter plus the
  snippets' own compute and figure drawing, summed.
- **no-change regen**: `python scripts/regen.py` when nothing changed (target < 0.5 s).
"""


if __name__ == "__main__":
    sys.exit(main())

"""The scale series of `make bench`: how check, a no-change regen and the naive loop grow with
the number of snippets. Each N adds N small snippets (each seeds itself, trains a 64x64 weight
for 20 steps and prints one number) to a temporary copy of the repository, shown on one page.
The real repository is never touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docpipe.cli import default_project
from docpipe.run import processes

ROOT = default_project().root

SIZES = (0, 25, 100, 250)
SNIPPET = """\
import torch

# --8<-- [start:train]
torch.manual_seed({i})
w = torch.randn(64, 64, requires_grad=True)
x = torch.randn(8, 64)
for _ in range(20):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        w.grad = None
print(f"{{loss.item():.4f}}")
# --8<-- [end:train]
"""
BLOCK = """
```python title="snippets/scale/s{i:03d}.py"
--8<-- "snippets/scale/s{i:03d}.py:train"
```

``` text title="python snippets/scale/s{i:03d}.py"
--8<-- "docs/generated/scale/s{i:03d}.txt"
```
"""
SKIP = (".git", ".venv", "site", ".cache", "test-artifacts", "__pycache__", "node_modules")
REGEN = [sys.executable, "scripts/regen.py"]


def copy_with(n: int, into: Path) -> Path:
    """A copy of the repository with n scale snippets on a page of their own (none for 0)."""
    repo = into / f"repo-{n}"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(*SKIP))
    # No other torch to verify with: the added snippets were never verified (--check would fail
    # on each), and the series measures the check, at every size alike.
    pyproject = repo / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(re.sub(r"(?m)^verify = \[.*\]$", "verify = []", text), encoding="utf-8")
    if n == 0:
        return repo
    for i in range(n):
        path = repo / "snippets" / "scale" / f"s{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SNIPPET.format(i=i), encoding="utf-8")
    page = "# Scale\n" + "".join(BLOCK.format(i=i) for i in range(n))
    (repo / "docs" / "scale.md").write_text(page, encoding="utf-8")
    config = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    nav = "  - Scale: scale.md\n  - Scale notebook: notebooks/scale.ipynb\n  - Contributing:"
    (repo / "mkdocs.yml").write_text(config.replace("  - Contributing:", nav), encoding="utf-8")
    return repo


def timed(command: list[str], cwd: Path, repeat: int = 1, env: dict | None = None) -> float:
    """Median wall time of a command that must succeed."""
    times = []
    for _ in range(repeat):
        known = set(processes.children())
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - started)
        _reap_adopted(known)
        if done.returncode != 0:
            sys.exit(f"bench: {' '.join(command)} failed in {cwd}:\n{done.stdout}{done.stderr}")
    return statistics.median(times)


def measured(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user and system, in seconds) of a command that must succeed:
    the CPU time of every process it started, its zygotes' too, which end adopted by this
    process (series makes it their reaper) when the zygote that forked them is killed."""
    spent = _children_cpu()
    wall = timed(command, cwd)  # which collects what the command's processes left
    return wall, _children_cpu() - spent


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _reap_adopted(known: set[int], most: float = 5.0) -> None:
    """Collect the children of this process other than `known` ones: those it adopted (as
    their reaper) from the command just run, ending; for at most `most` seconds. Their CPU
    time counts once each is collected."""
    deadline = time.monotonic() + most
    while adopted := [pid for pid in processes.children() if pid not in known]:
        for pid in adopted:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)


def naive(repo: Path, n: int) -> float:
    """One fresh interpreter per added snippet, one after another: what a loop over
    `python snippets/scale/sNNN.py` costs."""
    started = time.perf_counter()
    for i in range(n):
        subprocess.run(
            [sys.executable, f"snippets/scale/s{i:03d}.py"], cwd=repo, capture_output=True
        )
    return time.perf_counter() - started


def series(sizes=SIZES, repeat: int = 3, rounds: int = 9) -> list[dict]:
    """For each N: check (median of `repeat`), no-change regen (median of `rounds`), naive loop.
    The copies take turns, round after round, so that a slow moment of the machine falls on
    every N alike rather than on one."""
    rows = []
    processes.reap_orphans()  # what a killed zygote leaves is adopted here: its CPU counts
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        cache, repos = None, {}
        for n in sizes:
            repos[n] = repo = copy_with(n, Path(tmp))
            if cache:  # the site's own snippets are recorded once, for every N
                shutil.copytree(cache, repo / ".cache")
            timed(REGEN, repo)  # record the N new snippets
            timed(REGEN, repo)  # a clean regen, which the next ones can answer from
            cache = cache or shutil.copytree(repo / ".cache", Path(tmp) / "site-cache")
        check, no_change = {n: [] for n in sizes}, {n: [] for n in sizes}
        cpu = {n: [] for n in sizes}
        for turn in range(max(repeat, rounds)):
            for n in sizes:
                if turn < repeat:
                    wall, used = measured([*REGEN, "--check"], repos[n])
                    check[n].append(wall)
                    cpu[n].append(used)
                if turn < rounds:
                    no_change[n].append(timed(REGEN, repos[n]))
        for n in sizes:
            row = {
                "n": n,
                "check": statistics.median(check[n]),
                "check CPU": statistics.median(cpu[n]),
                "no-change regen": statistics.median(no_change[n]),
                "naive": naive(repos[n], n),
            }
            rows.append(row)
            print(
                f"N={n:4}  check {row['check']:7.2f} s (CPU {row['check CPU']:6.2f} s)"
                f"  no-change regen"
                f" {row['no-change regen']:6.3f} s  naive {row['naive']:7.1f} s",
                flush=True,
            )
    return rows


def slope(rows: list[dict], measure: str) -> float:
    """Seconds per added snippet: the slope of the least-squares line through the series."""
    xs, ys = [r["n"] for r in rows], [r[measure] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def plot(rows: list[dict], path: Path) -> None:
    """Time against N for the three measures, as an SVG with fixed ids (a rerun diffs only
    where a figure moved)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.hashsalt": "bench", "svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(6.4, 3.8))
        styles = (("check", "o-"), ("no-change regen", "s-"), ("naive", "^--"))
        for measure, style in styles:
            ax.plot([r["n"] for r in rows], [r[measure] for r in rows], style, label=measure)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xlabel("snippets added to the site (N)")
        ax.set_ylabel("wall time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="svg", metadata={"Date": None})
        plt.close(fig)

"""The scale series of `make bench`: how check, a no-change regen and the naive loop grow with
the number of snippets. Each N adds N small snippets (each seeds itself, trains a 64x64 weight
for 20 steps and prints one number) to a temporary copy of the repository, shown on one page.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docpipe.paths import ROOT

SIZES = (25, 100, 250)
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


def copy_with(n: int, into: Path) -> Path:
    repo = into / f"repo-{n}"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(*SKIP))
    for i in range(n):
        path = repo / "snippets" / "scale" / f"s{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SNIPPET.format(i=i))
    page = "# Scale\n" + "".join(BLOCK.format(i=i) for i in range(n))
    (repo / "docs" / "scale.md").write_text(page)
    config = (repo / "mkdocs.yml").read_text()
    config = config.replace(
        "  - Contributing:",
        "  - Scale: scale.md\n  - Scale notebook: notebooks/scale.ipynb\n  - Contributing:",
    )
    (repo / "mkdocs.yml").write_text(config)
    return repo


def timed(command: list[str], cwd: Path, repeat: int = 1) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            sys.exit(f"bench: {' '.join(command)} failed in {cwd}:\n{done.stdout}{done.stderr}")
    return statistics.median(times)


def naive(repo: Path, n: int) -> float:
    """One fresh interpreter per added snippet, one after another: what a loop over
    `python snippets/scale/sNNN.py` costs."""
    started = time.perf_counter()
    for i in range(n):
        subprocess.run(
            [sys.executable, f"snippets/scale/s{i:03d}.py"], cwd=repo, capture_output=True
        )
    return time.perf_counter() - started


def series(sizes=SIZES) -> list[dict]:
    regen = [sys.executable, "scripts/regen.py"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        base = copy_with(0, Path(tmp))
        timed(regen, base)  # record the site as it is, then time the same with N added
        for n in sizes:
            repo = copy_with(n, Path(tmp))
            shutil.copytree(base / ".cache", repo / ".cache", dirs_exist_ok=True)
            timed(regen, repo)  # record the N new snippets
            timed(regen, repo)  # a clean regen: the next one may answer from the tree stamps
            rows.append(
                {
                    "n": n,
                    "check": timed([*regen, "--check"], repo),
                    "no-change regen": timed(regen, repo, repeat=5),
                    "naive": naive(repo, n),
                }
            )
            print(
                f"N={n:4}  check {rows[-1]['check']:7.2f} s  no-change regen"
                f" {rows[-1]['no-change regen']:6.3f} s  naive {rows[-1]['naive']:7.1f} s",
                flush=True,
            )
            shutil.rmtree(repo)
        rows.insert(0, {"n": 0, "check": timed([*regen, "--check"], base),
                        "no-change regen": timed(regen, base, repeat=5), "naive": 0.0})  # fmt: skip
    return rows


def marginal(rows: list[dict], measure: str) -> float:
    """Seconds per added snippet: the slope of a least-squares line through the series."""
    xs, ys = [r["n"] for r in rows], [r[measure] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.style.context({"svg.hashsalt": "bench", "svg.fonttype": "path"}):
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for measure, style in (("check", "o-"), ("no-change regen", "s-"), ("naive", "^--")):
            ax.plot([r["n"] for r in rows], [r[measure] for r in rows], style, label=measure)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xlabel("snippets added to the site")
        ax.set_ylabel("wall time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, format="svg", metadata={"Date": None})
        plt.close(fig)

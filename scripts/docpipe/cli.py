"""`python scripts/regen.py`: re-run snippets and rewrite, check or audit what they publish."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import cache, catalog, consistency, notebooks, record
from .catalog import Catalog
from .machine import default_jobs, fork_available
from .pages import pages_using, uses
from .paths import NOTEBOOKS, Snippet, existing, rel

FAILURE_TAIL = 30  # lines of a failed snippet's output (its traceback) shown in the report


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python scripts/regen.py",
        description="Re-run snippets and rewrite their recorded outputs and figures.",
    )
    p.add_argument("paths", nargs="*", help="snippets to run (default: all)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="write nothing; exit 1 on any drift")
    mode.add_argument(
        "--audit",
        action="store_true",
        help="run twice (other thread count and hash seed); name what differs",
    )
    p.add_argument("--force", action="store_true", help="ignore the cache")
    p.add_argument(
        "--report",
        metavar="DIR",
        help="with --check: also write DIR/index.html, the drift shown side by side",
    )
    p.add_argument("--timeout", type=float, help="seconds per snippet (default: snippets.toml)")
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=default_jobs(),
        help="snippets run at once (default: the cores available)",
    )
    p.add_argument(
        "--lock-wait",
        type=float,
        default=record.LOCK_WAIT,
        help="seconds to wait for another regen before giving up (default: %(default)g)",
    )
    p.add_argument("--shard", metavar="I/N", help="run the I-th of N duration-balanced shares")
    p.add_argument(
        "--no-fork",
        action="store_true",
        help="one fresh interpreter per snippet (the default where fork is unsafe)",
    )
    args = p.parse_args(argv)
    if args.report and not args.check:
        p.error("--report DIR goes with --check")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        cat = catalog.load()
        selected = select(args.paths, cat)
        if args.shard:
            selected = shard(selected, cat, args.shard)
    except (catalog.CatalogError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    fork = fork_available() and not args.no_fork
    try:
        if args.audit or args.check:
            _fix_hash_seed()
        if args.audit:
            return audit(selected, cat, args, fork)
        if args.check:
            return check(selected, cat, args, fork, whole_site=not args.paths)
        with record.exclusive(args.lock_wait):
            return regen(selected, cat, args, fork)
    except record.LockError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: every generated file is its old or its new version", file=sys.stderr)
        return 130


def select(paths: list[str], cat: Catalog) -> list[Snippet]:
    if not paths:
        return cat.snippets
    chosen = [Snippet.from_path(p) for p in paths]
    for s in chosen:
        if s not in cat.settings:
            raise ValueError(f"{s.name}: no such snippet")
    return sorted(set(chosen))


def shard(snippets: list[Snippet], cat: Catalog, spec: str) -> list[Snippet]:
    """The I-th of N shares, balanced by recorded duration, longest first (deterministic)."""
    try:
        index, count = (int(x) for x in spec.split("/"))
    except ValueError:
        index = count = 0
    if not 1 <= index <= count:
        raise ValueError(f"--shard {spec}: expected I/N with 1 <= I <= N")
    loads, shares = [0.0] * count, [[] for _ in range(count)]
    for s in sorted(snippets, key=lambda s: (-cat.settings[s].duration, s.key)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += cat.settings[s].duration
        shares[lightest].append(s)
    return sorted(shares[index - 1])


def run(
    snippets: list[Snippet],
    cat: Catalog,
    jobs: int,
    fork: bool,
    label: str,
    timeout: float | None = None,
    threads: int | None = None,
) -> dict:
    """Run snippets (each in its own child process) and return their outcomes."""
    from . import pool
    from .progress import Progress

    progress = Progress(len(snippets), label)
    longest_first = sorted(snippets, key=lambda s: (-cat.settings[s].duration, s.key))
    work = [
        (s.key, cat.settings[s].values, timeout or cat.settings[s].timeout) for s in longest_first
    ]
    heavy = pool.heavy_imports(s.source for s in snippets) if fork else ()
    try:
        outcomes = pool.run(
            work, max(1, jobs), fork, progress.start, progress.done, threads, warm=heavy
        )
    finally:
        progress.close()
    return {Snippet(k): o for k, o in outcomes.items()}


def publishable(snippet: Snippet, cat: Catalog, outcome, env) -> tuple[dict | None, str]:
    """The files a run publishes, or None and the reason it cannot publish."""
    from . import artifacts

    result = outcome.result
    if result.status == "ok" and result.writes:
        result.status = "error"
        result.error = f"{snippet.name}: wrote into the repository: {', '.join(result.writes)}"
    if result.status != "ok":
        tail = outcome.output.decode("utf-8", "replace").splitlines()[-FAILURE_TAIL:]
        shown = "\n".join("    " + _clip(line) for line in tail)
        told = f"\n  its output ended with:\n{shown}" if tail else ""
        return None, f"FAILED {result.error}{told}"
    try:
        return artifacts.build(snippet, cat.settings[snippet], outcome, env), ""
    except artifacts.OutputError as e:
        return None, f"FAILED {e}"


def check(selected, cat: Catalog, args, fork: bool, whole_site: bool) -> int:
    from . import artifacts, drift
    from .findings import Finding, publish

    env = artifacts.environment()
    outcomes = run(selected, cat, args.jobs, fork, "check", args.timeout)
    failed = drifted = 0
    found: list[Finding] = []
    for snippet in selected:
        files, why = publishable(snippet, cat, outcomes[snippet], env)
        if files is None:
            failed += 1
            print(why, file=sys.stderr)
            error = why.partition("\n")[0].removeprefix("FAILED ")
            found.append(Finding(snippet.name, True, why, fix="", error=error))
            continue
        drifts = drift.compare(files, existing(snippet))
        if drifts:
            drifted += 1
            note = drift.environment_note(drift.recorded_environment(snippet), env)
            pages = pages_using(snippet)
            report = drift.report(snippet, drifts, pages, note)
            print(report, file=sys.stderr)
            fix = f"python scripts/regen.py {snippet.name}"
            found.append(Finding(snippet.name, False, report, fix, "", pages, drifts, files, note))
    if whole_site:
        for path, report in notebook_drift():
            drifted += 1
            print(report, file=sys.stderr)
            found.append(Finding(rel(path), False, report))
    problems = consistency.problems(cat) if whole_site else []
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    publish(found, problems, len(selected), args.report)
    print(
        f"checked {len(selected)} snippets: {drifted} drifted, {failed} failed"
        + (f", {len(problems)} site problems" if problems else "")
    )
    if drifted or failed or problems:
        print("fix drift with: python scripts/regen.py (then review and commit the diff)")
        return 1
    return 0


def notebook_drift() -> list[tuple[Path, str]]:
    """Each notebook that differs from what regen would write, with its report."""
    from . import drift

    found = []
    for d in drift.compare(notebooks.expected(), set(NOTEBOOKS.glob("**/*.ipynb"))):
        detail = drift.notebook_cells(d.path) if d.problem == "differs" else ""
        found.append((d.path, drift.notebook_report(d, detail)))
    return found


def write_notebooks(cached: dict, force: bool, failed: set[Snippet]) -> None:
    """Regenerate the notebooks whose page, snippets or recorded runs changed; a notebook
    showing a snippet whose run just failed keeps its old version, like the snippet's files."""
    wanted = {notebooks.notebook_path(p): p for p in notebooks.tutorial_pages()}
    for notebook, page in sorted(wanted.items()):
        name = rel(notebook)
        if failed & {u.snippet for u in uses(page)}:
            print(f"kept {name} as it was (a snippet it shows failed)", file=sys.stderr)
            continue
        if not force and cache.notebook_fresh(page, notebook, cached.get(name)):
            continue
        data = notebooks.render(page)
        if record.replace({notebook: data}, set()):
            print(f"wrote {name}")
        cached[name] = cache.notebook_entry(page, data)
    for orphan in set(NOTEBOOKS.glob("**/*.ipynb")) - set(wanted):
        orphan.unlink()
        cached.pop(rel(orphan), None)
        print(f"deleted {rel(orphan)} (its page shows no snippet)")


def regen(selected, cat: Catalog, args, fork: bool) -> int:
    cached = cache.load()
    runs = cached.setdefault("snippets", {})
    stale = [
        s
        for s in selected
        if args.force or not cache.fresh(s, cat.settings[s], runs.get(s.key), existing(s))
    ]
    if len(stale) < len(selected):
        print(f"{len(selected) - len(stale)} snippets unchanged (cached; --force re-runs them)")
    if stale:
        _fix_hash_seed()
    outcomes = run(stale, cat, args.jobs, fork, "regen", args.timeout) if stale else {}
    env = _environment() if stale else {}
    failed: set[Snippet] = set()
    for snippet in stale:
        outcome = outcomes[snippet]
        files, why = publishable(snippet, cat, outcome, env)
        if files is None:
            failed.add(snippet)
            print(why + "\n  its recorded files were left as they were", file=sys.stderr)
            runs.pop(snippet.key, None)
            continue
        for path in record.replace(files, existing(snippet)):
            print(f"wrote {rel(path)}")
        reads = sorted(outcome.result.reads)
        key = cache.key(snippet, cat.settings[snippet], reads)
        runs[snippet.key] = cache.entry(reads, key, files)
    write_notebooks(cached.setdefault("notebooks", {}), args.force, failed)
    record.write_atomic(cache.CACHE, (json.dumps(cached, indent=1, sort_keys=True) + "\n").encode())
    print(f"regen: {len(stale)} run, {len(failed)} failed")
    return 1 if failed else 0


def audit(selected, cat: Catalog, args, fork: bool) -> int:
    """Run everything twice, the second time in fresh interpreters with another hash seed and
    thread count; any snippet whose files differ is nondeterministic or has volatile output."""
    from . import artifacts, drift

    env = artifacts.environment()
    first = run(selected, cat, args.jobs, fork, "audit 1/2", args.timeout)
    os.environ["PYTHONHASHSEED"] = "1"
    other_threads = 1 if default_jobs() // max(1, args.jobs) > 1 else 2
    second = run(selected, cat, args.jobs, False, "audit 2/2", args.timeout, other_threads)
    unstable = 0
    for snippet in selected:
        a, why_a = publishable(snippet, cat, first[snippet], env)
        b, why_b = publishable(snippet, cat, second[snippet], env)
        if a is None or b is None:
            unstable += 1
            print(why_a or why_b, file=sys.stderr)
            continue
        diffs = [drift.unified(p, a[p], b.get(p, b"")) for p in a if a[p] != b.get(p)]
        if diffs:
            unstable += 1
            print(
                f"UNSTABLE {snippet.name}: two runs differ (unseeded randomness or volatile "
                "output; seed it, or declare a normaliser in snippets.toml)",
                file=sys.stderr,
            )
            print("".join(diffs).rstrip(), file=sys.stderr)
    print(f"audited {len(selected)} snippets: {unstable} unstable")
    return 1 if unstable else 0


def _clip(line: str, width: int = 200) -> str:
    return line if len(line) <= width else line[:width] + f"... ({len(line)} characters)"


def _fix_hash_seed() -> None:
    """Hash order must not differ between runs, and forked children inherit the parent's
    seed: start again with it fixed. Called before anything is written or imported."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


def _environment() -> dict:
    from .artifacts import environment

    return environment()

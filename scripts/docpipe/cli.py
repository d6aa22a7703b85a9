"""`python scripts/regen.py`: the command line over docpipe.pipeline (arguments, exit codes).

Exit codes, as cog separates them: 0 all well; 1 drift, a failed snippet or an unstable one;
2 usage or configuration (snippets.toml, a snippet's name or markers, a page's includes, values
or nav): things only an author can fix, so regen writes nothing and --check lists them first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from docpipe import catalog, pipeline, published, verify
from docpipe.catalog import Catalog
from docpipe.formats import findings, terminal
from docpipe.pages import built
from docpipe.problems import DocpipeError, Problem, exit_code
from docpipe.project import Project, Snippet
from docpipe.recorded import writing
from docpipe.run.machine import default_jobs, fork_available

FIX_DRIFT = "fix drift with: python scripts/regen.py (then review and commit the diff)"
FIX_PROBLEMS = "fix the problems above in the files they name; regen cannot fix them"
FIX_FAILURES = "fix the failing snippets above; their recorded files stay as they were"


def default_project() -> Project:
    """The repository this runner sits in (scripts/docpipe/cli.py -> the root): the one place
    that finds a root from a module's own location."""
    return Project(Path(__file__).resolve().parents[2])


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
        help="run twice (other thread count and hash seed), then as a reader would;"
        " name what differs",
    )
    mode.add_argument(
        "--check-site",
        metavar="DIR",
        help="read the site built in DIR (its HTML) and name each page and element where the"
        " build did not do what the pages, records and nav ask; exit 1 if any",
    )
    p.add_argument(
        "--verify",
        nargs="*",
        metavar="VERSION",
        help="run every snippet under these torch versions (default: pyproject.toml's list),"
        " each in its own venv, and write verified/torch-VERSION.json; with --check, compare"
        " with the committed one and write nothing",
    )
    p.add_argument(
        "--unverified-ok",
        action="store_true",
        help="with --check: a snippet its committed verified/*.json does not cover is a note,"
        " not a failure (CI's make verify-check still fails on it)",
    )
    p.add_argument(
        "--new-page",
        metavar="NAME",
        help="write a new one-snippet page (snippet, values, figure code, page, nav entries)"
        " that passes every check as written: NAME is a snippet key, as examples/my_page",
    )
    p.add_argument("--force", action="store_true", help="ignore the cache")
    p.add_argument(
        "--report",
        metavar="DIR",
        help="with --check: also write DIR/index.html, the drift shown side by side",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        help="seconds per snippet, above 0 (default: snippets.toml)",
    )
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
        default=writing.REGEN_LOCK_WAIT,
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
    if args.check_site and (args.paths or args.report or args.verify is not None):
        p.error("--check-site DIR checks the whole site; it goes alone")
    if args.new_page and (args.check or args.audit or args.paths or args.verify is not None):
        p.error("--new-page NAME goes alone")
    if args.unverified_ok and not args.check:
        p.error("--unverified-ok goes with --check")
    if args.verify is not None and (args.audit or args.paths or args.report):
        p.error("--verify runs every snippet; it goes with --check alone")
    return args


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def main(argv: list[str] | None = None, project: Project | None = None) -> int:
    """The command line on a project (default: this repository); the exit code. Prints to
    sys.stdout and sys.stderr as they are at call time, and reads os.environ then."""
    project = project or default_project()
    try:
        args = parse(argv)
    except SystemExit as e:  # argparse's usage error (2) or --help (0), said on stderr
        return e.code if isinstance(e.code, int) else 2
    if args.check_site:
        return check_site(project, Path(args.check_site))
    if args.new_page:
        from docpipe import scaffold

        return scaffold.command_line(project, args.new_page)
    try:
        cat = catalog.load(project)
        selected = select(args.paths, cat)
        if args.shard:
            selected = shard(selected, cat, args.shard)
    except (catalog.CatalogError, DocpipeError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.report and (unwritable := _report_folder(Path(args.report))):
        print(f"error: {unwritable}", file=sys.stderr)  # said before the check, not after it
        return 2
    opts = pipeline.Options(
        jobs=args.jobs,
        fork=fork_available() and not args.no_fork,
        timeout=args.timeout,
        progress=_progress,
    )
    try:
        if args.verify is not None:
            return verify.command_line(project, args.verify, args.check, args.jobs)
        if args.audit:
            return audit(pipeline.audit(selected, cat, opts))
        if args.check:
            result = pipeline.check(selected, cat, opts, not args.paths)
            return check(result, args.report, args.unverified_ok)
        with writing.exclusive(project, args.lock_wait):
            return regen(pipeline.regen(selected, cat, opts, args.force, not args.paths))
    except DocpipeError as e:  # the regen lock, writing, a verification's venv
        print(f"error: {e}", file=sys.stderr)
        return exit_code([e.problem])
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (regen.py: Terminated)
        said = "terminated" if isinstance(e, Terminated) else "interrupted"
        print(f"{said}: every generated file is its old or its new version", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job, `timeout`), ended as Ctrl-C is: the runs stopped, one line,
    every file its old or its new version (scripts/regen.py installs the handler)."""


def terminate_on_sigterm() -> None:
    import signal

    def terminated(signum, frame):
        raise Terminated

    signal.signal(signal.SIGTERM, terminated)


def _report_folder(folder: Path) -> str:
    """Why `--report` cannot write its index.html in this folder, or "" (it is made now)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"{folder}: --report needs a folder to write index.html in ({e.strerror})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder}: --report needs a folder to write index.html in (not writable)"
    return ""


def _progress(total: int, label: str):
    from docpipe.formats.progress import Progress

    return Progress(total, label)


def select(paths: list[str], cat: Catalog) -> list[Snippet]:
    if not paths:
        return cat.snippets
    project = cat.project
    chosen = [project.snippet_at(p) for p in paths]
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


def _problems(problems: list[Problem]) -> None:
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)


def check(
    result: pipeline.CheckResult, report_dir: str | None = None, unverified_ok: bool = False
) -> int:
    for note in result.notes:
        print(f"note {note}", file=sys.stderr)
    _problems(result.problems)
    for verdict in [*result.failed.values(), *result.drifted.values(), *result.notebooks]:
        print(terminal.report(verdict), file=sys.stderr)
    for report in terminal.environment_reports(result.verdicts):
        print(report, file=sys.stderr)
    # what CI's `make verify-check` fails on fails here too, unless asked (--unverified-ok)
    unverified = verify.unverified_report(result.unverified, result.checked)
    for report in unverified:
        print(f"note {report}" if unverified_ok else report)
    if result.claims:
        print(result.claims)
    stale = sum(len(found) for found in result.unverified.values())
    print(
        f"checked {result.checked} snippets: {terminal.counts(result)}"
        + (f", {stale} not verified" if stale else "")
        + (f", {len(result.problems)} site problems" if result.problems else "")
    )
    drifted = result.drifted or result.notebooks or result.environment_only
    advice = [
        (result.problems, FIX_PROBLEMS),
        (result.failed, FIX_FAILURES),
        (drifted, FIX_DRIFT),
    ]
    for found, line in advice:
        if found:
            print(line)
    findings.publish(result, report_dir)  # GitHub annotations and summary; the HTML report
    failed = [v.error for v in result.failed.values()]
    refused = stale and not unverified_ok
    return exit_code(result.problems) or (1 if failed or drifted or refused else 0)


def regen(result: pipeline.RegenResult) -> int:
    for note in result.notes:
        print(note, file=sys.stderr)
    if result.error:
        for failure in result.failed.values():
            print(terminal.failure(failure), file=sys.stderr)
        print(f"error: {result.error}", file=sys.stderr)
        return 1
    if result.problems:
        _problems(result.problems)
        done = f"{result.ran} run, nothing written" if result.ran else "nothing run or written"
        print(f"regen: {done}; {len(result.problems)} site problems")
        print(FIX_PROBLEMS)
        return exit_code(result.problems)
    if result.unchanged:
        print(f"{result.unchanged} snippets unchanged (cached; --force re-runs them)")
    for failure in result.failed.values():
        print(
            terminal.failure(failure) + "\n  its recorded files were left as they were",
            file=sys.stderr,
        )
    for name in result.kept:
        print(f"kept {name}", file=sys.stderr)
    for name in result.wrote:
        print(f"wrote {name}")
    for name in result.deleted:
        print(f"deleted {name} (its page shows no snippet)")
    print(f"regen: {result.ran} run, {len(result.failed)} failed")
    return 1 if result.failed else 0


def audit(result: pipeline.AuditResult) -> int:
    for failure in result.failed.values():
        print(terminal.failure(failure), file=sys.stderr)
    for snippet, detail in result.unstable.items():
        print(
            f"UNSTABLE {snippet.name}: two runs differ (unseeded randomness, hash order or"
            " volatile output; seed it, sort it, or declare a normaliser in snippets.toml)",
            file=sys.stderr,
        )
        print(detail, file=sys.stderr)
    for snippet, detail in result.reader_differs.items():
        print(
            f"READER {snippet.name}: `python {snippet.name}` run from the repository root"
            " prints something else than its page shows:",
            file=sys.stderr,
        )
        print(detail.rstrip(), file=sys.stderr)
    for snippet, detail in result.reader_disclosed.items():
        print(f"note {snippet.name}: a reader's run {detail}")
    unstable = len(result.unstable) + len(result.failed)
    bad = set(result.unstable) | set(result.failed) | set(result.reader_differs)
    print(
        f"audited {result.audited} snippets: {unstable} unstable,"
        f" {len(result.reader_differs)} differ when a reader runs them"
    )
    return 1 if bad else 0


def check_site(project: Project, site: Path) -> int:
    """`--check-site DIR`: one line per finding, `DIR/page.html: <element>: message`."""
    if problem := built.site_folder_problem(site):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        found = published.check(project, site)
    except DocpipeError as e:  # mkdocs.yml, a record that cannot be read
        print(f"error: {e}", file=sys.stderr)
        return 2
    for finding in found:
        print(f"{site.as_posix().rstrip('/')}/{finding}", file=sys.stderr)
    pages = len(built.expected_pages(project))
    seconds = time.perf_counter() - started
    print(f"{built.summary(found, pages)} ({seconds:.1f} s): {site}")
    if found:
        print("the build did not do what the pages ask: build with `mkdocs build --strict`")
    return 1 if found else 0

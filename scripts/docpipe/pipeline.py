"""The pipeline: run, check, regen and audit snippets. Each step returns what it found and prints
nothing; the command line (cli.py), the tests and the MkDocs hooks all call these same functions,
so they run the same children in the same environment and reach the same verdicts."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from docpipe.catalog import Catalog
from docpipe.project import NOTEBOOKS, Snippet, generated_index, rel
from docpipe.recorded import cache, writing
from docpipe.run.machine import default_jobs

FAILURE_TAIL = 30  # lines of a failed snippet's output (its traceback) shown in the report


class Quiet:
    """Progress that says nothing (the tests and hooks); cli.py passes a visible one."""

    def start(self, key: str) -> None: ...
    def done(self, outcome) -> None: ...
    def close(self) -> None: ...


ProgressFactory = Callable[[int, str], object]


@dataclass
class Options:
    jobs: int = field(default_factory=default_jobs)
    fork: bool = True
    timeout: float | None = None  # seconds per snippet; None: each snippet's own setting
    progress: ProgressFactory = lambda total, label: Quiet()


@dataclass
class CheckResult:
    checked: int
    problems: list[str] = field(default_factory=list)  # only an author can fix these
    failed: dict[Snippet, str] = field(default_factory=dict)  # why each run cannot publish
    drifted: dict[Snippet, str] = field(default_factory=dict)  # the report for each
    # Snippets whose files differ only in the environment stamp: how the recording's differs.
    environment_only: dict[Snippet, str] = field(default_factory=dict)
    # For each verified torch version, the snippets changed since their verification
    # (docpipe.verify): the site shows them as not verified; `make verify` re-verifies.
    unverified: dict[str, list[Snippet]] = field(default_factory=dict)
    notebooks: list[str] = field(default_factory=list)  # a report per drifted notebook
    # For reviewers' reports (docpipe.formats.findings): each drifted snippet's differences and the
    # files its run would publish.
    evidence: dict[Snippet, tuple[list, dict[Path, bytes]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # worth saying, no reason to fail
    claims: object = None  # a whole-site check: docpipe.pages.agreement.Tally, what the pages claim


@dataclass
class RegenResult:
    problems: list[str] = field(default_factory=list)  # when any, nothing was run or written
    unchanged: int = 0
    ran: int = 0
    wrote: list[str] = field(default_factory=list)
    failed: dict[Snippet, str] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)  # notebooks left as they were, and why
    deleted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a discarded cache, repaired leftovers
    error: str = ""  # writing failed (`path: reason`): every file was left as it was


@dataclass
class AuditResult:
    audited: int
    unstable: dict[Snippet, str] = field(default_factory=dict)  # two runner runs differ
    reader_differs: dict[Snippet, str] = field(default_factory=dict)  # undisclosed difference
    reader_disclosed: dict[Snippet, str] = field(default_factory=dict)  # said beside the block


def preflight(
    cat: Catalog, snippets: list[Snippet], writing_outputs: bool = False, records: bool = False
) -> list[str]:
    """Problems that stop regen before anything runs: the site's own (pages, includes, values,
    nav), section markers pymdownx would read otherwise than the runner, and a running torch
    other than the pinned one (with `records`, also records made with another). A recorded
    output that does not exist yet is drift, not a problem: regen writes it."""
    from docpipe.pages import consistency
    from docpipe.recorded import versions
    from docpipe.sections import SectionError, find_sections

    found = []
    for snippet in snippets:
        try:
            find_sections(snippet.source.read_text(encoding="utf-8"), snippet.name)
        except SectionError as e:
            found.append(str(e))
    found += versions.problems(snippets if records else [])
    return found + consistency.page_problems(cat, outputs_made_later=writing_outputs)


def site_problems(cat: Catalog, snippets: list[Snippet] | None = None) -> list[str]:
    """Every site problem of the whole site, as --check lists them; `mkdocs build` fails on
    each (the one code path of both)."""
    from docpipe.pages import consistency

    chosen = cat.snippets if snippets is None else snippets
    return preflight(cat, chosen, writing_outputs=True, records=True) + (
        consistency.output_problems(cat)
    )


def run(
    snippets: list[Snippet],
    cat: Catalog,
    opts: Options,
    label: str,
    extras: dict[str, list[str]] | None = None,
    **pool_args,
) -> dict:
    """Run snippets (each in its own child process) and return their outcomes. `extras`: what
    the extended zygote imports for each (default: what their last runs asked for, from the
    cache)."""
    from docpipe.run import pool

    cache.runner_digest()  # fingerprint the runner before anything runs
    progress = opts.progress(len(snippets), label)
    longest_first = sorted(snippets, key=lambda s: (-cat.settings[s].duration, s.key))
    work = [
        (s.key, cat.settings[s].values, opts.timeout or cat.settings[s].timeout)
        for s in longest_first
    ]
    try:
        outcomes = pool.run(
            getattr(cat, "project", None) or Snippet("").project,  # TRANSITION: cat.project
            work,
            max(1, opts.jobs),
            opts.fork and pool_args.pop("fork", True),
            progress.start,
            progress.done,
            preloads=warm_list(snippets),
            snippet_preloads=(
                cache.imports_by_snippet([s.key for s in snippets]) if extras is None else extras
            ),
            **pool_args,
        )
    finally:
        progress.close()
    return {s: outcomes[s.key] for s in snippets}


def warm_list(snippets: list[Snippet]) -> list[str]:
    """What the zygote imports before these snippets run: the heavy packages they import."""
    from docpipe.run import pool

    return list(pool.preloads(snippets))


def start_zygote(snippets: list[Snippet], opts: Options) -> None:
    """Start the zygote's imports now, so that they overlap the checks made before any run."""
    if opts.fork:
        from docpipe.run import zygote

        zygote.shared(warm_list(snippets))


def publishable(snippet: Snippet, cat: Catalog, outcome, env) -> tuple[dict | None, str]:
    """The files a run publishes, or None and the reason it cannot publish."""
    from docpipe.pages import claims
    from docpipe.run import artifacts

    result = outcome.result
    if result.status == "ok" and result.writes:
        result.status = "error"
        result.error = f"{snippet.name}: wrote into the repository: {', '.join(result.writes)}"
    if result.status != "ok":
        tail = outcome.output.decode("utf-8", "replace").splitlines()[-FAILURE_TAIL:]
        shown = "\n".join("    " + _clip(line) for line in tail)
        told = f"\n  its output ended with:\n{shown}" if tail else ""
        return None, f"FAILED {result.error}{claims.broken(snippet, result)}{told}"
    try:
        return artifacts.build(snippet, cat.settings[snippet], outcome, env), ""
    except artifacts.OutputError as e:
        return None, f"FAILED {e}"


def check(snippets: list[Snippet], cat: Catalog, opts: Options, whole_site: bool) -> CheckResult:
    """Run every snippet and compare what it would publish with what is committed."""
    from docpipe import verify
    from docpipe.pages.reading import pages_using
    from docpipe.recorded import drift
    from docpipe.run.environment import stamp

    result = CheckResult(len(snippets))
    start_zygote(snippets, opts)
    result.problems = (
        site_problems(cat, snippets)
        if whole_site
        else preflight(cat, snippets, writing_outputs=True, records=True)
    )
    named = {p.split(":", 1)[0] for p in result.problems}
    runnable = [s for s in snippets if s.name not in named]  # a broken one is a problem only
    env = stamp()
    # Notebooks are compared before the runs, while the zygote imports: they read the pages
    # and the recorded files, which a check never changes.
    notebooks = notebook_drift() if whole_site and not result.problems else []
    outcomes = run(runnable, cat, opts, "check")
    on_disk = generated_index()
    for snippet in runnable:
        files, why = publishable(snippet, cat, outcomes[snippet], env)
        if files is None:
            result.failed[snippet] = why
            continue
        drifts = drift.compare(files, on_disk.get(snippet, set()))
        if drifts:
            note = drift.environment_note(drift.recorded_environment(snippet), env)
            content = drift.without_environment(
                snippet, cat.settings[snippet], outcomes[snippet], env, on_disk.get(snippet, set())
            )
            if content is not None:
                drifts, files = content
            if not drifts:
                result.environment_only[snippet] = note
                continue
            result.drifted[snippet] = drift.report(snippet, drifts, pages_using(snippet), note)
            result.evidence[snippet] = (drifts, files)
    result.notebooks = notebooks
    result.notes = [
        f"{rel(p)}: left by a regen that was killed; the next regen removes it"
        for p in writing.leftovers()
    ]
    result.unverified = verify.unverified(runnable, cat)
    if whole_site:
        from docpipe.pages import agreement

        result.claims = agreement.tally(cat=cat)
    return result


def notebook_drift() -> list[str]:
    """A report for each notebook that differs from what regen would write."""
    from docpipe.pages import notebooks
    from docpipe.recorded import drift

    found = []
    expected = notebooks.expected()
    on_disk = set(NOTEBOOKS.glob("**/*.ipynb"))
    waiting = {notebooks.notebook_path(p) for p in notebooks.tutorial_pages()} - set(expected)
    for d in drift.compare(expected, on_disk - waiting):
        detail = drift.notebook_cells(d.path) if d.problem == "differs" else ""
        found.append(drift.notebook_report(d, detail))
    return found


def regen(snippets: list[Snippet], cat: Catalog, opts: Options, force: bool) -> RegenResult:
    """Re-run what changed and rewrite its files; on a site problem, run and write nothing.
    What it writes lands all together or not at all (writing.batch)."""
    notes = [f"removed {rel(p)} (left by a regen that was killed)" for p in writing.repair()]
    cached, discarded = cache.load_checked()
    notes += [discarded] if discarded else []
    runs = cached.setdefault("snippets", {})
    selected = [s.key for s in snippets]
    # Stamped before anything is read: an edit saved during this regen is seen by the next.
    taken = time.time_ns()
    recorded_inputs = {i for entry in runs.values() for i in entry.get("inputs", {})}
    stamps = cache.tree_stamps(recorded_inputs)
    if not force and cache.unchanged_since_last_regen(cached, stamps, selected):
        return RegenResult(unchanged=len(snippets), notes=notes)
    result = RegenResult(problems=preflight(cat, snippets, writing_outputs=True), notes=notes)
    if result.problems:
        return result
    try:
        with writing.batch() as into:
            _regen(snippets, cat, opts, force, cached, stamps, taken, into, result)
    except writing.WriteError as e:
        done = result.ran - len(result.failed)
        result.error = f"{e}; nothing was written ({done} snippets ran, none recorded)"
        result.wrote, result.deleted = [], []
    return result


def _regen(snippets, cat, opts, force, cached, stamps, taken, into, result) -> None:
    from docpipe.run.environment import stamp

    runs = cached["snippets"]
    selected = [s.key for s in snippets]
    digests = cache.Digests(cached.get("digests", {}))
    on_disk = generated_index()
    stale = [
        s
        for s in snippets
        if force
        or not cache.fresh(cat.settings[s], runs.get(s.key), on_disk.get(s, set()), digests)
    ]
    result.unchanged, result.ran = len(snippets) - len(stale), len(stale)
    outcomes = run(stale, cat, opts, "regen") if stale else {}
    env = stamp()
    for snippet in stale:
        outcome = outcomes[snippet]
        files, why = publishable(snippet, cat, outcome, env)
        if files is None:
            result.failed[snippet] = why
            runs.pop(snippet.key, None)
            continue
        written = writing.replace(files, on_disk.get(snippet, set()), into)
        result.wrote += [rel(p) for p in written]
        # A run forked from a warm zygote cannot see what the zygote imported for it, not even
        # with --force: what a snippet imported stays known while it exists.
        known = runs.get(snippet.key, {}).get("imports", [])
        imported = sorted({*known, *outcome.result.preloads})
        reads = getattr(outcome.result, "reads", [])  # execute.Result.reads, once it has them
        inputs = cache.with_reads(outcome.result.inputs, reads, digests, taken)
        runs[snippet.key] = cache.entry(inputs, cat.settings[snippet], files, imported)
    _write_notebooks(cached.setdefault("notebooks", {}), force, set(result.failed), result, into)
    cached["digests"] = {**cached.get("digests", {}), **digests.now}
    clean = not result.failed and not result.wrote and not result.kept and not result.deleted
    cache.remember_tree(cached, stamps, taken, selected, clean)
    into.write(cache.CACHE, (json.dumps(cached, indent=1, sort_keys=True) + "\n").encode())


def _write_notebooks(
    cached: dict, force: bool, failed: set[Snippet], result: RegenResult, into: writing.Batch
):
    """Regenerate the notebooks whose page, snippets or recorded runs changed; a notebook
    showing a snippet whose run just failed keeps its old version, like the snippet's files."""
    from docpipe.pages import notebooks
    from docpipe.pages.reading import uses

    wanted = {notebooks.notebook_path(p): p for p in notebooks.tutorial_pages()}
    for notebook, page in sorted(wanted.items()):
        name = rel(notebook)
        shown = {u.snippet for u in uses(page) if u.snippet}
        if failed & shown:
            result.kept.append(f"{name} as it was (a snippet it shows failed)")
            continue
        unrecorded = sorted(s.name for s in shown if not s.record.exists())
        if unrecorded:
            result.kept.append(f"{name} as it was ({', '.join(unrecorded)} not recorded yet)")
            continue
        if not force and cache.notebook_fresh(page, notebook, cached.get(name)):
            continue
        data = notebooks.render(page)
        if into.write(notebook, data):
            result.wrote.append(name)
        cached[name] = cache.notebook_entry(page, data)
    for orphan in sorted(set(NOTEBOOKS.glob("**/*.ipynb")) - set(wanted)):
        into.delete(orphan)
        cached.pop(rel(orphan), None)
        result.deleted.append(rel(orphan))


def audit(snippets: list[Snippet], cat: Catalog, opts: Options) -> AuditResult:
    """Run everything twice, the second time in fresh interpreters with another hash seed and
    thread count, then once more as a reader would; name every snippet whose output moves."""
    from docpipe.recorded import drift
    from docpipe.run import reader
    from docpipe.run.environment import stamp

    result = AuditResult(len(snippets))
    env = stamp()
    first = run(snippets, cat, opts, "audit 1/3")
    other_threads = 1 if default_jobs() // max(1, opts.jobs) > 1 else 2
    second = run(snippets, cat, opts, "audit 2/3", fork=False, threads=other_threads, hash_seed="1")
    for snippet in snippets:
        a, why_a = publishable(snippet, cat, first[snippet], env)
        b, why_b = publishable(snippet, cat, second[snippet], env)
        if a is None or b is None:
            result.unstable[snippet] = why_a or why_b
            continue
        diffs = [drift.unified(p, a[p], b.get(p, b"")) for p in a if a[p] != b.get(p)]
        if diffs:
            result.unstable[snippet] = "".join(diffs).rstrip()
    for snippet, (verdict, detail) in reader.compare_all(snippets, cat, opts.jobs).items():
        target = result.reader_differs if verdict == "differs" else result.reader_disclosed
        if verdict != "same":
            target[snippet] = detail
    return result


def _clip(line: str, width: int = 200) -> str:
    return line if len(line) <= width else line[:width] + f"... ({len(line)} characters)"

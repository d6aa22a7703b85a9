"""The pipeline: run, check, regen and audit snippets. Each step returns what it found and prints
nothing; the command line (cli.py), the tests and the MkDocs hooks all call these same functions,
so they run the same children in the same environment and reach the same verdicts.

A check returns one Verdict per snippet (and per drifted notebook): its status, its drifts, its
error as a Problem with its line, the pages that show it. Every way of showing a check (the
terminal, GitHub annotations and job summary, the HTML report, the live preview, the
pre-commit hook) is a formatter over those same objects (docpipe.formats)."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from docpipe import inputs, texts
from docpipe.catalog import Catalog
from docpipe.problems import RUN, Problem
from docpipe.project import Project, Snippet
from docpipe.recorded import cache, fingerprints, record, writing
from docpipe.recorded.drift import Drift
from docpipe.run.machine import default_jobs
from docpipe.statuses import CheckStatus, DriftKind, ReaderStatus, RunStatus

if TYPE_CHECKING:
    from docpipe.pages.reading import Pages

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
class Failure:
    """Why a run cannot publish: its error (a RUN Problem, at the snippet line where it
    stopped), the claims that no longer hold because of it, and how its output ended."""

    error: Problem
    claims: str = ""  # docpipe.pages.claims.broken: the page sentences a failed claim checked
    output: list[str] = field(default_factory=list)  # its last FAILURE_TAIL lines


@dataclass
class Verdict:
    """What a check found for one subject: a snippet, or a notebook regen would write."""

    subject: str  # "snippets/x.py" or "docs/notebooks/x.ipynb": as a person names it
    status: CheckStatus
    snippet: Snippet | None = None  # None for a notebook
    drifts: list[Drift] = field(default_factory=list)
    files: dict[Path, bytes] = field(default_factory=dict)  # what the run would publish
    failure: Failure | None = None  # FAILED: why
    pages: list[str] = field(default_factory=list)  # the pages that show it
    environment: str = ""  # how the recording's environment differs from this run's
    page: str = ""  # a notebook: the page it is generated from
    cells: list[str] = field(default_factory=list)  # a notebook: the cells that differ
    # DRIFTED: the inputs changed since its recording ([]: none, so a recorded file was edited
    # by hand; None: never recorded), by docpipe.recorded.fingerprints.since_recorded
    since: list[str] | None = None

    @property
    def error(self) -> Problem | None:
        return self.failure.error if self.failure else None


@dataclass
class CheckResult:
    checked: int
    problems: list[Problem] = field(default_factory=list)  # only an author can fix these
    verdicts: list[Verdict] = field(default_factory=list)  # one per snippet run, per notebook
    # For each verified torch version, the snippets changed since their verification
    # (docpipe.verify): the site shows them as not verified; `make verify` re-verifies.
    unverified: dict[str, list[Snippet]] = field(default_factory=dict)
    notes: list[Problem] = field(default_factory=list)  # worth saying, no reason to fail
    claims: object = None  # a whole-site check: docpipe.pages.agreement.Tally, what the pages claim
    project: Project | None = None

    def _with(self, status: CheckStatus, notebook: bool = False) -> dict:
        return {
            v.snippet: v
            for v in self.verdicts
            if v.status == status and (v.snippet is None) == notebook
        }

    @property
    def failed(self) -> dict[Snippet, Verdict]:
        return self._with(CheckStatus.FAILED)

    @property
    def drifted(self) -> dict[Snippet, Verdict]:
        return self._with(CheckStatus.DRIFTED)

    @property
    def environment_only(self) -> dict[Snippet, Verdict]:
        return self._with(CheckStatus.ENVIRONMENT_ONLY)

    @property
    def notebooks(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.snippet is None]


@dataclass
class RegenResult:
    problems: list[Problem] = field(default_factory=list)  # when any, nothing was run or written
    unchanged: int = 0
    ran: int = 0
    wrote: list[str] = field(default_factory=list)
    failed: dict[Snippet, Failure] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)  # notebooks left as they were, and why
    deleted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # a discarded cache, repaired leftovers
    error: Problem | None = None  # writing failed: every file was left as it was


@dataclass
class AuditResult:
    audited: int
    failed: dict[Snippet, Failure] = field(default_factory=dict)  # a run of the two failed
    unstable: dict[Snippet, str] = field(default_factory=dict)  # two runner runs differ: diff
    reader_differs: dict[Snippet, str] = field(default_factory=dict)  # undisclosed difference
    reader_disclosed: dict[Snippet, str] = field(default_factory=dict)  # said beside the block


def _in_one_snapshot(check):
    """A check whose pages and snippets are each looked up once, whatever asks for them again
    (docpipe.inputs.snapshot)."""

    @functools.wraps(check)
    def checked(*args, **kwargs):
        with inputs.snapshot():
            return check(*args, **kwargs)

    return checked


@_in_one_snapshot
def preflight(
    cat: Catalog,
    snippets: list[Snippet],
    writing_outputs: bool = False,
    records: bool = False,
    site: Pages | None = None,
) -> list[Problem]:
    """Problems that stop regen before anything runs: the site's own (pages, includes, values,
    nav), section markers pymdownx would read otherwise than the runner, and a running torch
    other than the pinned one (with `records`, also records made with another). A recorded
    output that does not exist yet is drift, not a problem: regen writes it. `site`: the
    build's pages, each read once (docpipe.pages.reading.Pages); a new one if not given."""
    from docpipe.pages import claims, consistency
    from docpipe.pages.reading import Pages
    from docpipe.recorded import versions
    from docpipe.run import normalise
    from docpipe.sections import SectionError, find_sections

    project = cat.project
    site = site or Pages(project)
    if found := unreadable(project, site):
        return found  # every check below reads these files as text
    for snippet in snippets:
        try:
            find_sections(texts.read(snippet.source, snippet.name), snippet.name)
        except SectionError as e:
            found.append(e.problem)
    found += normalise.problems(cat)
    found += versions.problems(project, snippets if records else [])
    found += claims.cannot_fail(project, site)
    return found + consistency.page_problems(cat, outputs_made_later=writing_outputs, site=site)


def unreadable(project: Project, site: Pages | None = None) -> list[Problem]:
    """Each text file the site is made from (its pages, snippets and the modules beside
    them, figure code, snippets.toml, mkdocs.yml) that is not UTF-8 or starts with a byte
    order mark (docpipe.texts), by file and line: all of them at once, before anything else
    reads one. A file a page includes besides these is named when it is read. `site`: the
    pages, read through it (once for the whole check)."""
    from docpipe import texts

    files = [project.config_file, project.meta]
    for folder, pattern in [
        (project.docs, "*.md"),
        (project.snippets, "*.py"),
        (project.figure_code, "*.py"),
    ]:
        files += sorted(folder.rglob(pattern)) if folder.is_dir() else []
    found = []
    for path in files:
        try:
            if site is not None and path.suffix == ".md" and project.docs in path.parents:
                site.page(path)
            else:
                texts.read(path, project.rel(path))
        except texts.NotText as e:
            found.append(e.problem)
        except OSError:
            continue  # not there, or not a file: the checks that need it say so
    return found


@_in_one_snapshot
def site_problems(
    cat: Catalog, snippets: list[Snippet] | None = None, site: Pages | None = None
) -> list[Problem]:
    """Every site problem of the whole site, as --check lists them; `mkdocs build` fails on
    each (the one code path of both)."""
    from docpipe.pages import consistency
    from docpipe.pages.reading import Pages

    site = site or Pages(cat.project)
    if found := unreadable(cat.project, site):
        return found  # every check reads these files as text
    chosen = cat.snippets if snippets is None else snippets
    return preflight(cat, chosen, writing_outputs=True, records=True, site=site) + (
        consistency.output_problems(cat, site)
    )


@_in_one_snapshot
def chosen_problems(cat: Catalog, snippets: list[Snippet], site: Pages) -> list[Problem]:
    """The site problems `--check PATHS` and `regen.py PATHS` refuse: the preflight of these
    snippets, and every other site problem (what the build fails on) in one of them, their
    figure code or records, or in a page that shows, quotes or claims one of them."""
    from docpipe.pages import consistency
    from docpipe.pages.reading import pages_using

    if unread := unreadable(cat.project, site):
        return unread  # every check reads these files as text
    found = preflight(cat, snippets, writing_outputs=True, records=True, site=site)
    project = cat.project
    related = set()
    for snippet in snippets:
        related |= {snippet.name, project.rel(snippet.figure_code), *pages_using(snippet, site)}
        related |= {project.rel(p) for p in project.generated_index().get(snippet, ())}
        mention = f"{snippet.key}.py"  # a value or claim marker names it so
        related |= {page.name for page in site.all() if mention in page.text}
    later = consistency.output_problems(cat, site)
    return found + [p for p in later if p.path in related and p not in found]


def run(
    snippets: list[Snippet],
    cat: Catalog,
    opts: Options,
    label: str,
    snippet_preloads: dict[str, list[str]] | None = None,
    **pool_args,
) -> dict:
    """Run snippets (each in its own child process) and return their outcomes.
    `snippet_preloads`: what the extended zygote preloads for each (default: what their
    records list, Record.preloads)."""
    from docpipe.run import pool

    project = cat.project
    cache.runner_digest()  # digest the runner before anything runs
    progress = opts.progress(len(snippets), label)
    longest_first = sorted(snippets, key=lambda s: (-cat.settings[s].duration, s.key))
    work = [
        (
            s.key,
            cat.settings[s].values,
            opts.timeout or cat.settings[s].timeout,
            cat.settings[s].memory,
        )
        for s in longest_first
    ]
    try:
        outcomes = pool.run(
            project,
            work,
            max(1, opts.jobs),
            opts.fork and pool_args.pop("fork", True),
            progress.start,
            progress.done,
            preloads=preloads(snippets),
            snippet_preloads=(
                last_preloads(project, snippets) if snippet_preloads is None else snippet_preloads
            ),
            **pool_args,
        )
    finally:
        progress.close()
    return {s: outcomes[s.key] for s in snippets}


def last_preloads(project: Project, snippets: list[Snippet]) -> dict[str, list[str]]:
    """What each snippet's record lists as its preloads, for those that list any."""
    listed = {s.key: record.listed_preloads(s) for s in snippets}
    return {k: v for k, v in listed.items() if v}


def preloads(snippets: list[Snippet]) -> list[str]:
    """What the zygote preloads before these snippets run: the heavy packages they import."""
    from docpipe.run import pool

    return list(pool.preloads(snippets))


def start_zygote(
    snippets: list[Snippet], opts: Options, extended: dict[str, list[str]] | None = None
) -> None:
    """Start the zygote's imports now, so that they overlap the checks made before any run;
    with `extended` (each snippet's own preloads: last_preloads), the extended zygote's too,
    which then start as soon as the zygote's own end, not when the first run is asked for."""
    if opts.fork:
        from docpipe.run import zygote

        z = zygote.shared(preloads(snippets))
        if extended:
            z.preload_extended(m for wanted in extended.values() for m in wanted)


def fail_refused_writes(snippet: Snippet, result) -> None:
    """Fail a run that went on after the runner refused it a write into the repository (the
    snippet caught the PermissionError), naming what it tried to write; the pool returns
    such a run as ok, and every caller that publishes or verifies it asks here."""
    if result.status == RunStatus.OK and result.writes:
        result.fail(f"wrote into the repository: {', '.join(result.writes)}", snippet.name)


def publishable(
    snippet: Snippet, cat: Catalog, outcome, env, learn: bool = False
) -> tuple[dict | None, Failure | None]:
    """The files a run publishes, or None and why it cannot publish. Its record lists the
    preloads the record on disk lists (Record.preloads), and with `learn` (a regen, which
    writes it) those this run imported besides: a hint for the zygote, which changes no
    output, so a check or an audit never finds a record drifted for it alone."""
    from docpipe.pages import claims
    from docpipe.run import artifacts

    result = outcome.result
    fail_refused_writes(snippet, result)
    if result.status != RunStatus.OK:
        tail = outcome.output.decode("utf-8", "replace").splitlines()[-FAILURE_TAIL:]
        broken = claims.broken(snippet, result)
        return None, Failure(result.problem, broken, [_clip(line) for line in tail])
    # A run forked from a preloaded zygote cannot see what it preloaded: what the record lists
    # stays listed while the snippet exists, joined with what this run imported. Which lazy
    # imports a run sees depends on what its zygote preloaded, so the list grows over regens.
    preloads = sorted({*record.listed_preloads(snippet), *(result.preloads if learn else ())})
    # Where the kernel could not tell which data files the run opened (Result.watched), a
    # check or an audit cannot refute a record's "not opened" either, and keeps it; a regen
    # writes what it can vouch for, the file's digest.
    kept = [] if learn or result.watched else _recorded_unread(snippet)
    try:
        built = artifacts.build(snippet, cat.settings[snippet], outcome, env, preloads, kept)
        return built, None
    except artifacts.OutputError as e:
        return None, Failure(e.problem)


def _recorded_unread(snippet: Snippet) -> list[str]:
    """The data files the snippet's record says its run did not open (fingerprints.UNREAD)."""
    from docpipe.recorded import fingerprints

    recorded = fingerprints.recorded(snippet) or {}
    return [name for name, digest in recorded.items() if digest == fingerprints.UNREAD]


def check(snippets: list[Snippet], cat: Catalog, opts: Options, whole_site: bool) -> CheckResult:
    """Run every snippet and compare what it would publish with what is committed."""
    from docpipe.environment import stamp
    from docpipe.pages.reading import Pages, pages_using
    from docpipe.recorded import drift, fingerprints, verified

    project = cat.project
    site = Pages(project)  # the check's pages: each read and parsed once
    result = CheckResult(len(snippets), project=project)
    if unread := unreadable(project, site):  # nothing is checked against what cannot be read
        result.checked, result.problems = 0, unread
        return result
    start_zygote(snippets, opts, last_preloads(project, snippets))
    result.problems = (
        site_problems(cat, snippets, site) if whole_site else chosen_problems(cat, snippets, site)
    )
    named = {p.path for p in result.problems}
    runnable = [s for s in snippets if s.name not in named]  # a broken one is a problem only
    env = stamp()
    # Notebooks are compared before the runs, while the zygote imports: they read the pages
    # and the recorded files, which a check never changes.
    notebooks = notebook_drift(project, site) if whole_site and not result.problems else []
    outcomes = run(runnable, cat, opts, "check")
    on_disk = project.generated_index()
    for snippet in runnable:
        files, failure = publishable(snippet, cat, outcomes[snippet], env)
        if files is None:
            result.verdicts.append(
                Verdict(snippet.name, CheckStatus.FAILED, snippet, failure=failure)
            )
            continue
        drifts = drift.compare(project, files, on_disk.get(snippet, set()))
        status, note = CheckStatus.OK, ""
        if drifts:
            note = drift.environment_note(drift.recorded_environment(snippet), env)
            content = without_environment(
                snippet, cat.settings[snippet], outcomes[snippet], env, on_disk.get(snippet, set())
            )
            if content is not None:
                drifts, files = content
            status = CheckStatus.DRIFTED if drifts else CheckStatus.ENVIRONMENT_ONLY
        verdict = Verdict(snippet.name, status, snippet, drifts, files, environment=note)
        if status == CheckStatus.DRIFTED:
            verdict.pages = pages_using(snippet, site)
            verdict.since = fingerprints.since_recorded(snippet, cat.settings[snippet]).changed
        result.verdicts.append(verdict)
    result.verdicts += notebooks
    result.notes = [
        Problem(project.rel(p), None, "left by a regen that was killed; the next regen removes it")
        for p in writing.leftovers(project)
    ]
    result.unverified = verified.unverified(runnable, cat)
    if whole_site:
        from docpipe.pages import agreement

        result.claims = agreement.tally(cat, site)
    return result


def notebook_drift(project: Project, site: Pages | None = None) -> list[Verdict]:
    """A verdict for each notebook that differs from what regen would write."""
    from docpipe.pages import notebooks
    from docpipe.pages.reading import Pages
    from docpipe.recorded import drift

    site = site or Pages(project)
    found = []
    expected = notebooks.expected(project, site)
    on_disk = set(project.notebooks.glob("**/*.ipynb"))
    shown = notebooks.tutorial_pages(project, site)
    waiting = {notebooks.notebook_path(project, p) for p in shown}
    for d in drift.compare(project, expected, on_disk - (waiting - set(expected))):
        differs = d.problem == DriftKind.DIFFERS
        cells = notebooks.differing_cells(project, d.path, site) if differs else []
        page = project.docs / d.path.relative_to(project.notebooks).with_suffix(".md")
        found.append(
            Verdict(
                project.rel(d.path),
                CheckStatus.DRIFTED,
                drifts=[d],
                page=project.rel(page),
                cells=cells,
            )
        )
    return found


class _Refused(Exception):
    """The site as a regen would leave it has problems --check and the build refuse."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} site problems")
        self.problems = problems


def regen(
    snippets: list[Snippet], cat: Catalog, opts: Options, force: bool, whole_site: bool = False
) -> RegenResult:
    """Re-run what changed and rewrite its files; on a site problem, run and write nothing.
    What it writes lands all together or not at all (writing.batch). Before it lands, the site
    as it would be is checked as `--check` checks it (`whole_site`: every site problem, as the
    build does; else those of the chosen snippets, `chosen_problems`): on any problem
    nothing is written, so that regen never records a site the check and the build refuse."""
    project = cat.project
    notes = [
        f"removed {project.rel(p)} (left by a regen that was killed)"
        for p in writing.repair(project)
    ]
    cached, discarded = cache.load_checked(project)
    notes += [discarded] if discarded else []
    runs = cached.setdefault("snippets", {})
    selected = [s.key for s in snippets]
    # Taken before anything is read: an edit saved during this regen is seen by the next.
    taken = time.time_ns()
    recorded_inputs = {i for entry in runs.values() for i in entry.get("inputs", {})}
    stats = cache.tree_stats(project, recorded_inputs)
    if not force and cache.unchanged_since_last_regen(cached, stats, selected):
        return RegenResult(unchanged=len(snippets), notes=notes)
    from docpipe.pages.reading import Pages

    site = Pages(project)  # the regen's pages: each read and parsed once
    result = RegenResult(
        problems=preflight(cat, snippets, writing_outputs=True, site=site), notes=notes
    )
    if result.problems:
        return result
    try:
        with writing.batch(project) as into:
            _regen(snippets, cat, opts, force, cached, stats, taken, into, result, site=site)
            # the new records, notebooks and cache are in place, their old versions aside
            after = Pages(project)
            refused = (
                site_problems(cat, site=after)
                if whole_site
                else chosen_problems(cat, snippets, after)
            )
            if refused:
                raise _Refused(refused)  # the batch puts every old version back
    except _Refused as e:
        result.problems = e.problems
        result.wrote, result.deleted, result.kept = [], [], []
    except writing.WriteError as e:
        done = result.ran - len(result.failed)
        said = f"{e.message}; nothing was written ({done} snippets ran, none recorded)"
        result.error = Problem(e.path or "", None, said, RUN)
        result.wrote, result.deleted = [], []
    return result


def _regen(snippets, cat, opts, force, cached, stats, taken, into, result, *, site) -> None:
    from docpipe.environment import stamp

    project = cat.project
    runs = cached["snippets"]
    selected = [s.key for s in snippets]
    digests = cache.Digests(project, cached.get("digests", {}))
    on_disk = project.generated_index()
    data = fingerprints.data_files(project)  # every run's inputs hold them (run_inputs)
    outdated = [
        s
        for s in snippets
        if force
        or not cache.fresh(cat.settings[s], runs.get(s.key), on_disk.get(s, set()), digests, data)
    ]
    result.unchanged, result.ran = len(snippets) - len(outdated), len(outdated)
    outcomes = run(outdated, cat, opts, "regen") if outdated else {}
    env = stamp()
    for snippet in outdated:
        outcome = outcomes[snippet]
        files, failure = publishable(snippet, cat, outcome, env, learn=True)
        if files is None:
            result.failed[snippet] = failure
            runs.pop(snippet.key, None)
            continue
        written = writing.replace(files, on_disk.get(snippet, set()), into)
        result.wrote += [project.rel(p) for p in written]
        reads = getattr(outcome.result, "reads", [])  # execute.Result.reads, once it has them
        unread = getattr(outcome.result, "unread", [])
        read = cache.with_reads(outcome.result.inputs, reads, digests, taken, unread)
        runs[snippet.key] = cache.entry(read, cat.settings[snippet], files, digests)
    _write_notebooks(
        project, cached.setdefault("notebooks", {}), force, set(result.failed), result, into, site
    )
    cached["digests"] = {**cached.get("digests", {}), **digests.now}
    clean = not result.failed and not result.wrote and not result.kept and not result.deleted
    cache.remember_tree(cached, stats, taken, selected, clean)
    into.write(
        cache.cache_file(project), (json.dumps(cached, indent=1, sort_keys=True) + "\n").encode()
    )


def _write_notebooks(
    project: Project,
    cached: dict,
    force: bool,
    failed: set[Snippet],
    result: RegenResult,
    into: writing.Batch,
    site: Pages,
):
    """Regenerate the notebooks whose page, snippets or recorded runs changed; a notebook
    showing a snippet whose run just failed keeps its old version, like the snippet's files."""
    from docpipe.pages import notebooks

    shown_on = notebooks.tutorial_pages(project, site)
    wanted = {notebooks.notebook_path(project, p): p for p in shown_on}
    for notebook, page in sorted(wanted.items()):
        name = project.rel(notebook)
        shown = {u.snippet for u in site.page(page).uses if u.snippet}
        if failed & shown:
            result.kept.append(f"{name} as it was (a snippet it shows failed)")
            continue
        unrecorded = sorted(s.name for s in shown if not s.record.exists())
        if unrecorded:
            result.kept.append(f"{name} as it was ({', '.join(unrecorded)} not recorded yet)")
            continue
        made_from = notebooks.inputs(project, page, site)
        if not force and cache.notebook_fresh(project, made_from, notebook, cached.get(name)):
            continue
        data = notebooks.render(project, site.page(page))
        if into.write(notebook, data):
            result.wrote.append(name)
        cached[name] = cache.notebook_entry(project, made_from, data)
    for orphan in sorted(set(project.notebooks.glob("**/*.ipynb")) - set(wanted)):
        into.delete(orphan)
        cached.pop(project.rel(orphan), None)
        result.deleted.append(project.rel(orphan))


def audit(snippets: list[Snippet], cat: Catalog, opts: Options) -> AuditResult:
    """Run everything twice, the second time in fresh interpreters with another hash seed and
    thread count, then once more as a reader would; name every snippet whose output moves."""
    from docpipe.environment import stamp
    from docpipe.recorded import drift
    from docpipe.run import reader

    project = cat.project
    result = AuditResult(len(snippets))
    env = stamp()
    first = run(snippets, cat, opts, "audit 1/3")
    other_threads = 1 if default_jobs() // max(1, opts.jobs) > 1 else 2
    second = run(snippets, cat, opts, "audit 2/3", fork=False, threads=other_threads, hash_seed="1")
    for snippet in snippets:
        a, failure_a = publishable(snippet, cat, first[snippet], env)
        b, failure_b = publishable(snippet, cat, second[snippet], env)
        if a is None or b is None:
            result.failed[snippet] = failure_a or failure_b
            continue
        diffs = [drift.unified(project.rel(p), a[p], b.get(p, b"")) for p in a if a[p] != b.get(p)]
        if diffs:
            result.unstable[snippet] = "".join(diffs).rstrip()
    for snippet, (verdict, detail) in reader.compare_all(snippets, cat, opts.jobs).items():
        target = (
            result.reader_differs if verdict == ReaderStatus.DIFFERS else result.reader_disclosed
        )
        if verdict != ReaderStatus.SAME:
            target[snippet] = detail
    return result


def _clip(line: str, width: int = 200) -> str:
    return line if len(line) <= width else line[:width] + f"... ({len(line)} characters)"


def without_environment(snippet: Snippet, settings, outcome, running: dict, on_disk: set[Path]):
    """What still differs when the run is stamped with its recording's environment: the
    content drifts and the files they compare, or None when the recording names no other
    environment than this one (then every drift is content)."""
    from docpipe.recorded import drift
    from docpipe.run.artifacts import build

    recorded = drift.recorded_environment(snippet)
    if not recorded or recorded == running:
        return None
    files = build(snippet, settings, outcome, recorded, record.listed_preloads(snippet))
    return drift.compare(snippet.project, files, on_disk), files

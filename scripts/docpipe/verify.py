"""Verification against other torch versions: every snippet run under another torch, in a
virtual environment of its own, with the same runner, and compared with its recording.

`python scripts/regen.py --verify 2.14.1` builds .cache/verify/torch-2.14.1/ (python -m venv,
then pip install torch==2.14.1 and the other run dependencies of pyproject.toml), runs every
snippet there (the child side of this module, `python -m docpipe.verify --child`, which stamps
each run with its recording's environment so that only content can differ), and writes
verified/torch-2.14.1.json: per snippet, "same", or "differs" with the exact differences, or
"failed" with the error, and which of its checked claims held. It never changes a recording.

Each entry keeps what it was compared with (a digest of the recorded files, the stamp left out,
and the recorded inputs), so a snippet changed or re-recorded since is "not verified" for that
version: `--check` says so, and the site shows it (docpipe.pages.reproduced).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from docpipe import texts
from docpipe.problems import RUN, DocpipeError
from docpipe.project import Project, Snippet
from docpipe.recorded.verified import (  # noqa: F401  (the read side, re-exported)
    Status,
    load,
    recorded_digest,
    recorded_files,
    result_path,
    status,
    unverified,
    versions,
)
from docpipe.statuses import ClaimStatus, RunStatus, VerifiedStatus


class VerifyError(DocpipeError):
    """The verification could not run (its venv, its install); the message says why."""

    kind = RUN


def venv_path(project: Project, version: str) -> Path:
    return project.cache_dir / "verify" / f"torch-{version}"


def command(version: str) -> str:
    return f"python scripts/regen.py --verify {version}"


# ---- the environment -------------------------------------------------------------------------


def requirements(project: Project, version: str) -> list[str]:
    """What the venv of a version gets: that torch, and every other run dependency as pinned."""
    from packaging.requirements import Requirement

    from docpipe.recorded.versions import PYPROJECT

    config = tomllib.loads(texts.read(project.root / PYPROJECT, PYPROJECT))
    run = config["project"]["optional-dependencies"]["run"]
    # The runner reads sections with pymdownx's grammar, and a snippet may use what the site
    # uses (snippets/authoring/drift_report.py runs the check): the site's dependencies too.
    site = config["project"]["dependencies"]
    return [f"torch=={version}", *(r for r in run if Requirement(r).name != "torch"), *site]


def ensure_venv(project: Project, version: str, say=print) -> tuple[Path, float]:
    """The venv's python (built when missing or when its requirements changed), and the
    seconds its install took (0 when it was there)."""
    venv = venv_path(project, version)
    python = venv / "bin" / "python"
    wanted = "\n".join(requirements(project, version)) + "\n"
    done = venv / "docpipe-requirements.txt"
    if python.exists() and done.is_file() and done.read_text() == wanted:
        return python, 0.0
    started = time.perf_counter()
    say(
        f"verify {version}: installing torch=={version} and the run dependencies into"
        f" {project.rel(venv)}"
    )
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", *wanted.split()],
    ]
    for step in steps:
        run = subprocess.run(step, capture_output=True, text=True)
        if run.returncode:
            tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-15:])
            raise VerifyError(f"verify {version}: `{' '.join(step)}` failed:\n{tail}")
    done.write_text(wanted)
    return python, time.perf_counter() - started


# ---- the child: runs in the venv of the other version ---------------------------------------


def child(project: Project, out: Path, jobs: int) -> None:
    """Run every snippet in this interpreter's torch; write what each would publish, stamped
    with its recording's environment (so that only content can differ), or why it failed."""
    import docpipe.run.preload  # noqa: F401  (the zygote's preloads: a missing package fails here)
    from docpipe import catalog, pipeline
    from docpipe.environment import stamp
    from docpipe.recorded.drift import recorded_environment
    from docpipe.recorded.record import listed_preloads
    from docpipe.run import artifacts
    from docpipe.run.machine import fork_available

    cat = catalog.load(project)
    opts = pipeline.Options(jobs=jobs, fork=fork_available())
    # Nothing warmed beyond the heavy packages: what a snippet imports lazily is imported in its
    # own process, as in a reader's, whatever this checkout's cache holds. (Under torch 2.14.1
    # a lazy import in training/forward_mode.py warns that torch.jit.script is deprecated; a
    # zygote that had warmed it kept the warning out of the run in one checkout, not another.)
    outcomes = pipeline.run(cat.snippets, cat, opts, "verify", snippet_preloads={})
    found = {}
    for snippet in cat.snippets:
        outcome = outcomes[snippet]
        result = outcome.result
        pipeline.fail_refused_writes(snippet, result)
        if result.status != RunStatus.OK:
            found[snippet.name] = {
                "status": RunStatus.ERROR,
                "error": str(result.problem).partition("\n")[0],
                "failed_section": result.failed_section,
            }
            continue
        env = recorded_environment(snippet) or stamp()
        # the record's preloads, a hint for the zygote that no torch's output depends on
        preloads = listed_preloads(snippet)
        try:
            files = artifacts.build(snippet, cat.settings[snippet], outcome, env, preloads)
        except artifacts.OutputError as e:
            found[snippet.name] = {
                "status": RunStatus.ERROR,
                "error": str(e),
                "failed_section": None,
            }
            continue
        published = {project.rel(p): data.decode("utf-8") for p, data in files.items()}
        found[snippet.name] = {"status": RunStatus.OK, "files": published}
    out.write_text(json.dumps({"environment": stamp(), "snippets": found}), encoding="utf-8")


# ---- judging, in the project's own environment ----------------------------------------------


def cited_claims(snippet: Snippet) -> list[str]:
    """The sections of a snippet that pages cite as checked claims, in source order."""
    from docpipe.pages.claims import find
    from docpipe.pages.reading import Pages
    from docpipe.sections import SectionError, find_sections

    project = snippet.project
    pages = Pages(project).all()
    cited = {c.section for page in pages for c in find(project, page) if c.snippet == snippet}
    try:
        order = list(find_sections(texts.read(snippet.source, snippet.name), snippet.name))
    except (OSError, SectionError):
        order = []
    return sorted(cited, key=lambda s: (order.index(s) if s in order else len(order), s))


def judge(snippet: Snippet, ran: dict, on_disk: set[Path]) -> dict:
    """One snippet's entry: its verdict, its differences, and which of its claims held."""
    from docpipe.recorded import drift, fingerprints

    project = snippet.project
    entry: dict = {
        "recorded": recorded_digest(snippet, on_disk),
        "inputs": fingerprints.recorded(snippet) or {},
    }
    claims = cited_claims(snippet)
    if ran["status"] != RunStatus.OK:
        entry.update(verdict=VerifiedStatus.FAILED, error=ran["error"])
        failed = ran.get("failed_section")
        held = claims[: claims.index(failed)] if failed in claims else []
        entry["claims"] = {
            c: ClaimStatus.HELD
            if c in held
            else ClaimStatus.FAILED
            if c == failed
            else ClaimStatus.NOT_RUN
            for c in claims
        }
        return entry
    files = {project.root / name: text.encode() for name, text in ran["files"].items()}
    drifts = drift.compare(project, files, on_disk)
    entry["verdict"] = VerifiedStatus.DIFFERS if drifts else VerifiedStatus.SAME
    if drifts:
        entry["differences"] = [
            {
                "file": project.rel(d.path),
                "problem": d.problem,
                "diff": d.diff,
                "lines": [[c.line, c.recorded, c.actual] for c in d.changes],
            }
            for d in drifts
        ]
    entry["claims"] = {c: ClaimStatus.HELD for c in claims}
    return entry


def verify(project: Project, version: str, jobs: int, say=print) -> tuple[dict, dict[str, float]]:
    """Run every snippet under torch `version` and judge each; nothing is written. Returns
    the verification and how long its parts took (install, run)."""
    from docpipe import PACKAGE, catalog
    from docpipe.recorded.versions import pin

    python, installed = ensure_venv(project, version, say)
    started = time.perf_counter()
    out = venv_path(project, version) / "verify-run.json"
    out.unlink(missing_ok=True)
    say(f"verify {version}: running every snippet under {project.rel(python)}")
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    child_args = ["--child", str(out), "--jobs", str(jobs), "--root", str(project.root)]
    run = subprocess.run(
        [str(python), "-m", "docpipe.verify", *child_args],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
    )
    if run.returncode or not out.is_file():
        tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-20:])
        raise VerifyError(f"verify {version}: the run under torch {version} failed:\n{tail}")
    child_result = json.loads(out.read_text(encoding="utf-8"))
    seconds = time.perf_counter() - started
    cat = catalog.load(project)
    on_disk = project.generated_index()
    pinned = pin(project)
    snippets = {
        s.name: judge(s, child_result["snippets"][s.name], on_disk.get(s, set()))
        for s in cat.snippets
        if s.name in child_result["snippets"]
    }
    result = {
        "torch": version,
        "environment": child_result["environment"],
        "compared_with": pinned.torch if pinned else "",
        "snippets": snippets,
    }
    return result, {"install": installed, "run": seconds}


def to_bytes(verification: dict) -> bytes:
    return (json.dumps(verification, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def verdicts(verification: dict) -> dict[str, tuple]:
    """What a verification found, without the environment that found it: the CI job compares
    these with the committed file (its CPU build may stamp another build than this one)."""
    return {
        name: (e["verdict"], e.get("differences"), e.get("claims"), e["recorded"])
        for name, e in verification.get("snippets", {}).items()
    }


# ---- reading a committed verification --------------------------------------------------------


INSTALL_SIZE = "~6 GB"  # a CPU build of torch 2.14.1 and the run dependencies, as installed


def how_to_verify(project: Project, version: str) -> str:
    """What to run to verify with `version`, and what that costs the first time."""
    built = (venv_path(project, version) / "bin" / "python").exists()
    cost = (
        f"its venv {project.rel(venv_path(project, version))} is built"
        if built
        else f"installs torch {version} once, {INSTALL_SIZE}, into .cache/verify/"
    )
    return f"run make verify ({cost}), then commit {project.rel(result_path(project, version))}"


def unverified_report(found: dict[str, list[Snippet]], total: int) -> list[str]:
    """One line per snippet that CI's `make verify-check` fails on (its committed verification
    does not cover it), saying what it is (never verified, changed since verified) and what
    to run; one line for a version never verified at all."""
    out = []
    for version, stale in found.items():
        project = stale[0].project
        verification = load(project, version)
        fix = how_to_verify(project, version)
        if verification is None:
            names = "every snippet" if len(stale) == total else ", ".join(s.name for s in stale)
            out.append(
                f"NOT VERIFIED with torch {version}: {names} ({len(stale)} of {total}):"
                f" {project.rel(result_path(project, version))} was never written: {fix}"
            )
            continue
        entries = verification.get("snippets", {})
        for snippet in stale:
            what = "changed since verified" if snippet.name in entries else "never verified"
            out.append(f"NOT VERIFIED {snippet.name}: {what} with torch {version}: {fix}")
    return out


def _location(error: str) -> str:
    """Where a recorded failure happened (path:line), from its error line, or the line."""
    where = error.partition(": ")[0]
    return where if re.fullmatch(r"\S+:\d+", where) else error


def recorded_as_before(entry: dict, before: dict | None) -> bool:
    """Whether a fresh verification entry says what the committed one said (verdicts())."""
    keys = ("verdict", "differences", "claims", "recorded")
    return before is not None and all(entry.get(k) == before.get(k) for k in keys)


def summary(verification: dict, committed: dict | None = None) -> list[str]:
    """What a verification found, as the command prints it. A snippet that differs or fails
    exactly as the committed verification (`committed`) records is one line saying so, not
    a new FAILED or DIFFERS: the committed state under that torch, not a breakage."""
    entries = verification["snippets"]
    version = verification["torch"]
    same, differs, failed = VerifiedStatus.SAME, VerifiedStatus.DIFFERS, VerifiedStatus.FAILED
    before = (committed or {}).get("snippets", {})
    known = {
        n
        for n, e in entries.items()
        if e["verdict"] != same and recorded_as_before(e, before.get(n))
    }
    by = {v: [n for n, e in entries.items() if e["verdict"] == v] for v in (same, differs, failed)}
    claims = [state for e in entries.values() for state in e.get("claims", {}).values()]
    out = [
        f"verify {verification['torch']} ({verification['environment']['torch']}):"
        f" {len(by[same])} same output, {len(by[differs])} differ, {len(by[failed])} failed;"
        f" {claims.count(ClaimStatus.HELD)} of {len(claims)} claims held"
    ]
    from docpipe.recorded.drift import changed_span, excerpt, with_marks

    for name in sorted(known):
        entry = entries[name]
        what = (
            f"fails under {version} at {_location(entry['error'])}"
            if entry["verdict"] == failed
            else f"differs under {version} in {len(entry['differences'])} files"
        )
        out.append(f"  recorded: {name} {what}, as verified/torch-{version}.json says")
    for name in by[differs]:
        if name in known:
            continue
        for d in entries[name]["differences"]:
            out.append(f"  DIFFERS {name}: {d['file']} {d['problem']}")
            for line, old, new in d["lines"][:5]:
                a, b = changed_span(old, new)
                out.append(f"    line {line}: {with_marks(excerpt(old, a))}")
                out.append(f"    {' ' * len(f'line {line}')}  {with_marks(excerpt(new, b))}")
    for name in by[failed]:
        if name not in known:
            out.append(f"  FAILED {name}: {entries[name]['error']}")
    return out


def command_line(project: Project, wanted: list[str], check: bool, jobs: int) -> int:
    """`regen.py --verify [VERSION ...] [--check]`: exit 0 when written (or, with --check,
    when the committed verification says what a fresh run finds), 1 otherwise, 2 when there
    is nothing to verify."""
    from docpipe.recorded import writing

    chosen = wanted or list(versions(project))
    if not chosen:
        print("error: no version to verify: name one, or list them in pyproject.toml's"
              " [tool.autograd-docs] verify", file=sys.stderr)  # fmt: skip
        return 2
    from packaging.version import InvalidVersion, Version

    for version in chosen:
        try:
            Version(version)
        except InvalidVersion:
            print(f"error: --verify {version}: not a torch version (as 2.14.1)", file=sys.stderr)
            return 2
    exit_status = 0
    for version in chosen:
        try:
            say = lambda m: print(m, file=sys.stderr)  # noqa: E731
            verification, took = verify(project, version, jobs, say=say)
        except VerifyError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        for line in summary(verification, load(project, version)):
            print(line)
        print(f"  install {took['install']:.0f} s, run and compare {took['run']:.1f} s")
        path = result_path(project, version)
        where = project.rel(path)
        if not check:
            try:
                with writing.batch(project) as written:
                    written.write(path, to_bytes(verification))
            except writing.WriteError as e:
                print(f"error: {e}", file=sys.stderr)
                return 1
            print(f"wrote {where}")
            continue
        committed = load(project, version)
        if committed is None:
            print(f"VERIFY {where} is missing; write it with: {command(version)}")
            exit_status = 1
            continue
        fresh, old = verdicts(verification), verdicts(committed)
        moved = sorted(n for n in fresh.keys() | old.keys() if fresh.get(n) != old.get(n))
        for name in moved:
            print(f"VERIFY {name}: {where} does not say what a run under {version} finds")
        if moved:
            print(f"fix: {command(version)}, then review and commit {where}")
            exit_status = 1
    return exit_status


def _child_main(argv: list[str] | None = None) -> int:
    """`python -m docpipe.verify --child OUT --jobs N`, run by verify() in the other venv."""
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--child", required=True)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--root", required=True)
    args = p.parse_args(argv)
    child(Project(args.root), Path(args.child), args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())

"""Run snippets in child processes, several at once, each with its own deadline.

Where fork is safe (Linux), the parent imports torch and matplotlib once and every child is a
fork of it: the import is paid once per run, while each snippet still gets a process of its own.
Elsewhere each child is a fresh interpreter (spawn), which is slower and equally correct.
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from . import execute
from .execute import Job, Result
from .machine import default_jobs
from .paths import FIGURE_CODE, SNIPPETS

OUTPUT_CAP = 1 << 20  # bytes; more than a page could ever show


@dataclass
class Outcome:
    key: str
    result: Result
    output: bytes
    seconds: float  # wall time of the child, start to exit


HEAVY = ("torch", "numpy", "matplotlib")  # slow to import, safe to import before a fork


def heavy_imports(sources: Iterable[Path]) -> tuple[str, ...]:
    """The heavy modules the snippets (or their figure code) import, to import once up front."""
    wanted = set()
    for source in sources:
        figure_code = FIGURE_CODE / source.relative_to(SNIPPETS)
        for path in (source, figure_code):
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            wanted |= {m for m in HEAVY if re.search(rf"^\s*(import|from)\s+{m}\b", text, re.M)}
            if path == figure_code:
                wanted.add("matplotlib")
    return tuple(m for m in HEAVY if m in wanted)


def warm_up(modules: Iterable[str]) -> None:
    """Import the heavy modules in the parent, before any fork, without starting thread pools."""
    os.environ.update(execute.RUN_ENV)
    for name in modules:
        importlib.import_module(name)
        if name == "matplotlib":
            import matplotlib

            matplotlib.use("Agg")
            importlib.import_module("matplotlib.pyplot")


def run(
    jobs: Iterable[tuple[str, dict[str, str], float]],
    parallel: int,
    fork: bool,
    on_start: Callable[[str], None] = lambda key: None,
    on_done: Callable[[Outcome], None] = lambda outcome: None,
    threads: int | None = None,
    warm: Iterable[str] = HEAVY,
) -> dict[str, Outcome]:
    """Run (key, values, timeout) jobs; return each snippet's Outcome."""
    context = multiprocessing.get_context("fork" if fork else "spawn")
    if fork:
        warm_up(warm)
    threads = threads or max(1, default_jobs() // parallel)
    pending = list(jobs)
    running: dict[int, tuple[multiprocessing.Process, Job, float, float]] = {}
    outcomes: dict[str, Outcome] = {}
    try:
        while pending or running:
            while pending and len(running) < parallel:
                key, values, timeout = pending.pop(0)
                job = Job(key, values, threads, tempfile.mkdtemp(prefix="docpipe-"))
                process = context.Process(target=execute.child_main, args=(job,), daemon=True)
                on_start(key)
                started = time.monotonic()
                process.start()
                running[process.sentinel] = (process, job, started, started + timeout)
            now = time.monotonic()
            soonest = min(deadline for *_, deadline in running.values())
            for sentinel in wait(list(running), timeout=max(0.0, soonest - now)):
                process, job, started, _ = running.pop(sentinel)
                process.join()
                outcome = _collect(job, process.exitcode, time.monotonic() - started)
                outcomes[job.key] = outcome
                on_done(outcome)
            for sentinel, (process, job, started, deadline) in list(running.items()):
                if time.monotonic() >= deadline:
                    process.kill()
                    process.join()
                    del running[sentinel]
                    timeout = deadline - started
                    outcome = _collect(job, None, timeout, f"timed out after {timeout:g} s")
                    outcomes[job.key] = outcome
                    on_done(outcome)
    finally:
        for process, job, *_ in running.values():
            process.kill()
            process.join()
            shutil.rmtree(job.workdir, ignore_errors=True)
    return outcomes


def _collect(job: Job, exitcode: int | None, seconds: float, error: str = "") -> Outcome:
    name = f"snippets/{job.key}.py"
    result = Result()
    try:
        if not error and job.result.exists():
            data = json.loads(job.result.read_text(encoding="utf-8"))
            result = Result(**data)
        elif not error:
            error = _death(exitcode)
        try:
            with open(job.output, "rb") as f:
                output = f.read(OUTPUT_CAP + 1)
        except FileNotFoundError:  # the child died before it could capture anything
            output = b""
        if len(output) > OUTPUT_CAP and result.status == "ok":
            size = os.path.getsize(job.output)
            error = f"printed {size / (1 << 20):.1f} MiB; the cap is {OUTPUT_CAP >> 20} MiB"
        output = output[:OUTPUT_CAP]
    finally:
        shutil.rmtree(job.workdir, ignore_errors=True)
    if error:
        result.status, result.error = "error", f"{name}: {error}"
    return Outcome(job.key, result, output, seconds)


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"was killed by signal {signal.Signals(-exitcode).name}"
    return f"ended without a result (exit status {exitcode})"

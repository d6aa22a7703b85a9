"""What each step of a run's set-up cost, in milliseconds, for the benchmark of the seal
(scripts/bench_seal.py): carried back in the run's Result.steps, never printed into its output.

A step is timed with perf_counter_ns, the same clock in every process of the machine: a step
begun in one process (the zygote's fork) can end in another (the child), and what a process
timed before it forked is its children's too (the run inherits what its child and the
namespace's init timed). Each mark costs well under a microsecond."""

from __future__ import annotations

import contextlib
import time

STEPS: dict[str, float] = {}  # step -> milliseconds, summed when a step is timed twice
forked_at = 0  # perf_counter_ns() when the zygote forked this process's run (0: not forked)

now = time.perf_counter_ns


def since(name: str, started: int) -> int:
    """Add the time since `started` (a perf_counter_ns) to step `name`; return now."""
    ended = now()
    STEPS[name] = STEPS.get(name, 0.0) + (ended - started) / 1e6
    return ended


@contextlib.contextmanager
def step(name: str):
    """Time the block as step `name`."""
    started = now()
    try:
        yield
    finally:
        since(name, started)

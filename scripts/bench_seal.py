"""The seal's cost, for `make bench`: one small snippet run N times sealed and N times with no
seal, each forked from the same warm process, alternately, and what each step of a sealed
run's set-up took (docpipe.run.timing, carried back in Result.steps), as medians and as ratios
to the whole of a plain fork's run.

The driver (`python scripts/bench_seal.py --drive N`, in a fresh interpreter with the run
environment) does what the zygote does before each fork (docpipe.run.zygote: the reaper of what
a child leaves, the preloads, the frozen heap in huge pages, outside_repository and the cgroup
parents once) and forks each run itself: a plain run is one forked with DOCPIPE_NO_LANDLOCK set (no
namespaces, no Landlock, no socket filter, no control groups, capabilities kept), which is
what a run is on a kernel without Landlock before the tripwire's comparison. Nothing in the
repository is written: the job folders are made and removed where the runner makes them.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNIPPET = "by_hand/square"  # three gradients of x**2 and one print: no figure, no value
RUNS = 30
# The steps of a run, in the order a sealed run takes them (docpipe.run.timing's names).
STEPS = (
    ("fork", "the zygote's fork, until the child runs enclosed_main"),
    ("data files", "the project's data files listed, for the watch of which the run opens"),
    ("cgroups: made", "its memory and pids groups made, their limits written"),
    ("pid namespace", "unshare(CLONE_NEWPID)"),
    ("init and run forks", "the namespace's init forked, and the run forked by it"),
    ("data watch", "the init's fanotify watch of the data files (docpipe.run.opened)"),
    ("run set-up", "child_main's own set-up, before and after the seal (plain runs too)"),
    ("user folders", "the user's configuration and cache folders made, if missing"),
    ("namespaces", "unshare of the mount, network, IPC and UTS namespaces"),
    ("mounts", "private /proc, /dev/shm, /tmp, /run, devpts, loopback, read-only remounts"),
    ("seccomp", "the socket filter assembled and installed"),
    ("hand-over", "the filter's listener sent to the supervisor, in the namespace's init"),
    ("landlock: paths", "what a run may read of the repository (readable_inside) and outside"),
    ("landlock", "the ruleset made, its rules added, and the process restricted"),
    ("capabilities", "every capability dropped"),
    (
        "sections and ledger",
        "the parent's split of the snippet taken, its bytes' digest checked (docpipe.run.splits)",
    ),
    (
        "supervisor",
        "the wait, before the snippet's first line, until the init has moved the run into"
        " its groups and the supervisor has joined its namespaces",
    ),
    ("after the run", "the sweep of what it left, its inputs noted, its values"),
    # the end of a sealed run, from the marks of its notes (namespaces.Notes.marks)
    ("the run's exit", "the result written, the run's exit, and what no step above names"),
    ("left running", "the init names what the run left"),
    ("init's exit", "the namespace's init ends, and its parent collects it"),
    ("groups removed", "the memory and pids groups read and removed"),
    ("the child's exit", "the notes written, the run's child ends, and is collected"),
)
NO_SEAL = "DOCPIPE_NO_LANDLOCK"
EXIT = "the run's exit"
MARKS = ("run ended", "left named", "init collected", "groups removed")  # Notes.marks


def drive(runs: int) -> None:
    """In the driver's interpreter: `runs` sealed and `runs` plain runs, alternately; print one
    JSON line per run: {"sealed": bool, "total": ms, "run": ms, "steps": {step: ms}}."""
    from docpipe.cli import default_project
    from docpipe.run import (
        cgroups,
        execute,
        namespaces,
        pool,
        processes,
        seccomp,
        splits,
        timing,
        zygote,
    )
    from docpipe.run.messages import Job, decode_result

    processes.reap_orphans()
    namespaces.unavailable()
    seccomp.prepare(bool(namespaces.unavailable()))
    from docpipe.run import preload  # noqa: F401  (torch, as DOCPIPE_PRELOADS names it)

    zygote._settle()
    project = default_project()
    snippet = project.snippet(SNIPPET)
    root = str(project.root)
    execute.outside_repository(root)
    cgroups.parents()
    split = splits.made(snippet.source, snippet.name)  # as the pool's parent splits it
    for i in range(2 * runs + 2):  # the first two warm what a first run pays
        sealed = i % 2 == 0
        if sealed:
            os.environ.pop(NO_SEAL, None)
        else:
            os.environ[NO_SEAL] = "1"
        workdir = tempfile.mkdtemp(prefix=f"docpipe-{os.getpid()}-", dir=pool._in_memory())
        job = Job(root, SNIPPET, {}, 1, workdir, split=split)
        me = os.getpid()
        spent = resource.getrusage(resource.RUSAGE_CHILDREN)
        timing.forked_at = started = time.perf_counter_ns()
        pid = os.fork()
        if pid == 0:
            zygote._child(job, [], me)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        ended = time.perf_counter_ns()
        total = (ended - started) / 1e6
        # every process of the run has been collected by its parent, up to this one's child
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = 1000 * (now.ru_utime - spent.ru_utime + now.ru_stime - spent.ru_stime)
        kernel = 1000 * (now.ru_stime - spent.ru_stime)
        left = processes.describe(processes.end_children())  # as the zygote sweeps
        result = decode_result(job.result.read_bytes(), snippet)
        marks = namespaces.Notes.decode(job.notes.read_bytes()).marks if sealed else {}
        shutil.rmtree(workdir, ignore_errors=True)
        job.notes.unlink(missing_ok=True)
        if code != 0 or result.error or left:
            sys.exit(f"bench_seal: run {i} failed ({code}): {result.error} {left}")
        if i >= 2:
            run = 1000 * (result.run_seconds + result.figure_seconds)
            joined = (marks["joined"] - marks["joining"]) / 1e6 if "joined" in marks else 0.0
            if marks:
                named = started + int(1e6 * (sum(result.steps.values()) + run))
                ends = [named, *(marks[m] for m in MARKS), ended]
                for (step, _), a, b in zip(STEPS[-5:], ends, ends[1:], strict=False):
                    result.steps[step] = (b - a) / 1e6
            line = {"sealed": sealed, "total": total, "run": run, "steps": result.steps}
            line |= {"cpu": cpu, "kernel": kernel}
            line["joined"] = joined  # overlaps the run's set-up: no step of its own
            print(json.dumps(line), flush=True)


def measure(root: Path, runs: int = RUNS) -> list[dict]:
    """The driver's lines, run in a fresh interpreter with the run environment."""
    from docpipe.run import execute

    scripts = str(root / "scripts")
    env = {**os.environ, **execute.RUN_ENV, "PYTHONPATH": scripts, "DOCPIPE_PRELOADS": "torch"}
    env.pop(NO_SEAL, None)
    done = subprocess.run(
        [sys.executable, "-P", __file__, "--drive", str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"bench_seal: the driver failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def summary(lines: list[dict]) -> dict:
    """Medians (ms) of each step of the sealed runs, of both kinds' totals and own compute, and
    what of a sealed run no step names."""
    sealed = [x for x in lines if x["sealed"]]
    plain = [x for x in lines if not x["sealed"]]

    def median(rows, get) -> float:
        return statistics.median(get(x) for x in rows) if rows else 0.0

    steps = {name: median(sealed, lambda x, n=name: x["steps"].get(n, 0.0)) for name, _ in STEPS}
    plain_steps = {n: median(plain, lambda x, n=n: x["steps"].get(n, 0.0)) for n, _ in STEPS}

    def unnamed(x) -> float:
        return x["total"] - x["run"] - sum(x["steps"].values())

    # A plain run has no marks of its end: what its steps leave is its result written and its
    # exit, the sealed run's "the run's exit", so that the two line up
    plain_steps[EXIT] = median(plain, unnamed)

    return {
        "runs": len(sealed),
        "steps": steps,
        "plain steps": plain_steps,
        "sealed total": median(sealed, lambda x: x["total"]),
        "plain total": median(plain, lambda x: x["total"]),
        "sealed run": median(sealed, lambda x: x["run"]),
        "plain run": median(plain, lambda x: x["run"]),
        "joined": median(sealed, lambda x: x.get("joined", 0.0)),
        "sealed unnamed": max(0.0, median(sealed, unnamed)),  # 0: its end's marks tile it
        "plain unnamed": 0.0,  # in EXIT
        "sealed cpu": median(sealed, lambda x: x["cpu"]),
        "plain cpu": median(plain, lambda x: x["cpu"]),
        "sealed kernel": median(sealed, lambda x: x["kernel"]),
        "plain kernel": median(plain, lambda x: x["kernel"]),
    }


HEADING = "## The seal's cost"


def table(found: dict) -> str:
    plain = found["plain total"] or 1.0
    rows = [
        f"| {name} | {found['steps'][name]:.2f} ms | {found['plain steps'][name]:.2f} ms |"
        f" {found['steps'][name] / plain:.3f} | {what} |"
        for name, what in STEPS
    ]
    rows += [
        f"| the snippet's own run | {found['sealed run']:.2f} ms | {found['plain run']:.2f} ms |"
        f" {found['sealed run'] / plain:.3f} | its run_seconds |",
        f"| named by no step | {found['sealed unnamed']:.2f} ms |"
        f" {found['plain unnamed']:.2f} ms | {found['sealed unnamed'] / plain:.3f} |"
        " what the marks of a sealed run's end leave: none |",
        f"| **the whole run** | **{found['sealed total']:.2f} ms** | **{plain:.2f} ms** |"
        f" **{found['sealed total'] / plain:.3f}** | fork to the child collected |",
        f"| CPU time | {found['sealed cpu']:.2f} ms | {found['plain cpu']:.2f} ms |"
        f" {found['sealed cpu'] / (found['plain cpu'] or 1.0):.3f} (of the plain run's CPU time)"
        " | user and system time of every process of the run, summed |",
        f"| of it, in the kernel | {found['sealed kernel']:.2f} ms |"
        f" {found['plain kernel']:.2f} ms |"
        f" {found['sealed kernel'] / (found['plain kernel'] or 1.0):.3f} (of the plain run's)"
        " | system time: forks, exits, mounts, namespaces |",
    ]
    return "\n".join(
        [
            "| step | sealed (median) | plain fork (median) | sealed / plain whole run | what |",
            "| --- | --- | --- | --- | --- |",
            *rows,
        ]
    )


def section(found: dict) -> str:
    from datetime import UTC, datetime

    return f"""{HEADING}

Measured by `python scripts/bench.py` ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC;
`bench.py --seal` measures it alone): `snippets/{SNIPPET}.py` run {found["runs"]} times sealed
and {found["runs"]} times as a plain fork (`{NO_SEAL}=1`: no namespace, Landlock, socket
filter, control group or capability dropped), alternately, each forked from the same warm
process as the zygote forks a run (`scripts/bench_seal.py`). Each figure is a median over the
runs; the ratio is the sealed step's median over the plain fork's whole run.

{table(found)}

{found_line(found)}

{remaining(found)}
"""


# The steps that are the sealed run's three processes, each a copy of the zygote: forked and
# ended (the plain fork's own fork and exit are its one process's).
PROCESSES = ("init and run forks", "init's exit", "the child's exit")


def found_line(found: dict) -> str:
    """What the seal adds in all, and where the control groups' join went."""
    added = found["sealed total"] - found["plain total"]
    ratio = found["sealed total"] / (found["plain total"] or 1.0)
    cpu = found["sealed cpu"] - found["plain cpu"]
    return (
        f"The sealed run costs {added:.1f} ms more than the plain fork ({ratio:.2f} times it)."
        f" Its processes' CPU time (user and system, summed over them) is {cpu:.1f} ms more"
        " than the plain fork's: the rest of what it adds is time in which its processes wait"
        " (for each other, for the kernel, or for a CPU the machine's other work holds)."
        " The namespace's init moves the run into its control groups while"
        f" the run sets itself up (median {found['joined']:.2f} ms, mostly the kernel's wait"
        " for its lock): what of it the run's set-up does not cover shows in **supervisor**,"
        " which the run waits for before its snippet starts."
    )


def remaining(found: dict) -> str:
    """The note on what is left: the costliest step of the seal, and why it stays."""
    extra = {n: found["steps"][n] - found["plain steps"][n] for n, _ in STEPS if n != "fork"}
    largest = max(extra, key=extra.get)
    both = sum(found["steps"][n] for n in PROCESSES)
    added = found["sealed total"] - found["plain total"] or 1.0
    share = f"{both:.1f} ms, {both / added:.0%} of what the seal adds"
    return f"""The largest remaining cost is **{largest}** ({extra[largest]:.1f} ms).
The two forks and two exits a plain fork does not have (the init and the run forked, the
init and the run's child ended) make {share}: two more copies of the warm zygote forked,
and ended. They stay, for now: the run must live in a PID namespace of its own, whose init
is not the run (an init ignores every signal it has no handler for, which a reader's process
never does) and outlives it to name and kill what it left; a process enters a new PID
namespace only as a child forked after the unshare, and Python forks only a whole copy of
itself. Both extra processes run Python (the init answers the run's connect() calls in a
thread), so neither can be a small program of its own without moving the supervisor out of
the init. What is once per zygote already: the cgroup parents, what a run may read outside
the project, the socket filter's program (seccomp.prepare), the namespaces' availability, and
the zygote's memory in huge pages (docpipe.run.hugepages), which makes each fork cheaper."""


def main(argv: list[str]) -> int:
    if argv[:1] == ["--drive"]:
        drive(int(argv[1]))
        return 0
    runs = int(argv[0]) if argv else RUNS
    root = Path(__file__).resolve().parent.parent
    found = summary(measure(root, runs))
    print(table(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

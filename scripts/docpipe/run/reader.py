"""A snippet run exactly as a reader runs it: `python snippets/<key>.py` in a fresh interpreter,
from the root of a clone, on a terminal, with no runner environment (no fixed hash seed, no
thread caps, no Agg backend). The clone is a scratch copy of the repository's files, so a
snippet that writes into its working directory cannot touch the repository.

The reader's output is compared with the recorded one. It may differ only where a declared
normaliser rewrote the record (an absolute path, an address); the page says so beside the block
(mkdocs_hooks adds the normaliser's `reader_sees` note), so such a difference is disclosed.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import termios
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from docpipe.catalog import Catalog
from docpipe.project import Project, Snippet
from docpipe.recorded.drift import unified
from docpipe.run.execute import RUN_ENV
from docpipe.run.normalise import normalise_noting
from docpipe.statuses import ReaderStatus

RUNNER_VARIABLES = {*RUN_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}


def reader_environment() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if k not in RUNNER_VARIABLES and not k.startswith(("DOCPIPE_", "PYTEST_"))
    }


def run_as_reader(snippet: Snippet, clone: Path, timeout: float) -> str:
    """What a terminal shows for `python snippets/<key>.py` run from the clone's root."""
    main, terminal = pty.openpty()
    attrs = termios.tcgetattr(terminal)
    attrs[1] &= ~termios.OPOST  # keep "\n" as the program wrote it (no "\r\n")
    termios.tcsetattr(terminal, termios.TCSANOW, attrs)
    process = subprocess.Popen(
        [sys.executable, snippet.name],
        cwd=clone,
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env=reader_environment(),
    )
    os.close(terminal)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    data = os.read(main, 65536)
                except OSError:  # the terminal closed: the program has ended
                    break
                if not data:
                    break
                chunks.append(data)
            elif process.poll() is not None:
                break
        else:
            process.kill()
            chunks.append(f"\n(killed after {timeout:g} s)\n".encode())
    finally:
        process.wait()
        os.close(main)
    return b"".join(chunks).decode("utf-8", "backslashreplace")


def compare(snippet: Snippet, cat: Catalog, clone: Path) -> tuple[ReaderStatus, str]:
    """(how a reader's run compares with the record, detail) for one snippet."""
    shown = run_as_reader(snippet, clone, cat.settings[snippet].timeout)
    root = snippet.project.root
    as_if_here = shown.replace(str(clone), str(root))
    normalised, changed = normalise_noting(as_if_here, root, cat.settings[snippet].normalise)
    recorded = snippet.output.read_bytes() if snippet.output.is_file() else b""
    diff = unified(snippet.project.rel(snippet.output), recorded, as_if_here.encode())
    if normalised.encode() != recorded:
        return ReaderStatus.DIFFERS, diff.replace("(actual run)", "(a reader's run)")
    if changed:
        return ReaderStatus.DISCLOSED, f"differs only where the page says so ({', '.join(changed)})"
    return ReaderStatus.SAME, ""


def make_clone(project: Project, clone: Path) -> None:
    """The project's tracked files as they are now, as a reader's clone holds them."""
    root = project.root
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
    )
    if listed.returncode != 0:  # not a git checkout: the parts a snippet may read
        for folder in ("snippets", "docs", "scripts"):
            shutil.copytree(
                root / folder, clone / folder, ignore=shutil.ignore_patterns("__pycache__")
            )
        return
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = root / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)


def compare_all(snippets: list[Snippet], cat: Catalog, jobs: int) -> dict:
    """compare() for each snippet (of one project), in one clone of it."""
    with tempfile.TemporaryDirectory(prefix="docpipe-reader-") as tmp:
        clone = Path(tmp) / "clone"
        if snippets:
            make_clone(snippets[0].project, clone)

        with ThreadPoolExecutor(max(1, jobs)) as workers:
            verdicts = workers.map(lambda s: compare(s, cat, clone), snippets)
            return dict(zip(snippets, verdicts, strict=True))

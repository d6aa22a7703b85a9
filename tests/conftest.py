"""Shared fixtures: one run of every snippet per test session, reused by every drift test.

`python -m pytest` runs the tests in parallel (pytest-xdist, WORKERS processes): the costly
session fixtures (the run of every snippet, the site build) are still made once per session,
by whichever worker asks first; the others read what it made."""

from __future__ import annotations

import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from docpipe import catalog, pipeline
from docpipe.run import machine
from projects import REPO as ROOT
from projects import SITE

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
# Every build a test starts loads mkdocs.yml's Markdown extension docpipe.pagework before the
# hooks put scripts/ on the path: the children import this repository's docpipe, whatever
# folder an editable install of the venv points at (a git worktree sharing a venv).
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT / "scripts"), os.environ.get("PYTHONPATH")) if p
)


# More workers than this machine's 2 cores: while one worker waits (for chromium, a page,
# a child process), another computes. 4 finished the accessibility tests sooner than 2.
WORKERS = 4
SITE_SERVER = "AUTOGRAD_DOCS_TEST_SITE"  # "<origin> <folder>" of the session's site server


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Parallel by default: `-n N` chooses another worker count, `-n 0` or `-p no:xdist` runs
    everything in this one process. Tests marked with the same xdist_group share a worker."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if hasattr(config, "workerinput"):  # a worker reads only the command line's --dist
        config.option.loadgroup = config.workerinput["loadgroup"]
        return
    debugging = config.getoption("usepdb") or config.getoption("trace")
    if config.option.numprocesses is None and not debugging:
        config.option.numprocesses = WORKERS
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadgroup"


# Under pytest-xdist, the longest work starts first, so that no worker is left running a long
# piece alone at the end (rank).
LAYERS = ("unit", "integration", "site", "browser")  # DESIGN.md, "The tests, in layers"
# Fixtures that make a test one of the runner's processes: a test using one is integration.
PROCESS_FIXTURES = {"sandbox"}


def layer(item) -> str | None:
    """A test's layer: integration if it uses a sandbox, else its closest layer marker."""
    if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "integration"
    return next((m.name for m in item.iter_markers() if m.name in LAYERS), None)


def pytest_collection_modifyitems(config, items):
    unlayered = [item.nodeid for item in items if layer(item) is None]
    if unlayered:
        raise pytest.UsageError(
            "tests without a layer (mark the module: pytestmark = pytest.mark.unit, integration,"
            " site or browser): " + ", ".join(unlayered[:10])
        )
    for item in items:
        item.add_marker(getattr(pytest.mark, layer(item)))  # so that `-m unit` selects it
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return

    items.sort(key=rank)  # stable: the same order in every worker, as xdist requires


def rank(item) -> int:
    """Where a test starts under pytest-xdist, which hands out the groups first, the largest
    first (its loadscope reorder), then the single tests in this order: the group that runs
    the whole site; each visit's group (tour.py); the tests that mostly wait (marked `waits`),
    first of the single tests, so that their seconds of waiting overlap other work instead of
    ending the session on one busy worker (started before the groups, they left the cores
    idle while every worker waited); then the rest."""
    marker = item.get_closest_marker("xdist_group")
    if marker is not None:
        return 0 if marker.args[0] == "site-run" else 1
    return 2 if item.get_closest_marker("waits") else 3


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    node.workerinput["loadgroup"] = node.config.option.dist == "loadgroup"
    node.workerinput["loadscopereorder"] = node.config.option.loadscopereorder  # test_suite


def pytest_configure(config):
    """In the main process only: serve the (not yet built) site for the whole session. The
    site's address is built into it, so every worker must use this one server; workers
    inherit its address through the environment."""
    if hasattr(config, "workerinput"):
        return
    from browsing import serve

    config.stash[STARTED] = time.time()
    folder = Path(tempfile.mkdtemp(prefix="autograd-docs-site-"))
    httpd, origin = serve(folder / "site")
    os.environ[SITE_SERVER] = f"{origin} {folder / 'site'}"

    def stop():
        httpd.shutdown()
        shutil.rmtree(folder, ignore_errors=True)

    config.add_cleanup(stop)


STARTED = pytest.StashKey[float]()


def once_per_session(tmp_path_factory, name: str, make):
    """make() once per test session: in a worker, the first to ask makes it and leaves it
    pickled where the other workers find it (pytest-xdist's documented pattern)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make()
    shared = tmp_path_factory.getbasetemp().parent / name
    with FileLock(f"{shared}.lock"):
        if shared.is_file():
            return pickle.loads(shared.read_bytes())
        made = make()
        shared.write_bytes(pickle.dumps(made))
        return made


@pytest.fixture(scope="session")
def site_catalog():
    return catalog.load(SITE)


@dataclass
class SiteRun:
    """One `regen.py --check` of the whole site, and the files each snippet's run there
    would publish (or the pipeline.Failure saying why it cannot), which test_isolation
    compares with other process models."""

    check: pipeline.CheckResult
    published: dict
    jobs: int  # how many snippets ran at once
    fork: bool


def checked_site(cat) -> SiteRun:
    opts = pipeline.Options(fork=machine.fork_available())
    published = {}
    publishable = pipeline.publishable

    def recorded(snippet, *args):
        files, why = publishable(snippet, *args)
        published[snippet] = files if why is None else why
        return files, why

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "publishable", recorded)
        check = pipeline.check(cat.snippets, cat, opts, whole_site=True)
    return SiteRun(check, published, opts.jobs, opts.fork)


@pytest.fixture(scope="session")
def site_run(site_catalog, tmp_path_factory):
    return once_per_session(tmp_path_factory, "site_run.pickle", lambda: checked_site(site_catalog))


@pytest.fixture(scope="session")
def site_check(site_run):
    """One `regen.py --check` of the whole site, by the same function the command calls."""
    return site_run.check


def reader_machine() -> dict[str, str]:
    """This environment as on a reader's machine, which writes bytecode (.pyc) files."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_in_process(root: Path, argv: list[str]) -> subprocess.CompletedProcess:
    """cli.main(argv) on Project(root), as `python scripts/regen.py` run from root in CI would
    run: from root (a relative --report lands there), CI=true, its output captured."""
    import contextlib
    import io

    from docpipe import cli
    from docpipe.project import Project

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CI", "true")
        patch.delenv("GITHUB_ACTIONS", raising=False)
        patch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        with (
            contextlib.chdir(root),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                code = cli.main(argv, project=Project(root))
            except SystemExit as e:  # argparse's usage errors
                code = e.code if isinstance(e.code, int) else 2
    return subprocess.CompletedProcess(
        ["scripts/regen.py", *argv], code, out.getvalue(), err.getvalue()
    )


def wait_until_locked(root: Path, process: subprocess.Popen, timeout: float = 120) -> None:
    """Return once `process` (a regen.py in `root`) holds the regen lock: the event a test
    waits on instead of a fixed sleep, so that a loaded machine only makes it wait longer."""
    from filelock import FileLock, Timeout

    from docpipe.recorded.writing import LOCK

    probe = FileLock(root / LOCK)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"regen ended ({process.returncode}) before it locked"
        try:
            probe.acquire(timeout=0)
        except Timeout:
            return  # held by the regen
        probe.release()
        time.sleep(0.02)
    raise AssertionError(f"regen did not take {LOCK} within {timeout} s")


class Sandbox:
    """A throwaway copy of the runner with its own snippets, pages and git history."""

    def __init__(self, root):
        self.root = root
        self.env: dict[str, str] = {}  # extra environment for every regen

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")

    def regen(
        self, *args: str, process: bool = False, timeout: float = 120, **kwargs
    ) -> subprocess.CompletedProcess:
        """`python scripts/regen.py ARGS` in this repository: by default in this process
        (cli.main on the sandbox's Project: the worker's warm zygote runs the snippets, sealed
        to the sandbox), as a child process with process=True, or when the test sets its own
        environment (what a child of the runner inherits) or asks for subprocess options."""
        if process or self.env or kwargs:
            return self.regen_process(*args, timeout=timeout, **kwargs)
        return run_in_process(self.root, list(args))

    def regen_process(
        self, *args: str, timeout: float = 120, **kwargs
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "scripts/regen.py", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**reader_machine(), "CI": "true", **self.env},
            **kwargs,
        )

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=self.root, capture_output=True, text=True, check=True
        ).stdout

    def commit(self) -> None:
        self.git("add", "-A")
        self.git("commit", "-qm", "recorded")

    def status(self) -> str:
        """What changed since the last commit (empty: nothing recorded changed)."""
        return self.git("status", "--porcelain", "--untracked-files=all")

    def read(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")


@pytest.fixture
def sandbox(tmp_path):
    """A mini repository: the real runner, a page, and snippets written by the test."""
    return make_sandbox(tmp_path)


def make_sandbox(folder: Path) -> Sandbox:
    """The sandbox fixture's repository, in `folder`/repo (for a fixture of wider scope)."""
    root = folder / "repo"
    shutil.copytree(
        ROOT / "scripts" / "docpipe",
        root / "scripts" / "docpipe",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "scripts" / "regen.py", root / "scripts" / "regen.py")
    # what MkDocs' config loader checks exists: the hooks file and the theme's custom_dir
    shutil.copy(ROOT / "scripts" / "mkdocs_hooks.py", root / "scripts" / "mkdocs_hooks.py")
    shutil.copytree(ROOT / "overrides", root / "overrides")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = "nav:\n  - index.md\n  - notebooks/index.ipynb\n"
    (root / "mkdocs.yml").write_text(re.sub(r"(?ms)^nav:\n.*?\n\n", nav + "\n", config))
    box = Sandbox(root)
    box.write("snippets/snippets.toml", "[defaults]\ntimeout = 60\n")
    box.write("docs/index.md", "# Sandbox\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    box.git("config", "user.email", "tests@example.invalid")
    box.git("config", "user.name", "tests")
    shutil.copy(ROOT / ".gitignore", root / ".gitignore")  # the repository's own rules
    return box


# The browser fixtures live here so that every browser test module (test_browser.py,
# test_accessibility.py) shares one site build and one chromium per session.
@pytest.fixture(scope="session")
def server():
    """The origin of the session's site server, once the site is built (by the first worker
    that needs it)."""
    from browsing import build_site

    origin, folder = os.environ[SITE_SERVER].split(" ", 1)
    built = Path(f"{folder}.built")
    with FileLock(f"{folder}.lock"):
        if not built.exists():
            build_site(Path(folder), origin)
            built.touch()
    return origin


@pytest.fixture(scope="session")
def site_build(server):
    """The session's one build of the site (the server's): its folder, exit code and log."""
    from browsing import build_log

    folder = Path(os.environ[SITE_SERVER].split(" ", 1)[1])
    code, _, log = build_log(folder).read_text(encoding="utf-8").partition("\n")
    return folder, subprocess.CompletedProcess(["mkdocs", "build"], int(code), "", log)


@pytest.fixture(scope="session")
def shared_folder(tmp_path_factory) -> Path:
    """A folder of this test session that every xdist worker sees."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    from browsing import SCREENSHOTS, launched_chromium

    # no stale picture from an earlier run, and no worker deleting another one's
    once_per_session(
        tmp_path_factory,
        "screenshots-cleared",
        lambda: shutil.rmtree(SCREENSHOTS, ignore_errors=True),
    )
    with launched_chromium() as b:
        yield b


def pytest_terminal_summary(terminalreporter, config):
    """Names the screenshots this session took; workers took them, so count the files."""
    from browsing import SCREENSHOTS

    if STARTED not in config.stash or not SCREENSHOTS.is_dir():
        return
    taken = [
        p
        for p in SCREENSHOTS.iterdir()
        if p.suffix in (".png", ".jpg") and p.stat().st_mtime >= config.stash[STARTED]
    ]
    if taken:
        terminalreporter.write_line(
            f"full-page screenshots ({len(taken)}, light and dark): {SCREENSHOTS}"
        )


class StartedAProcess(AssertionError):
    pass


@pytest.fixture(autouse=True)
def _unit_layer_runs_in_process(request, monkeypatch):
    """A unit test starts no process and imports no torch: what it checks does not depend on
    either, so the layer stays fast and any failure is the code's, not the machine's."""
    if layer(request.node) != "unit":
        yield
        return
    had_torch = "torch" in sys.modules

    def refuse(*args, **kwargs):
        raise StartedAProcess(f"a unit test started a process: {args[:1]!r}")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
    yield
    assert had_torch or "torch" not in sys.modules, "a unit test imported torch"

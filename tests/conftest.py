"""Shared fixtures: one run of every snippet per test session, reused by every drift test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from docpipe import catalog, machine, pipeline
from docpipe.paths import ROOT

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


@pytest.fixture(scope="session")
def site_catalog():
    return catalog.load()


@pytest.fixture(scope="session")
def site_check(site_catalog):
    """One `regen.py --check` of the whole site, by the same function the command calls."""
    opts = pipeline.Options(fork=machine.fork_available())
    return pipeline.check(site_catalog.snippets, site_catalog, opts, whole_site=True)


def reader_machine() -> dict[str, str]:
    """This environment as on a reader's machine, which writes bytecode (.pyc) files."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


class Sandbox:
    """A throwaway copy of the runner with its own snippets, pages and git history."""

    def __init__(self, root):
        self.root = root
        self.env: dict[str, str] = {}  # extra environment for every regen

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")

    def regen(self, *args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
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
    root = tmp_path / "repo"
    shutil.copytree(
        ROOT / "scripts" / "docpipe",
        root / "scripts" / "docpipe",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "scripts" / "regen.py", root / "scripts" / "regen.py")
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
def server(tmp_path_factory):
    from test_browser import served_site

    with served_site(tmp_path_factory.mktemp("site")) as origin:
        yield origin


@pytest.fixture(scope="session")
def browser():
    from test_browser import launched_chromium

    with launched_chromium() as b:
        yield b


def pytest_terminal_summary(terminalreporter):
    browser_tests = sys.modules.get("test_browser")
    if browser_tests and browser_tests.TAKEN:
        count, folder = len(browser_tests.TAKEN), browser_tests.SCREENSHOTS
        terminalreporter.write_line(f"full-page screenshots ({count}, light and dark): {folder}")

"""The site under other generators than MkDocs: ProperDocs (a fork of MkDocs 1.6.1 that keeps
hooks) builds the very same site but for its generator tag; Zensical (which runs the site's
Markdown extension docpipe.pagework, but no hook and no plugin) fails, naming what it lacks
(the notebook pages), and gets every other page right (docpipe.pages.built finds nothing else)."""

from __future__ import annotations

import difflib
import gzip
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SITE_SERVER
from docpipe import published
from docpipe.pages import built
from projects import REPO as ROOT
from projects import SITE

pytestmark = pytest.mark.site

GENERATOR_TAG = '<meta name="generator"'


def missing(tool: str, install: str):
    """Skip, loudly, where the tool is not installed; under CI (CI=true) fail instead."""
    why = f"{tool} is not installed, so no build with it was compared: {install}"
    if os.environ.get("CI") == "true":
        pytest.fail(why)
    pytest.skip(why)


def comparable(path: Path) -> list[str]:
    """A built file's lines, its generator tag dropped (gzip files decompressed)."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    lines = data.decode("utf-8", errors="replace").splitlines()
    return [line for line in lines if GENERATOR_TAG not in line]


def differences(one: Path, other: Path) -> list[str]:
    """What differs between two built sites beyond the generator tag, file by file."""
    files = {p.relative_to(one) for p in one.rglob("*") if p.is_file()}
    theirs = {p.relative_to(other) for p in other.rglob("*") if p.is_file()}
    found = [f"only in {one.name}: {p}" for p in sorted(files - theirs)]
    found += [f"only in {other.name}: {p}" for p in sorted(theirs - files)]
    for rel in sorted(files & theirs):
        if (one / rel).read_bytes() == (other / rel).read_bytes():
            continue
        a, b = comparable(one / rel), comparable(other / rel)
        if a != b:
            diff = difflib.unified_diff(a, b, str(rel), str(rel), n=0, lineterm="")
            found.append("\n".join(list(diff)[:12]))
    return found


def test_properdocs_builds_the_same_site_as_mkdocs_but_the_generator_tag(request, tmp_path):
    if importlib.util.find_spec("properdocs") is None:
        missing("properdocs", "pip install -c constraints.txt properdocs (make test does)")
    site, build = request.getfixturevalue("site_build")  # built only when it can be compared
    assert build.returncode == 0, build.stderr
    origin = os.environ[SITE_SERVER].split(" ", 1)[0]  # the session build's site_url
    other = tmp_path / "properdocs-site"
    made = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "--site-dir", str(other)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "SITE_URL": origin + "/"},
    )
    assert made.returncode == 0, made.stderr
    assert differences(site, other) == []
    tags = {line.strip() for p in other.rglob("*.html") for line in comparable_tag(p)}
    assert len(tags) == 1 and "ProperDocs" in tags.pop()  # the tag did differ: it was compared
    assert published.check(SITE, other) == []


def comparable_tag(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if GENERATOR_TAG in line]


def zensical() -> str | None:
    """The zensical command: `make zensical`'s venv, else one on PATH."""
    own = ROOT / ".venv-zensical" / "bin" / "zensical"
    return str(own) if own.is_file() else shutil.which("zensical")


def zensical_build(command: str, folder: Path, **env) -> subprocess.CompletedProcess:
    """`zensical build --clean` of a copy of the repository's site in `folder`."""
    for part in ("docs", "snippets", "overrides", "verified"):
        shutil.copytree(ROOT / part, folder / part, ignore=shutil.ignore_patterns(".cache"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, folder / name)
    return subprocess.run(
        [command, "build", "--clean"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, **env},  # PYTHONPATH: this repository's docpipe (conftest)
    )


def test_a_zensical_build_fails_naming_what_zensical_lacks_and_does_the_rest_right(tmp_path):
    """Zensical reads mkdocs.yml and runs its Markdown extensions (docpipe.pagework), but no
    hook and no plugin: it cannot make the notebook pages, and its build fails saying so,
    naming them. Told to build the rest all the same, every Markdown page is right: the
    verifier finds nothing but the notebook pages missing (no marker left, no formula
    unrendered, no claim mark or box missing)."""
    command = zensical()
    if command is None:
        missing("zensical", "`make test` installs it in .venv-zensical")
    refused = zensical_build(command, tmp_path / "refused")
    assert refused.returncode != 0
    notebooks = sorted(SITE.notebooks.glob("*.ipynb"))
    assert (
        f"runs no notebook plugin (mkdocs-jupyter), so the {len(notebooks)} notebook pages"
        in refused.stdout + refused.stderr
    ), refused.stdout + refused.stderr

    rest = zensical_build(command, tmp_path / "rest", AUTOGRAD_DOCS_WITHOUT_NOTEBOOKS="1")
    assert rest.returncode == 0, rest.stdout + rest.stderr
    found = built.check(SITE, tmp_path / "rest" / "site")
    assert sorted((f.page, f.message.split(":")[0]) for f in found) == sorted(
        (built.built_path(p.relative_to(SITE.docs).as_posix()), "notebook page missing")
        for p in notebooks
    ), "\n".join(map(str, found))

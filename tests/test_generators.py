"""The site under other generators than MkDocs: ProperDocs (a fork of MkDocs 1.6.1 that keeps
hooks) builds the very same site but for its generator tag; Zensical (which runs no hook and no
plugin) builds a site the verifier refuses, naming what it lacks (docpipe.pages.built)."""

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
    assert built.check(SITE, other) == []


def comparable_tag(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if GENERATOR_TAG in line]


def zensical() -> str | None:
    """The zensical command: `make zensical`'s venv, else one on PATH."""
    own = ROOT / ".venv-zensical" / "bin" / "zensical"
    return str(own) if own.is_file() else shutil.which("zensical")


def test_a_zensical_build_is_refused_by_the_verifier_naming_what_it_lacks(tmp_path):
    """Zensical reads mkdocs.yml and exits 0, but runs no hook and no plugin: its site keeps
    the raw markers, leaves every formula to a script it does not load, and has no notebook
    pages. The verifier names each; `make zensical` builds with it and fails so."""
    command = zensical()
    if command is None:
        pytest.skip("zensical is not installed (make zensical installs it in .venv-zensical)")
    for part in ("docs", "snippets", "overrides"):
        shutil.copytree(ROOT / part, tmp_path / part)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    made = subprocess.run(
        [command, "build", "--clean"], cwd=tmp_path, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr  # what makes it dangerous: it says all is well
    found = built.check(SITE, tmp_path / "site")
    kinds = {f.message.split(":")[0] for f in found}
    for kind in ("marker left", "formula not rendered", "claim mark missing"):
        assert kind in kinds, kinds
    assert {f.page for f in found if "notebook page missing" in f.message} == {
        built.built_path(p.relative_to(SITE.docs).as_posix())
        for p in SITE.notebooks.glob("*.ipynb")
    }

"""The GitHub workflows: every action pinned to a commit, no credentials left on disk, and
actionlint and zizmor (run by `make lint`, offline) clean; both linters do catch the faults."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from projects import REPO as ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = ROOT / ".venv" / "bin"
USES = re.compile(r"^\s*-?\s*uses:\s*(?P<ref>\S+)(?P<comment>.*)$", re.M)

UNPINNED = """
name: bad
on: push
jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - run: echo "${{ github.event.head_commit.message }}"
"""


@pytest.mark.unit
@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_release_named(workflow):
    uses = list(USES.finditer(workflow.read_text()))
    assert uses
    for m in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", m["ref"]), m[0]
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", m["comment"]), m[0]


@pytest.mark.unit
@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_checkouts_keep_no_credentials_and_jobs_declare_permissions(workflow):
    text = workflow.read_text()
    assert re.search(r"^permissions: \{\}", text, re.M)
    checkouts = text.count("uses: actions/checkout@")
    assert text.count("persist-credentials: false") == checkouts
    jobs = re.findall(r"^  [\w-]+:\n(?:    .*\n)*?    permissions:", text, re.M)
    assert len(jobs) == len(re.findall(r"^  [\w-]+:\n", text.split("\njobs:\n")[1], re.M))


def lint(tool: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([BIN / tool, *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.integration
def test_the_workflows_pass_both_linters():
    assert lint("actionlint").returncode == 0
    zizmor = lint("zizmor", "--offline", "--min-severity", "medium", ".github/workflows")
    assert zizmor.returncode == 0, zizmor.stdout
    assert "No findings to report" in zizmor.stdout


@pytest.mark.integration
def test_the_linters_catch_an_unpinned_action_and_an_injection(tmp_path):
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "bad.yml").write_text(UNPINNED.lstrip())
    zizmor = lint("zizmor", "--offline", "--min-severity", "medium", str(folder), cwd=tmp_path)
    assert zizmor.returncode != 0
    for audit in ("unpinned-uses", "artipacked", "template-injection", "excessive-permissions"):
        assert f"[{audit}]" in zizmor.stdout, zizmor.stdout
    (folder / "bad.yml").write_text(UNPINNED.replace("runs-on:", "runs_on:"))
    actionlint = lint("actionlint", str(folder / "bad.yml"))
    assert actionlint.returncode == 1
    assert 'unexpected key "runs_on" for "job" section' in actionlint.stdout

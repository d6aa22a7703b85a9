"""The pre-commit hook checks exactly the snippets a commit touches."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from docpipe import catalog, cli
from docpipe.recorded import touched

PROJECT = cli.default_project()
ROOT = PROJECT.root


def names(*paths: str) -> list[str]:
    cat = catalog.load(PROJECT)
    return [s.name for s in touched.snippets(PROJECT, list(paths), cat)]


@pytest.mark.unit
def test_a_change_touches_the_snippets_that_read_it():
    drawn_with_the_helper = [
        "snippets/by_hand/closed_relu.py",
        "snippets/by_hand/graph.py",
        "snippets/by_hand/leaky_relu.py",
        "snippets/by_hand/tiny_network.py",
    ]
    assert names("scripts/figures/by_hand/_diagram.py") == drawn_with_the_helper
    assert names("scripts/figures/examples/fit_line.py") == ["snippets/examples/fit_line.py"]
    assert names("docs/generated/examples/fit_line.fit.dark.svg") == [
        "snippets/examples/fit_line.py"
    ]
    assert names("snippets/by_hand/square.py", "README.md") == ["snippets/by_hand/square.py"]


@pytest.mark.unit
def test_unchanged_settings_and_other_files_touch_nothing():
    assert names("snippets/snippets.toml", "docs/index.md", "Makefile") == []


@pytest.mark.integration
def test_the_hook_refuses_a_commit_with_a_drifted_snippet(sandbox, tmp_path):
    shutil.copy(ROOT / ".pre-commit-config.yaml", sandbox.root / ".pre-commit-config.yaml")
    shutil.copy(ROOT / "scripts" / "check_touched.py", sandbox.root / "scripts")
    (sandbox.root / ".venv").symlink_to(ROOT / ".venv")  # the hook runs the project's .venv
    sandbox.write(".gitignore", ".cache/\n.regen.lock\n.venv\n")
    sandbox.write("snippets/one.py", 'print("one")\n')
    sandbox.write("snippets/two.py", 'print("two")\n')
    shown = "".join(f'\n```python\n--8<-- "snippets/{n}.py"\n```\n' for n in ("one", "two"))
    sandbox.write("docs/index.md", "# Two\n" + shown)
    assert sandbox.regen().returncode == 0
    sandbox.commit()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit")}

    def hook(*files: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["pre-commit", "run", "snippet-check", "--verbose", "--files", *files],
            cwd=sandbox.root,
            capture_output=True,
            text=True,
            env={**env, "PATH": f"{ROOT / '.venv' / 'bin'}:{env['PATH']}"},
        )

    sandbox.write("docs/generated/one.txt", "edited by hand\n")
    refused = hook("docs/generated/one.txt", "snippets/two.py")
    assert refused.returncode == 1, refused.stdout
    assert "DRIFT snippets/one.py" in refused.stdout
    assert "checked 2 snippets: 1 drifted, 0 failed" in refused.stdout

    sandbox.git("checkout", "docs/generated/one.txt")
    passed = hook("docs/generated/one.txt")
    assert passed.returncode == 0, passed.stdout
    assert "checked 1 snippets: 0 drifted, 0 failed" in passed.stdout

    untouched = hook("docs/index.md")
    assert untouched.returncode == 0
    assert "(no files to check)Skipped" in untouched.stdout

"""regen.py's command line: selection, sharding, exit codes by the kind of each problem, and an
unchanged regen that imports no torch. In-process on a Project, except where a process is what
is tested."""

from __future__ import annotations

import contextlib
import subprocess
import sys

import pytest

from docpipe import catalog, cli, pipeline
from docpipe.pipeline import CheckResult, Failure, RegenResult, Verdict
from docpipe.problems import AUTHOR, RUN, Problem
from docpipe.project import Project
from docpipe.recorded import writing
from docpipe.statuses import CheckStatus


@pytest.mark.unit
def test_shards_are_disjoint_balanced_and_cover_every_snippet_once():
    cat = catalog.load(cli.default_project())
    for count in (1, 2, 3):
        shares = [cli.shard(cat.snippets, cat, f"{i}/{count}") for i in range(1, count + 1)]
        flat = [s for share in shares for s in share]
        assert sorted(flat) == cat.snippets and len(flat) == len(set(flat))
        loads = [sum(cat.settings[s].duration for s in share) for share in shares]
        longest = max(cat.settings[s].duration for s in cat.snippets)
        assert max(loads) - min(loads) <= longest + 1e-9
    assert cli.shard(cat.snippets, cat, "2/2") == cli.shard(cat.snippets, cat, "2/2")


@pytest.mark.unit
@pytest.mark.parametrize("spec", ["0/2", "3/2", "a/b", "1"])
def test_a_bad_shard_is_refused(spec):
    with pytest.raises(ValueError) as e:
        cli.shard([], catalog.load(cli.default_project()), spec)
    assert str(e.value) == f"--shard {spec}: expected I/N with 1 <= I <= N"


def failed(project: Project, key: str) -> Verdict:
    snippet = project.snippet(key)
    error = Problem(snippet.name, 3, "IndexError: list index out of range", RUN)
    return Verdict(snippet.name, CheckStatus.FAILED, snippet, failure=Failure(error))


@pytest.mark.unit
def test_the_exit_code_is_the_highest_the_kinds_of_the_problems_call_for(tmp_path, capsys):
    project = Project(tmp_path)
    author = Problem("docs/index.md", 4, "shows snippets/x.py without its section(s) a", AUTHOR)
    run_failure = failed(project, "x")
    cases = [
        (CheckResult(1, project=project), 0),
        (CheckResult(1, verdicts=[run_failure], project=project), 1),
        (CheckResult(1, problems=[author], project=project), 2),
        (CheckResult(1, problems=[author], verdicts=[run_failure], project=project), 2),
    ]
    for result, code in cases:
        assert cli.check(result) == code
    err = capsys.readouterr().err
    assert "PROBLEM docs/index.md:4: shows snippets/x.py" in err
    assert "FAILED snippets/x.py:3: IndexError: list index out of range" in err
    assert cli.regen(RegenResult(problems=[author])) == 2
    assert cli.regen(RegenResult(ran=1, failed={project.snippet("x"): run_failure.failure})) == 1
    assert cli.regen(RegenResult(unchanged=1)) == 0


@pytest.mark.unit
def test_report_needs_check(tmp_path, capsys):
    assert cli.main(["--report", "out"], project=Project(tmp_path)) == 2
    assert "error: --report DIR goes with --check" in capsys.readouterr().err


@pytest.mark.unit
def test_main_reads_its_own_arguments_not_sys_argv(monkeypatch, capsys):
    seen = {}

    def regen(snippets, cat, opts, force, whole_site):
        seen.update(snippets=[s.name for s in snippets], force=force)
        return RegenResult(ran=len(snippets))

    monkeypatch.setattr(sys, "argv", ["elsewhere", "--force", "--check"])
    monkeypatch.setattr(pipeline, "regen", regen)
    monkeypatch.setattr(writing, "exclusive", lambda project, wait: contextlib.nullcontext())
    assert cli.main(["snippets/by_hand/square.py"]) == 0
    assert seen == {"snippets": ["snippets/by_hand/square.py"], "force": False}
    assert capsys.readouterr().out.endswith("regen: 1 run, 0 failed\n")


@pytest.mark.integration
def test_an_unchanged_regen_runs_nothing_and_imports_no_torch(sandbox):
    sandbox.write("snippets/uses_torch.py", "import torch\n\nprint(torch.ones(1).sum().item())\n")
    sandbox.write("docs/index.md", '# Sandbox\n\n```python\n--8<-- "snippets/uses_torch.py"\n```\n')
    assert sandbox.regen().returncode == 0
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['scripts/regen.py']\n"
        "try:\n    runpy.run_path('scripts/regen.py', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "print('torch imported:', 'torch' in sys.modules, 'exit', code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=sandbox.root,
        capture_output=True,
        text=True,
        env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.endswith("regen: 0 run, 0 failed\ntorch imported: False exit 0\n"), (
        done.stdout + done.stderr
    )

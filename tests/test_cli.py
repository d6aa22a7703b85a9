"""regen.py's selection, sharding and cache."""

from __future__ import annotations

import subprocess
import sys

import pytest

from docpipe import catalog, cli


def test_shards_are_disjoint_balanced_and_cover_every_snippet_once():
    cat = catalog.load()
    for count in (1, 2, 3):
        shares = [cli.shard(cat.snippets, cat, f"{i}/{count}") for i in range(1, count + 1)]
        flat = [s for share in shares for s in share]
        assert sorted(flat) == cat.snippets and len(flat) == len(set(flat))
        loads = [sum(cat.settings[s].duration for s in share) for share in shares]
        longest = max(cat.settings[s].duration for s in cat.snippets)
        assert max(loads) - min(loads) <= longest + 1e-9
    assert cli.shard(cat.snippets, cat, "2/2") == cli.shard(cat.snippets, cat, "2/2")


@pytest.mark.parametrize("spec", ["0/2", "3/2", "a/b", "1"])
def test_a_bad_shard_is_refused(spec):
    with pytest.raises(ValueError) as e:
        cli.shard([], catalog.load(), spec)
    assert str(e.value) == f"--shard {spec}: expected I/N with 1 <= I <= N"


def test_an_unchanged_regen_runs_nothing_and_imports_no_torch(sandbox):
    sandbox.write("snippets/uses_torch.py", "import torch\n\nprint(torch.ones(1).sum().item())\n")
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


def test_the_cache_notices_a_data_file_the_snippet_reads(sandbox):
    sandbox.write("snippets/data.txt", "3\n")
    sandbox.write(
        "snippets/reader.py",
        "from pathlib import Path\n\nprint(Path(__file__).with_name('data.txt').read_text())\n",
    )
    assert sandbox.regen().returncode == 0
    assert "regen: 0 run" in sandbox.regen().stdout
    sandbox.write("snippets/data.txt", "4\n")
    again = sandbox.regen()
    assert "regen: 1 run, 0 failed" in again.stdout
    assert sandbox.read("docs/generated/reader.txt") == "4\n\n"


def test_the_cache_notices_a_local_module_the_snippet_imports(sandbox):
    sandbox.write("snippets/_helper.py", "VALUE = 1\n")
    sandbox.write("snippets/user.py", "from _helper import VALUE\n\nprint(VALUE)\n")
    assert sandbox.regen().returncode == 0
    sandbox.write("snippets/_helper.py", "VALUE = 2\n")
    assert "regen: 1 run, 0 failed" in sandbox.regen().stdout
    assert sandbox.read("docs/generated/user.txt") == "2\n"

"""Process reuse is invisible: each snippet runs as if alone, and results do not depend on
fork versus fresh interpreters or on how many run at once."""

from __future__ import annotations

import pytest

from docpipe import pipeline
from docpipe.run import machine, pool
from projects import SITE
from test_sandbox import in_project

pytestmark = pytest.mark.integration


POLLUTER = """
import random

import torch

torch.manual_seed(1234)
torch.set_grad_enabled(False)
torch.set_default_dtype(torch.float64)
torch.Tensor.__repr__ = lambda self: "patched"
random.seed(0)
print("polluted")
"""

OBSERVER = """
import torch

print(torch.is_grad_enabled(), torch.get_default_dtype())
print(repr(torch.ones(2)))
print("seed leaked:", torch.initial_seed() == 1234)
"""


def test_a_snippet_that_changes_global_torch_state_does_not_change_the_next_one(tmp_path):
    project = in_project(
        tmp_path, {"snippets/a_polluter.py": POLLUTER, "snippets/b_observer.py": OBSERVER}
    )
    fork = machine.fork_available()
    expected = b"True torch.float32\ntensor([1., 1.])\nseed leaked: False\n"

    def output(keys: list[str], fork: bool) -> dict[str, bytes]:
        outcomes = pool.run(project, [(key, {}, 60) for key in keys], 1, fork)
        assert all(o.result.status == "ok" for o in outcomes.values()), outcomes
        return {key: o.output for key, o in outcomes.items()}

    assert output(["b_observer"], fork) == {"b_observer": expected}
    after_polluter = output(["a_polluter", "b_observer"], fork)  # one at a time, in this order
    assert after_polluter == {"a_polluter": b"polluted\n", "b_observer": expected}
    assert output(["b_observer"], False) == {"b_observer": expected}  # a fresh interpreter


# One worker runs these tests and test_drift's, which share the run of the whole site.
SITE_RUN = pytest.mark.xdist_group("site-run")


@pytest.fixture(scope="module")
def runs(site_run):
    """What every snippet would publish under each process model. The site check's run (all
    cores, forked children) is the reference, so the site runs once less; were it a run of
    one snippet at a time, or not of them all, -j 2 runs here instead. Fresh interpreters
    (about 1.5 CPU-seconds of imports each) are compared by `regen.py --audit`, which CI runs
    after these tests, with another hash seed and thread count besides."""
    from docpipe import catalog
    from docpipe.environment import stamp

    cat = catalog.load(SITE)

    def publish(jobs: int, fork: bool) -> dict:
        """Each snippet's files, or why its run could not publish (a failure named, so
        that a mismatch says what went wrong rather than only None)."""
        opts = pipeline.Options(jobs=jobs, fork=fork)
        outcomes = pipeline.run(cat.snippets, cat, opts, f"-j {jobs} fork={fork}")
        published = {}
        for s in cat.snippets:
            files, failure = pipeline.publishable(s, cat, outcomes[s], stamp())
            published[s] = files if failure is None else failure
        return published

    shared = site_run.jobs > 1 and site_run.fork and set(site_run.published) == set(cat.snippets)
    return {
        "several at once": site_run.published if shared else publish(2, True),
        "-j 1": publish(1, True),
    }


@SITE_RUN
def test_real_snippets_give_identical_files_one_or_several_at_once(runs):
    if not machine.fork_available():
        pytest.skip("fork is not available here: every run already uses fresh interpreters")
    assert runs["-j 1"] == runs["several at once"]


def test_the_audit_names_a_snippet_whose_output_shows_the_zygote(sandbox):
    """Forked children and fresh interpreters are compared by the audit (CI runs it after the
    tests): a snippet that sees what the zygote imported before it must be named."""
    sandbox.write(
        "snippets/peeks.py",
        """
        import sys

        print("numpy already imported:", "numpy" in sys.modules)
        import numpy  # noqa: E402, F401
        """,
    )
    sandbox.write("snippets/plain.py", 'print("plain")\n')
    shown = "".join(f'\n```python\n--8<-- "snippets/{n}.py"\n```\n' for n in ("peeks", "plain"))
    sandbox.write("docs/index.md", "# Sandbox\n" + shown)
    assert sandbox.regen().returncode == 0
    assert sandbox.read("docs/generated/peeks.txt") == "numpy already imported: True\n"
    audit = sandbox.regen("--audit")
    assert audit.returncode == 1
    assert "UNSTABLE snippets/peeks.py" in audit.stderr
    assert "-numpy already imported: True\n+numpy already imported: False" in audit.stderr
    assert "UNSTABLE snippets/plain.py" not in audit.stderr

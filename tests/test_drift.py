"""Every published file equals what a real run of its snippet produces (one test per snippet).

The verdicts come from the very function `regen.py --check` calls (pipeline.check), run once for
the session: the same children, the same environment, the same report text."""

from __future__ import annotations

import pytest

from docpipe import catalog

SNIPPETS = catalog.load().snippets
# One worker runs these tests and test_isolation's, which share the run of the whole site.
pytestmark = pytest.mark.xdist_group("site-run")


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_recorded_files_match_a_real_run(snippet, site_check):
    assert snippet not in site_check.failed, site_check.failed.get(snippet)
    assert snippet not in site_check.drifted, "\n" + site_check.drifted[snippet]


def test_the_site_has_no_problems_and_no_notebook_drift(site_check):
    assert site_check.problems == []
    assert site_check.notebooks == [], "\n".join(site_check.notebooks)

"""Every published file equals what a real run of its snippet produces (one test per snippet).

The verdicts come from the very function `regen.py --check` calls (pipeline.check), run once for
the session: the same children, the same environment, the same report text. A snippet's test
fails on a difference in content (output, values, figures, claims) and shows the report, diff
and all; a difference only in the environment stamp is one failure for all the snippets it
concerns, so `pytest -x` stops at the first real change, not at a look-alike."""

from __future__ import annotations

import pytest

from docpipe import catalog, cli
from docpipe.formats import terminal

SNIPPETS = catalog.load(cli.default_project()).snippets
# One worker runs these tests and test_isolation's, which share the run of the whole site.
pytestmark = [pytest.mark.xdist_group("site-run"), pytest.mark.integration]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_recorded_files_match_a_real_run(snippet, site_check):
    # pytest.fail with the report alone: an assert would print the whole CheckResult beside it.
    if snippet in site_check.failed:
        pytest.fail(terminal.report(site_check.failed[snippet]), pytrace=False)
    if snippet in site_check.drifted:
        pytest.fail("\n" + terminal.report(site_check.drifted[snippet]), pytrace=False)


def test_every_recording_was_made_in_this_environment(site_check):
    if site_check.environment_only:
        pytest.fail("\n".join(terminal.environment_reports(site_check.verdicts)), False)


def test_the_site_has_no_problems_and_no_notebook_drift(site_check):
    if site_check.problems:
        pytest.fail("\n".join(map(str, site_check.problems)), pytrace=False)
    if site_check.notebooks:
        pytest.fail("\n".join(map(terminal.report, site_check.notebooks)), pytrace=False)

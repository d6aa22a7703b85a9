"""Every published file equals what a real run of its snippet produces (one test per snippet)."""

from __future__ import annotations

import pytest

from docpipe import artifacts, catalog, drift
from docpipe.pages import pages_using
from docpipe.paths import existing

SNIPPETS = catalog.load().snippets


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.name for s in SNIPPETS])
def test_recorded_files_match_a_real_run(snippet, actual_runs):
    files, why = actual_runs[snippet]
    assert files is not None, why
    drifts = drift.compare(files, existing(snippet))
    note = drift.environment_note(drift.recorded_environment(snippet), artifacts.environment())
    assert not drifts, "\n" + drift.report(snippet, drifts, pages_using(snippet), note)

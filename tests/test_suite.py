"""How the suite itself runs under pytest-xdist: the tests that mostly wait start before the
rest (conftest.rank), read from this session's own collection."""

from __future__ import annotations

import pytest

import conftest

pytestmark = pytest.mark.unit

# What the whole session makes once and every worker waits for while the first one makes it.
SESSION_WORK = {"site_run", "site_check", "server", "site_build", "browser"}


def test_the_tests_that_mostly_wait_start_first_then_the_site_run_then_the_visits(request):
    if hasattr(request.config, "workerinput"):  # under pytest-xdist, whose scheduler
        # hands out work in the collection's order, which rank() sorted
        assert request.config.workerinput["loadscopereorder"] is False
    items = sorted(request.session.items, key=conftest.rank)
    ranks = [conftest.rank(item) for item in items]
    waiting = [item for item in items if item.get_closest_marker("waits")]
    assert ranks == sorted(ranks)
    assert items[: len(waiting)] == waiting
    for item in waiting:
        assert item.get_closest_marker("waits").args, f"{item.nodeid}: say what it waits for"
        # started first, it must not wait for the session's own work instead of overlapping it
        assert not SESSION_WORK & set(item.fixturenames), item.nodeid
    groups = [m.args[0] for item in items if (m := item.get_closest_marker("xdist_group"))]
    site_run = [g for g in groups if g == "site-run"]
    assert groups[: len(site_run)] == site_run

"""How the suite itself runs under pytest-xdist (conftest.rank): the order work is handed out
in, read from this session's own collection."""

from __future__ import annotations

import pytest

import conftest

pytestmark = pytest.mark.unit

# What the whole session makes once and every worker waits for while the first one makes it.
SESSION_WORK = {"site_run", "site_check", "server", "site_build", "browser"}


def handed_out(items) -> list[list]:
    """The units xdist's loadgroup scheduler hands out, in order: a group's tests together,
    every other test alone, the collection (sorted by rank) reordered by the number of tests
    in a unit, most first and stable (its default loadscope reorder)."""
    units: dict[str, list] = {}
    for item in sorted(items, key=conftest.rank):
        marker = item.get_closest_marker("xdist_group")
        units.setdefault(marker.args[0] if marker else item.nodeid, []).append(item)
    return sorted(units.values(), key=len, reverse=True)


def test_the_site_run_starts_first_and_the_tests_that_mostly_wait_first_of_the_rest(request):
    if hasattr(request.config, "workerinput"):  # the order handed_out() assumes
        assert request.config.workerinput["loadscopereorder"] is True
    units = handed_out(request.session.items)
    grouped = [bool(unit[0].get_closest_marker("xdist_group")) for unit in units]
    assert grouped == sorted(grouped, reverse=True)  # every group before every single test
    groups = [unit[0].get_closest_marker("xdist_group").args[0] for unit in units[: sum(grouped)]]
    assert "site-run" not in groups or groups[0] == "site-run"
    singles = [unit[0] for unit in units[sum(grouped) :]]
    waiting = [item for item in request.session.items if item.get_closest_marker("waits")]
    assert singles[: len(waiting)] == sorted(waiting, key=conftest.rank)  # none in a group
    for item in waiting:
        assert item.get_closest_marker("waits").args, f"{item.nodeid}: say what it waits for"
        # it must not wait for the session's own work instead of overlapping others' work
        assert not SESSION_WORK & set(item.fixturenames), item.nodeid

"""Shared fixtures: one run of every snippet per test session, reused by every drift test."""

from __future__ import annotations

import os

import pytest

from docpipe import artifacts, catalog, cli, pool

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


@pytest.fixture(scope="session")
def site_catalog():
    return catalog.load()


@pytest.fixture(scope="session")
def actual_runs(site_catalog):
    """Snippet -> (files the run publishes, or None, and the reason it cannot publish)."""
    snippets = site_catalog.snippets
    outcomes = cli.run(snippets, site_catalog, pool.default_jobs(), pool.fork_available(), "test")
    env = artifacts.environment()
    return {s: cli.publishable(s, site_catalog, outcomes[s], env) for s in snippets}

"""The site as a whole: consistent with its snippets, and built by mkdocs --strict."""

from __future__ import annotations

import subprocess
import sys

from docpipe import consistency
from docpipe.paths import ROOT


def test_pages_snippets_and_generated_files_agree(site_catalog):
    assert consistency.problems(site_catalog) == []


def test_mkdocs_build_strict_is_clean(tmp_path):
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    assert (tmp_path / "index.html").exists()

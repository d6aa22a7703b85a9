"""Companion notebooks: up to date with their pages, and reproduced by a real Jupyter kernel."""

from __future__ import annotations

import copy
import difflib
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from docpipe.pages import notebooks
from docpipe.run.execute import RUN_ENV
from projects import SITE

pytestmark = pytest.mark.integration

PAGES = notebooks.tutorial_pages(SITE)
rel = SITE.rel
# A warning names the file it came from: the script on the page, a temporary file in a kernel.
WARNING_SOURCE = re.compile(r"^\S+?:\d+: (?=\w*Warning)", re.M)


def _stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def _comparable(text: str) -> str:
    return WARNING_SOURCE.sub("<source>:<line>: ", text)


@pytest.mark.parametrize("page", PAGES, ids=[rel(p) for p in PAGES])
def test_notebook_runs_top_to_bottom_and_reproduces_every_output(page, tmp_path, monkeypatch):
    path = notebooks.notebook_path(SITE, page)
    recorded = nbformat.read(path, as_version=4)
    executed = copy.deepcopy(recorded)
    for name, value in RUN_ENV.items():
        monkeypatch.setenv(name, value)
    client = NotebookClient(
        executed, timeout=300, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    try:
        client.execute()
    except CellExecutionError as e:
        pytest.fail(f"{rel(path)}: a cell raised while running top to bottom:\n{e}")
    for index, (want, got) in enumerate(zip(recorded.cells, executed.cells, strict=True)):
        if want.cell_type != "code":
            continue
        a, b = _comparable(_stream_text(want)), _comparable(_stream_text(got))
        origin = want.metadata.get("docpipe", {})
        diff = "".join(
            difflib.unified_diff(
                a.splitlines(True), b.splitlines(True), "recorded", "kernel", lineterm="\n"
            )
        )
        assert a == b, (
            f"{rel(path)} cell {index} [{want.id}] from {origin.get('snippet')}:"
            f"{origin.get('section')}: the kernel printed something else\n{diff}"
        )

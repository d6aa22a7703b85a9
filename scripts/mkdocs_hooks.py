"""MkDocs hooks: check a page's includes before pymdownx reads them, insert recorded values and
checked-claim markers, say beside an output block where a reader's own run prints something
else (a path), and say what environment recorded the page."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).parent))

from docpipe import claims, consistency, glue, notebooks, pages  # noqa: E402
from docpipe import record as records  # noqa: E402
from docpipe.normalise import BY_NAME  # noqa: E402
from docpipe.paths import DOCS, rel  # noqa: E402

FOOTER = """

??? info "How this page was made"
    Every output block, figure and quoted number on this page comes from running its snippet
    with {stamp}. `python scripts/regen.py` re-records them; `python scripts/regen.py --check`
    proves they still match.
"""

NOTEBOOK_LINKS = """
<div class="notebook-links" markdown>
[Open this page as a notebook]({view}){{ .md-button }}
<a class="md-button" href="{download}" download>Download the notebook (.ipynb)</a>
</div>
"""

SERVING = False  # `mkdocs serve` shows a page's problems on the page instead of failing


def on_startup(command, dirty):
    global SERVING
    SERVING = command == "serve"


def _with_notebook_links(markdown: str, src: str) -> str:
    """Put the companion notebook's links right under the page title."""
    notebook = notebooks.notebook_path(DOCS / src)
    if not notebook.exists():
        return markdown
    view = notebook.relative_to(DOCS).as_posix()
    depth = len(Path(src).with_suffix("").parts)  # the page is served at <src without .md>/
    download = "../" * depth + f"{Path(view).with_suffix('')}/{notebook.name}"
    links = NOTEBOOK_LINKS.format(view=view, download=download)
    title, newline, rest = markdown.partition("\n")
    return title + newline + links + rest if title.startswith("# ") else links + markdown


def _with_reader_notes(markdown: str, page: Path) -> str:
    """Under each output block that a normaliser changed, what a reader's own run shows."""
    lines = markdown.split("\n")
    for inc in reversed(pages.includes(page, markdown)):
        use = pages.classify(inc)
        if use.kind != "output" or inc.fence is None or not use.snippet.record.exists():
            continue
        said = [BY_NAME[n].reader_sees for n in records.load(use.snippet).normalised]
        if said:
            indent = lines[inc.fence.first - 1][: -len(lines[inc.fence.first - 1].lstrip())]
            note = f'{indent}<small class="reader-note">{" ".join(said)}</small>'
            lines[inc.fence.last : inc.fence.last] = ["", note]
    return "\n".join(lines)


def _problem_page(problems: list[str]) -> str:
    body = "\n".join(f"    - `{p}`" for p in problems)
    return f'!!! failure "This page cannot be built"\n\n{body}\n'


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if not src.endswith(".md"):
        return markdown
    path = Path(page.file.abs_src_path)
    problems = consistency.include_problems(path) if path.exists() else []
    if problems:  # pymdownx would raise on these with neither page nor line named
        if SERVING:
            return _problem_page(problems)
        raise PluginError("\n".join(problems))
    try:
        used = {u.snippet for u in pages.uses(path) if u.snippet} if path.exists() else set()
        stamp = glue.stamp(used) if used else None
        markdown = _with_reader_notes(markdown, path) if path.exists() else markdown
        markdown = glue.substitute(markdown, rel(path))
        repo, edit_uri = config["repo_url"] or "", config["edit_uri"] or ""
        markdown = claims.render(markdown, rel(path), repo, edit_uri)
    except (glue.GlueError, records.RecordError, claims.ClaimError) as e:
        if SERVING:
            return _problem_page([str(e)])
        raise PluginError(str(e)) from None
    markdown = _with_notebook_links(markdown, src)
    return markdown + FOOTER.format(stamp=stamp) if stamp else markdown

"""MkDocs hooks: insert recorded values and checked-claim markers into pages, and say what
environment recorded them."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).parent))

from docpipe import claims, glue, notebooks, pages  # noqa: E402
from docpipe.paths import DOCS  # noqa: E402

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


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if not src.endswith(".md"):
        return markdown
    try:
        markdown = glue.substitute(markdown, f"docs/{src}")
        markdown = claims.render(
            markdown, f"docs/{src}", config["repo_url"] or "", config["edit_uri"] or ""
        )
        used = {u.snippet for u in pages.uses(DOCS / src)}
        stamp = glue.stamp(used) if used else None
    except (glue.GlueError, claims.ClaimError) as e:
        raise PluginError(str(e)) from None
    markdown = _with_notebook_links(markdown, src)
    return markdown + FOOTER.format(stamp=stamp) if stamp else markdown

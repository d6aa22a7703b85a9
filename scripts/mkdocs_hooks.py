"""MkDocs hooks: insert recorded values into pages and say what environment recorded them."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).parent))

from docpipe import glue, pages  # noqa: E402
from docpipe.paths import DOCS  # noqa: E402

FOOTER = """

??? info "How this page was made"
    Every output block, figure and quoted number on this page comes from running its snippet
    with {stamp}. `python scripts/regen.py` re-records them; `python scripts/regen.py --check`
    proves they still match.
"""


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if not src.endswith(".md"):
        return markdown
    try:
        markdown = glue.substitute(markdown, f"docs/{src}")
        used = {u.snippet for u in pages.uses(DOCS / src)}
        stamp = glue.stamp(used) if used else None
    except glue.GlueError as e:
        raise PluginError(str(e)) from None
    return markdown + FOOTER.format(stamp=stamp) if stamp else markdown

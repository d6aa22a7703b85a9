"""MkDocs hooks: insert recorded values into pages, say what environment recorded them, and
keep `mkdocs serve` live (docpipe.live re-runs edited snippets and flags stale pages)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).parent))

from docpipe import glue, live, markup, notebooks, pages  # noqa: E402
from docpipe.paths import DOCS  # noqa: E402

FOOTER = """

??? info "How this page was made"
    Every output block, figure and quoted number on this page comes from running its snippet
    with {stamp}. `python scripts/regen.py` re-records them; `python scripts/regen.py --check`
    proves they still match.
"""


def colab_url(repo_url: str, edit_uri: str, notebook: str) -> str | None:
    """Colab's address for a notebook of a GitHub repository: a plain link, so the page asks
    nothing of Colab when it loads. The branch is the one edit_uri names ("edit/main/docs/")."""
    repo = re.fullmatch(r"https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?", repo_url or "")
    if not repo:
        return None
    branch = re.match(r"(?:edit|blob)/([^/]+)/", edit_uri or "")
    ref = branch[1] if branch else "main"
    return f"https://colab.research.google.com/github/{repo[1]}/blob/{ref}/{notebook}"


def _notebook_links(src: str, config) -> str:
    """The companion notebook's buttons (view, download, Colab), or "" if the page has none."""
    notebook = notebooks.notebook_path(DOCS / src)
    if not notebook.exists():
        return ""
    view = notebook.relative_to(DOCS).as_posix()
    depth = len(Path(src).with_suffix("").parts)  # the page is served at <src without .md>/
    download = "../" * depth + f"{Path(view).with_suffix('')}/{notebook.name}"
    buttons = [
        f"[Open this page as a notebook]({view}){{ .md-button }}",
        f'<a class="md-button" href="{download}" download>Download the notebook (.ipynb)</a>',
    ]
    colab = colab_url(config.repo_url, config.edit_uri, f"docs/{view}")
    if colab:
        buttons.append(f'<a class="md-button" href="{colab}">Open in Colab</a>')
    return '\n<div class="notebook-links" markdown>\n' + "\n".join(buttons) + "\n</div>\n"


def _under_title(markdown: str, block: str) -> str:
    title, newline, rest = markdown.partition("\n")
    return title + newline + block + rest if title.startswith("# ") else block + markdown


def on_startup(command, dirty):
    live.start(serving=command == "serve")


def on_shutdown():
    live.stop()


def on_pre_build(config):
    live.refresh()


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if not src.endswith(".md"):
        return markdown
    try:
        markdown = markup.restore(glue.substitute(markup.protect(markdown), f"docs/{src}"))
        used = {u.snippet for u in pages.uses(DOCS / src)}
        stamp = glue.stamp(used) if used else None
    except glue.GlueError as e:
        raise PluginError(str(e)) from None
    markdown = _under_title(markdown, live.notice(used) + _notebook_links(src, config))
    return markdown + FOOTER.format(stamp=stamp) if stamp else markdown

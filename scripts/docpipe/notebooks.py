"""Companion notebooks: one per tutorial page, generated from the page and its recorded runs.

The page's headings and prose become markdown cells and every included snippet section becomes
a code cell, in page order, with the output that section printed in the recorded run. Nothing
volatile is stored (no execution counts, fixed cell ids), so regenerating gives identical bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import claims, glue, pages
from .paths import DOCS, NOTEBOOKS, ROOT, SNIPPETS, Snippet, hosted_repo, hosted_url, rel
from .sections import MARKER, SectionError, find_sections

ADMONITION = re.compile(r'^(?P<indent>\s*)(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+"(?P<title>[^"]*)")?\s*$')
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})")
PAGE_LINK = re.compile(r"\]\((?P<page>[\w/-]+)\.md(?P<anchor>#[\w-]+)?\)")
ATTRS = re.compile(r"\)\{[^}]*\}")


def notebook_path(page: Path) -> Path:
    return NOTEBOOKS / page.relative_to(DOCS).with_suffix(".ipynb")


def tutorial_pages(docs: Path = DOCS) -> list[Path]:
    """Pages that show snippet code get a notebook."""
    return [p for p in pages.markdown_pages(docs) if any(u.kind == "code" for u in pages.uses(p))]


def section_code(snippet: Snippet, section: str) -> str:
    lines = snippet.source.read_text(encoding="utf-8").splitlines()
    if section:
        start, end = find_sections("\n".join(lines), snippet.name)[section]
        lines = lines[start - 1 : end]
    lines = [line for line in lines if not MARKER.match(line)]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(line[indent:] for line in lines)


def section_output(snippet: Snippet, section: str) -> str:
    recorded = glue.record(snippet)["sections"]
    return "".join(text for name, text in recorded if name == section or not section)


def build(page: Path):
    import nbformat.v4 as nbf

    page_url = hosted_url() + page.relative_to(DOCS).with_suffix("").as_posix() + "/"
    text = glue.substitute(page.read_text(encoding="utf-8"), rel(page))
    text = claims.render(text, rel(page), *hosted_repo(), notebook=True)
    cells = [
        nbf.new_markdown_cell(
            f"*This notebook is generated from the page [{page_url}]({page_url}). Every output "
            "below was recorded by running the same code; run all cells from the top to see "
            "it again.*"
        )
    ]
    prose: list[str] = []

    def flush() -> None:
        body = "\n".join(prose).strip("\n")
        if body.strip():
            cells.append(nbf.new_markdown_cell(body))
        prose.clear()

    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and not lines[end].strip().startswith(fence["fence"]):
                end += 1
            body = [x.strip() for x in lines[i + 1 : end] if x.strip()]
            include = pages.INCLUDE.match(body[0]) if len(body) == 1 else None
            target = include["target"] if include else ""
            path, _, section = target.partition(":")
            if include and (ROOT / path).resolve().is_relative_to(SNIPPETS):
                flush()
                snippet = Snippet.from_path(ROOT / path)
                if not _resolves(snippet, section):
                    i = end + 1
                    continue  # the site check names the broken include; the notebook skips it
                cell = nbf.new_code_cell(section_code(snippet, section))
                cell.metadata["docpipe"] = {"snippet": snippet.name, "section": section}
                output = section_output(snippet, section)
                if output:
                    cell.outputs = [nbf.new_output("stream", name="stdout", text=output)]
                cells.append(cell)
            elif not include:
                prose.extend(x[len(fence["indent"]) :] for x in lines[i : end + 1])
            i = end + 1
            continue
        if line.lstrip().startswith("<figure"):
            while i < len(lines) and "</figure>" not in lines[i]:
                i += 1
            prose.append(f"*(The figure for this part is on the [page]({page_url}).)*")
            i += 1
            continue
        admonition = ADMONITION.match(line)
        if admonition:
            if admonition["title"]:
                prose.append(f"{admonition['indent']}**{admonition['title']}**")
                prose.append("")
            i += 1
            continue
        if line.startswith("#"):
            flush()
            line = line.replace("`", "")  # a notebook's table of contents drops code spans
        prose.append(_dedent(line))
        i += 1
    flush()
    for index, cell in enumerate(cells):
        cell.id = f"cell-{index:03d}"
        if cell.cell_type == "markdown":
            cell.source = _site_links(cell.source)
    nb = nbf.new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    return nb


def _resolves(snippet: Snippet, section: str) -> bool:
    if not snippet.source.is_file():
        return False
    try:
        text = snippet.source.read_text(encoding="utf-8")
        return not section or section in find_sections(text, snippet.name)
    except SectionError:
        return False


def _dedent(line: str) -> str:
    # Admonition bodies are indented by four spaces; in a notebook they are plain paragraphs.
    return line[4:] if line.startswith("    ") else line


def _site_links(source: str) -> str:
    site = hosted_url()
    source = PAGE_LINK.sub(lambda m: f"]({site}{m['page']}/{m['anchor'] or ''})", source)
    return ATTRS.sub(")", source)


def render(page: Path) -> bytes:
    import nbformat

    return (nbformat.writes(build(page)) + "\n").encode()


def expected() -> dict[Path, bytes]:
    return {notebook_path(p): render(p) for p in tutorial_pages()}

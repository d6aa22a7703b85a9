"""Companion notebooks: one per tutorial page, generated from the page and its recorded runs.

The page's headings and prose become markdown cells and every included snippet section becomes
a code cell, in page order, with the output that section printed in the recorded run. Nothing
volatile is stored (no execution counts, fixed cell ids), so regenerating gives identical bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

from docpipe import texts
from docpipe.pages import claims, values
from docpipe.pages import reading as pages
from docpipe.project import Project, Snippet
from docpipe.recorded import record as records
from docpipe.sections import section_text

ADMONITION = re.compile(r'^(?P<indent>\s*)(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+"(?P<title>[^"]*)")?\s*$')
PAGE_LINK = re.compile(r"\]\((?P<page>[\w/-]+)\.md(?P<anchor>#[\w-]+)?\)")
ATTRS = re.compile(r"\)\{[^}]*\}")


def notebook_path(project: Project, page: Path) -> Path:
    return project.notebooks / page.relative_to(project.docs).with_suffix(".ipynb")


def page_of(project: Project, notebook: Path) -> Path | None:
    """The tutorial page a notebook is built from (notebook_path's inverse), or None."""
    if notebook.suffix != ".ipynb" or not notebook.is_relative_to(project.notebooks):
        return None
    page = project.docs / notebook.relative_to(project.notebooks).with_suffix(".md")
    return page if page.is_file() else None


def tutorial_pages(project: Project, site: pages.Pages | None = None) -> list[Path]:
    """Pages that show snippet code get a notebook."""
    return [
        p.path
        for p in (site or pages.Pages(project)).all()
        if any(u.kind == "code" for u in p.uses)
    ]


def inputs(project: Project, page: Path, site: pages.Pages | None = None) -> list[Path]:
    """What a page's notebook is made from, in a fixed order: the page, each snippet it shows
    with its recorded run, the files it shows (the regen cache keys the notebook on them)."""
    found = pages.as_page(project, page, site).uses
    snippets = sorted({u.snippet for u in found if u.snippet})
    files = sorted({u.path for u in found if u.kind == "file"})
    return [page, *(p for s in snippets for p in (s.source, s.record)), *files]


def section_code(snippet: Snippet, section: str) -> str:
    options = snippet.project.site.snippets_options
    return section_text(texts.read(snippet.source, snippet.name), section, options)


def section_output(snippet: Snippet, section: str) -> str:
    return records.load(snippet).output_of(section)


def build(project: Project, page: Path | pages.Page):
    import nbformat.v4 as nbf

    page = pages.as_page(project, page)
    page_url = project.site.page_url(page.path.relative_to(project.docs).as_posix())
    text = values.substitute(project, page.text, page.name)
    text = claims.render(project, text, page.name, notebook=True)
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
    fences = {f.first - 1: f for f in pages.fences(text)}
    included = {inc.line: inc for inc in pages.includes(project, page.path, text)}
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = fences.get(i)
        if fence:
            inner = [included.get(n) for n in range(fence.first + 1, fence.last)]
            inner = [inc for inc in inner if inc]
            use = pages.classify(project, inner[0]) if len(fence.body) == 1 and inner else None
            if inner and all(pages.classify(project, x).kind == "output" for x in inner):
                # An output block, whole or a run of sections: its code cells hold it, each
                # cell the output of its own section.
                use = pages.classify(project, inner[0])
            if use and use.kind == "code":
                flush()
                cell = nbf.new_code_cell(section_code(use.snippet, use.detail))
                cell.metadata["docpipe"] = {"snippet": use.snippet.name, "section": use.detail}
                output = section_output(use.snippet, use.detail)
                if output:
                    cell.outputs = [nbf.new_output("stream", name="stdout", text=output)]
                cells.append(cell)
            elif use and use.kind == "file":
                shown = section_text(
                    texts.read(inner[0].path, project.rel(inner[0].path)),
                    inner[0].section,
                    project.site.snippets_options,
                )
                language = fence.info.split(" ")[0].lstrip("{.")
                prose.extend([f"```{language}", shown, "```"])
            elif not use:
                indent = len(line) - len(line.lstrip())
                prose.extend(x[indent:] for x in lines[i : fence.last])
            i = fence.last
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
            cell.source = _site_links(project, cell.source)
    nb = nbf.new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    return nb


def _dedent(line: str) -> str:
    # Admonition bodies are indented by four spaces; in a notebook they are plain paragraphs.
    return line[4:] if line.startswith("    ") else line


def _site_links(project: Project, source: str) -> str:
    def link(m: re.Match) -> str:
        return f"]({project.site.page_url(m['page'] + '.md')}{m['anchor'] or ''})"

    source = PAGE_LINK.sub(link, source)
    return ATTRS.sub(")", source)


def render(project: Project, page: Path | pages.Page) -> bytes:
    import nbformat

    return (nbformat.writes(build(project, page)) + "\n").encode()


def differing_cells(project: Project, path: Path, site: pages.Pages | None = None) -> list[str]:
    """Name the cells of a committed notebook that differ from the regenerated one."""
    import nbformat

    page = project.docs / path.relative_to(project.notebooks).with_suffix(".md")
    new = nbformat.reads(render(project, pages.as_page(project, page, site)).decode(), 4).cells
    try:
        old = nbformat.read(path, as_version=4).cells
    except Exception as e:  # a hand-broken file is still named, with why it cannot be read
        return [f"cannot read it: {e}"]
    lines = []
    for index in range(max(len(old), len(new))):
        a = old[index] if index < len(old) else None
        b = new[index] if index < len(new) else None
        if a != b:
            cell = b or a
            origin = cell.get("metadata", {}).get("docpipe")
            where = f" ({origin['snippet']}:{origin['section']})" if origin else ""
            lines.append(f"cell {index} [{cell.get('id', '?')}]{where} differs")
    return lines


def expected(project: Project, site: pages.Pages | None = None) -> dict[Path, bytes]:
    """What regen writes, for every page whose snippets all have a recorded run (a snippet
    without one is reported as drift of its own, and its page's notebook waits for it)."""
    site = site or pages.Pages(project)
    shown = [site.page(p) for p in tutorial_pages(project, site)]
    return {
        notebook_path(project, p.path): render(project, p)
        for p in shown
        if all(u.snippet.record.exists() for u in p.uses if u.snippet)
    }

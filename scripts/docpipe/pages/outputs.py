"""The recorded output of one section, or of a run of consecutive sections, under its code.

A page includes a snippet's whole output as `--8<-- "docs/generated/<key>.txt"`, and the output of
one section with pymdownx's own section syntax, `--8<-- "docs/generated/<key>.txt:<section>"`.
Several such lines in one block show a run of sections whose outputs follow each other in the
run. The text is the record's (docs/generated/<key>.json keeps what each section printed, and
those parts make up the .txt whole), so the drift check, the notebooks and a reader's run read it
as the recorded output it is.

pymdownx.snippets cannot cut a plain text file by section: the build (scripts/mkdocs_hooks.py)
puts each section's text in place of its include line before pymdownx reads the page, and adds
to the block's title which lines of the whole output the block shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docpipe import texts
from docpipe.pages import reading as pages
from docpipe.problems import DocpipeError
from docpipe.project import Project, Snippet
from docpipe.recorded import record as records
from docpipe.sections import SectionError, find_sections


class OutputIncludeError(DocpipeError):
    """An include of a section's output that names no section, one that printed nothing, or
    sections whose outputs do not follow each other in the run (page and line named)."""


@dataclass(frozen=True)
class Part:
    """Lines first..last of a run's whole output (1-based), printed by these sections."""

    snippet: Snippet
    sections: tuple[str, ...]
    text: str
    first: int
    last: int
    total: int  # lines of the whole output

    @property
    def title(self) -> str:
        """What the build adds to the block's title: which lines of the whole output it is."""
        lines = (
            f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"
        )
        return f"output {lines} of {self.total}"


def line_count(text: str) -> int:
    return len(text.splitlines())


def printed(record: records.Record) -> list[str]:
    """The sections that printed something, in run order."""
    return [name for name, text in record.sections if name and text]


def part(snippet: Snippet, sections: tuple[str, ...], record: records.Record | None = None) -> Part:
    """The output of these sections of the snippet's recorded run, which must follow each other
    in the run (a section between them may print nothing). Raises OutputIncludeError, without a
    page (the caller names it)."""
    record = record or records.load(snippet)
    names = [name for name, _ in record.sections]
    said = ", ".join(printed(record)) or "none"
    for section in sections:
        if section not in names:
            raise OutputIncludeError(
                f"the recorded run of {snippet.name} has no section '{section}'"
                f" (sections that printed: {said}; run: python scripts/regen.py {snippet.name})"
            )
        if not record.output_of(section):
            raise OutputIncludeError(
                f"section '{section}' of {snippet.name} printed nothing in its recorded run;"
                f" include the output of a section that printed (sections that printed: {said})"
            )
    where = [names.index(s) for s in sections]
    lo, hi = min(where), max(where)
    loud = [
        name or "code outside sections"
        for name, text in record.sections[lo : hi + 1]
        if name not in sections and text
    ]
    if where != sorted(where) or len(set(where)) != len(where) or loud:
        gap = f" ({', '.join(loud)} printed between them)" if loud else ""
        raise OutputIncludeError(
            f"the sections {', '.join(sections)} of {snippet.name} are not a run of consecutive"
            f" outputs{gap}; one block shows sections in the order they ran, with nothing"
            " printed between them"
        )
    before = "".join(text for _, text in record.sections[:lo])
    text = "".join(record.output_of(s) for s in sections)
    first = line_count(before) + 1
    return Part(
        snippet,
        tuple(sections),
        text,
        first,
        first + line_count(text) - 1,
        line_count(record.output_of("")),
    )


@dataclass(frozen=True)
class Block:
    """An output block of a page that shows sections: its fence and its include lines."""

    fence: pages.Fence
    includes: tuple[pages.Include, ...]
    snippet: Snippet

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(inc.section for inc in self.includes)


def is_output(project: Project, inc: pages.Include) -> bool:
    return not inc.problem and pages.classify(project, inc).kind == "output"


def blocks(project: Project, page: Path | pages.Page, text: str | None = None) -> list[Block]:
    """The output blocks of a page whose includes name sections (one snippet's, or the first
    include's snippet when they mix: consistency names the mix); `text`: the page's Markdown
    as a generator hands it over, in place of its file's."""
    included = pages.as_page(project, page).includes if text is None else None
    by_fence: dict[int, list[pages.Include]] = {}
    for inc in included or pages.includes(project, page, text):
        if inc.fence is not None and inc.section and is_output(project, inc):
            by_fence.setdefault(inc.fence.first, []).append(inc)
    return [
        Block(incs[0].fence, tuple(incs), project.owner(incs[0].path)) for incs in by_fence.values()
    ]


def source_sections(snippet: Snippet) -> dict[str, tuple[int, int]] | None:
    """The snippet's sections as its source marks them (None: unreadable, named elsewhere)."""
    try:
        return find_sections(texts.read(snippet.source, snippet.name), snippet.name)
    except (OSError, SectionError):
        return None


def expand(project: Project, page: Path, markdown: str, name: str) -> str:
    """The page with each section include replaced by that section's recorded text, and each
    such block's title saying which lines of the whole output it shows (what the build gives
    pymdownx). Raises OutputIncludeError with the page and line of a bad include."""
    lines = markdown.split("\n")
    for block in reversed(blocks(project, page, markdown)):
        try:
            shown = part(block.snippet, block.sections)
        except (OutputIncludeError, records.RecordError) as e:
            raise OutputIncludeError(e.message, name, block.includes[0].line) from None
        opening = lines[block.fence.first - 1]
        command = f'title="{block.snippet.command}"'
        if command in opening:
            lines[block.fence.first - 1] = opening.replace(
                command, f'title="{block.snippet.command}, {shown.title}"', 1
            )
        first, last = block.includes[0].line, block.includes[-1].line
        include = lines[first - 1]
        indent = include[: len(include) - len(include.lstrip())]
        body = [indent + line if line else line for line in shown.text.rstrip("\n").split("\n")]
        lines[first - 1 : last] = body
    return "\n".join(lines)


def output_blocks(
    project: Project, page: Path, text: str
) -> list[tuple[pages.Include, Part | None]]:
    """Each output block of the page whose snippet has a record, once: its first include, and
    the part of the output it shows (None: the whole output; a block whose sections cannot be
    shown is left out, consistency names it)."""
    found, seen = [], set()
    by_fence: dict[int, Block] | None = None  # the page's blocks, found once if any is asked
    for inc in pages.includes(project, page, text):
        if inc.fence is None or inc.fence.first in seen or not is_output(project, inc):
            continue
        snippet = project.owner(inc.path)
        if not snippet.record.exists():
            continue
        seen.add(inc.fence.first)
        if not inc.section:
            found.append((inc, None))
            continue
        if by_fence is None:
            by_fence = {b.fence.first: b for b in blocks(project, page, text)}
        block = by_fence[inc.fence.first]
        try:
            found.append((inc, part(snippet, block.sections)))
        except (OutputIncludeError, records.RecordError):
            continue
    return found

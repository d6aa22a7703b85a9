"""Named sections of a snippet (`# --8<-- [start:name]` ... `[end:name]`) and the chunks they cut.

Pages include a snippet by section; the runner executes the same sections one after another in a
single namespace, so it can tell which output each section printed (a notebook cell's output).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from types import CodeType

MARKER = re.compile(r"^\s*#\s*--8<--\s*\[(start|end):([\w-]+)\]\s*$")


class SectionError(Exception):
    """Section markers that do not fit the rules; the message names file and line."""


@dataclass(frozen=True)
class Chunk:
    section: str | None  # None: top-level code outside every section
    code: CodeType


def find_sections(text: str, filename: str) -> dict[str, tuple[int, int]]:
    """Section name -> (first, last) line of its body, 1-based. Sections may not nest."""
    found: dict[str, tuple[int, int]] = {}
    open_name, open_line = None, 0
    for number, line in enumerate(text.splitlines(), start=1):
        m = MARKER.match(line)
        if not m:
            continue
        kind, name = m.groups()
        if kind == "start":
            if open_name is not None:
                raise SectionError(
                    f"{filename}:{number}: section '{name}' starts inside section '{open_name}'"
                )
            if name in found:
                raise SectionError(f"{filename}:{number}: section '{name}' appears twice")
            open_name, open_line = name, number
        elif name != open_name:
            raise SectionError(f"{filename}:{number}: end of section '{name}', which is not open")
        else:
            found[name] = (open_line + 1, number - 1)
            open_name = None
    if open_name is not None:
        raise SectionError(f"{filename}:{open_line}: section '{open_name}' is never ended")
    return found


def split(text: str, filename: str) -> list[Chunk]:
    """Compile the top-level statements into consecutive chunks, one per section run.

    Raises SyntaxError as Python would for the whole file, and SectionError when a marker
    sits inside a statement (a section must be whole top-level statements).
    """
    tree = ast.parse(text, filename)
    spans = find_sections(text, filename)

    def section_of(node: ast.stmt) -> str | None:
        first = node.lineno
        if node.decorator_list if hasattr(node, "decorator_list") else False:
            first = min(d.lineno for d in node.decorator_list)
        for name, (start, end) in spans.items():
            inside_first, inside_last = start <= first <= end, start <= node.end_lineno <= end
            if inside_first and inside_last:
                return name
            if inside_first or inside_last or (first < start and node.end_lineno > end):
                raise SectionError(
                    f"{filename}:{first}: a statement crosses a marker of section '{name}';"
                    " markers must sit between top-level statements"
                )
        return None

    groups: list[tuple[str | None, list[ast.stmt]]] = []
    for node in tree.body:
        section = section_of(node)
        if groups and groups[-1][0] == section:
            groups[-1][1].append(node)
        else:
            groups.append((section, [node]))
    return [
        Chunk(section, compile(ast.Module(body=body, type_ignores=[]), filename, "exec"))
        for section, body in groups
    ]

"""Named sections of a snippet (`# --8<-- [start:name]` ... `[end:name]`) and the chunks they cut.

The grammar is pymdownx.snippets' own: markers are found with its section pattern, and a section's
text is what its `extract_section` returns with this site's settings, so a section the runner
accepts is exactly one a page can include. A line that looks like a marker but that pymdownx
would not read as one (a name such as `2nd`, code before the marker) is refused with file:line.

Pages include a snippet by section; the runner executes the same sections one after another in a
single namespace, so it can tell which output each section printed (a notebook cell's output).
"""

from __future__ import annotations
import __future__

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from types import CodeType

from docpipe.problems import DocpipeError

# Anything a reader would take for a marker; pymdownx's own pattern then decides if it is one.
LOOKS_LIKE_MARKER = re.compile(r"-+8<-+[ \t]+\[[ \t]*(?:start|end)[ \t]*:", re.I)
COMMENT_START = re.compile(r"[ \t]*#[ \t]*")  # all a marker's line may hold before it
NAME_RULE = "a letter, then letters, digits, '-' or '_'"
CLAIM_PREFIX = "claim-"  # a section of asserts backing a page's sentence (docpipe.pages.claims)


class SectionError(DocpipeError):
    """Section markers that do not fit the rules (a Problem with the file and line)."""


@dataclass(frozen=True)
class Chunk:
    section: str | None  # None: top-level code outside every section
    code: CodeType
    line: int = 0  # the line of its first statement
    reads: frozenset[str] = frozenset()  # the names its code reads before it binds them
    binds: frozenset[str] = frozenset()  # the names its top-level statements bind


def _names(body: list[ast.stmt]) -> tuple[frozenset[str], frozenset[str]]:
    """(reads, binds) of top-level statements: the names read before any of them binds it
    (whatever reads them: a function's body, a comprehension), and the names they bind."""
    reads, binds = set(), set()
    for statement in body:
        bound = set()  # what this statement binds: its own reads of them still count
        for n in ast.walk(statement):
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Load):
                    if n.id not in binds:
                        reads.add(n.id)
                else:  # Store, Del
                    bound.add(n.id)
            elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(n.name)
            elif isinstance(n, ast.alias):
                bound.add((n.asname or n.name).split(".")[0])
        binds |= bound
    return frozenset(reads), frozenset(binds)


def preprocessor(options: dict | None = None):
    """pymdownx.snippets' preprocessor, with the options mkdocs.yml gives it (the project's
    `site.snippets_options`); without them, its marker grammar alone, which no option changes."""
    frozen = tuple(
        sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (options or {}).items())
    )
    return _preprocessor(frozen)


@cache
def _preprocessor(options: tuple):
    import markdown

    config = {k: list(v) if isinstance(v, tuple) else v for k, v in options}
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": config}
    )
    return md.preprocessors["snippet"]


@lru_cache(maxsize=256)
def parsed(text: str, filename: str) -> ast.Module:
    """The syntax tree of a snippet's text (SyntaxError as Python gives it), parsed once: the
    page checks read the same snippet's tree for each claim marker and each rule. Callers
    only read it."""
    return ast.parse(text, filename)


def markers(text: str, filename: str) -> list[tuple[int, str, str]]:
    """(line, "start" or "end", name) of every marker, as pymdownx reads them."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not LOOKS_LIKE_MARKER.search(line):
            continue
        m = preprocessor().match_section(line)
        if m is None:
            raise SectionError(
                f"not a section marker pymdownx.snippets accepts"
                f" (a section name is {NAME_RULE}): {line.strip()}",
                filename,
                number,
            )
        if m["escape"]:
            continue  # `;--8<--` is pymdownx's escape: shown as text, not a marker
        if not COMMENT_START.fullmatch(m["pre"]) or m["post"].strip():
            raise SectionError(
                "a section marker must stand alone on a comment line"
                " (pymdownx.snippets drops the whole line from the page)",
                filename,
                number,
            )
        found.append((number, m["type"].lower(), m["name"]))
    return found


def find_sections(text: str, filename: str) -> dict[str, tuple[int, int]]:
    """Section name -> (first, last) line of its body, 1-based. Sections may not nest."""
    found: dict[str, tuple[int, int]] = {}
    open_name, open_line = None, 0
    for number, kind, name in markers(text, filename):
        if kind == "start":
            if open_name is not None:
                raise SectionError(
                    f"section '{name}' starts inside section '{open_name}'", filename, number
                )
            if name in found:
                raise SectionError(f"section '{name}' appears twice", filename, number)
            open_name, open_line = name, number
        elif name != open_name:
            raise SectionError(f"end of section '{name}', which is not open", filename, number)
        else:
            found[name] = (open_line + 1, number - 1)
            open_name = None
    if open_name is not None:
        raise SectionError(f"section '{open_name}' is never ended", filename, open_line)
    return found


def section_text(text: str, section: str, options: dict | None = None) -> str:
    """The text a page shows for an include of this section (the whole file for ""), with
    pymdownx.snippets' options as mkdocs.yml gives them."""
    pre = preprocessor(options)
    lines = text.split("\n")
    if section:
        lines = pre.extract_section(section, lines)
    else:
        lines = [line for line in lines if not pre.match_section(line)]
    return "\n".join(lines).strip("\n")


def split(
    text: str,
    filename: str,
    shown: str | None = None,
    transform: Callable[[str | None, ast.Module], ast.Module] | None = None,
) -> list[Chunk]:
    """Compile the top-level statements into consecutive chunks, one per section run.

    Raises SyntaxError as Python would for the whole file, and SectionError when a marker
    sits inside a statement (a section must be whole top-level statements). Code objects
    carry `filename`, as `python file.py` would; messages name the file as `shown`. They are
    compiled as `python file.py` compiles them, whatever the runner's own -O (asserts stay)
    and its own `from __future__` imports: each chunk has the file's (`_future_flags`).
    `transform(section, module)` may rewrite a chunk's statements before they are compiled.
    """
    tree = ast.parse(text, filename)
    spans = find_sections(text, shown or filename)

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
                    f"a statement crosses a marker of section"
                    f" '{name}'; markers must sit between top-level statements",
                    shown or filename,
                    first,
                )
        return None

    groups: list[tuple[str | None, list[ast.stmt]]] = []
    for node in tree.body:
        section = section_of(node)
        if groups and groups[-1][0] == section:
            groups[-1][1].append(node)
        else:
            groups.append((section, [node]))
    flags = _future_flags(tree)
    chunks = []
    for section, body in groups:
        line, (reads, binds) = body[0].lineno, _names(body)
        module = ast.Module(body=body, type_ignores=[])
        if transform is not None:
            module = transform(section, module)
        code = compile(module, filename, "exec", flags, dont_inherit=True, optimize=0)
        chunks.append(Chunk(section, code, line, reads, binds))
    return chunks


def _future_flags(tree: ast.Module) -> int:
    """The compiler flags of the file's `from __future__ import ...` statements (which Python
    allows only at its top, after the docstring): every chunk is compiled with them, as the
    whole file is when Python runs it, not only the chunk that holds them."""
    flags = 0
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    for node in body:
        if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            break
        for alias in node.names:
            feature = getattr(__future__, alias.name, None)
            flags |= getattr(feature, "compiler_flag", 0)
    return flags

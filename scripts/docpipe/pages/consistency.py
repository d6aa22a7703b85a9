"""Site-wide rules that tie pages, snippets and generated files together; each problem is named
with its file and line. These are problems only an author can fix (regen cannot), so regen stops
on them before it writes anything, and --check lists them first."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from docpipe import inputs, texts
from docpipe.catalog import Catalog
from docpipe.pages import claims, rules
from docpipe.pages import reading as pages
from docpipe.pages.claims import LOOSE
from docpipe.pages.notebooks import notebook_path, tutorial_pages
from docpipe.pages.outputs import OutputIncludeError, blocks, part, source_sections
from docpipe.problems import Problem
from docpipe.project import Project
from docpipe.recorded.record import RecordError, load
from docpipe.recorded.writing import LEFTOVER
from docpipe.sections import CLAIM_PREFIX, SectionError, find_sections, preprocessor

OUTPUT_LANGS = {"text", "console", "output", "pycon", "txt", "plaintext"}
SNIPPETS_SYNTAX = "pymdownx.snippets acts on it"


def _per_page(project: Project, page: Path) -> tuple[str, str]:
    """The key of a page check kept until a file it read changes (docpipe.inputs)."""
    return str(project.root), str(page)


def problems(cat: Catalog) -> list[Problem]:
    return page_problems(cat) + output_problems(cat)


def page_problems(
    cat: Catalog, outputs_made_later: bool = False, site: pages.Pages | None = None
) -> list[Problem]:
    """What an author must fix in pages, snippets.toml or mkdocs.yml; regen cannot."""
    project = cat.project
    site = site or pages.Pages(project)
    found: list[Problem] = []
    for page in site.all():
        found += include_problems(project, page, outputs_made_later)
    uses = pages.all_uses(project, site)
    for use in uses:
        where = project.rel(use.page), use.line
        named = use.path is not None and not use.path.exists()  # by include_problems
        if use.snippet is not None and use.snippet not in cat.settings and not named:
            found.append(Problem(*where, f"{use.snippet.name} does not exist"))
        elif use.kind == "value" and use.detail not in cat.settings[use.snippet].values:
            found.append(
                Problem(
                    *where,
                    f"{use.snippet.name} declares no value '{use.detail}' in snippets.toml",
                )
            )
    for page in site.all():
        found += typed_outputs(project, page) + unshown_sections(project, page)
        found += unread_markers(project, page)
    return found + nav_problems(project, site)


def output_problems(cat: Catalog, site: pages.Pages | None = None) -> list[Problem]:
    """Snippets no page shows, recorded files no snippet owns or a page cannot show as
    recorded, claims that check nothing, and what the page rules find in prose (docpipe.pages.rules:
    typed numbers, general sentences, unasserted agreement): reported by --check, but no reason
    to refuse a regen."""
    project = cat.project
    site = site or pages.Pages(project)
    found = claims.problems(project, site) + rules.problems(cat, site=site)
    uses = pages.all_uses(project, site)
    shown = {u.snippet for u in uses if u.kind in ("code", "output")}
    for snippet in cat.snippets:
        if snippet not in shown and not cat.exempt(snippet.name, "not-on-a-page"):
            found.append(
                Problem(snippet.name, None, "no page shows its code or output (orphan snippet)")
            )
    for use in uses:
        if use.kind == "output" and use.path.is_file():
            found += swallowed_lines(project, use.path, (project.rel(use.page), use.line))
    for page in site.all():
        found += output_includes(project, page)
    generated = project.generated
    for path in sorted(generated.rglob("*")) if generated.is_dir() else []:
        if LEFTOVER.match(path.name):
            continue  # a regen's temporary file: in flight, or left by a killed run (repaired)
        if path.is_file() and project.owner(path) not in cat.settings:
            found.append(
                Problem(project.rel(path), None, "belongs to no snippet (orphan output; delete it)")
            )
    return found


def _owner_exists(project: Project, output: Path) -> bool:
    """Whether the snippet a recorded file belongs to exists (a run can record the file)."""
    try:
        return project.owner(output).source.is_file()
    except Exception:  # noqa: BLE001 - a file no snippet could own
        return False


@inputs.memo(
    key=lambda project, page, outputs_made_later=False: (
        str(project.root),
        str(page),
        outputs_made_later,
    )
)
def include_problems(
    project: Project, page: Path | pages.Page, outputs_made_later: bool = False
) -> list[Problem]:
    """Every include as pymdownx would read it: the file exists and so does the section.
    With outputs_made_later (regen), a recorded output regen is about to write may be missing."""
    page = pages.as_page(project, page)
    found = []
    for inc in page.includes:
        where = page.name, inc.line
        made_later = project.generated in inc.path.parents
        if made_later and not inc.path.exists() and not _owner_exists(project, inc.path):
            owner = project.owner(inc.path)
            found.append(
                Problem(
                    *where,
                    f"{project.rel(inc.path)} would be the output of {owner.name}, which does"
                    " not exist: no run can record it (include an existing snippet's output)",
                )
            )
            continue
        if outputs_made_later and not inc.path.exists() and made_later:
            continue
        if inc.problem:
            found.append(Problem(*where, inc.problem))
            continue
        if not inc.section:
            continue
        if pages.classify(project, inc).kind == "output":
            found += _output_section_problems(project, inc, where)
            continue
        try:
            spans = find_sections(
                texts.read(inc.path, project.rel(inc.path)), project.rel(inc.path)
            )
        except SectionError as e:
            found.append(Problem(*where, str(e)))
            continue
        if inc.section not in spans:
            known = ", ".join(spans) or "none"
            found.append(
                Problem(
                    *where,
                    f"{project.rel(inc.path)} has no section '{inc.section}' (sections: {known})",
                )
            )
    return found


def _output_section_problems(project: Project, inc, where: tuple[str, int]) -> list[Problem]:
    """An include of a section's recorded output names a section of its snippet's source
    (whether it printed is for output_problems: the record may not be made yet)."""
    snippet = project.owner(inc.path)
    spans = source_sections(snippet)
    if spans is None or inc.section in spans:
        return []
    known = ", ".join(spans) or "none"
    return [
        Problem(
            *where,
            f"{project.rel(inc.path)}:{inc.section} names a section {snippet.name} does not"
            f" have (sections: {known})",
        )
    ]


@inputs.memo(key=_per_page)
def output_includes(project: Project, page: Path | pages.Page) -> list[Problem]:
    """Each section output a page includes printed something, the sections of one block ran one
    after another, and the block sits under the code that printed it: the nearest code block
    above it shows the last section it includes, or a later one, when nothing was printed in
    between. A whole output shown on a page that shows its snippet's code sits under the code
    of the last section that printed. (Needs the records: reported by --check and the build,
    not before a regen.)"""
    page = pages.as_page(project, page)
    name = page.name
    found: list[Problem] = []
    code: list[tuple[int, object, str]] = []  # (fence line, snippet, section) of code blocks
    whole: list[tuple[int, int, object]] = []  # (fence line, include line, snippet)
    for inc in page.includes:
        if inc.problem or inc.fence is None:
            continue
        use = pages.classify(project, inc)
        if use.kind == "code":
            code.append((inc.fence.first, use.snippet, inc.section))
        elif use.kind == "output" and not inc.section:
            whole.append((inc.fence.first, inc.line, use.snippet))
    shown = {snippet for _, snippet, _ in code}

    def under(fence: int, line: int, snippet, last: str, record, what: str) -> None:
        above = [(f, s, sec) for f, s, sec in code if f < fence]
        names = [n for n, _ in record.sections]
        if above and above[-1][1] == snippet and above[-1][2] == "":
            return  # under the whole file's code
        if not above or above[-1][1] != snippet or above[-1][2] not in names:
            found.append(
                Problem(
                    name,
                    line,
                    f"{what} of {snippet.name} is not under the code that printed it; put it"
                    f" right under the block that shows its section '{last}' (no other code"
                    " between them)",
                )
            )
            return
        start, end = names.index(last), names.index(above[-1][2])
        if end < start or any(text for _, text in record.sections[start + 1 : end + 1]):
            found.append(
                Problem(
                    name,
                    line,
                    f"{what} of {snippet.name} is under the code of section '{above[-1][2]}',"
                    f" not of '{last}', which printed it; put it right under that section's"
                    " block",
                )
            )

    mixed = {fence for fence, _, _ in whole}
    for block in blocks(project, page):
        owners = {project.owner(inc.path) for inc in block.includes}
        if len(owners) > 1 or block.fence.first in mixed:
            continue  # typed_outputs names the mix
        try:
            record = load(block.snippet)
        except RecordError:
            continue  # no run recorded yet: the drift check names it
        spans = source_sections(block.snippet) or {}
        if any(inc.section not in spans for inc in block.includes):
            continue  # include_problems names it
        bad = False
        for inc in block.includes:
            try:
                part(block.snippet, (inc.section,), record)
            except OutputIncludeError as e:
                found.append(Problem(name, inc.line, e.message))
                bad = True
        if bad:
            continue
        try:
            part(block.snippet, block.sections, record)
        except OutputIncludeError as e:
            found.append(Problem(name, block.includes[0].line, e.message))
            continue
        what = f"the output of section '{block.sections[-1]}'"
        if block.snippet not in shown:
            found.append(
                Problem(
                    name,
                    block.includes[0].line,
                    f"{what} of {block.snippet.name} is shown without the code that printed it;"
                    " include the whole output, or show the code above it",
                )
            )
            continue
        under(block.fence.first, block.includes[0].line, block.snippet, block.sections[-1],
              record, what)  # fmt: skip
    for fence, line, snippet in whole:
        if snippet not in shown:
            continue  # the output of a run whose code the page does not show
        try:
            record = load(snippet)
        except RecordError:
            continue
        loud = [n for n, text in record.sections if text and n]
        if loud:
            under(fence, line, snippet, loud[-1], record, "the whole output")
    return found


@inputs.memo(key=_per_page)
def unshown_sections(project: Project, page: Path | pages.Page) -> list[Problem]:
    """A page that shows a snippet's code shows all of it: every section but its claims, in
    the snippet's order, since the page's notebook runs them top to bottom (a section left out
    leaves the names it defines undefined in the notebook)."""
    page = pages.as_page(project, page)
    shown: dict = {}
    for inc in page.includes:
        use = pages.classify(project, inc) if not inc.problem else None
        if use and use.kind == "code":
            shown.setdefault(use.snippet, []).append((inc.line, inc.section))
    found = []
    for snippet, included in shown.items():
        if any(section == "" for _, section in included):
            continue  # the whole file
        try:
            wanted = _shown_sections(snippet, snippet.source.stat().st_mtime_ns)
        except (OSError, SectionError):
            continue  # named by the include's own check
        got = list(dict.fromkeys(s for _, s in included if s in wanted))
        where = page.name, included[0][0]
        missing = [name for name in wanted if name not in got]
        if missing:
            found.append(
                Problem(
                    *where,
                    f"shows {snippet.name} without its section(s) {', '.join(missing)};"
                    " a page shows every section of a snippet it shows, in order (its notebook"
                    " runs them top to bottom)",
                )
            )
        elif got != wanted:
            found.append(
                Problem(
                    *where,
                    f"shows the sections of {snippet.name} as {', '.join(got)}; show them in the"
                    f" snippet's order, {', '.join(wanted)} (its notebook runs them top to bottom)",
                )
            )
    return found


@lru_cache(maxsize=1024)
def _shown_sections(snippet, mtime: int) -> list[str]:
    """The sections of a snippet a page shows (all but its claims), in order."""
    spans = find_sections(texts.read(snippet.source, snippet.name), snippet.name)
    return [name for name in spans if not name.startswith(CLAIM_PREFIX)]


# Anything a reader would take for a `{{ }}` marker; a valid value or claim is masked first.
BRACES = re.compile(r"\{\{.*?\}\}|\{\{|\}\}")
MASK = "DOCPIPEMARKER"


@inputs.memo(key=_per_page)
def unread_markers(project: Project, page: Path | pages.Page) -> list[Problem]:
    """`{{ ... }}` that is neither a value (`{{ <key>.py:<name> }}`) nor a claim marker: the
    build would publish it as literal braces. In prose, links, HTML and image text every one
    is named; in math only one naming a .py (LaTeX groups braces)."""
    page = pages.as_page(project, page)
    masked = pages.CLAIM.sub(MASK, pages.VALUE.sub(MASK, page.source))
    found = []

    def look(content: str, line: int, math: bool = False) -> None:
        for m in BRACES.finditer(content):
            if math and ".py" not in m[0] or LOOSE.fullmatch(m[0]):
                continue  # LaTeX's braces; a malformed claim (named by claims.problems)
            at = line + content.count("\n", 0, m.start())
            found.append(
                Problem(
                    page.name,
                    at,
                    f"{m[0][:60]} is neither a value {{{{ <key>.py:<name> }}}} nor"
                    " a claim {{ claim <key>.py:<section> }} (no space around the colon); the"
                    " page would show the braces",
                )
            )

    for t in pages.tokens(masked):
        first = t.map[0] + 1 if t.map else 1
        if t.type in ("math_block", "math_block_label", "amsmath"):
            look(t.content, first, math=True)
        elif t.type == "html_block":
            look(t.content, first)
        elif t.type == "inline":
            line = first
            for child in t.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type.startswith("math_inline"):
                    look(child.content, line, math=True)
                elif child.type in ("text", "html_inline"):
                    look(child.content, line)
                elif child.type == "image":
                    look(child.content, line)
                if child.type != "code_inline":
                    look(" ".join(str(v) for v in (child.attrs or {}).values()), line)
                line += child.content.count("\n") if child.type != "text" else 0
    return found


def swallowed_lines(project: Project, output: Path, where: tuple[str, int]) -> list[Problem]:
    """Output lines pymdownx.snippets would act on even inside an included file (an include
    line is expanded, a section marker deleted), so the page would not show them as recorded."""
    pre = preprocessor(project.site.snippets_options)
    lines = texts.read(output, project.rel(output)).splitlines()
    return [
        Problem(
            *where,
            f"{project.rel(output)}:{n} would not show as recorded ({SNIPPETS_SYNTAX}):"
            f" {line.strip()[:60]}",
        )
        for n, line in enumerate(lines, start=1)
        if pre.RE_ALL_SNIPPETS.match(line) or pre.match_section(line)
    ]


@inputs.memo(key=_per_page)
def typed_outputs(project: Project, page: Path | pages.Page) -> list[Problem]:
    """What a fenced block may show: output only as exactly one include of a recorded output,
    titled with the command that produced it, whatever its language (a block in a language
    that is not CODE_LANGS is output: ```ansi, ```json, ```text ...); a block titled as a
    snippet holds only includes of that snippet; no value or claim marker inside a block
    (what a block shows is a file's text, never a value put into it)."""
    page = pages.as_page(project, page)
    found = []
    text = page.source
    included = {inc.line: inc for inc in page.includes}
    for fence in page.fences:
        lang = fence.info.lstrip("{").strip().lstrip(".").split(" ")[0].split("}")[0]
        where = page.name, fence.first
        inner = [included[n] for n in range(fence.first + 1, fence.last) if n in included]
        outputs = [inc for inc in inner if pages.classify(project, inc).kind == "output"]
        if (
            lang
            and lang.lower() not in CODE_LANGS
            and (len(fence.body) != len(outputs) or not outputs)
        ):
            found.append(
                Problem(
                    *where,
                    f"an output block typed by hand (```{lang}): output is only ever an"
                    f" include of its recorded file; code is in one of {', '.join(CODE_SHOWN)}",
                )
            )
        elif len(outputs) > 1 and (
            not all(inc.section for inc in outputs) or len({inc.path for inc in outputs}) > 1
        ):
            found.append(
                Problem(
                    *where,
                    "an output block shows one recorded output: the whole file, or sections of"
                    " one snippet's run (one include line per section)",
                )
            )
        elif not lang and not outputs:
            found.append(
                Problem(*where, f"a code block without a language (a plain ``` fence): {UNNAMED}")
            )
        for inc in outputs:
            if not _owner_exists(project, inc.path):
                continue  # named by include_problems
            command = project.owner(inc.path).command
            if f'title="{command}"' not in fence.info:
                found.append(Problem(*where, f'an output block must be titled title="{command}"'))
        found += _titled_file(project, where, fence, inner)
        found += _markers_in(where, fence, text)
    for t in page.tokens:
        if t.type == "code_block":  # indented by four spaces: what it shows cannot be told
            found.append(
                Problem(
                    page.name,
                    t.map[0] + 1,
                    f"an indented code block: fence it and {UNNAMED}",
                )
            )
    return found


# Languages a block may show code in (typed by hand: a command, a settings file, Markdown
# source); a block in any other language is output, and only ever an include of its record.
CODE_LANGS = {"python", "py", "bash", "sh", "shell", "toml", "yaml", "yml", "markdown", "md"}
CODE_SHOWN = ("python", "bash", "toml", "yaml", "markdown")
TITLE = re.compile(r'title="(?P<title>[^"]*)"')


def _titled_file(project: Project, where, fence, inner) -> list[Problem]:
    """A block titled with a file of the repository (its path first: "snippets/x.py",
    "snippets/x.py (continued)", "snippets/snippets.toml") shows that file's text: its lines
    are all includes of it (whole or by section), or, typed, lines that stand in the file in
    that order, one after another. Never code typed beside, or instead of, what it holds."""
    m = TITLE.search(fence.info)
    name = m["title"].split()[0] if m and m["title"].split() else ""
    path = Path(os.path.normpath(project.root / name)) if name else None
    if not path or project.root not in path.parents or not path.is_file():
        return []  # a command's title (an output block's), or a file the page invents
    own = [inc for inc in inner if inc.path == path]
    if own and len(own) == len(fence.body):
        return []
    if not inner and _stands_in(fence.body, path):
        return []
    return [
        Problem(
            *where,
            f'a block titled "{m["title"]}" shows something other than {name}: include it'
            f' (--8<-- "{name}" or --8<-- "{name}:<section>"), or copy its lines exactly',
        )
    ]


def _stands_in(lines: tuple[str, ...], path: Path) -> bool:
    """Whether these lines (stripped, blank ones left out) are consecutive lines of the file."""
    try:
        text = texts.read(path)
    except (OSError, texts.NotText):
        return False
    held = [x.strip() for x in text.splitlines() if x.strip()]
    n = len(lines)
    return n > 0 and any(tuple(held[i : i + n]) == lines for i in range(len(held) - n + 1))


def _markers_in(where, fence, text: str) -> list[Problem]:
    """Value and claim markers inside a fenced block: never substituted into code or output."""
    lines = text.split("\n")[fence.first : fence.last - 1]
    return [
        Problem(
            where[0],
            fence.first + 1 + n,
            f"{m[0][:60]} inside a code block: a block shows a file's text as it is, never a"
            " value put into it; quote the value in the prose around the block",
        )
        for n, line in enumerate(lines)
        for m in MARKER_IN_CODE.finditer(line)
    ]


MARKER_IN_CODE = re.compile(r"\{\{\s*(?:claim\s+)?[\w./-]+\.py:[\w-]+\s*\}\}")


# A block whose kind is not said could be typed output: every block says what it shows.
UNNAMED = (
    "name its language, as ```python; output is only ever an include of its recorded file,"
    ' in ``` text title="python snippets/<key>.py"'
)


def nav_problems(project: Project, site: pages.Pages | None = None) -> list[Problem]:
    """Every page and every generated notebook must be reachable from the nav of mkdocs.yml
    (as MkDocs' config loader reads it: Project.site.nav)."""
    listed = project.site.nav
    if listed is None:
        return []  # MkDocs then lists every page itself
    made = [notebook_path(project, p) for p in tutorial_pages(project, site)]
    notebooks = {*project.notebooks.glob("**/*.ipynb"), *made}
    wanted = [*pages.markdown_pages(project), *sorted(notebooks)]
    return [
        Problem(
            project.rel(path),
            None,
            "not in the nav of mkdocs.yml (add it"
            f" {'under Notebooks' if path.suffix == '.ipynb' else 'to the nav'})",
        )
        for path in wanted
        if path.relative_to(project.docs).as_posix() not in listed
    ]

"""Site-wide rules that tie pages, snippets and generated files together; each problem is named
with its file and line. These are problems only an author can fix (regen cannot), so regen stops
on them before it writes anything, and --check lists them first."""

from __future__ import annotations

from pathlib import Path

from . import markup, pages
from .catalog import Catalog
from .paths import DOCS, GENERATED, NOTEBOOKS, ROOT, owner, rel
from .sections import SectionError, find_sections

OUTPUT_LANGS = {"text", "console", "output", "pycon", "txt", "plaintext"}
SNIPPETS_SYNTAX = "pymdownx.snippets acts on it"


def problems(cat: Catalog, docs: Path = DOCS) -> list[str]:
    return page_problems(cat, docs) + output_problems(cat, docs)


def page_problems(cat: Catalog, docs: Path = DOCS, outputs_made_later: bool = False) -> list[str]:
    """What an author must fix in pages, snippets.toml or mkdocs.yml; regen cannot."""
    found: list[str] = []
    for page in pages.markdown_pages(docs):
        found += include_problems(page, outputs_made_later)
    uses = pages.all_uses(docs)
    for use in uses:
        where = f"{rel(use.page)}:{use.line}"
        if use.snippet is not None and use.snippet not in cat.settings:
            found.append(f"{where}: {use.snippet.name} does not exist")
        elif use.kind == "value" and use.detail not in cat.settings[use.snippet].values:
            found.append(
                f"{where}: {use.snippet.name} declares no value '{use.detail}' in snippets.toml"
            )
    for page in pages.markdown_pages(docs):
        found += typed_outputs(page)
    return found + nav_problems(docs)


def output_problems(cat: Catalog, docs: Path = DOCS) -> list[str]:
    """Snippets no page shows, recorded files no snippet owns or a page cannot show as
    recorded, claims that check nothing, and what the page rules find in prose (docpipe.rules:
    typed numbers, general sentences, unasserted agreement): reported by --check, but no reason
    to refuse a regen."""
    from . import claims, rules

    found = claims.problems(docs) + rules.problems(cat, docs)
    uses = pages.all_uses(docs)
    shown = {u.snippet for u in uses if u.kind in ("code", "output")}
    for snippet in cat.snippets:
        if snippet not in shown and not cat.exempt(snippet.name, "not-on-a-page"):
            found.append(f"{snippet.name}: no page shows its code or output (orphan snippet)")
    for use in uses:
        if use.kind == "output" and (ROOT / use.detail).is_file():
            found += swallowed_lines(ROOT / use.detail, f"{rel(use.page)}:{use.line}")
    for path in sorted(GENERATED.rglob("*")) if GENERATED.is_dir() else []:
        if path.is_file() and owner(path) not in cat.settings:
            found.append(f"{rel(path)}: belongs to no snippet (orphan output; delete it)")
    return found


def include_problems(page: Path, outputs_made_later: bool = False) -> list[str]:
    """Every include as pymdownx would read it: the file exists and so does the section.
    With outputs_made_later (regen), a recorded output regen is about to write may be missing."""
    found = []
    for inc in pages.includes(page):
        where = f"{rel(page)}:{inc.line}"
        if outputs_made_later and not inc.path.exists() and GENERATED in inc.path.parents:
            continue
        if inc.problem:
            found.append(f"{where}: {inc.problem}")
            continue
        if not inc.section:
            continue
        try:
            spans = find_sections(inc.path.read_text(encoding="utf-8"), rel(inc.path))
        except SectionError as e:
            found.append(f"{where}: {e}")
            continue
        if inc.section not in spans:
            known = ", ".join(spans) or "none"
            found.append(
                f"{where}: {rel(inc.path)} has no section '{inc.section}' (sections: {known})"
            )
    return found


def swallowed_lines(output: Path, where: str) -> list[str]:
    """Output lines pymdownx.snippets would act on even inside an included file (an include
    line is expanded, a section marker deleted), so the page would not show them as recorded."""
    from .sections import preprocessor

    lines = output.read_text(encoding="utf-8").splitlines()
    return [
        f"{where}: {rel(output)}:{n} would not show as recorded ({SNIPPETS_SYNTAX}):"
        f" {line.strip()[:60]}"
        for n, line in enumerate(lines, start=1)
        if preprocessor().RE_ALL_SNIPPETS.match(line) or preprocessor().match_section(line)
    ]


def typed_outputs(page: Path) -> list[str]:
    """Output-looking fenced blocks must be exactly one include of a recorded output, titled
    with the command that produced it."""
    found = []
    text = markup.without_examples(page.read_text(encoding="utf-8"))
    included = {inc.line: inc for inc in pages.includes(page, text)}
    for fence in pages.fences(text):
        lang = fence.info.lstrip("{").strip().lstrip(".").split(" ")[0].split("}")[0]
        where = f"{rel(page)}:{fence.first}"
        inner = [included[n] for n in range(fence.first + 1, fence.last) if n in included]
        outputs = [inc for inc in inner if pages.classify(inc).kind == "output"]
        if lang in OUTPUT_LANGS and (len(fence.body) != 1 or not outputs):
            found.append(f"{where}: an output block typed by hand; include a recorded output")
        for inc in outputs:
            command = f"python snippets/{owner(inc.path).key}.py"
            if f'title="{command}"' not in fence.info:
                found.append(f'{where}: an output block must be titled title="{command}"')
    return found


def nav_problems(docs: Path = DOCS) -> list[str]:
    """Every page and every generated notebook must be reachable from the nav of mkdocs.yml."""
    from mkdocs.utils.yaml import yaml_load

    config = ROOT / "mkdocs.yml"
    with open(config, encoding="utf-8") as f:
        nav = yaml_load(f).get("nav")
    if nav is None:
        return []  # MkDocs then lists every page itself
    listed: set[str] = set()

    def walk(item) -> None:
        if isinstance(item, str):
            listed.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(nav)
    from .notebooks import notebook_path, tutorial_pages

    notebooks = {*NOTEBOOKS.glob("**/*.ipynb"), *map(notebook_path, tutorial_pages(docs))}
    wanted = [*pages.markdown_pages(docs), *sorted(notebooks)]
    return [
        f"{rel(path)}: not in the nav of mkdocs.yml (add it"
        f" {'under Notebooks' if path.suffix == '.ipynb' else 'to the nav'})"
        for path in wanted
        if path.relative_to(docs).as_posix() not in listed
    ]

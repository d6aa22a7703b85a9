"""Site-wide rules that tie pages, snippets and generated files together; each problem is named."""

from __future__ import annotations

import re
from pathlib import Path

from . import markup, pages
from .catalog import Catalog
from .paths import DOCS, GENERATED, ROOT, owner, rel
from .sections import SectionError, find_sections

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
OUTPUT_LANGS = {"text", "console", "output", "pycon", "txt", "plaintext"}
# Lines pymdownx.snippets acts on even inside an included file: an include line is expanded and
# a section marker is deleted, so an output printing one would not show as recorded.
SNIPPETS_SYNTAX = re.compile(r"^[ \t]*;*-+8<-+[ \t]|-+8<-+[ \t]*\[(?:start|end):")


def problems(cat: Catalog, docs: Path = DOCS) -> list[str]:
    found: list[str] = []
    uses = pages.all_uses(docs)
    for use in uses:
        where = f"{rel(use.page)}:{use.line}"
        if use.snippet not in cat.settings:
            found.append(f"{where}: {use.snippet.name} does not exist")
        elif use.kind == "code" and use.detail:
            text = use.snippet.source.read_text(encoding="utf-8")
            try:
                spans = find_sections(text, use.snippet.name)
            except SectionError as e:
                found.append(f"{where}: {e}")
                continue
            if use.detail not in spans:
                found.append(f"{where}: {use.snippet.name} has no section '{use.detail}'")
        elif use.kind == "output" and (ROOT / use.detail).is_file():
            found += swallowed_lines(ROOT / use.detail, where)
        elif use.kind == "value" and use.detail not in cat.settings[use.snippet].values:
            found.append(
                f"{where}: {use.snippet.name} declares no value '{use.detail}' in snippets.toml"
            )
    shown = {u.snippet for u in uses if u.kind in ("code", "output")}
    for snippet in cat.snippets:
        if snippet not in shown and not cat.exempt(snippet.name, "not-on-a-page"):
            found.append(f"{snippet.name}: no page shows its code or output (orphan snippet)")
    for path in sorted(GENERATED.rglob("*")) if GENERATED.is_dir() else []:
        if path.is_file() and owner(path) not in cat.settings:
            found.append(f"{rel(path)}: belongs to no snippet (orphan output; delete it)")
    for page in pages.markdown_pages(docs):
        found += typed_outputs(page)
    return found


def swallowed_lines(output: Path, where: str) -> list[str]:
    lines = output.read_text(encoding="utf-8").splitlines()
    return [
        f"{where}: {rel(output)}:{n} would not show as recorded (pymdownx.snippets acts on"
        f" it): {line.strip()[:60]}"
        for n, line in enumerate(lines, start=1)
        if SNIPPETS_SYNTAX.search(line)
    ]


def typed_outputs(page: Path) -> list[str]:
    """Output-looking fenced blocks must be exactly one include of a recorded output, titled
    with the command that produced it."""
    found = []
    lines = markup.without_examples(page.read_text(encoding="utf-8")).splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, fence, info = i, m["fence"], m["info"]
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i].strip())
            i += 1
        i += 1
        lang = info.strip().lstrip("{").strip().lstrip(".").split(" ")[0].split("}")[0]
        where = f"{rel(page)}:{start + 1}"
        includes = [pages.INCLUDE.match(line) for line in body if line]
        generated = [
            m for m in includes if m and (ROOT / m["target"]).resolve().is_relative_to(GENERATED)
        ]
        if lang in OUTPUT_LANGS and (len(body) != 1 or not generated):
            found.append(f"{where}: an output block typed by hand; include a recorded output")
        for inc in generated:
            command = f"python snippets/{owner(ROOT / inc['target']).key}.py"
            if f'title="{command}"' not in info:
                found.append(f'{where}: an output block must be titled title="{command}"')
    return found

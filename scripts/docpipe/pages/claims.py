"""Checked claims: a sentence about what PyTorch does, backed by `assert`s in a snippet section.

In a page, `{{ claim by_hand/no_grad_detach.py:claim-detach-keeps-w }}` right after a sentence
says that the section `claim-detach-keeps-w` of snippets/by_hand/no_grad_detach.py checks the
sentence; the asserts run with the snippet like every other line. This module finds the markers
and the sentence each one backs, names the problems of a marker (site check), renders it (a small
link to the checking lines, site and notebooks), and turns a failing claim section into a report
naming the page, the sentence and the failing assert.
"""

from __future__ import annotations

import ast
import html
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from docpipe import inputs, texts, vacuous
from docpipe.pages.reading import CLAIM, Page, Pages, as_page, text_key
from docpipe.pages.reproduced import claim_versions
from docpipe.pages.sentences import SENTENCE_END  # the one rule for where a sentence ends
from docpipe.problems import DocpipeError, Problem
from docpipe.project import Project, Snippet
from docpipe.recorded import record as records
from docpipe.sections import CLAIM_PREFIX, SectionError, find_sections, parsed

# Anything that starts like a claim marker, to name the ones CLAIM does not accept.
LOOSE = re.compile(r"\{\{\s*claim\b[^}<]*\}\}")  # <placeholders> document the syntax
BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+\.\s|#|!!!|\?\?\?|<|\|)")
MARK = "\u2713"  # a check mark


class ClaimError(DocpipeError):
    """A marker that cannot be rendered, or a section that checks nothing."""


@dataclass(frozen=True)
class Claim:
    page: Path
    line: int
    snippet: Snippet
    section: str
    sentence: str  # the sentence the marker follows, as written in the page


def find(project: Project, page: Path | Page) -> list[Claim]:
    page = as_page(project, page)
    return list(_found(project, page.path, page.text))


# Asked by several checks of each page, in each build of `mkdocs serve` and each regen: kept per
# page text, until a file it looked at changes (docpipe.inputs).
@inputs.memo(key=text_key)
def _found(project: Project, path: Path, text: str) -> tuple[Claim, ...]:
    return tuple(
        Claim(
            path,
            text.count("\n", 0, m.start()) + 1,
            project.snippet_at(project.snippets / m["snippet"]),
            m["section"],
            sentence_before(text, m.start()),
        )
        for m in CLAIM.finditer(text)
    )


def sentence_before(text: str, pos: int) -> str:
    """The last sentence of the block that ends where the marker starts."""
    lines = text[:pos].split("\n")
    block = [lines.pop()]
    while lines and lines[-1].strip() and not BLOCK_START.match(block[0]):
        block.insert(0, lines.pop())
    prose = " ".join(line.strip() for line in block)
    prose = CLAIM.split(prose)[-1] if CLAIM.search(prose) else prose
    prose = re.sub(r"^(?:[-*+]|\d+\.)\s+", "", prose.strip())
    return SENTENCE_END.split(prose)[-1].strip()


@inputs.memo(key=lambda snippet, section: (str(snippet.source), section))  # until the file changes
def checks(snippet: Snippet, section: str) -> tuple[int, int]:
    """The (first, last) lines of the section's body; ClaimError if it cannot check anything
    (its message names the snippet; the caller places it on the page and line of the marker)."""
    if not snippet.source.is_file():
        raise ClaimError(f"{snippet.name} does not exist")
    text = texts.read(snippet.source, snippet.name)
    try:
        span = find_sections(text, snippet.name).get(section)
        asserts = _assert_lines(text, snippet.name)
    except (SectionError, SyntaxError) as e:
        raise ClaimError(str(e)) from None
    if span is None:
        raise ClaimError(f"{snippet.name} has no section '{section}' to check the claim")
    if not section.startswith(CLAIM_PREFIX):
        raise ClaimError(
            f"a claim's section is named {CLAIM_PREFIX}...: the runner counts the asserts of"
            f" those alone (rename section '{section}' of {snippet.name})"
        )
    first, last = span
    inside = [a for a in asserts if first <= a.lineno <= last]
    if not inside:
        raise ClaimError(
            f"section '{section}' of {snippet.name} holds no assert, so it checks nothing"
        )
    for a in inside:
        if why := vacuous.cannot_fail(a.test):
            raise CannotFail(f"{snippet.name}:{a.lineno}: this assert cannot fail: {why}")
    statements = [n for n in parsed(text, snippet.name).body if first <= n.lineno <= last]
    if caught := vacuous.catches_failures(statements):
        line, why = caught
        raise CannotFail(f"{snippet.name}:{line}: this claim cannot fail: {why}")
    return span


class CannotFail(ClaimError):
    """A claim's assert whose text shows it true whatever the run (docpipe.vacuous)."""


@lru_cache(maxsize=256)
def _assert_lines(text: str, name: str) -> tuple[ast.Assert, ...]:
    """A snippet's asserts (its text parsed once, for every claim marker)."""
    return tuple(n for n in ast.walk(parsed(text, name)) if isinstance(n, ast.Assert))


def problems(project: Project, site: Pages | None = None) -> list[Problem]:
    """Every marker that is malformed or names a section without an assert, by page and line."""
    found = []
    for page in (site or Pages(project)).all():
        name = page.name
        for m in LOOSE.finditer(page.text):
            if not CLAIM.fullmatch(m[0]):
                line = page.line_of(m.start())
                found.append(
                    Problem(
                        name,
                        line,
                        f"{m[0]} is not a claim marker (write {{{{ claim <key>.py:<section> }}}})",
                    )
                )
        for claim in find(project, page):
            if not claim.snippet.source.is_file():
                continue  # consistency names a missing snippet once, whatever uses it
            try:
                checks(claim.snippet, claim.section)
            except CannotFail:
                continue  # cannot_fail() names it, before any run (docpipe.pipeline.preflight)
            except ClaimError as e:
                found.append(Problem(name, claim.line, str(e)))
                continue
            if _printed(claim.snippet, claim.section):
                found.append(
                    Problem(
                        name,
                        claim.line,
                        f"section '{claim.section}' of {claim.snippet.name}"
                        " prints, but no page shows a claim's code: check silently with assert",
                    )
                )
    return found


def cannot_fail(project: Project, site: Pages | None = None) -> list[Problem]:
    """Every claim whose text shows that it cannot fail (docpipe.vacuous), by page line, the
    sentence it backs and the snippet line: regen refuses to run before them, as --check and
    the build do."""
    found = []
    for page in (site or Pages(project)).all():
        for claim in find(project, page):
            if not claim.snippet.source.is_file():
                continue
            try:
                checks(claim.snippet, claim.section)
            except CannotFail as e:
                message = f'the claim of "{claim.sentence}": {e}'
                found.append(Problem(page.name, claim.line, message))
            except ClaimError:
                continue  # problems() names it
    return found


def _printed(snippet: Snippet, section: str) -> bool:
    """Whether the recorded run shows output from the section (pages never show its code)."""
    try:
        return bool(records.load(snippet).output_of(section))
    except records.RecordError:
        return False  # not recorded yet: the drift check names that


def cited(snippet: Snippet, section: str, site: Pages | None = None) -> list[Claim]:
    """The claims of every page that cite this section of the snippet."""
    project = snippet.project
    return [
        c
        for page in (site or Pages(project)).all()
        for c in find(project, page)
        if c.snippet == snippet and c.section == section
    ]


def broken(snippet: Snippet, result) -> str:
    """Report lines for a run that failed inside a section that pages cite as a claim."""
    if not result.failed_section:
        return ""
    citing = cited(snippet, result.failed_section)
    if not citing:
        return ""
    where = f"{snippet.name}:{result.failed_line}" if result.failed_line else snippet.name
    verdict = "CANNOT FAIL" if result.cannot_fail else "NO LONGER HOLDS"
    out = [
        f"\n  CLAIM {verdict}: {where} (section '{result.failed_section}') checks what"
        + (" these pages say:" if len(citing) > 1 else " this page says:")
    ]
    out += [f'    {snippet.project.rel(c.page)}:{c.line}: "{c.sentence}"' for c in citing]
    out.append("  correct the sentence (and its check), or find what changed in the run")
    return "\n".join(out)


def cases(snippet: Snippet, section: str, runs: dict[int, int] | None) -> str:
    """How many cases the recorded run checked the claim over, from its count of each assert
    (docpipe.run.ledger): "checked over 16 cases (cases by assert: line 41: 16, line 45: 1)". A
    ClaimError when the record counted none of them, or not every assert the section holds."""
    first, last = checks(snippet, section)
    lines = sorted(
        {
            a.lineno
            for a in _assert_lines(_source(snippet), snippet.name)
            if first <= a.lineno <= last
        }
    )
    if runs is None or any(not runs.get(line) for line in lines):
        raise ClaimError(
            f"the recorded run of {snippet.name} does not show every assert of section"
            f" '{section}' run (run: python scripts/regen.py {snippet.name})"
        )
    most = max(runs[line] for line in lines)
    said = f"checked over {most} case{'s' if most > 1 else ''}"
    if len(lines) > 1:
        said += f" (cases by assert: {', '.join(f'line {n}: {runs[n]}' for n in lines)})"
    return said


def _source(snippet: Snippet) -> str:
    return texts.read(snippet.source, snippet.name)


def _verified(snippet: Snippet, section: str) -> str:
    """The other torch versions under which the asserts held (docpipe.verify), for a tooltip."""
    held = claim_versions(snippet, section)
    return f", and in verified runs with torch {', '.join(held)}" if held else ""


def render(project: Project, markdown: str, page: str, notebook: bool = False) -> str:
    """Replace each marker (and the space before it) by a small link to the checking code."""

    def marker(m: re.Match) -> str:
        line = markdown.count("\n", 0, m.start("claim")) + 1
        snippet = project.snippet_at(project.snippets / m["snippet"])
        try:
            span = checks(snippet, m["section"])
            record = records.load(snippet)
            scope = cases(snippet, m["section"], record.runs_of(m["section"]))
        except (ClaimError, records.RecordError) as e:
            if notebook:  # the site check names the broken marker; the notebook keeps it
                return m[0]
            raise ClaimError(str(e), page, line) from None
        url = project.site.code_url(snippet.name, span)
        tip = (
            f"Checked claim: the asserts in {snippet.name}, lines {span[0]}\u2013{span[1]},"
            f" hold in the recorded run with torch {record.environment['torch']}, {scope}"
        )
        if notebook:  # a notebook holds what its runs recorded, never a verification
            return f'[{MARK}]({url} "{tip}")'
        tip = html.escape(tip + _verified(snippet, m["section"]))
        return f'<a class="checked-claim" href="{url}" title="{tip}" aria-label="{tip}">{MARK}</a>'

    return re.sub(r"[ \t]*\n?[ \t]*(?P<claim>" + CLAIM.pattern + ")", marker, markdown)


# What a claim's section asserts, read with ast (docpipe.pages.generality, docpipe.pages.agreement).
# An equality: `==`, a call such as torch.equal, torch.allclose, math.isclose or
# torch.testing.assert_close (docpipe.vacuous.EQUALITY_CALLS), or a distance below a
# tolerance, abs(a - b) < tol.
EQUALITY_CALLS = vacuous.EQUALITY_CALLS


def section_nodes(snippet: Snippet, section: str) -> list[ast.AST]:
    """The statements of a claim's section, or [] when the marker is broken (problems names it)."""
    try:
        first, last = checks(snippet, section)
        tree = parsed(texts.read(snippet.source, snippet.name), snippet.name)
    except (ClaimError, SyntaxError, OSError):
        return []
    return [n for n in tree.body if first <= n.lineno <= last]


def is_equality(node: ast.AST) -> bool:
    """Whether an expression states that two results are equal (or within a tolerance)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Compare):
            if any(isinstance(op, ast.Eq) for op in n.ops):
                return True
            if any(isinstance(op, ast.Lt | ast.LtE) for op in n.ops) and _has_abs(n.left):
                return True
        if isinstance(n, ast.Call) and vacuous.called(n) in EQUALITY_CALLS:
            return True
    return False


def equality_checks(statements: list[ast.AST]) -> list[ast.AST]:
    """The asserts of equality, and the assert_close-style calls, among the statements."""
    found = []
    for n in (x for s in statements for x in ast.walk(s)):
        if isinstance(n, ast.Assert) and is_equality(n.test):
            found.append(n.test)
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            if (
                vacuous.called(n.value).startswith("assert")
                and vacuous.called(n.value) in EQUALITY_CALLS
            ):
                found.append(n.value)
    return found


def asserts_equality(snippet: Snippet, section: str) -> bool:
    return bool(equality_checks(section_nodes(snippet, section)))


LOOPS = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def covers_cases(snippet: Snippet, section: str) -> bool:
    """Whether a claim's section runs its asserts over cases: it holds an assert and a loop
    (for, while, or a comprehension such as all(... for case in cases)). A for or while loop
    whose asserts all read nothing it changes (docpipe.vacuous.once) checks one case, however
    often it runs them: it is no loop over cases."""
    statements = section_nodes(snippet, section)
    nodes = [x for s in statements for x in ast.walk(s)]
    if not any(isinstance(n, ast.Assert) for n in nodes):
        return False
    same = vacuous.once(statements)
    for n in nodes:
        if isinstance(n, ast.For | ast.AsyncFor | ast.While):
            inside = [a.lineno for a in ast.walk(n) if isinstance(a, ast.Assert)]
            if inside and all(line in same for line in inside):
                continue
        if isinstance(n, LOOPS):
            return True
    return False


def _has_abs(node: ast.AST) -> bool:
    calls = (n for n in ast.walk(node) if isinstance(n, ast.Call))
    methods = (n for n in ast.walk(node) if isinstance(n, ast.Attribute))
    return any(vacuous.called(n) == "abs" for n in calls) or any(n.attr == "abs" for n in methods)

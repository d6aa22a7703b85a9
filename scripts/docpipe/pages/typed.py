"""Numbers typed where a run has them (rule "typed-number"), in math and as words.

Digits in prose are docpipe.pages.prose's (every one is flagged there). This rule looks where
that one cannot: at math, and at counts written as words. The run's numbers of a page are
those of every snippet the page uses (shows, quotes or cites):
- its inputs: numeric literals of its source that are data, not formula (a literal that is an
  operand of an arithmetic operator, such as the 3 and 2 of `x**3 - 2 * x`, is formula), outside
  its claim sections;
- its recorded values (docs/generated/<key>.json);
- its recorded counts: a value declared as one integer (`{len(x)}`, `{calls}`), and the number
  of items of a recorded list ("0, 1, 2, 3" has four).

In math (outside `{{ }}` values), a number that equals one of them is flagged where it stands for
a value: alone on the right of `=` or `\\approx` after a single symbol (`$x = 1$`), as the base
of a power (`1^2`), the power of e (`e^{100}`) or the one argument of a function (`f(4)`). Anywhere
else in a formula (a coefficient, a constant) it is flagged only when it is not a small integer
(0 to 10): `x^2`, `2(w - 3)` and `\\frac{1}{2}` are formulas. Subscripts and exponents of a
variable are never flagged. A rounded copy counts: 0.69 typed where the run has 0.6931.

As words, four to twenty are flagged when a recorded count is that number: "the four sigmoids".
"zero", "one", "two" and "three" are not: prose counts ideas with them ("two reasons", "one node
at a time") far more often than it copies a run, and the runs record 1, 2 and 3 everywhere.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from docpipe import texts
from docpipe.catalog import Catalog
from docpipe.pages.prose import covering, prose
from docpipe.pages.reading import Page, tokens_of
from docpipe.problems import Problem
from docpipe.project import Snippet
from docpipe.recorded import record as records
from docpipe.sections import SectionError, find_sections, parsed

RULE = "typed-number"

WORDS = {
    w: n
    for n, w in enumerate(
        "four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        " sixteen seventeen eighteen nineteen twenty".split(),
        start=4,
    )
}
WORD = re.compile(r"\b(" + "|".join(WORDS) + r")\b", re.I)
QUOTED = re.compile(r"\{\{.*?\}\}")
MATH_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\d.]*\d)")
RECORDED_NUMBER = re.compile(r"[-\u2212]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?(?:e[-+]?\d+)?)")
RELATION = re.compile(r"(?:=|\\approx)\s*$")
SYMBOL = re.compile(
    r"(?:[A-Za-z]|\\[A-Za-z]+|\\(?:hat|bar|tilde)\s*\{?\s*[A-Za-z]\s*\}?)(?:_\{?\w+\}?)?'?"
)  # one variable: x, w_2, \alpha, \hat y
ENDS_TERM = re.compile(r"^\s*(?:$|[,;.)\]}&=<>]|\\(?:quad|qquad|\\|right|\}|text|approx))")
UNITS = re.compile(r"^(?:pt|em|ex|mu|cm|mm)\b")
SMALL = 10
TERM_START = re.compile(r"=|\\approx|[,;&]|\\quad|\\qquad|\\\\|\\text\{[^}]*\}")
COUNT = re.compile(r"\{[^:{}]+(?::,)?\}")  # an f-string of one integer: {len(x)}, {count:,}


def run_numbers(cat: Catalog, snippets: list[Snippet]) -> tuple[set[float], set[float]]:
    """(inputs and recorded values, recorded counts) of the snippets. A count is a recorded
    integer value declared without a float format (`{len(x)}`, `{calls}`, `{count:,}`), or the
    number of items of a recorded list."""
    inputs: set[float] = set()
    recorded: set[float] = set()
    counts: set[float] = set()
    for snippet in snippets:
        inputs |= input_literals(snippet)
        try:
            values = records.load(snippet).values
        except records.RecordError:
            continue  # not recorded yet: the drift check names that
        declared = cat.settings[snippet].values if snippet in cat.settings else {}
        for name, value in values.items():
            numbers = [_number(m[0]) for m in RECORDED_NUMBER.finditer(value)]
            recorded |= set(numbers)
            parts = [p.strip() for p in value.split(", ")]
            if len(parts) > 1 and all(RECORDED_NUMBER.fullmatch(p) for p in parts):
                counts.add(float(len(parts)))
            elif COUNT.fullmatch(declared.get(name, "")) and RECORDED_NUMBER.fullmatch(value):
                counts.add(_number(value))
    return inputs | recorded | counts, counts


def input_literals(snippet: Snippet) -> set[float]:
    """The numeric literals of a snippet's source that are data, outside its claim sections."""
    try:
        text = texts.read(snippet.source, snippet.name)
        return set(_input_literals(text, snippet.name))
    except (OSError, SyntaxError, SectionError):
        return set()


@lru_cache(maxsize=256)
def _input_literals(text: str, name: str) -> frozenset[float]:
    """input_literals of a snippet's text: each page's check reads them again."""
    tree = parsed(text, name)
    spans = find_sections(text, name)
    claimed = [span for section, span in spans.items() if section.startswith("claim")]
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or type(node.value) not in (int, float):
            continue
        if any(a <= node.lineno <= b for a, b in claimed):
            continue
        value, here = float(node.value), node
        parent = parents.get(here)
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub):
            value, here = -value, parent
            parent = parents.get(here)
        if isinstance(parent, ast.BinOp | ast.AugAssign):
            continue  # an operand of arithmetic: part of a formula, as the page writes it too
        found.add(value)
    return frozenset(found)


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("\u2212", "-"))


def _equal(typed: str, value: float, run: set[float]) -> bool:
    if value in run:
        return True
    decimals = len(typed.partition(".")[2])
    return bool(decimals) and any(x and round(x, decimals) == value for x in run)


def math_chunks(text: str | Page) -> list[tuple[int, str]]:
    """(line, LaTeX) of every formula of the page, inline or display, values as written."""
    text, all_tokens = tokens_of(text)
    lines = text.split("\n")
    found = []
    for t in all_tokens:
        if t.type in ("math_block", "math_block_label", "amsmath") and t.map:
            for offset, part in enumerate(t.content.split("\n")):
                found.append((_line_of(lines, part, t.map[0] + offset, t.map[1]), part))
        elif t.type == "inline" and t.map:
            cursor = t.map[0]
            for child in t.children or []:
                if child.type.startswith("math_inline"):
                    for offset, part in enumerate(child.content.split("\n")):
                        line = _line_of(lines, part, cursor, t.map[1])
                        cursor = line - 1 if not offset else cursor
                        found.append((line, part))
    return found


def _line_of(lines: list[str], part: str, start: int, end: int) -> int:
    probe = part.strip()
    return next((n + 1 for n in range(start, min(end, len(lines))) if probe in lines[n]), start + 1)


def math_problems(line: int, latex: str, run: set[float]) -> list[tuple[int, int, str, str]]:
    """(start, end, number, context) of each number of the formula that a run has."""
    masked = QUOTED.sub(lambda m: "\u2022" * len(m[0]), latex)
    found = []
    for m in MATH_NUMBER.finditer(masked):
        before, after = masked[: m.start()], masked[m.end() :]
        if before.rstrip().endswith(("_", "_{")) or UNITS.match(after):
            continue  # an index, or a length such as \\[6pt]
        value = float(m[0])
        signed = before.rstrip()
        if signed.endswith("-") and re.search(r"(?:^|[=(,\[{]|\\approx)\s*-$", signed):
            value, signed = -value, signed[:-1].rstrip()
        context = _context(signed, after)
        if context is None:
            continue
        if context == "formula" and value.is_integer() and abs(value) <= SMALL:
            continue
        if _equal(m[0], value, run):
            found.append((m.start(), m.end(), f"-{m[0]}" if value < 0 else m[0], context))
    return found


def _context(before: str, after: str) -> str | None:
    if _in_subscript(before):
        return None  # an index: x_{i=1}
    if before.endswith("^") or before.endswith("^{"):
        base = before.rstrip("{").rstrip("^").rstrip()
        if base.endswith("e") and not re.search(r"[A-Za-z\\]e$", base):
            return "value"  # the power of e: an evaluation, e^{100}
        return None  # the exponent of a variable or of a number: formula
    if re.match(r"^\s*\^\s*\{?\s*\d", after):
        return "value"  # a number raised to a number: a substituted point, 1^2
    relation = RELATION.search(before)
    if relation and ENDS_TERM.match(after):
        left = TERM_START.split(before[: relation.start()])[-1]
        if SYMBOL.fullmatch(left.strip()):
            return "value"  # x = 1
    call = re.search(r"(?:\\exp|\\[A-Za-z]+|\b[A-Za-z])\s*\($", before)
    if call and re.match(r"^\s*\)", after):
        return "value"  # f(4)
    return "formula"


def _in_subscript(before: str) -> bool:
    opened = before.rfind("_{")
    return opened >= 0 and before.count("}", opened) < before.count("{", opened)


def check(cat: Catalog, page: Page, allowed: tuple[str, ...]) -> tuple[list[Problem], set[str]]:
    """Problems for each number the page types where a run it uses has it, and the allowed
    phrases that spared one."""
    used_snippets = sorted({u.snippet for u in page.uses if u.snippet})
    run, counts = run_numbers(cat, used_snippets)
    found, spared = [], set()
    where = page.name
    for line, latex in math_chunks(page):
        for start, end, number, _ in math_problems(line, latex, run):
            phrase = covering(latex, start, end, allowed)
            if phrase:
                spared.add(phrase)
                continue
            found.append(
                Problem(
                    where,
                    line,
                    f"the number {number} is typed in math (${latex.strip()}$), but a"
                    " snippet this page uses has it; quote it with {{ <key>.py:<name> }}, or"
                    " except its phrase in snippets.toml (rule typed-number) with the reason",
                )
            )
    for chunk in page.once(prose):
        for m in WORD.finditer(chunk.text):
            if float(WORDS[m[0].lower()]) not in counts:
                continue
            phrase = covering(chunk.text, m.start(), m.end(), allowed)
            if phrase:
                spared.add(phrase)
                continue
            context = " ".join(chunk.text[max(0, m.start() - 30) : m.end() + 30].split())
            found.append(
                Problem(
                    where,
                    chunk.line,
                    f"the count {m[0]!r} is typed as a word (...{context}...),"
                    f" but a run this page uses records {WORDS[m[0].lower()]}; quote it with"
                    " {{ <key>.py:<name> }}, or except its phrase in snippets.toml (rule"
                    " typed-number) with the reason",
                )
            )
    return found, spared

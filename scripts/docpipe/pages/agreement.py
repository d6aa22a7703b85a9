"""Agreement is asserted (rule "agreement-asserted"): every "by hand = autograd" the site shows is
an assert on the run's own numbers, so a wrong hand formula fails the run, naming the sentence.

- A sentence of prose (docpipe.pages.sentences) that says two results agree (AGREE) and
  names what is compared (COMPARED: a hand result, autograd, a `.grad`, a numerical check)
  carries a claim marker whose section asserts an equality
  (docpipe.pages.claims.equality_checks).
- Every exercise solution (an admonition titled "Solution") carries such a claim.
- A snippet a page shows that computes a hand result (a name with the part `hand`, such as
  `grad_x_hand`) and reads autograd's `.grad` compares each hand result in an equality assert.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from docpipe import inputs, texts
from docpipe.catalog import Catalog
from docpipe.pages import claims, sentences
from docpipe.pages.reading import Page, Pages
from docpipe.problems import Problem
from docpipe.project import Project, Snippet
from docpipe.sections import parsed

RULE = "agreement-asserted"

# "the same" says two results agree only before a result: "the same number", "the same as".
AGREE = re.compile(
    r"\b(?:agree[sd]?|agreeing|agreement|match(?:es|ed|ing)?|identical|coincides?|equals?"
    r"|the same (?:as|(?:\w+ )?(?:numbers?|values?|results?|gradients?|slopes?|derivatives?"
    r"|answers?)))\b"
)
COMPARED = re.compile(
    r"\bhand\b|\bautograd(?:'s)?\b|\bgradcheck\b|\bnumerical(?:ly)?\b|\banalytical(?:ly)?\b"
    r"|\bfinite differences?\b"
)
HAND = re.compile(r"(?:^|_)hand(?:_|$)")
EQUALITY = (
    "an equality (==, torch.equal, torch.allclose, math.isclose,"
    " torch.testing.assert_close, or abs(a - b) < tol)"
)


def says_agree(sentence: sentences.Sentence) -> bool:
    compared = sentence.has_word(COMPARED) or any(".grad" in c for c in sentence.code)
    return not sentence.question and bool(sentence.has_word(AGREE)) and bool(compared)


def _asserting(project: Project, marks) -> bool:
    return any(
        claims.asserts_equality(project.snippet_at(project.snippets / k), s) for k, s in marks
    )


def check(cat: Catalog, page: Page, allowed: tuple[str, ...]) -> tuple[list[Problem], set[str]]:
    """Problems for the page's agreement sentences and exercise solutions that no claim asserts,
    and the allowed phrases that spared one."""
    project = cat.project
    text = page.text
    found, used = [], set()
    for s in page.once(sentences.read):
        if not says_agree(s):
            continue
        if sentences.spared(s, allowed, used):
            continue
        where = page.name, s.line
        if not s.claims:
            found.append(
                Problem(
                    *where,
                    f"says two results agree without a checked claim: '{s.text}'; put"
                    " {{ claim <key>.py:<section> }} after it, its section asserting " + EQUALITY,
                )
            )
        elif not _asserting(project, s.claims):
            found.append(
                Problem(
                    *where,
                    f"says two results agree, but its claim asserts no equality:"
                    f" '{s.text}'; assert " + EQUALITY,
                )
            )
    lines = text.split("\n")
    for solution in page.once(sentences.solutions):
        body = "\n".join(lines[solution.first - 1 : solution.last])
        phrase = next((p for p in allowed if p in " ".join(body.split())), None)
        if phrase:
            used.add(phrase)
        elif not _asserting(project, solution.claims):
            found.append(
                Problem(
                    page.name,
                    solution.first,
                    "an exercise solution without a claim that asserts"
                    " its hand result on the run's numbers; put {{ claim <key>.py:<section> }}"
                    " after its answer, its section asserting " + EQUALITY,
                )
            )
    return found, used


@inputs.memo(key=lambda snippet: str(snippet.source))  # until the snippet changes
def unasserted(snippet: Snippet) -> list[Problem]:
    """Hand results a snippet computes next to autograd's gradients without asserting them."""
    try:
        tree = parsed(texts.read(snippet.source, snippet.name), snippet.name)
    except (SyntaxError, OSError):
        return []  # the run reports it
    if not any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(tree)):
        return []  # no autograd result to compare with
    compared = {
        n.id
        for check in claims.equality_checks(tree.body)
        for n in ast.walk(check)
        if isinstance(n, ast.Name)
    }
    first: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and HAND.search(n.id):
            first[n.id] = min(first.get(n.id, n.lineno), n.lineno)
    missing = sorted((line, name) for name, line in first.items() if name not in compared)
    if not missing:
        return []
    return [
        Problem(
            snippet.name,
            missing[0][0],
            f"computes {', '.join(n for _, n in missing)} by hand"
            " next to autograd's gradient, but no assert compares "
            + ("them" if len(missing) > 1 else "it")
            + " with autograd's; assert each equality (hand == autograd) in a claim section",
        )
    ]


@dataclass(frozen=True)
class Tally:
    """What the pages claim, for --check's summary: the markers, and how many of the sentences
    that say two results agree, and of the exercise solutions, carry an asserted equality
    (sentences an [[exception]] spares, such as the rule's own description, counted apart)."""

    markers: int
    pages: int  # pages with at least one marker
    sentences: int
    sentences_asserted: int
    solutions: int
    solutions_asserted: int
    excepted: int = 0

    def __str__(self) -> str:
        spared = (
            f" ({_count(self.excepted, 'sentence')} more excepted in snippets.toml)"
            if self.excepted
            else ""
        )
        return (
            f"claims: {_count(self.markers, 'checked-claim marker')} on"
            f" {_count(self.pages, 'page')}; {self.sentences_asserted} of"
            f" {_count(self.sentences, 'sentence')} saying two results agree{spared} and"
            f" {self.solutions_asserted} of {_count(self.solutions, 'exercise solution')}"
            " carry an asserted equality"
        )


def tally(cat: Catalog, site: Pages | None = None) -> Tally:
    project = cat.project
    markers = pages = said = said_asserted = solved = solved_asserted = excepted = 0
    for page in (site or Pages(project)).all():
        found = len(claims.find(project, page))
        markers, pages = markers + found, pages + bool(found)
        allowed = cat.allowed(page.name, RULE)
        agreeing = []
        for s in page.once(sentences.read):
            if says_agree(s):
                if sentences.spared(s, allowed, set()):
                    excepted += 1
                else:
                    agreeing.append(s)
        said += len(agreeing)
        said_asserted += sum(bool(s.claims) and _asserting(project, s.claims) for s in agreeing)
        answers = page.once(sentences.solutions)
        solved += len(answers)
        solved_asserted += sum(_asserting(project, a.claims) for a in answers)
    return Tally(markers, pages, said, said_asserted, solved, solved_asserted, excepted)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"

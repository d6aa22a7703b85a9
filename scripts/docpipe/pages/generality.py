"""General statements about PyTorch (rule "general-sentence"): each is backed by a claim that runs
over the cases it names, or it is narrowed, or an [[exception]] in snippets/snippets.toml spares it.

A sentence of prose (docpipe.pages.sentences) is a general statement about PyTorch when it
- names PyTorch: a code span that is code (not a file path or a command), or one of PYTORCH, and
- says something general: one of GENERAL,
and it is not a question. Such a sentence is a site problem unless it carries a checked-claim
marker whose section runs over cases (docpipe.pages.claims.covers_cases: an assert and a loop or a
comprehension), because an assert on one example cannot back "every", "always" or "never".

A sentence scoped to the run the page shows (it quotes a recorded value, or says "here", "above",
"below", "this graph", "these tensors", "in the snippet"...) speaks of that one case, which the
run covers: its "each", "every", "all" or "nothing" counts over the example (DISTRIBUTIVE), so it
is not general. One that still says what always happens (ALWAYS: always, never, cannot, whatever,
no matter, means, raises an error) needs a claim, which may check that one case.
"""

from __future__ import annotations

import re

from docpipe.catalog import Catalog
from docpipe.pages import claims, sentences
from docpipe.pages.reading import Page
from docpipe.problems import Problem

RULE = "general-sentence"

# The names of PyTorch's API and of the autograd concepts the site teaches: on these pages a
# sentence about gradients, graphs or leaves is a sentence about what autograd does.
PYTORCH = re.compile(
    r"\b(?:py)?torch\b|\bautograd\b|\bbackward\b|\bgrad(?:s|_fn)?\b|\bgradients?\b"
    r"|\btensors?\b|\boptim(?:izers?)?\b|\bsgd\b|\badamw?\b|\brequires_grad\b|\bno_grad\b"
    r"|\bdetach(?:ed)?\b|\blea(?:f|ves)\b|\bgraphs?\b|\bhooks?\b|\bjacobians?\b|\bgradcheck\b"
    r"|\bvmap\b|\bjacrev\b"
)
# Words that make a statement general: quantifiers over cases; "means", of a statement that
# says what something always implies ("a zero gradient means the step leaves w where it is");
# and "raises an error", which says what PyTorch does in every case of a situation. A
# hyphenated word ("CPU-only", "all-in-one") is a name, not a quantifier.
ALWAYS = (
    r"always|never|cannot|can't|can not|whatever|whenever|wherever|no matter|means"
    r"|raises? (?:an?|the) (?:\w+ )?error"
)
DISTRIBUTIVE = r"every(?:thing|one)?|all|any(?:thing)?|only|each|none|nothing"
GENERAL = re.compile(rf"(?<![\w-])(?:{ALWAYS}|{DISTRIBUTIVE})(?![\w-])")
STRONG = re.compile(rf"(?<![\w-])(?:{ALWAYS})(?![\w-])")
# Words that scope a sentence to the example the page shows. "this" and "these" count only
# before a noun that names a part of the example ("this graph"), not as "this is why".
SCOPED = re.compile(
    r"(?<![\w-])(?:here|above|below|the (?:snippet|run|example)s?\b"
    r"|(?:this|these|that|those) (?:\w+ )?(?:graphs?|examples?|snippets?|runs?|loops?|networks?"
    r"|models?|tensors?|functions?|cases?|code|lines?|nodes?|paths?|leaf|leaves|points?"
    r"|steps?|calls?|losses?|inputs?|outputs?|weights?))(?![\w-])"
)
VALUE = re.compile(r"\{\{(?!\s*claim\b).*?\}\}")


def subject(sentence: sentences.Sentence) -> str | None:
    """What makes the sentence name PyTorch: its first code span or PyTorch word."""
    code = sentences.names_pytorch_code(sentence)
    return f"`{code}`" if code else sentence.has_word(PYTORCH)


def scoped(sentence: sentences.Sentence) -> bool:
    """Whether the sentence speaks of the example the page shows: it quotes a recorded value or
    points at the example ("here", "this graph")."""
    return bool(VALUE.search(sentence.text)) or bool(sentence.has_word(SCOPED))


def is_general(sentence: sentences.Sentence) -> bool:
    if sentence.question or not subject(sentence) or not sentence.has_word(GENERAL):
        return False
    return not scoped(sentence) or bool(sentence.has_word(STRONG))


def check(cat: Catalog, page: Page, allowed: tuple[str, ...]) -> tuple[list[Problem], set[str]]:
    """Problems for each general sentence of the page not backed over its cases, and the
    allowed phrases that spared one."""
    found, used = [], set()
    for s in page.once(sentences.read):
        if not is_general(s):
            continue
        if sentences.spared(s, allowed, used):
            continue
        project = cat.project
        where = page.name, s.line
        if not s.claims:
            found.append(
                Problem(
                    *where,
                    f"general statement about PyTorch without a checked claim: '{s.text}'"
                    f" ({s.has_word(GENERAL)!r} with {subject(s)}); back it with a claim that runs"
                    " over every case it names, narrow it to what the run shows, or except it in"
                    " snippets.toml (rule general-sentence) with the reason",
                )
            )
            continue
        if scoped(s):
            continue  # one case, the one shown, which its claim checks
        backing = [(project.snippet_at(project.snippets / k), sec) for k, sec in s.claims]
        if not any(claims.covers_cases(snippet, section) for snippet, section in backing):
            named = ", ".join(f"'{section}' of {snippet.name}" for snippet, section in backing)
            found.append(
                Problem(
                    *where,
                    f"general statement about PyTorch backed by a claim that checks one"
                    f" case: '{s.text}' ({s.has_word(GENERAL)!r}; {named} has no loop over cases);"
                    " assert over every case it names (a for loop or a comprehension), or narrow it"
                    " to what the run shows",
                )
            )
    return found, used

"""The glossary-first-use rule (docpipe.pages.terms) on small projects of its own, and on the
site: a page's first use of a term the glossary defines comes at or after a link to its entry
(or to the section the entry names as its home) or its bold definition; the failure names
page:line and the term. --check and `mkdocs build --strict` run it with every page rule
(docpipe.pages.rules), which test_page_rules checks for all of them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from docpipe import catalog
from docpipe.pages import rules, terms
from projects import SITE, SmallProject

pytestmark = pytest.mark.unit

GLOSSARY = """
# Glossary

Intro, which uses no entry of its own: a graph here is not a use.

## Graph

The **graph** (the **computational graph**) is the record of the
[forward pass](#forward-pass). Taught in [step three](steps.md#the-graph).

## Forward pass

The **forward pass** computes the loss. Taught in [step three](steps.md#the-graph).

## Gradient

The **gradient** holds the slopes. Taught in [step one](steps.md#why).

## Gradient descent

**Gradient descent** steps against the gradient. Taught in [step one](steps.md#why).

## Leaf

A **leaf** is a tensor you made. Taught in [step two](steps.md#leaf).

## Mini-batch

A **mini-batch** is a part of the data. Taught in [step four](steps.md#batches).

## In place

An operation **in place** changes a tensor. Taught in [step five](steps.md#in-place).

## `grad_fn`

The **`grad_fn`** of a result is its node. Taught in [step two](steps.md#leaf).
"""


class Site(SmallProject):
    def __init__(self, root):
        super().__init__(root)
        self.write("docs/glossary.md", GLOSSARY)

    def problems(self) -> list[str]:
        return [str(p) for p in rules.problems(self.catalog(), (terms.RULE,))]


@pytest.fixture
def site(tmp_path) -> Site:
    return Site(tmp_path / "repo")


def page_with(site: Site, body: str, name: str = "index.md") -> None:
    site.write(f"docs/{name}", "# Home\n\n" + textwrap.dedent(body).lstrip("\n"))


def message(page: str, line: int, text: str, anchor: str, link: str = "glossary.md") -> str:
    shown = f"`{text}`" if text == "grad_fn" else text
    return (
        f"docs/{page}:{line}: the term {text!r} is used before this page links it to the"
        f" glossary or defines it: link its first use, [{shown}]({link}#{anchor}), or define it"
        f" there in bold (**{shown}**), or except the phrase in snippets.toml (rule"
        f" {terms.RULE}) with the reason"
    )


def test_a_term_used_before_its_link_is_named_with_page_line_and_term(site):
    page_with(
        site,
        """
        Some words first.

        The graph grows. Later the [graph](glossary.md#graph) is linked.
        """,
    )
    assert site.problems() == [message("index.md", 5, "graph", "graph")]


def test_only_the_first_use_counts_and_a_link_at_or_before_it_passes(site):
    page_with(
        site,
        """
        The [graph](glossary.md#graph) grows, and the graph is walked.

        See the [glossary](glossary.md#leaf) before any leaf; then leaves.
        """,
    )
    assert site.problems() == []


def test_a_bold_definition_or_a_link_to_the_terms_home_introduces_it(site):
    page_with(
        site,
        """
        A **leaf** is where the walk ends; leaves hold a value.

        The [graph of Step 3](steps.md#the-graph) is walked; the graph is freed.
        """,
    )
    assert site.problems() == []


def test_a_link_to_a_home_introduces_only_the_term_its_text_uses(site):
    page_with(site, "See [step three](steps.md#the-graph): the forward pass, the graph.\n")
    assert site.problems() == [
        message("index.md", 3, "forward pass", "forward-pass"),
        message("index.md", 3, "graph", "graph"),
    ]


def test_a_link_to_another_entry_or_section_does_not_introduce_the_term(site):
    page_with(
        site,
        """
        The [graph](glossary.md#leaf) and the [graph](steps.md#why).
        """,
    )
    assert site.problems() == [message("index.md", 3, "graph", "graph")]


@pytest.mark.parametrize(
    ("text", "term", "anchor"),
    [
        ("two graphs", "graphs", "graph"),
        ("the leaves", "leaves", "leaf"),
        ("mini-batches", "mini-batches", "mini-batch"),
        ("Mini batches", "Mini batches", "mini-batch"),
        ("an in-place edit", "in-place", "in-place"),
        ("a computational graph", "computational graph", "graph"),  # a bold spelling
        ("the Forward\npass", "Forward pass", "forward-pass"),  # over a line break
    ],
)
def test_plurals_singulars_and_other_spellings_are_uses(site, text, term, anchor):
    page_with(site, f"Before, {text}.\n")
    problems = site.problems()
    assert len(problems) == 1 and problems[0].startswith("docs/index.md:3: the term ")
    assert f"the term {term!r} is used" in problems[0] and f"#{anchor})" in problems[0]


def test_the_longer_spelling_wins(site):
    page_with(site, "Use [gradient descent](glossary.md#gradient-descent) here.\n")
    assert site.problems() == []  # not a use of "gradient"
    page_with(site, "Use gradient descent here.\n")
    assert site.problems() == [message("index.md", 3, "gradient descent", "gradient-descent")]


def test_what_is_not_a_use(site):
    # Headings and admonition titles name the section that introduces the term, code blocks and
    # math are not prose, a marker's snippet name is not a word, and a code span is a use only
    # of a term that is code.
    page_with(
        site,
        """
        ## The graph and its leaves

        !!! note "Why the graph"

            Not a word of the terms in here.

        ```python
        graph = leaf * 2  # the forward pass
        ```

        $$
        \\text{graph} = \\text{leaf}
        $$

        A sentence. {{ claim by_hand/leaves.py:claim-only-leaves }}

        `graph.leaf` and $\\text{leaf}$ are code and math; one batched call is a verb's.
        """,
    )
    assert site.problems() == []


def test_a_term_that_is_code_is_used_in_code_spans(site):
    page_with(site, "Print `y.grad_fn` to see it; the `grad_fn_extra` is another name.\n")
    assert site.problems() == [message("index.md", 3, "grad_fn", "grad_fn")]
    page_with(site, "Print [`y.grad_fn`](glossary.md#grad_fn) to see it.\n")
    assert site.problems() == []


def test_uses_in_lists_tables_and_admonition_bodies_count(site):
    for body, line in [
        ("- one item\n- the graph\n", 4),
        ("| a | b |\n| --- | --- |\n| x | a leaf |\n", 5),
        ('!!! note "Title"\n\n    The forward pass.\n', 5),
    ]:
        page_with(site, body)
        problems = site.problems()
        assert len(problems) == 1 and problems[0].startswith(f"docs/index.md:{line}: "), body


def test_a_page_in_a_folder_is_told_the_relative_link(site):
    page_with(site, "A leaf.\n", name="more/deep.md")
    assert site.problems() == [message("more/deep.md", 3, "leaf", "leaf", "../glossary.md")]
    page_with(site, "A [leaf](../glossary.md#leaf).\n", name="more/deep.md")
    assert site.problems() == []


def test_an_exception_spares_a_use_and_a_stale_one_is_named(site):
    page_with(site, "The leaf of a plant is not a tensor. A [leaf](glossary.md#leaf).\n")
    site.write(
        "snippets/snippets.toml",
        f"""
        [[exception]]
        path = "docs/index.md"
        rule = "{terms.RULE}"
        text = ["The leaf of a plant", "the graph of a function"]
        reason = "another meaning of the word"
        """,
    )
    assert site.problems() == [
        f"snippets/snippets.toml:1: {terms.RULE} phrase 'the graph of a function' of"
        " docs/index.md is not in its prose any more (remove it)"
    ]


def test_an_exception_without_text_spares_a_whole_page_and_a_stale_one_is_named(site):
    page_with(site, "The graph, the leaves and the forward pass.\n")
    whole = f"""
        [[exception]]
        path = "docs/index.md"
        rule = "{terms.RULE}"
        reason = "a page the glossary does not serve"
        """
    site.write("snippets/snippets.toml", whole)
    assert site.problems() == []
    page_with(site, "No term at all.\n")
    assert site.problems() == [
        f"snippets/snippets.toml:1: {terms.RULE} exception of docs/index.md spares nothing any"
        " more (remove it)"
    ]
    site.write("snippets/snippets.toml", whole.replace(terms.RULE, "general-sentence"))
    with pytest.raises(catalog.CatalogError, match="general-sentence needs text"):
        site.catalog()


def test_the_glossary_is_read_for_terms_and_checked_itself(site):
    found, wrong = terms.read_glossary(site.project.docs / "glossary.md")
    by_name = {t.name: t for t in found}
    assert by_name["Graph"].spellings == ("graph", "computational graph")
    assert by_name["Graph"].anchor == "graph" and by_name["In place"].anchor == "in-place"
    assert by_name["grad_fn"].code and by_name["grad_fn"].anchor == "grad_fn"
    assert by_name["Leaf"].homes == ("steps.md#leaf",)
    assert wrong == []
    site.write(
        "docs/glossary.md",
        GLOSSARY + "\n## Node\n\nA **node**, or **leaf**, of the graph. No home.\n",
    )
    start = GLOSSARY.lstrip("\n").count("\n") + 2
    assert site.problems() == [
        f"docs/glossary.md:{start}: the spelling 'leaf' is a term of two entries, 'Leaf' and"
        " 'Node': keep it in one",
        f"docs/glossary.md:{start}: the entry 'Node' links to no section that teaches it: link"
        " the page section where the tutorial teaches the term (page.md#section)",
    ]


def test_without_a_glossary_the_rule_finds_nothing(site):
    (site.project.docs / "glossary.md").unlink()
    page_with(site, "The graph and the leaves.\n")
    assert site.problems() == []


def test_every_page_of_the_site_introduces_its_terms_before_it_uses_them():
    found, wrong = terms.read_glossary(SITE.docs / "glossary.md")
    assert len(found) >= 20 and wrong == []
    assert [str(p) for p in rules.problems(catalog.load(SITE), (terms.RULE,))] == []


@pytest.mark.integration
def test_check_and_the_strict_build_fail_on_a_term_used_before_its_link(sandbox, tmp_path):
    config = (sandbox.root / "mkdocs.yml").read_text(encoding="utf-8")
    nav = "nav:\n  - index.md\n  - glossary.md\n  - notebooks/index.ipynb\n"
    sandbox.write("mkdocs.yml", config.replace("nav:\n  - index.md\n", nav.rsplit("  - n", 1)[0]))
    sandbox.write("docs/glossary.md", GLOSSARY.replace("steps.md", "index.md"))
    sandbox.write("docs/index.md", "# Sandbox\n\nThe graph, then [graph](glossary.md#graph).\n")
    problem = message("index.md", 3, "graph", "graph")
    check = sandbox.regen("--check")
    assert check.returncode == 2
    assert [line for line in check.stderr.splitlines() if line.startswith("PROBLEM")] == [
        f"PROBLEM {problem}"
    ]
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=sandbox.root,
        capture_output=True,
        text=True,
    )
    assert build.returncode != 0
    assert build.stderr.split("ERROR   -  ", 1)[1].splitlines() == [problem]

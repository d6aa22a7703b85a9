"""The page rules (docpipe.pages.rules) on small pages of their own, never on the site's pages:
a general sentence about PyTorch needs a claim that runs over its cases, a "by hand = autograd"
needs a claim asserting the equality, a number a shown run has is never typed (in math, or as a
count in words). Each problem names page:line; an [[exception]] spares its phrase, and a phrase
that spares nothing is reported. --check, regen and `mkdocs build --strict` say the same."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

import pytest

from docpipe import catalog
from docpipe.pages import agreement, claims, generality, rules, sentences, typed
from docpipe.problems import Problem
from projects import SmallProject

pytestmark = pytest.mark.unit


class Site(SmallProject):
    """A project of a few files in a temporary folder, read by docpipe as it reads the site."""

    def problems(self, *only: str) -> list[str]:
        return [str(p) for p in rules.problems(self.catalog(), only or tuple(rules.RULES))]


@pytest.fixture
def site(tmp_path) -> Site:
    return Site(tmp_path / "repo")


def page_with(site: Site, body: str) -> None:
    site.write("docs/index.md", "# Home\n\n" + textwrap.dedent(body).lstrip("\n"))


FACTS = """
# --8<-- [start:show]
import torch

x = torch.tensor(4.0, requires_grad=True)
# --8<-- [end:show]

# --8<-- [start:claim-one]
assert x.item() == 4.0
# --8<-- [end:claim-one]

# --8<-- [start:claim-every]
for case in [1.0, 2.0]:
    assert case * 0 == 0
# --8<-- [end:claim-every]
"""

# ---------------------------------------------------------------------------------------------
# general-sentence

GENERAL_ADVICE = (
    "back it with a claim that runs over every case it names, narrow it to what the run shows,"
    " or except it in snippets.toml (rule general-sentence) with the reason"
)


def general(page: str, line: int, sentence: str, word: str, subject: str) -> str:
    return (
        f"{page}:{line}: general statement about PyTorch without a checked claim: '{sentence}'"
        f" ({word!r} with {subject}); {GENERAL_ADVICE}"
    )


@pytest.mark.parametrize(
    ("sentence", "word", "subject"),
    [
        # corrections-2.md: general, and asserted on one instance or not at all
        ("Autograd knows the derivative of every PyTorch operation.", "every", "autograd"),
        ("Every optimizer uses the gradient to choose a step that lowers the loss.", "every",
         "optimizer"),
        ("A zero gradient means a training step leaves $w$ and $b$ exactly where they are.",
         "means", "gradient"),
        ("Adam rescales each parameter's share, so its step still goes downhill.", "each",
         "adam"),
        ("Its first step is the same size along both, whatever the gradient's proportions.",
         "whatever", "gradient"),
        ("Reading one afterwards, or calling `backward()` through the same graph again, raises"
         " an error.", "raises an error", "`backward()`"),
        # the new one
        ("Autograd always frees every saved tensor after backward.", "always", "autograd"),
        # a code span names PyTorch too
        ("`x.grad` is never `None` here.", "never", "`x.grad`"),
        ("Nothing is recorded inside `torch.no_grad()`.", "nothing", "`torch.no_grad()`"),
    ],
)  # fmt: skip
def test_a_general_sentence_without_a_claim_is_named_with_page_and_line(
    site, sentence, word, subject
):
    page_with(site, f"An opening sentence on its own line.\n{sentence} A last one.\n")
    assert site.problems(generality.RULE) == [general("docs/index.md", 4, sentence, word, subject)]


@pytest.mark.parametrize(
    "text",
    [
        "The loss is small every time.",  # names nothing of PyTorch
        "`w.grad` holds the slope of the loss.",  # says nothing general
        "Does every optimizer lower the loss?",  # a question
        "Run `python snippets/x.py` for every page.",  # a command is not PyTorch code
        "## Every gradient, by hand",  # a heading
        "```python\n# every gradient is a tensor\n```",  # code
        "$$\n\\text{every gradient}\n$$",  # math
    ],
)
def test_what_is_not_a_general_sentence_about_pytorch(site, text):
    page_with(site, text + "\n")
    assert site.problems(generality.RULE) == []


def test_a_general_sentence_needs_a_claim_that_runs_over_cases(site):
    site.write("snippets/facts.py", FACTS)
    sentence = "Autograd always frees every saved tensor after backward."
    page_with(site, f"{sentence} {{{{ claim facts.py:claim-one }}}}\n")
    assert site.problems(generality.RULE) == [
        f"docs/index.md:3: general statement about PyTorch backed by a claim that checks one"
        f" case: '{sentence}' ('always'; 'claim-one' of snippets/facts.py has no loop over"
        " cases); assert over every case it names (a for loop or a comprehension), or narrow it"
        " to what the run shows"
    ]
    page_with(site, f"{sentence}\n{{{{ claim facts.py:claim-every }}}}\n")
    assert site.problems(generality.RULE) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Here each leaf has a single path, so there is nothing to add.",
        "In this graph every node saved a tensor.",
        "The snippet walks a few small graphs twice each.",
        "Each path contributes {{ facts.py:left }}, and `x.grad` is their sum.",
    ],
)
def test_a_sentence_scoped_to_the_example_shown_counts_over_that_example(site, sentence):
    """ "each", "every", "all" or "nothing" in a sentence that points at the example (or quotes
    its recorded numbers) counts over that one example, which the run shows."""
    page_with(site, sentence + "\n")
    assert site.problems(generality.RULE) == []


def test_a_scoped_sentence_that_says_what_always_happens_still_needs_a_claim(site):
    """ "always", "never", "raises an error" say more than one run shows, even of "this graph":
    such a sentence needs a claim, which may check the case shown."""
    site.write("snippets/facts.py", FACTS)
    sentence = "Calling `backward()` through this graph again raises an error."
    page_with(site, sentence + "\n")
    assert site.problems(generality.RULE) == [
        general("docs/index.md", 3, sentence, "raises an error", "`backward()`")
    ]
    page_with(site, f"{sentence} {{{{ claim facts.py:claim-one }}}}\n")
    assert site.problems(generality.RULE) == []


def test_an_exception_spares_a_general_sentence_and_a_stale_one_is_named(site):
    page_with(site, "Autograd always frees every saved tensor after backward.\n")
    site.write(
        "snippets/snippets.toml",
        """
        [[exception]]
        path = "docs/index.md"
        rule = "general-sentence"
        text = ["always frees every saved tensor", "every optimizer lowers"]
        reason = "an example of the rule"
        """,
    )
    assert site.problems(generality.RULE) == [
        "snippets/snippets.toml:1: general-sentence phrase 'every optimizer lowers' of"
        " docs/index.md is not in its prose any more (remove it)"
    ]


def test_sentences_carry_the_marker_written_after_them_and_their_own_lines():
    text = textwrap.dedent(
        """
        # Title

        **First one, with `x.grad`.** Second,
        on two lines. {{ claim a.py:c-1 }} Third {{ a.py:v }} ends. {{ claim a.py:c-2 }}

        - A list item, e.g. this. Its end?

        ??? success "Solution"
            Inside a solution. {{ claim b.py:claim-x }}

        | cell one. Cell two. | other |
        | --- | --- |
        | body | row |
        """
    ).lstrip()
    found = [(s.line, s.text, s.claims) for s in sentences.read(text)]
    assert found == [
        (3, "**First one, with `x.grad`.**", ()),
        (3, "Second, on two lines.", (("a.py", "c-1"),)),
        (4, "Third {{ a.py:v }} ends.", (("a.py", "c-2"),)),
        (6, "A list item, e.g. this.", ()),
        (6, "Its end?", ()),
        (9, "Inside a solution.", (("b.py", "claim-x"),)),
        (11, "cell one.", ()),
        (11, "Cell two.", ()),
        (11, "other", ()),
        (13, "body", ()),
        (13, "row", ()),
    ]
    assert sentences.solutions(text) == [sentences.Solution(8, 10, (("b.py", "claim-x"),))]


# ---------------------------------------------------------------------------------------------
# agreement-asserted

EQUALITY = agreement.EQUALITY

CUBIC = """
# --8<-- [start:check]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = x**3 - 2 * x
grad_x_hand = 3 * x.item() ** 2 - 2
y.backward()
print(grad_x_hand, x.grad.item())
# --8<-- [end:check]
"""
CUBIC_CLAIM = """
# --8<-- [start:claim-agrees]
assert grad_x_hand == x.grad.item()
# --8<-- [end:claim-agrees]

# --8<-- [start:claim-nothing-equal]
assert x.grad is not None
# --8<-- [end:claim-nothing-equal]
"""
SHOWN = """
```python title="snippets/cubic.py"
--8<-- "snippets/cubic.py:check"
```
"""


def test_an_agreement_sentence_needs_a_claim_that_asserts_the_equality(site):
    site.write("snippets/cubic.py", CUBIC + CUBIC_CLAIM)
    sentence = "Autograd agrees: `x.grad` is {{ cubic.py:autograd_x }}."
    page_with(site, SHOWN + f"\nBy hand it is {{{{ cubic.py:grad_x }}}}. {sentence}\n")
    assert site.problems(agreement.RULE) == [
        f"docs/index.md:7: says two results agree without a checked claim: '{sentence}'; put"
        " {{ claim <key>.py:<section> }} after it, its section asserting " + EQUALITY
    ]
    page_with(site, SHOWN + f"\n{sentence} {{{{ claim cubic.py:claim-nothing-equal }}}}\n")
    assert site.problems(agreement.RULE) == [
        f"docs/index.md:7: says two results agree, but its claim asserts no equality:"
        f" '{sentence}'; assert " + EQUALITY
    ]
    page_with(site, SHOWN + f"\n{sentence} {{{{ claim cubic.py:claim-agrees }}}}\n")
    assert site.problems(agreement.RULE) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "The hand results match `w.grad` exactly.",
        "Autograd gives the same three slopes.",
        "By hand and in autograd the two are identical.",
        "`torch.autograd.grad` computes the same gradients as `.grad`.",
        "The numerical and analytical Jacobians agree.",
    ],
)
def test_the_ways_a_sentence_says_two_results_agree(site, sentence):
    page_with(site, sentence + "\n")
    assert [p.split(": ")[1] for p in site.problems(agreement.RULE)] == [
        "says two results agree without a checked claim"
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "The code does the same in plain Python, then asks autograd:",  # the same computation
        "Run it twice: the outputs match.",  # names nothing compared with a hand result
        "Would autograd agree at $x = 0$?",  # a question
    ],
)
def test_what_does_not_say_a_hand_result_and_autograd_agree(site, sentence):
    page_with(site, sentence + "\n")
    assert site.problems(agreement.RULE) == []


@pytest.mark.parametrize(
    ("check", "equality"),
    [
        ("assert hand == auto", True),
        ("assert torch.equal(hand, auto)", True),
        ("assert torch.allclose(hand, auto)", True),
        ("assert math.isclose(hand, auto, rel_tol=1e-6)", True),
        ("assert abs(hand - auto) < 1e-6", True),
        ("assert (hand - auto).abs().max() <= 1e-6", True),
        ("torch.testing.assert_close(hand, auto)", True),
        ("assert hand > 0", False),
        ("assert auto is not None", False),
        ("assert hand < 1e-6", False),
        ("print(hand == auto)", False),
    ],
)
def test_what_counts_as_asserting_an_equality(check, equality):
    assert bool(claims.equality_checks(ast.parse(check).body)) is equality


def test_an_exercise_solution_needs_a_claim_that_asserts_its_result(site):
    site.write("snippets/cubic.py", CUBIC + CUBIC_CLAIM)
    solution = """
    ### Exercise

    Find the slope.

    ??? success "Solution"
        The slope is {{{{ cubic.py:grad_x }}}}.{marker}

        ```python title="snippets/cubic.py"
        --8<-- "snippets/cubic.py:check"
        ```
    """
    page_with(site, solution.format(marker=""))
    assert site.problems(agreement.RULE) == [
        "docs/index.md:7: an exercise solution without a claim that asserts its hand result on"
        " the run's numbers; put {{ claim <key>.py:<section> }} after its answer, its section"
        " asserting " + EQUALITY
    ]
    page_with(site, solution.format(marker=" {{ claim cubic.py:claim-nothing-equal }}"))
    assert len(site.problems(agreement.RULE)) == 1
    page_with(site, solution.format(marker=" {{ claim cubic.py:claim-agrees }}"))
    assert site.problems(agreement.RULE) == []


def test_the_check_counts_what_the_pages_claim(site):
    site.write("snippets/cubic.py", CUBIC + CUBIC_CLAIM)
    page_with(
        site,
        """
        Autograd agrees. {{ claim cubic.py:claim-agrees }} By hand they match.

        ??? success "Solution"
            It is 46. {{ claim cubic.py:claim-nothing-equal }}

        ??? success "Solution"
            It is 46. {{ claim cubic.py:claim-agrees }}
        """,
    )
    assert agreement.tally(site.catalog()) == agreement.Tally(3, 1, 2, 1, 2, 1)
    assert str(agreement.tally(site.catalog())) == (
        "claims: 3 checked-claim markers on 1 page; 1 of 2 sentences saying two results agree"
        " and 1 of 2 exercise solutions carry an asserted equality"
    )

    site.write(
        "snippets/snippets.toml",
        '[[exception]]\npath = "docs/index.md"\nrule = "agreement-asserted"\n'
        'text = ["By hand they match"]\nreason = "the rule\'s own example"\n',
    )
    assert str(agreement.tally(site.catalog())) == (
        "claims: 3 checked-claim markers on 1 page; 1 of 1 sentence saying two results agree"
        " (1 sentence more excepted in snippets.toml) and 1 of 2 exercise solutions carry an"
        " asserted equality"
    )


def test_a_shown_snippet_that_computes_a_hand_result_asserts_it(site):
    site.write("snippets/cubic.py", CUBIC)
    page_with(site, SHOWN)
    assert site.problems(agreement.RULE) == [
        "snippets/cubic.py:6: computes grad_x_hand by hand next to autograd's gradient, but no"
        " assert compares it with autograd's; assert each equality (hand == autograd) in a claim"
        " section"
    ]
    site.write("snippets/cubic.py", CUBIC + CUBIC_CLAIM)
    assert site.problems(agreement.RULE) == []


def test_an_exception_spares_an_agreement_sentence_and_a_stale_one_is_named(site):
    page_with(site, "By hand and with autograd the slopes agree.\n")
    site.write(
        "snippets/snippets.toml",
        """
        [[exception]]
        path = "docs/index.md"
        rule = "agreement-asserted"
        text = ["the slopes agree", "the two match"]
        reason = "an example of the rule"
        """,
    )
    assert site.problems(agreement.RULE) == [
        "snippets/snippets.toml:1: agreement-asserted phrase 'the two match' of docs/index.md is"
        " not in its prose any more (remove it)"
    ]


# ---------------------------------------------------------------------------------------------
# typed-number

POINTS = """
# --8<-- [start:run]
big = 100.0
point = 1.0
lr = 0.25
offset = -3.5
xs = [0.0, 1.0, 2.0, 3.0]
y = point**3 - 2 * point + 11
# --8<-- [end:run]

# --8<-- [start:claim-tolerance]
assert abs(y - 0) < 1e-9 or 37 > 0
# --8<-- [end:claim-tolerance]
"""
POINTS_META = """
["points.py".values]
loss = "{y:.4f}"
xs = "{', '.join(f'{v:g}' for v in xs)}"
steps = "{len(xs) + 3}"
"""


@pytest.fixture
def points(site) -> Site:
    site.write("snippets/points.py", POINTS)
    site.write("snippets/snippets.toml", POINTS_META)
    site.record("points", {"loss": "0.6931", "xs": "0, 1, 2, 3", "steps": "7"})
    return site


def test_a_snippets_inputs_are_its_data_literals_outside_claims(points):

    # the 3 and 2 of point**3 - 2 * point and its 11 are formula; claim sections are not inputs
    assert typed.input_literals(points.project.snippet("points")) == {
        100.0,
        1.0,
        0.25,
        -3.5,
        0.0,
        2.0,
        3.0,
    }


def typed_math(latex: str) -> list[str]:
    run = {100.0, 1.0, 0.25, -3.5, 0.0, 2.0, 3.0, 0.6931, 7.0, 4.0}
    return [number for _, _, number, _ in typed.math_problems(1, latex, run)]


@pytest.mark.parametrize(
    ("latex", "flagged"),
    [
        ("e^{100}", ["100"]),  # the power of e: an input
        ("x = 1", ["1"]),  # a symbol equal to the run's point
        ("x = 1,\\quad y = 3", ["1", "3"]),
        ("3 \\cdot 1^2 = 3 \\cdot 1", ["1"]),  # the point, raised to a power
        ("\\sigma(100)", ["100"]),  # a function of an input
        ("w \\approx 0.69", ["0.69"]),  # a rounded copy of a recorded value
        ("2(w - 0.25)", ["0.25"]),  # not a small integer, anywhere in a formula
        ("w = -3.5", ["-3.5"]),
        ("x^3 - 2x", []),  # exponents of a variable and small coefficients: formula
        ("\\partial L / \\partial L = 1", []),  # not a single symbol on the left
        ("\\sum_{i=1}^{n} x_i", []),  # an index
        ("2 \\cdot 2^{k}", []),  # a power of a variable
        ("\\max(0, h)", []),  # a small integer in a formula
        ("\\\\[6pt] x = 5", []),  # a length, and a number no run has
        ("x = {{ points.py:loss }}", []),  # a value
    ],
)
def test_which_numbers_in_math_a_run_has(latex, flagged):
    assert typed_math(latex) == flagged


def test_a_typed_number_in_math_is_named_with_page_and_line(points):
    page_with(
        points,
        """
        ```python title="snippets/points.py"
        --8<-- "snippets/points.py:run"
        ```

        In 32-bit floats $e^{100}$ is infinite,
        and at $$x = 1$$ nothing overflows.
        """,
    )
    assert points.problems(typed.RULE) == [
        f"docs/index.md:{line}: the number {n} is typed in math (${latex}$), but a snippet this"
        " page uses has it; quote it with {{ <key>.py:<name> }}, or except its phrase in"
        " snippets.toml (rule typed-number) with the reason"
        for line, n, latex in [(7, "100", "e^{100}"), (8, "1", "x = 1")]
    ]


def test_a_count_typed_as_a_word_is_named_when_a_run_records_it(points):
    page_with(
        points,
        """
        The {{ points.py:xs }} are four numbers; after seven steps, in five or two ways,
        one of them is zero.
        """,
    )
    advice = (
        "; quote it with {{ <key>.py:<name> }}, or except its phrase in snippets.toml (rule"
        " typed-number) with the reason"
    )
    assert points.problems(typed.RULE) == [
        "docs/index.md:3: the count 'four' is typed as a word (...The • are four numbers; after"
        " seven steps, i...), but a run this page uses records 4" + advice,
        "docs/index.md:3: the count 'seven' is typed as a word (...The • are four numbers; after"
        " seven steps, in five or two ways,...), but a run this page uses records 7" + advice,
    ]


def test_a_page_without_the_snippet_has_none_of_its_numbers(points):
    page_with(points, "$e^{100}$ and four numbers.\n")
    assert points.problems(typed.RULE) == []


def test_an_exception_spares_a_typed_number_and_a_stale_one_is_named(points):
    page_with(points, "The {{ points.py:xs }} are four numbers, and $e^{100}$ is infinite.\n")
    points.write(
        "snippets/snippets.toml",
        POINTS_META
        + """
        [[exception]]
        path = "docs/index.md"
        rule = "typed-number"
        text = ["four numbers", "e^{100}", "x = 1"]
        reason = "an example of the rule"
        """,
    )
    assert points.problems(typed.RULE) == [
        "snippets/snippets.toml:6: typed-number phrase 'x = 1' of docs/index.md is not in its"
        " prose any more (remove it)"
    ]


def test_digits_in_prose_stay_the_number_rules(points):
    page_with(
        points,
        '```python title="snippets/points.py"\n--8<-- "snippets/points.py:run"\n```\n\n'
        "It is 100.\n",
    )
    assert points.problems(typed.RULE) == []
    assert [p.split(": ")[1] for p in points.problems("number-in-prose")] == [
        "the number 100 is typed by hand in prose (...It is 100....); quote it from a run with"
        " {{ <key>.py:<name> }}, or allow its phrase in snippets.toml (rule number-in-prose) with"
        " the reason"
    ]


# ---------------------------------------------------------------------------------------------
# one code path: --check, regen and mkdocs build --strict


SANDBOX_PAGE = """
# Sandbox

```python title="snippets/cubic.py"
--8<-- "snippets/cubic.py:check"
```

``` text title="python snippets/cubic.py"
--8<-- "docs/generated/cubic.txt"
```

By hand, $dy/dx = 3x^2 - 2 = {{ cubic.py:grad_x }}$ at $x = 4$.
Autograd agrees: `x.grad` is {{ cubic.py:autograd_x }}. {{ claim cubic.py:claim-agrees }}
Autograd always frees every saved tensor after backward.
"""
SANDBOX_META = """
["cubic.py".values]
grad_x = "{grad_x_hand:g}"
autograd_x = "{x.grad.item():g}"
"""
PROBLEMS_LINE = "Autograd always frees every saved tensor after backward."
PROBLEMS = [
    "docs/index.md:11: the number 4 is typed in math ($x = 4$), but a snippet this page uses has"
    " it; quote it with {{ <key>.py:<name> }}, or except its phrase in snippets.toml (rule"
    " typed-number) with the reason",
    general(
        "docs/index.md",
        13,
        "Autograd always frees every saved tensor after backward.",
        "always",
        "autograd",
    ),
]


@pytest.fixture
def recorded(sandbox):
    """A sandbox whose page shows a hand result and autograd's, asserted equal, recorded."""
    sandbox.write("snippets/cubic.py", CUBIC + CUBIC_CLAIM)
    sandbox.write("snippets/snippets.toml", SANDBOX_META)
    clean = SANDBOX_PAGE.replace(" at $x = 4$", "").replace(PROBLEMS_LINE, "That is all.")
    sandbox.write("docs/index.md", clean)
    first = sandbox.regen()
    assert first.returncode == 0, first.stderr
    sandbox.commit()
    return sandbox


def test_check_and_the_strict_build_name_the_same_problems(recorded, tmp_path):
    recorded.write("docs/index.md", SANDBOX_PAGE)
    check = recorded.regen("--check")
    assert check.returncode == 2
    assert (
        "claims: 1 checked-claim marker on 1 page; 1 of 1 sentence saying two results agree and"
        " 0 of 0 exercise solutions carry an asserted equality\n"
        "checked 1 snippets: 0 drifted, 0 failed, 2 site problems\n"
    ) in check.stdout
    assert [line for line in check.stderr.splitlines() if line.startswith("PROBLEM")] == [
        f"PROBLEM {p}" for p in PROBLEMS
    ]
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=recorded.root,
        capture_output=True,
        text=True,
    )
    assert build.returncode != 0  # the build fails on the site problems, one error
    assert build.stderr.split("ERROR   -  ", 1)[1].splitlines() == PROBLEMS
    assert "Aborted with a BuildError!" in build.stdout + build.stderr


def test_a_changed_hand_formula_fails_check_and_regen_naming_page_line_and_sentence(recorded):
    recorded.write("snippets/cubic.py", (CUBIC + CUBIC_CLAIM).replace("** 2 - 2", "** 2 - 3"))
    told = (
        "  CLAIM NO LONGER HOLDS: snippets/cubic.py:12 (section 'claim-agrees') checks what this"
        ' page says:\n    docs/index.md:12: "Autograd agrees: `x.grad` is'
        ' {{ cubic.py:autograd_x }}."\n'
    )
    check = recorded.regen("--check")
    assert check.returncode == 1
    assert told in check.stderr
    regen = recorded.regen()
    assert regen.returncode == 1
    assert told in regen.stderr
    assert recorded.status().strip() == "M snippets/cubic.py"  # nothing recorded was changed


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        (
            'rule = "general-sentence"\nreason = "r"\n',
            "general-sentence needs text = [phrases of the sentence]",
        ),
        (
            'rule = "agreement-asserted"\ntext = []\nreason = "r"\n',
            "agreement-asserted needs text = [phrases of the sentence]",
        ),
        (
            'rule = "typed-number"\nreason = "r"\n',
            "typed-number needs text = [phrases with the number]",
        ),
        (
            'rule = "typed-number"\ntext = [" "]\nreason = "r"\n',
            "text ' ' is not a phrase of the page",
        ),
    ],
)
def test_a_bad_exception_of_a_page_rule_is_refused_by_the_catalog(site, entry, error):
    site.write("snippets/snippets.toml", '[[exception]]\npath = "docs/a.md"\n' + entry)
    with pytest.raises(catalog.CatalogError) as e:
        site.catalog()
    assert e.value.problem == Problem(
        "snippets/snippets.toml", 1, f"[[exception]] docs/a.md: {error}"
    )
    assert str(e.value) == f"snippets/snippets.toml:1: [[exception]] docs/a.md: {error}"


def test_an_exception_naming_no_page_is_named(site):
    site.write(
        "snippets/snippets.toml",
        '[[exception]]\npath = "docs/gone.md"\nrule = "general-sentence"\ntext = ["every"]\n'
        'reason = "r"\n',
    )
    assert site.problems(generality.RULE) == [
        "snippets/snippets.toml:1: general-sentence names docs/gone.md, not a page"
    ]

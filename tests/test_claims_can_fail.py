"""A claim can fail: each form of a claim that checks nothing is refused, naming the page line
and sentence it was to back and the snippet line of the assert that could not fail.

One sandbox holds a snippet per form, each behind a false sentence ("doubling two gives
five"), so that a claim that passed would be a lie; one `--check` of it is read by every test.
The forms only a run shows (docpipe.run.ledger) fail the snippet's run (exit 1); the forms its
text shows (docpipe.vacuous) are site problems (exit 2), which the build refuses too.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import make_sandbox, reader_machine
from docpipe import vacuous
from docpipe.pages import claims
from projects import SITE

pytestmark = pytest.mark.integration  # the unit tests at the end are marked so

SHOW = """
# --8<-- [start:show]
two = 2
print(two * 2)
# --8<-- [end:show]

"""
# What the forms of issue 47 start from: a tensor a step changes, a view of it kept before the
# step (`.detach()` shares its memory: `.clone()` was meant), and an empty selection.
KEPT = (
    "import math\n\nimport torch\n\nv = torch.tensor([two * 1.0], requires_grad=True)\n"
    "(v * 5).sum().backward()\nopt = torch.optim.SGD([v], lr=1.0)\n"
    "before = v.detach(); opt.step(); "
)
EMPTY = (
    "import torch\n\na = torch.tensor([two * 2.0])\nb = torch.tensor([5.0])\n"
    "mask = a > 10  # selects nothing\n\n"
)
# The claim section of each form the run must refuse, with the line of the assert it names
# (counted in the whole snippet: SHOW is five lines, the section starts on line 7).
RUN_FORMS = {
    "loop_over_nothing": ("for case in []:\n    assert two * 2 == 5", 8, "never ran"),
    "branch_not_taken": ("if False:\n    assert two * 2 == 5", 8, "never ran"),
    "function_not_called": ("def never():\n    assert two * 2 == 5", 8, "never ran"),
    "caught": (
        "try:\n    for c in range(3):\n        assert two * 2 == 5\nexcept AssertionError:\n"
        "    pass",
        9,
        "failed and the run went on",
    ),
    "suppressed": (
        "import contextlib\n\nwith contextlib.suppress(Exception):\n    assert two * 2 == 5",
        10,
        "failed and the run went on",
    ),
    "tuple_value": ("verdict = (two * 2 == 5, 'why')\nassert verdict", 8, "is a tuple"),
    "wide_abs": ("assert abs(two * 2 - 5) < 1e9", 7, "tolerance is wider"),
    "wide_isclose": (
        "import math\n\nassert math.isclose(two * 2, 5, abs_tol=100)",
        9,
        "tolerance is wider",
    ),
    "wide_relative": (
        "import math\n\nassert math.isclose(two * 2, 5, rel_tol=1)",
        9,
        "tolerance is wider",
    ),
    "all_over_nothing": ("assert all(two * 2 == 5 for c in [])", 7, "ran over no case"),
    "message_raises": (
        "try:\n    assert two * 2 == 5, 1 / 0\nexcept ZeroDivisionError:\n    pass",
        8,
        "failed and the run went on",
    ),
    "put_back": (
        "import math\n\nreal = math.isclose\nmath.isclose = lambda *a, **k: True\n"
        "assert math.isclose(two * 2, 5)\nmath.isclose = real",
        11,
        "ran while the claim section had replaced math.isclose",
    ),
    "wide_relative_half": (
        "import math\n\nassert math.isclose(two * 2, 5, rel_tol=0.6)",
        9,
        "tolerance is wider",
    ),
    "wide_square": ("assert (two * 2 - 5) ** 2 < 100", 7, "tolerance is wider"),
    "wide_list": (
        "import numpy\n\nassert numpy.allclose([two * 2], [5], atol=10)",
        9,
        "tolerance is wider",
    ),
    # issue 47: a value never computed, whatever name it was kept under (the text cannot see it)
    "method_kept": (
        "import torch\n\nv = torch.tensor([two * 2.0])\ncheck = (v == 5).all\nassert check",
        11,
        "its test's value is a method (`Tensor.all`) never called",
    ),
    "function_kept": (
        "import math\n\nclose = math.isclose\nassert close",
        10,
        "its test's value is a function (`isclose`) never called",
    ),
    "generator_kept": (
        "cases = (two * c == 5 * c for c in [1, 2])\nassert cases",
        8,
        "its test's value is a generator, which is true whatever it yields",
    ),
    "iterator_kept": (
        "cases = map(bool, [two * 2 == 5])\nassert cases",
        8,
        "its test's value is an iterator (map), which is true whatever it yields",
    ),
    "and_method_kept": (
        "import torch\n\nv = torch.tensor([two * 2.0])\ncheck = (v == 5).all\n"
        "assert two == 2 and check",
        11,
        "an operand of its `and` is a method (`Tensor.all`) never called",
    ),
    # issue 47: an equality of a value with itself, kept as a view (or the object itself) before
    # it changed: every spelling
    **{
        f"kept_view_{name}": (
            KEPT + check,
            14,
            f"the two sides of `{shown}` are one Tensor's memory (a `.detach()`, `.data` or"
            " view), changed in place since it was made (its version counter is 1)",
        )
        for name, check, shown in [
            ("equal", "assert torch.equal(v.detach(), before)", "torch.equal(v.detach(), before)"),
            ("equal_method", "assert v.detach().equal(before)", "v.detach().equal(before)"),
            ("eq_all", "assert (v.detach() == before).all()", "v.detach() == before"),
            ("eq_method_all", "assert v.detach().eq(before).all()", "v.detach().eq(before)"),
            (
                "allclose",
                "assert torch.allclose(v.detach(), before)",
                "torch.allclose(v.detach(), before)",
            ),
            (
                "allclose_method",
                "assert v.detach().allclose(before)",
                "v.detach().allclose(before)",
            ),
            (
                "assert_close",
                "torch.testing.assert_close(v.detach(), before)\nassert two == 2",
                "torch.testing.assert_close(v.detach(), before)",
            ),
            (
                "isclose",
                "assert math.isclose(v.detach(), before)",
                "math.isclose(v.detach(), before)",
            ),
        ]
    },  # fmt: skip
    "kept_tensor_itself": (
        KEPT.replace("before = v.detach(); ", "before = v; ") + "assert torch.equal(v, before)",
        14,
        "the two sides of `torch.equal(v, before)` are one Tensor, changed in place",
    ),
    "kept_list_itself": (
        "cases = [two * 2]\nbefore = cases; cases.append(5); assert cases == before",
        8,
        "the two sides of `cases == before` are one list, so it compares each value with itself",
    ),
    "kept_array_view": (
        "import numpy\n\nmade = numpy.array([two * 2.0])\nbefore = made[:]; made += 1; "
        "assert numpy.array_equal(made, before)",
        10,
        "the two sides of `numpy.array_equal(made, before)` are one ndarray's memory",
    ),
    # issue 47: a comparison over nothing checks nothing
    "empty_mask": (EMPTY + "assert (a[mask] == b[mask]).all()", 13, "this assert compared nothing"),
    "empty_equal": (EMPTY + "assert torch.equal(a[mask], b[mask])", 13, "compared nothing"),
    "empty_selection_all": (EMPTY + "assert (a[mask] > 4).all()", 13, "compared nothing"),
    "empty_generator": (
        "cases = (two * c == 5 for c in [])\nassert all(cases)",
        8,
        "this assert compared nothing",
    ),
}
# Forms the text shows: the section, the assert's line, what the problem says.
TEXT_FORMS = {
    "tuple_literal": ("assert (two * 2 == 5, 'why')", 7, "asserts a tuple"),
    "itself": ("doubled = two * 2\nassert doubled == doubled", 8, "with itself"),
    "or_true": ("assert two * 2 == 5 or True", 7, "constant true operand"),
    "constant": ("assert 4 == 4", 7, "is a constant"),
    "close_to_itself": (
        "import math\n\nassert math.isclose(two, two)",
        9,
        "compares `two` with itself",
    ),
    "constant_cases": ("assert all(True for c in range(3))", 7, "the constant True"),
    # issue 47: a value never computed, as the text shows it
    "method_not_called": (
        "import torch\n\nv = torch.tensor([two * 1.0], requires_grad=True)\n"
        "(v * 3).sum().backward()\nassert (v.grad == 3 * v.detach()).all",
        11,
        "asserts the method `(v.grad == 3 * v.detach()).all` never called",
    ),
    "generator_test": (
        "xs = [two * 2 - 5]\nassert (x > 0 for x in xs)",
        8,
        "asserts a generator, which is true whatever it yields",
    ),
    "map_test": ("assert map(bool, [two * 2 == 5])", 7, "an iterator"),
    "iter_test": ("assert iter([two * 2 == 5])", 7, "`iter([two * 2 == 5])`, an iterator"),
    "equal_method_itself": (
        "import torch\n\nv = torch.tensor([two * 2.0])\nassert v.equal(v)",
        10,
        "compares `v` with itself",
    ),
    "alias_except": (
        "E = AssertionError\ntry:\n    assert two * 2 == 5\nexcept E:\n    pass",
        10,
        "names no exception class",
    ),
}
SENTENCE = "Doubling two gives five."


def snippet(name: str, section: str, tail: str = "") -> str:
    claim = f"# --8<-- [start:claim-{name}]\n{section}\n# --8<-- [end:claim-{name}]\n"
    return textwrap.dedent(SHOW).lstrip("\n") + claim + tail


def page(names: list[str]) -> str:
    blocks = [
        f'```python title="snippets/{n}.py"\n--8<-- "snippets/{n}.py:show"\n```\n\n'
        f'``` text title="python snippets/{n}.py"\n--8<-- "docs/generated/{n}.txt"\n```\n\n'
        f"{SENTENCE} {{{{ claim {n}.py:claim-{n.replace('_', '-')} }}}}\n\n"
        for n in names
    ]
    return "# Sandbox\n\n" + "".join(blocks)


# Two claims of one snippet, where the first one changes what the second checks.
ENDS_EARLY = snippet(
    "ends-early",
    "import sys\n\nsys.exit(0)",
    "\n# --8<-- [start:claim-after]\nassert two * 2 == 5\n# --8<-- [end:claim-after]\n",
)
REPLACES = snippet(
    "replaces",
    "import math\n\nmath.isclose = lambda *a, **k: True\nassert two == 2",
    "\n# --8<-- [start:claim-after]\nassert math.isclose(two * 2, 5)\n# --8<-- [end:claim-after]\n",
)
# A global of the ledger's old name, with methods that hold everything: the rewritten asserts
# reach the ledger through a constant of their code, so the false assert fails.
TAMPERS = snippet(
    "tampers",
    "class Fake:\n    def held(self, *args):\n        return True\n\n"
    "    def failed(self, *args):\n        pass\n\n\n"
    "__docpipe_claims__ = Fake()\nassert two * 2 == 5",
)
# A global of the page's, changed for the assert and put back before the section ends.
RESTORES = snippet(
    "restores",
    "two = 2.5\nassert two * 2 == 5\ntwo = 2",
    "\n# --8<-- [start:more]\nprint(two)\n# --8<-- [end:more]\n",
)
REBINDS = snippet(
    "rebinds",
    "two = 2.5\nassert two * 2 == 5",
    "\n# --8<-- [start:more]\nprint(two)\n# --8<-- [end:more]\n",
)
ODD = {
    "ends_early": ENDS_EARLY,
    "replaces": REPLACES,
    "rebinds": REBINDS,
    "tampers": TAMPERS,
    "restores": RESTORES,
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """The sandbox with every form, recorded where it can be, then checked once."""
    box = make_sandbox(tmp_path_factory.mktemp("vacuous"))
    names = [*RUN_FORMS, *TEXT_FORMS, *ODD]
    for name, (section, _, _) in {**RUN_FORMS, **TEXT_FORMS}.items():
        box.write(f"snippets/{name}.py", snippet(name.replace("_", "-"), section))
    for name, text in ODD.items():
        box.write(f"snippets/{name}.py", text)
    box.write("docs/index.md", page(names))
    box.lines = box.read("docs/index.md").splitlines()
    box.run = box.regen("--check")
    return box


def page_line(box, name: str) -> int:
    marker = f"{{{{ claim {name}.py:"
    return next(i for i, line in enumerate(box.lines, 1) if marker in line)


@pytest.mark.parametrize("name", RUN_FORMS)
def test_a_claim_that_cannot_fail_in_the_run_fails_it_naming_page_and_assert(checked, name):
    _, line, why = RUN_FORMS[name]
    run = checked.run
    assert run.returncode == 2  # the text forms' problems come with the run's failures
    failed = next(x for x in run.stderr.splitlines() if x.startswith(f"FAILED snippets/{name}.py:"))
    assert failed.startswith(f"FAILED snippets/{name}.py:{line}: claim section"), failed
    assert why in failed
    section = name.replace("_", "-")
    assert (
        f"  CLAIM CANNOT FAIL: snippets/{name}.py:{line} (section 'claim-{section}') checks what"
        f' this page says:\n    docs/index.md:{page_line(checked, name)}: "{SENTENCE}"\n'
    ) in run.stderr


@pytest.mark.parametrize("name", TEXT_FORMS)
def test_a_claim_whose_text_cannot_fail_is_a_site_problem_naming_page_and_assert(checked, name):
    _, line, why = TEXT_FORMS[name]
    problem = next(
        x for x in checked.run.stderr.splitlines() if f": snippets/{name}.py:{line}:" in x
    )
    assert problem.startswith(
        f'PROBLEM docs/index.md:{page_line(checked, name)}: the claim of "{SENTENCE}":'
        f" snippets/{name}.py:{line}: this "
    ), problem
    assert " cannot fail: " in problem
    assert why in problem


def test_a_claim_section_cannot_end_the_run_early(checked):
    assert (
        "FAILED snippets/ends_early.py:9: sys.exit() ended the run in section"
        " 'claim-ends-early', before 'claim-after' ran"
    ) in checked.run.stderr


def test_a_claim_section_cannot_replace_what_later_claims_call(checked):
    assert (
        "FAILED snippets/replaces.py:7: claim section 'claim-replaces' replaces math.isclose"
    ) in checked.run.stderr


def test_a_claim_section_cannot_change_what_the_pages_code_reads_later(checked):
    assert (
        "FAILED snippets/rebinds.py:7: claim section 'claim-rebinds' rebinds `two`"
    ) in checked.run.stderr


def test_no_global_can_stand_in_for_the_ledger(checked):
    assert "FAILED snippets/tampers.py:16: AssertionError" in checked.run.stderr
    assert "CLAIM NO LONGER HOLDS: snippets/tampers.py:16" in checked.run.stderr


def test_a_change_put_back_before_the_claim_section_ends_is_seen_at_the_assert(checked):
    assert (
        "FAILED snippets/restores.py:8: claim section 'claim-restores': this assert cannot fail:"
        " it ran while the claim section had changed `two`"
    ) in checked.run.stderr


def test_nothing_is_recorded_from_a_check(checked):
    assert not (checked.root / "docs" / "generated").exists()


@pytest.mark.parametrize("how", ["PYTHONOPTIMIZE", "-O"])
def test_asserts_of_claims_survive_optimised_runs(tmp_path, how):
    box = make_sandbox(tmp_path)
    box.write("snippets/wrong.py", snippet("wrong", "assert two * 2 == 5"))
    box.write("docs/index.md", page(["wrong"]))
    flags, env = (["-O"], {}) if how == "-O" else ([], {"PYTHONOPTIMIZE": "2"})
    run = subprocess.run(
        [sys.executable, *flags, "scripts/regen.py"],
        cwd=box.root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**reader_machine(), "CI": "true", **env},
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED snippets/wrong.py:7: AssertionError" in run.stderr
    assert "CLAIM NO LONGER HOLDS: snippets/wrong.py:7" in run.stderr
    assert not (box.root / "docs" / "generated").exists()


@pytest.mark.unit
def test_the_text_rules_leave_every_claim_of_the_site_able_to_fail():
    import ast

    for path in sorted(SITE.snippets.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                assert vacuous.cannot_fail(node.test) is None, f"{path}:{node.lineno}"


@pytest.mark.unit
@pytest.mark.parametrize(
    "test, why",
    [
        ("a == b", None),
        ("abs(a - b) < 1e-6", None),
        ("torch.equal(x.grad, y.grad)", None),
        ("all(p.grad is None for p in ps)", None),
        ("x.grad is None or x.grad.sum() == 0", None),
        ("[a == b]", "asserts a list"),
        ("f'{a}'", "asserts a string"),
        ("'ok'", "asserts a string"),
        ("1 < 2", "is a constant"),
        ("a.grad is a.grad", "with itself"),
        ("torch.allclose(w, w, atol=0)", "with itself"),
        ("any(1 for c in cs)", "the constant 1"),
        ("a == b or 1", "constant true operand"),
        ("bool(1)", "is a constant"),
        ("a == b if False else True", "is a constant"),
        ("len(xs) > 0", None),
    ],
)
def test_what_the_text_shows_cannot_fail(test, why):
    import ast

    found = vacuous.cannot_fail(ast.parse(test, mode="eval").body)
    assert (found is None) if why is None else (why in found), found


@pytest.mark.unit
def test_every_claim_mark_of_the_site_says_over_how_many_cases_it_ran():
    from docpipe.pages import reading
    from docpipe.recorded import record

    seen = 0
    for path in reading.markdown_pages(SITE):
        for c in claims.find(SITE, path):
            runs = record.load(c.snippet).runs_of(c.section)
            scope = claims.cases(c.snippet, c.section, runs)
            assert scope.startswith("checked over "), (c.page, c.line)
            seen += 1
    assert seen >= 200


@pytest.mark.unit
@pytest.mark.parametrize(
    "section, why",
    [
        ("try:\n    assert a\nexcept:\n    pass", "catches everything"),
        ("try:\n    exec('assert a')\nexcept (ValueError, Exception):\n    pass", "catches ("),
        ("import contextlib\nwith contextlib.suppress(AssertionError):\n    assert a", "hides"),
        ("try:\n    x.backward()\nexcept RuntimeError as e:\n    caught = e\nassert caught", None),
    ],
)
def test_a_claim_that_catches_its_own_failures_cannot_fail(section, why):
    import ast

    found = vacuous.catches_failures(ast.parse(section).body)
    assert (found is None) if why is None else (why in found[1]), found


@pytest.mark.unit
def test_only_an_installed_packages_own_wrapper_may_stand_in_for_a_function():
    import contextlib
    import functools

    from docpipe.run import ledger

    def seed(n):
        yield n

    installed = contextlib.contextmanager(seed)  # code in the standard library, wraps seed
    assert ledger._installed_wrapper(installed, seed)
    written = functools.wraps(seed)(lambda n: None)  # a snippet's wrapper, its code its own
    assert not ledger._installed_wrapper(written, seed)
    assert not ledger._installed_wrapper(contextlib.contextmanager(lambda: None), seed)
    assert not ledger._installed_wrapper(len, seed)  # a builtin in its place


def test_regen_refuses_a_claim_whose_text_cannot_fail_before_it_runs(tmp_path):
    box = make_sandbox(tmp_path)
    box.write("snippets/constant.py", snippet("constant", "assert 4 == 4"))
    box.write("docs/index.md", page(["constant"]))
    run = box.regen()
    assert run.returncode == 2
    assert (
        f'PROBLEM docs/index.md:11: the claim of "{SENTENCE}": snippets/constant.py:7: this'
        " assert cannot fail: its test is a constant"
    ) in run.stderr
    assert not (box.root / "docs" / "generated").exists()  # nothing ran, nothing recorded


@pytest.mark.unit
def test_watching_a_claim_reads_no_attribute_of_what_the_modules_hold():
    """Watch.before lists each module's functions before a claim section runs; it must not run
    code of the values it looks at (an attribute access can warn into the claim's output, as
    torch.distributed.reduce_op does, or fail)."""
    import types

    from docpipe.run import ledger

    class Touchy:
        def __getattribute__(self, name):
            raise AssertionError(f"read .{name}")

    module = types.ModuleType("touchy_module")
    module.touchy = Touchy()
    module.function = len
    watch = ledger.Watch()
    watch.before({"touchy_module": module, "touchy": Touchy()}, claim=True)
    assert watch.modules[module] == {"function": len}
    assert ledger._replaceable(module) and ledger._replaceable(len)
    assert not ledger._replaceable(Touchy())


# Issue 47: a claim of each shape the forms above refuse, written honestly, is accepted, and a
# loop's assert counts the cases it depends on.
HONEST = """
import torch

v = torch.tensor([two * 1.0], requires_grad=True)
(v * 5).sum().backward()
opt = torch.optim.SGD([v], lr=1.0)
before = v.detach().clone(); opt.step(); assert not torch.equal(v.detach(), before)
assert (v.grad == 5).all() and v.grad.eq(5).all()
dropout = torch.nn.Dropout(0.5).eval()
ones = torch.ones(3)
assert torch.equal(dropout(ones), ones)  # eval-mode dropout hands back its input itself
square = ones[:, None] * torch.arange(3.0)[None, :]
assert not torch.equal(square, square.T)  # a transposed view pairs other elements
assert all(c * two == two * c for c in range(3))
mask = torch.arange(3.0) > 0
assert (ones[mask] == 1).all() and torch.equal(ones[mask], torch.ones(2))
assert ones.dtype == square.dtype and ones.add_(0) is ones
for case in range(4):
    assert case * two == two * case
total = 0
for _ in range(5):
    total = total + two
    assert total % two == 0
for _ in range(6):
    assert two * 2 == 4  # reads nothing the loop changes: one case
for _ in range(2):
    assert all(c * 0 == 0 for c in range(3))  # three cases, however often the loop runs it
"""


def test_honest_claims_of_each_shape_pass_and_a_loop_counts_what_its_assert_reads(tmp_path):
    from docpipe.project import Project
    from docpipe.recorded import record

    box = make_sandbox(tmp_path)
    box.write("snippets/honest.py", snippet("honest", HONEST.strip("\n")))
    box.write("docs/index.md", page(["honest"]))
    run = box.regen()
    assert run.returncode == 0, run.stdout + run.stderr
    honest = Project(box.root).snippet_at(box.root / "snippets/honest.py")
    runs = record.load(honest).runs_of("claim-honest")
    lines = HONEST.strip("\n").splitlines()

    def line_of(text: str) -> int:
        return next(i for i, x in enumerate(lines, 7) if text in x)

    assert runs[line_of("assert case * two")] == 4
    assert runs[line_of("assert total % two")] == 5
    assert runs[line_of("assert two * 2 == 4")] == 1  # six runs, one case
    assert runs[line_of("assert all(c * two")] == 3
    assert runs[line_of("assert all(c * 0")] == 3
    # the claim mark's tooltip says so
    scope = claims.cases(honest, "claim-honest", runs)
    assert f"line {line_of('assert two * 2 == 4')}: 1," in scope, scope


@pytest.mark.unit
def test_a_general_sentence_is_not_backed_by_a_loop_its_assert_does_not_read(tmp_path):
    from docpipe.pages import generality, rules
    from projects import SmallProject

    site = SmallProject(tmp_path / "repo")
    site.write(
        "snippets/facts.py",
        """
        import torch

        x = torch.tensor(4.0)

        # --8<-- [start:claim-same]
        for case in [1.0, 2.0]:
            assert x.item() == 4.0
        # --8<-- [end:claim-same]

        # --8<-- [start:claim-every]
        for case in [1.0, 2.0]:
            assert (x * case).item() == 4.0 * case
        # --8<-- [end:claim-every]
        """,
    )
    sentence = "Autograd always frees every saved tensor after backward."
    site.write("docs/index.md", f"# Home\n\n{sentence} {{{{ claim facts.py:claim-same }}}}\n")
    found = [str(p) for p in rules.problems(site.catalog(), (generality.RULE,))]
    assert found == [
        f"docs/index.md:3: general statement about PyTorch backed by a claim that checks one"
        f" case: '{sentence}' ('always'; 'claim-same' of snippets/facts.py has no loop over"
        " cases); assert over every case it names (a for loop or a comprehension), or narrow it"
        " to what the run shows"
    ]
    site.write("docs/index.md", f"# Home\n\n{sentence} {{{{ claim facts.py:claim-every }}}}\n")
    assert [str(p) for p in rules.problems(site.catalog(), (generality.RULE,))] == []


@pytest.mark.unit
@pytest.mark.parametrize(
    "section, once",
    [
        ("for x in xs:\n    assert two * 2 == 4", True),
        ("for x in xs:\n    y = x * 2\n    assert y > 0", False),
        ("for x in xs:\n    y = abs(x)\n    assert abs(a) >= 0", True),
        # a name read with a loop's variable may be changed by it (torch, here): counted each run
        ("for x in xs:\n    y = torch.relu(x)\n    assert torch.relu(a).min() >= 0", False),
        ("for x in xs:\n    ys.append(x)\n    assert len(ys) > 0", False),  # a call's effect
        ("for _ in range(3):\n    t = t + 1\n    assert t > 0", False),  # carried over
        ("for _ in range(3):\n    opt.step()\n    assert w.item() < 1", False),
        ("for x in xs:\n    with mode(x):\n        assert torch.is_grad_enabled()", False),
        ("for x in xs:\n    run(x)\n    assert kept[-1] is None", False),  # its own function
        ("i = 0\nwhile i < 3:\n    i += 1\n    assert i > 0", False),
        ("while True:\n    assert two == 2\n    break", True),
        ("for x in xs:\n    for y in ys:\n        assert x > 0", False),
        ("def f(c):\n    assert c > 0\nfor x in xs:\n    f(x)", False),  # in a function
        ("for x in xs:\n    assert all(y > 0 for y in ys)", True),  # y is the generator's own
        ("for x in xs:\n    assert all(y > x for y in ys)", False),
    ],
)
def test_an_assert_in_a_loop_that_reads_nothing_the_loop_changes_is_one_case(section, once):
    import ast

    body = ast.parse(section).body
    asserts = [n.lineno for n in ast.walk(ast.Module(body, [])) if isinstance(n, ast.Assert)]
    assert (vacuous.once(body) == set(asserts)) is once, vacuous.once(body)


@pytest.mark.unit
@pytest.mark.parametrize(
    "test, why",
    [
        ("(v.grad == 3 * v.detach()).all", "the method `(v.grad == 3 * v.detach()).all` never"),
        ("(x > 0 for x in xs)", "a generator"),
        ("map(bool, xs)", "an iterator"),
        ("iter(xs)", "an iterator"),
        ("lambda: a == b", "a function"),
        ("a == b and c.any", "the method `c.any` never called"),
        ("all(t.all for t in ts)", "the method `t.all` never called"),
        ("a.equal(a)", "with itself"),
        ("a.eq(a).all()", "with itself"),
        ("a.equal(b)", None),
        ("x.is_leaf and x.requires_grad", None),  # properties are values
        ("all(x > 0 for x in xs)", None),
    ],
)
def test_what_the_text_shows_is_never_computed(test, why):
    import ast

    found = vacuous.cannot_fail(ast.parse(test, mode="eval").body)
    assert (found is None) if why is None else (why in found), found

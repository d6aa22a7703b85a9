"""Asserts that cannot fail, told from their text alone: the static half of "a claim can fail".

A claim's assert backs a sentence only if the run could have made it fail. Some tests are true
whatever the run computes, and their text shows it:

- a constant (`assert 1 == 1`, `assert -0.0 == 0.0`): no name and no call, nothing the run made;
- a literal tuple, list, set, dict or string (`assert (a == b, "why")`): true when not empty;
- an expression compared with itself (`a == a`, `torch.equal(w.grad, w.grad)`);
- an `or` with a constant true operand (`a == b or True`), anywhere in the test;
- `all(...)`/`any(...)` over a comprehension whose element is a constant.

The run half (docpipe.run.ledger) catches what only a run shows: an assert that never ran, a
failure that was caught, a test whose value is a container, a tolerance wider than the values
it compares, a claim section that ends the run or changes what the page's code made. The page
side (docpipe.pages.claims) and the run side both read these rules from here.
"""

from __future__ import annotations

import ast
import builtins

# Calls that state two results are equal (or close): their first two arguments are compared.
EQUALITY_CALLS = {
    "equal", "allclose", "isclose", "array_equal",
    "assert_close", "assert_allclose", "assert_array_equal", "assert_equal",
}  # fmt: skip
# Of those, the ones with a tolerance (rtol, atol, rel_tol, abs_tol): the run probes them.
TOLERANT_CALLS = {"allclose", "isclose", "assert_close", "assert_allclose"}
_LITERALS = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr)


def called(call: ast.Call) -> str:
    """The name a call is made by: `f` of f(...) and of module.f(...), else ""."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


_BUILTINS = frozenset(dir(builtins))


def constant(node: ast.AST) -> bool:
    """Whether an expression holds nothing the run computed: every name in it is a builtin
    (`len`, `bool`, `True`), and an `x if c else y` whose condition is constant is the branch
    it takes."""
    node = _taken(node)
    return not any(
        isinstance(n, ast.Name) and n.id not in _BUILTINS or isinstance(n, ast.Attribute)
        for n in ast.walk(node)
    )


def _taken(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.IfExp) and constant(node.test):
        try:
            node = node.body if ast.literal_eval(node.test) else node.orelse
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            break
    return node


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, annotate_fields=False) == ast.dump(b, annotate_fields=False)


def _truthy_constant(node: ast.AST) -> bool:
    if not constant(node):
        return False
    try:
        return bool(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


# What catches a failed assert: these in an `except`, or in contextlib.suppress(...).
_CATCH_ALL = {"AssertionError", "Exception", "BaseException"}
# How an exception class is named (an alias such as `E = AssertionError` is not).
_EXCEPTION_NAMES = ("Error", "Exception", "Warning", "Exit", "Interrupt", "Iteration")


def catches_failures(statements: list[ast.stmt]) -> tuple[int, str] | None:
    """(line, why) of a part of a claim section that would catch its failing asserts: an
    `except` that catches AssertionError (bare, Exception, BaseException) or a
    contextlib.suppress of one. A claim may catch what PyTorch raises (RuntimeError...)."""
    for n in (x for s in statements for x in ast.walk(s)):
        if isinstance(n, ast.ExceptHandler):
            kinds = n.type.elts if isinstance(n.type, ast.Tuple) else [n.type]
            if n.type is None or any(_named(k) in _CATCH_ALL for k in kinds):
                caught = "everything" if n.type is None else ast.unparse(n.type)
                return n.lineno, f"its `except` catches {caught}, a failing assert among it"
            if not all(_named(k).endswith(_EXCEPTION_NAMES) for k in kinds):
                return n.lineno, (
                    f"its `except {ast.unparse(n.type)}` names no exception class the text can"
                    " tell from AssertionError (name the class: RuntimeError, ValueError...)"
                )
        if isinstance(n, ast.Call) and called(n) == "suppress":
            if any(_named(a) in _CATCH_ALL for a in n.args):
                return n.lineno, f"`{ast.unparse(n)}` hides a failing assert"
    return None


def _named(node: ast.AST | None) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def cannot_fail(test: ast.expr) -> str | None:
    """Why an assert with this test cannot fail, or None when its text leaves it able to."""
    if isinstance(test, _LITERALS) or (
        isinstance(test, ast.Constant) and isinstance(test.value, str | bytes)
    ):
        kind = {"joinedstr": "string", "constant": "string"}.get(
            type(test).__name__.lower(), type(test).__name__.lower()
        )
        return f"it asserts a {kind}, which is true whenever it is not empty"
    if constant(test):
        return "its test is a constant: nothing in it comes from the run"
    for n in ast.walk(test):
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):
            if any(_truthy_constant(v) for v in n.values):
                return f"`{ast.unparse(n)}` has a constant true operand, so it is always true"
        if isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            for a, b, op in zip(sides[:-1], sides[1:], n.ops, strict=True):
                if _same(a, b) and isinstance(op, ast.Eq | ast.Is | ast.LtE | ast.GtE | ast.In):
                    return f"it compares `{ast.unparse(a)}` with itself"
        if isinstance(n, ast.Call) and called(n) in EQUALITY_CALLS and len(n.args) >= 2:
            if _same(n.args[0], n.args[1]):
                return f"it compares `{ast.unparse(n.args[0])}` with itself"
        if isinstance(n, ast.Call) and called(n) in {"all", "any"} and n.args:
            arg = n.args[0]
            if isinstance(arg, ast.GeneratorExp | ast.ListComp | ast.SetComp):
                if constant(arg.elt):
                    return (
                        f"every case of `{ast.unparse(n)}` is the constant {ast.unparse(arg.elt)}"
                    )
    return None

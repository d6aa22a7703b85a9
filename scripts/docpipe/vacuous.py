"""Asserts that cannot fail, told from their text alone: the static half of "a claim can fail".

A claim's assert backs a sentence only if the run could have made it fail. Some tests are true
whatever the run computes, and their text shows it:

- a constant (`assert 1 == 1`, `assert -0.0 == 0.0`): no name and no call, nothing the run made;
- a literal tuple, list, set, dict or string (`assert (a == b, "why")`): true when not empty;
- an expression compared with itself (`a == a`, `torch.equal(w.grad, w.grad)`);
- an `or` with a constant true operand (`a == b or True`), anywhere in the test;
- `all(...)`/`any(...)` over a comprehension whose element is a constant;
- a value that is true whatever it would compute: a generator (`assert (x > 0 for x in xs)`),
  an iterator (`assert map(...)`, `iter(...)`), a lambda, or a method named and never called
  (`assert (a == b).all`), as the test, an operand of its `and` or an element of its all(...).

once() tells, from the text too, which asserts inside a loop read nothing that changes from one
iteration to the next: each counts as one case however often the loop ran it.

The run half (docpipe.run.ledger) catches what only a run shows: an assert that never ran, a
failure that was caught, a test whose value is a container, a function, a method, a generator or
an iterator, a tolerance wider than the values it compares, two sides of an equality that are
one tensor (or share its memory) or one object, a comparison over nothing (an empty tensor, an
empty selection), a claim section that ends the run or changes what the page's code made. The page
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
# Called as a method, `a.equal(b)`, these compare the tensor they are called on with their
# argument; `eq` too (`torch.eq(a, b)`, `a.eq(b)`).
SAME_CALLS = EQUALITY_CALLS | {"eq"}
# The builtins whose result is an iterator: true whatever it yields.
ITERATOR_CALLS = {"iter", "map", "filter", "zip", "enumerate", "reversed"}
# Methods of tensors and arrays that a test may name and forget to call: the bound method is
# true whatever it would return (`(a == b).all` for `(a == b).all()`). Properties (`is_leaf`,
# `requires_grad`) are not here: they are values.
METHODS = {
    "all", "any", "item", "equal", "allclose", "isclose", "eq", "ne", "is_contiguous",
    "is_floating_point", "is_complex", "isfinite", "isnan", "isinf", "numel", "tolist",
}  # fmt: skip
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


def _never_computed(node: ast.AST) -> str | None:
    """Why an expression's value is true whatever it would compute, or None."""
    if isinstance(node, ast.GeneratorExp):
        return "a generator, which is true whatever it yields (pass it to all(...))"
    if isinstance(node, ast.Lambda):
        return "a function, which is true whatever it returns (call it)"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ITERATOR_CALLS:
            return (
                f"`{ast.unparse(node)}`, an iterator, which is true whatever it yields (pass it"
                " to all(...))"
            )
    if isinstance(node, ast.Attribute) and node.attr in METHODS:
        return (
            f"the method `{ast.unparse(node)}` never called, which is true whatever it would"
            f" return (write `{ast.unparse(node)}()`)"
        )
    return None


def _operands(test: ast.expr):
    """The test, each operand of its `and`, and the element of each all(...) in it: each must
    be able to be false."""
    yield test
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for v in test.values:
            yield from _operands(v)
    for n in ast.walk(test):
        if isinstance(n, ast.Call) and called(n) == "all" and n.args:
            if isinstance(n.args[0], ast.GeneratorExp | ast.ListComp | ast.SetComp):
                yield from _operands(n.args[0].elt)


def _sides(call: ast.Call) -> tuple[ast.AST, ast.AST] | None:
    """The two values an equality call compares: its first two arguments, or for a method
    `a.equal(b)`, the value it is called on and its argument."""
    if len(call.args) >= 2:
        return call.args[0], call.args[1]
    if len(call.args) == 1 and isinstance(call.func, ast.Attribute):
        return call.func.value, call.args[0]
    return None


def cannot_fail(test: ast.expr) -> str | None:
    """Why an assert with this test cannot fail, or None when its text leaves it able to."""
    for part in _operands(test):
        if why := _never_computed(part):
            return f"it asserts {why}"
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
        if isinstance(n, ast.Call) and called(n) in SAME_CALLS and (sides := _sides(n)):
            if _same(*sides):
                return f"it compares `{ast.unparse(sides[0])}` with itself"
        if isinstance(n, ast.Call) and called(n) in {"all", "any"} and n.args:
            arg = n.args[0]
            if isinstance(arg, ast.GeneratorExp | ast.ListComp | ast.SetComp):
                if constant(arg.elt):
                    return (
                        f"every case of `{ast.unparse(n)}` is the constant {ast.unparse(arg.elt)}"
                    )
    return None


# ---- asserts in a loop that the loop does not change ----

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def once(statements: list[ast.stmt]) -> set[int]:
    """The lines of the asserts that a loop runs (a for or while loop of these statements, not
    a function they define) but that read nothing the loop changes: each checks one case,
    however often it ran. What changes from one iteration to the next (_varying): the loops'
    variables, a name the loop reads before it rebinds it, an object a statement of the loop
    calls a method of, and every name read or bound by a statement that reads one of those
    (a call may change its arguments). A loop that calls the snippet's own function, a call
    made for its effect or a `with` on one of them may change anything: its asserts count
    each run."""
    found: set[int] = set()
    known: dict[tuple[int, ...], tuple[set[str], bool]] = {}  # each loop's, asked once

    def visit(body: list[ast.stmt], loops: list[ast.stmt]) -> None:
        for s in body:
            if isinstance(s, ast.Assert):
                if loops:
                    key = tuple(map(id, loops))
                    if key not in known:
                        known[key] = _varying(loops)
                    varying, anything = known[key]
                    if not anything and not _ids([s.test]) & varying:
                        found.add(s.lineno)
                continue
            if isinstance(s, _SCOPES):
                continue
            visit(getattr(s, "body", []), [*loops, s] if isinstance(s, _LOOPS) else loops)
            for part in ("orelse", "finalbody"):
                visit(getattr(s, part, []), loops)
            for h in getattr(s, "handlers", []):
                visit(h.body, loops)
            for c in getattr(s, "cases", []):
                visit(c.body, loops)

    visit(statements, [])
    return found


def _ids(nodes: list[ast.AST], ctx: type | tuple = ast.expr_context) -> set[str]:
    """The names the nodes read or bind (`ctx`), but a comprehension's own variables."""
    names = [n for node in nodes for n in ast.walk(node)]
    local = {
        n.id
        for g in names
        if isinstance(g, ast.comprehension)
        for n in ast.walk(g.target)
        if isinstance(n, ast.Name)
    }
    return {n.id for n in names if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)} - local


def _own_call(n: ast.AST) -> bool:
    """A call of a function by a bare name that is no builtin: the snippet's own, which may
    change any global."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in _BUILTINS


def _units(body: list[ast.stmt]):
    """(reads, binds, acts) of each simple statement and each compound statement's header, in
    the order they run; `acts`: it may change what no name of it holds (a call made for its
    effect, a `with`, a call of the snippet's own function)."""
    for s in body:
        if isinstance(s, _SCOPES):
            yield set(), {s.name}, False
            continue
        if isinstance(s, ast.For | ast.AsyncFor):
            yield _ids([s.iter]), _ids([s.target]), any(map(_own_call, ast.walk(s.iter)))
        elif isinstance(s, ast.While | ast.If):
            yield _ids([s.test]), set(), any(map(_own_call, ast.walk(s.test)))
        elif isinstance(s, ast.With | ast.AsyncWith):
            yield _ids(s.items, ast.Load), _ids(s.items, ast.Store | ast.Del), True
        elif isinstance(s, ast.Match):
            yield _ids([s.subject]), set(), any(map(_own_call, ast.walk(s.subject)))
        elif not isinstance(s, ast.Try | ast.TryStar):
            acts = isinstance(s, ast.Expr) and isinstance(s.value, ast.Call | ast.Await)
            acts = acts or any(map(_own_call, ast.walk(s)))
            yield _ids([s], ast.Load), _ids([s], ast.Store | ast.Del), acts
            continue
        for part in ("body", "orelse", "finalbody"):
            yield from _units(getattr(s, part, []))
        for h in getattr(s, "handlers", []):
            yield set(), {h.name} if h.name else set(), False
            yield from _units(h.body)
        for c in getattr(s, "cases", []):
            yield _ids([c.pattern], ast.Load), _ids([c.pattern], ast.Store), False
            yield from _units(c.body)


def _base(node: ast.AST) -> str | None:
    """The name an expression such as `net[1].bn.reset` starts from."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _varying(loops: list[ast.stmt]) -> tuple[set[str], bool]:
    """The names that may change from one iteration of the loops (outermost first) to the next,
    and whether a statement that reads one may change anything else (see once())."""
    units = list(_units(loops[0].body))
    varying: set[str] = set()
    for loop in loops:
        if isinstance(loop, ast.While):
            varying |= _ids(loop.body, ast.Store)
        else:
            varying |= _ids([loop.target])
    bound = set().union(*(binds for _, binds, _ in units))
    seen: set[str] = set()
    for reads, binds, _ in units:  # read before it is rebound: carried to the next iteration
        varying |= (reads - seen) & bound
        seen |= binds
    for s in loops[0].body:
        for n in ast.walk(s):
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
                if isinstance(n.value.func, ast.Attribute) and (name := _base(n.value.func.value)):
                    varying.add(name)  # x.step(): x changes with each iteration
    grown = True
    while grown:
        grown = False
        for reads, binds, _ in units:
            names = (reads | binds) - _BUILTINS  # len, abs... change with nothing
            if names & varying and not names <= varying:
                varying |= names
                grown = True
    anything = any(acts and (reads | binds) & varying for reads, binds, acts in units)
    return varying, anything

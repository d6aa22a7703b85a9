"""The run half of "a claim can fail": every assert of a claim section is counted as it runs.

Before a claim section (a section named `claim-...`, docpipe.sections.CLAIM_PREFIX) is compiled,
rewrite() turns each of its asserts into a call the run cannot compile away, even under `-O`
or PYTHONOPTIMIZE:

    assert test, message   ->   if not L.held(id, test): L.failed(id); raise L.error(message)

where L is the run's Ledger itself, put in the code's constants by bind() (no name a snippet
could rebind). So the Ledger knows, after the run, how often each assert ran, whether one
failed (even where the snippet caught the AssertionError, or its message raised, and went on),
and what its test's value was. Inside a
test, a comparison with a tolerance is probed: `torch.allclose(a, b, atol=...)` (and isclose,
assert_close) and `abs(a - b) < tol` are evaluated once more with `b` moved by `abs(b)/2 + 1`;
a tolerance that still accepts that accepts any value of that size, and cannot fail. Each
equality (`==`, torch.equal, `a.equal(b)`, `a.eq(b)`, allclose, isclose, assert_close, numpy's)
is checked for two sides that are one value changed in place (the same tensor, or views pairing
each element with itself, whose version counter moved: `before = v.detach()` kept before a
step; the same list), and each comparison and `all` for one over no element (an empty tensor, a
mask that selects nothing, an all() of nothing): a run of the assert that compared nothing is no
case. A test (or an operand of its `and`, or a case of its all(...)) whose value is a function,
method, generator or iterator is true whatever it would compute. An assert in a loop that reads
nothing the loop changes (docpipe.vacuous.once) counts one case however often it ran. A
statement `torch.testing.assert_close(a, b)` is counted as `assert ... is None`.

faults() then names, by line, each assert that could not have failed: one that never ran (a
loop over nothing, a branch not taken, a function never called), one whose failure was caught,
one whose test was a container (true whenever not empty) or never computed (a method not
called, a generator), one with a tolerance too wide, one comparing a changed value with itself,
one that compared nothing each time it ran. The
static forms (a constant, `x == x`, `or True`) are docpipe.vacuous's, named by the page side.

Watch guards what a claim section may touch: it checks, and changes nothing the page's code
made. At each assert (Watch.guard) it compares the globals the page's own sections bound that
later code reads (the same object, and for a tensor or module the same version counters and
.grad) and the functions comparisons call; after each claim section, every function of the
modules the snippet uses (a claim that replaces torch.allclose changes every later check).

The run's counts travel in execute's Result.claims as (section, line, runs) and are recorded
(docpipe.recorded.record.Record.claims); a page's check mark says how many cases they ran over.
"""

from __future__ import annotations

import ast
import builtins
import collections
import collections.abc
import copy
import functools
import inspect
import operator
import os
import sys
import types
from dataclasses import dataclass, field
from types import CodeType

from docpipe.sections import CLAIM_PREFIX
from docpipe.vacuous import SAME_CALLS, TOLERANT_CALLS, called, once

# The rewritten asserts reach the ledger through a constant of their code, not a name: bind()
# puts the ledger in place of this placeholder, so no global or builtin can stand in for it.
PLACEHOLDER = "\0docpipe ledger\0"
_A, _B = "__docpipe_a", "__docpipe_b"


def is_claim(section: str | None) -> bool:
    return bool(section) and section.startswith(CLAIM_PREFIX)


@dataclass(slots=True)  # no instance attribute can stand in for a method
class Ledger:
    where: list[tuple[str, int]] = field(default_factory=list)  # id -> (section, line)
    runs: list[int] = field(default_factory=list)  # id -> times it ran
    failures: list[int] = field(default_factory=list)  # id -> times it failed
    wide: dict[int, str] = field(default_factory=dict)  # id -> why it cannot fail
    # id -> the cases its all(...) ran over, for an assert whose test has one
    cases: dict[int, int] = field(default_factory=dict)
    # the asserts a loop runs that read nothing the loop changes (vacuous.once): one case each
    once: set[int] = field(default_factory=set)
    hollow: set[int] = field(default_factory=set)  # compared nothing in the run (or case) now
    empty: dict[int, int] = field(default_factory=dict)  # id -> runs that compared nothing

    guard: object = None  # () -> what the claim section has changed so far, "" for nothing

    def register(self, section: str, line: int) -> int:
        self.where.append((section, line))
        self.runs.append(0)
        self.failures.append(0)
        return len(self.where) - 1

    # ---- called by the rewritten asserts ----

    def held(self, aid: int, value):
        self.runs[aid] += 1
        if self.guard is not None and (changed := self.guard()):
            self.wide[aid] = f"it ran while the claim section {changed}"  # the cause, first
        if isinstance(value, tuple | list | dict | set | frozenset | str | bytes):
            self.wide.setdefault(
                aid,
                f"its test's value is a {type(value).__name__}, which is true whenever it is"
                " not empty",
            )
        self._computed(aid, "its test's value", value)
        if aid in self.hollow:
            self.hollow.discard(aid)
            self.empty[aid] = self.empty.get(aid, 0) + 1
        return value

    def case(self, aid: int, value):
        """One element of an all(...) in the assert's test: one case checked, unless it
        compared nothing."""
        self._computed(aid, "a case of its all(...)", value)
        if aid in self.hollow:
            self.hollow.discard(aid)
            self.empty[aid] = self.empty.get(aid, 0) + 1
        else:
            self.cases[aid] += 1
        return value

    def operand(self, aid: int, value):
        """One operand of the `and` that is the assert's test."""
        self._computed(aid, "an operand of its `and`", value)
        return value

    def _computed(self, aid: int, what: str, value) -> None:
        if why := _never_computed(value):
            self.wide.setdefault(aid, f"{what} is {why}")

    def compare(self, aid: int, text: str, op: str, a, b):
        """a <op> b, for a comparison in the assert's test: an equality of a value with
        itself cannot fail, and an elementwise one over no element compares nothing."""
        if op in _SAME_OPS:
            self._same(aid, text, a, b)
        result = _OPERATORS[op](a, b)
        if _empty(result):
            self.hollow.add(aid)
        return result

    def equal(self, aid: int, text: str, function, *args, **kwargs):
        """function(*args, **kwargs), an equality call (torch.equal, a.equal(b), a.eq(b),
        numpy.array_equal...): checked for two sides that are one value, or empty."""
        sides = _sides(function, args)
        if sides is not None:
            self._same(aid, text, *sides)
        result = function(*args, **kwargs)
        if _empty(result) or (sides is not None and all(map(_empty, sides))):
            self.hollow.add(aid)
        return result

    def every(self, aid: int, function, *args, **kwargs):
        """function(*args, **kwargs), an `all` (the builtin over an iterable, torch.all(t),
        t.all()): true of no element, so an `all` over none compares nothing."""
        if function is _ALL and len(args) == 1 and not kwargs:
            seen = 0

            def each(values):
                nonlocal seen
                for value in values:
                    seen += 1
                    yield value

            result = function(each(args[0]))
            if result and not seen:
                self.hollow.add(aid)
            return result
        result = function(*args, **kwargs)
        over = args[0] if args else getattr(function, "__self__", None)
        if _empty(over):
            self.hollow.add(aid)
        return result

    def _same(self, aid: int, text: str, a, b) -> None:
        if how := _one_value(a, b):
            self.wide.setdefault(
                aid,
                f"the two sides of `{text}` are {how}, so it compares each value with itself"
                " (to keep a value from before a change, take a copy: `.clone()`, `.copy()`)",
            )

    def failed(self, aid: int) -> None:
        """Counted before the message is made: a message that raises cannot hide the failure."""
        self.failures[aid] += 1

    def error(self, message=None) -> AssertionError:
        return AssertionError() if message is None else AssertionError(message)

    def close(self, aid: int, text: str, function, *args, **kwargs):
        """function(*args, **kwargs), probed with its second argument moved by its own size
        (and checked as Ledger.equal checks an equality)."""
        result = self.equal(aid, text, function, *args, **kwargs)
        if len(args) >= 2 and _passes(function, result):
            moved = _far(args[1])
            if moved is not None:
                try:
                    probe = function(args[0], moved, *args[2:], **kwargs)
                except Exception:
                    return result  # the moved value fails it: the tolerance can fail
                if _passes(function, probe):
                    self._too_wide(aid, f"{called_name(function)}(...)")
        return result

    def within(self, aid: int, compare, a, b):
        """compare(a, b) for a test `abs(a - b) < tol`, probed with b moved by its own size."""
        result = compare(a, b)
        if _empty(result):
            self.hollow.add(aid)
        if _truthy(result):
            moved = _far(b)
            if moved is not None:
                try:
                    probe = compare(a, moved)
                except Exception:
                    return result
                if _truthy(probe):
                    self._too_wide(aid, "the comparison")
        return result

    def _too_wide(self, aid: int, what: str) -> None:
        self.wide.setdefault(
            aid,
            f"its tolerance is wider than the values it compares: {what} still holds with one"
            " value moved by half its size plus one",
        )

    # ---- read after the run ----

    def counts(self) -> list[tuple[str, int, int]]:
        """(section, line, cases) of every assert: the times it ran, or for one whose test
        has an all(...), the elements that checked; two asserts on one line
        count as the fewer."""
        least: dict[tuple[str, int], int] = {}
        for aid, where in enumerate(self.where):
            n = self.cases.get(aid, self.runs[aid] - self.empty.get(aid, 0))
            if aid in self.once and self.runs[aid]:  # the same case each time the loop ran it
                n = max(n // self.runs[aid], 1) if aid in self.cases and n else min(n, 1)
            least[where] = min(n, least.get(where, n))
        return [(s, line, n) for (s, line), n in least.items()]

    def faults(self) -> list[tuple[str, int, str]]:
        """(section, line, why) of each assert that could not have failed in this run."""
        found = []
        for aid, (section, line) in enumerate(self.where):
            if self.failures[aid]:
                found.append(
                    (
                        section,
                        line,
                        "this assert failed and the run went on (its AssertionError was"
                        " caught): a claim's failure cannot be swallowed",
                    )
                )
            elif not self.runs[aid]:
                found.append(
                    (
                        section,
                        line,
                        "this assert never ran, so it checks nothing (a loop over nothing, a"
                        " branch not taken, a function not called?)",
                    )
                )
            elif self.cases.get(aid) == 0 and self.empty.get(aid):
                found.append((section, line, _HOLLOW))
            elif aid not in self.cases and self.empty.get(aid, 0) == self.runs[aid]:
                found.append((section, line, _HOLLOW))
            elif self.cases.get(aid) == 0:
                found.append(
                    (
                        section,
                        line,
                        "this assert's all(...) ran over no case, so it checks nothing",
                    )
                )
            elif aid in self.wide:
                found.append((section, line, f"this assert cannot fail: {self.wide[aid]}"))
        return found


_HOLLOW = (
    "this assert compared nothing: each time it ran, a comparison in it was over no element"
    " (an empty tensor, a mask or selection with nothing in it, an all(...) of nothing), so it"
    " checks nothing"
)
_ALL = builtins.all
_OPERATORS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip
_SAME_OPS = {"==", "<=", ">="}  # true of a value and itself
_OP_OF = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
}  # fmt: skip
# Values whose `a == b` compares their contents, that a claim may keep from before a change:
# the same one on both sides is a copy never taken. (Others compare as values, or by identity:
# `net[0] == layer` is a claim about which object it is.)
_CONTAINERS = (list, dict, set, bytearray, collections.deque)


def _never_computed(value) -> str:
    """What a test's value is when it is true whatever the run computed: a function or method
    never called, a generator or iterator never consumed; "" otherwise."""
    kind = type(value)
    if issubclass(kind, types.GeneratorType | types.AsyncGeneratorType | types.CoroutineType):
        return "a generator, which is true whatever it yields (pass it to all(...))"
    if issubclass(kind, collections.abc.Iterator):
        return (
            f"an iterator ({kind.__name__}), which is true whatever it yields (pass it to all(...))"
        )
    if inspect.isroutine(value) or issubclass(kind, functools.partial):
        owner = getattr(value, "__self__", None)
        bound = owner is not None and not issubclass(type(owner), types.ModuleType)
        name = called_name(value)
        if bound and "." not in name:
            name = f"{type(owner).__name__}.{name}"
        return (
            f"{'a method' if bound else 'a function'} (`{name}`) never called, which is true"
            " whatever it would return (call it)"
        )
    return ""


def _arrays():
    """The array types whose memory two sides may share: torch.Tensor, numpy.ndarray."""
    return tuple(
        getattr(sys.modules[m], c)
        for m, c in (("torch", "Tensor"), ("numpy", "ndarray"))
        if m in sys.modules
    )


def _empty(value) -> bool:
    """Whether a value is a tensor or array of no element."""
    arrays = _arrays()
    if not arrays or not issubclass(type(value), arrays):
        return False
    try:
        return value.numel() == 0 if hasattr(value, "numel") else value.size == 0
    except Exception:  # a tensor without a size (a nested tensor)
        return False


def _sides(function, args: tuple):
    """The two values an equality call compares: its first two arguments, or those of a
    method `a.equal(b)`, the tensor it is bound to and its argument."""
    if len(args) >= 2:
        return args[0], args[1]
    owner = getattr(function, "__self__", None)
    arrays = _arrays()
    if len(args) == 1 and arrays and issubclass(type(owner), arrays):
        return owner, args[0]
    return None


def _one_value(a, b) -> str:
    """How two sides of an equality are one value that may have changed since it was kept
    ("" when they are not): one list, dict or set; one array or two views that pair each of
    its elements with itself; one tensor, or two views of its memory (`.detach()`, `.data`)
    that pair each element with itself, whose memory was changed in place (its version
    counter moved), so a value kept from before that change is no copy. A tensor never
    changed in place holds what any copy of it would: that PyTorch handed back the very
    tensor (a saved tensor, eval-mode dropout) is then what the claim says, not a slip."""
    arrays = _arrays()
    if arrays and issubclass(type(a), arrays) and issubclass(type(b), arrays):
        try:
            if a is not b and not (_layout(a) and _layout(a)[0] == _layout(b)[0]):
                return ""
            if a is not b and not _paired(a, b):
                return ""
            changed = getattr(a, "_version", 1)
        except Exception:  # a tensor with no memory of its own (meta, sparse, nested)
            return ""
        if not changed:
            return ""
        kind = type(a).__name__
        one = f"one {kind}" if a is b else f"one {kind}'s memory (a `.detach()`, `.data` or view)"
        if hasattr(a, "_version"):
            one += f", changed in place since it was made (its version counter is {changed})"
        return one
    if a is b and issubclass(type(a), _CONTAINERS):
        return f"one {type(a).__name__}"
    return ""


def _layout(t):
    """(address of the first element, dtype, conjugate and negative bits), shape and strides
    in elements, of a strided tensor or array; None for one of no element."""
    if hasattr(t, "untyped_storage"):
        torch = sys.modules["torch"]
        if t.layout != torch.strided or t.numel() == 0 or t.data_ptr() == 0:
            return None
        where = (t.data_ptr(), str(t.device), t.dtype, t.is_conj(), t.is_neg())
        return where, tuple(t.shape), tuple(t.stride())
    if t.size == 0:
        return None
    where = (t.__array_interface__["data"][0], t.dtype.str)
    return where, t.shape, tuple(s // t.itemsize for s in t.strides)


def _paired(a, b) -> bool:
    """Whether an elementwise comparison of a and b (broadcast) pairs each element of a with
    the same memory in b."""
    (_, sa, ta), (_, sb, tb) = _layout(a), _layout(b)
    n = max(len(sa), len(sb))
    sa, ta = (1,) * (n - len(sa)) + sa, (0,) * (n - len(ta)) + ta
    sb, tb = (1,) * (n - len(sb)) + sb, (0,) * (n - len(tb)) + tb
    for na, xa, nb, xb in zip(sa, ta, sb, tb, strict=True):
        if max(na, nb) > 1 and (xa if na > 1 else 0) != (xb if nb > 1 else 0):
            return False
    return True


def called_name(function) -> str:
    return getattr(function, "__qualname__", None) or getattr(function, "__name__", "the call")


def _truthy(value) -> bool:
    try:
        return bool(value.all()) if hasattr(value, "all") else bool(value)
    except Exception:
        return False


def _passes(function, result) -> bool:
    """Whether a closeness call accepted its arguments: assert_close-style calls return None
    (and raise when they do not), the others a bool or a tensor of bools."""
    return True if result is None else _truthy(result)


def _far(value):
    """The value moved by half its size plus one (same type and shape), or None."""
    if isinstance(value, list | tuple):
        moved = [_far(v) for v in value]
        return None if None in moved else type(value)(moved)
    try:
        return value + abs(value) / 2 + 1
    except Exception:
        return None


# ---- the rewrite ----


def rewrite(module: ast.Module, section: str, ledger: Ledger) -> ast.Module:
    """The claim section's statements with every assert counted (see the module docstring)."""
    loops = once(module.body)
    return _Asserts(section, ledger, loops).visit(module)


def _ledger(attr: str) -> ast.Attribute:
    return ast.Attribute(ast.Constant(PLACEHOLDER), attr, ast.Load())


def bind(code: CodeType, ledger: Ledger) -> CodeType:
    """The compiled claim section with the ledger in place of PLACEHOLDER, in its code and
    in every function, lambda and comprehension it defines."""
    consts = tuple(
        ledger
        if isinstance(c, str) and c == PLACEHOLDER
        else bind(c, ledger)
        if isinstance(c, CodeType)
        else c
        for c in code.co_consts
    )
    return code.replace(co_consts=consts)


class _Asserts(ast.NodeTransformer):
    def __init__(self, section: str, ledger: Ledger, once: set[int]) -> None:
        self.section, self.ledger, self.once = section, ledger, once

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        """A statement `torch.testing.assert_close(a, b)` (or numpy.testing's) checks as an
        assert does: it is counted and probed as one, `assert ... is None`."""
        call = node.value
        if isinstance(call, ast.Call) and called(call).startswith("assert"):
            if called(call) in SAME_CALLS:
                test = ast.Compare(call, [ast.Is()], [ast.Constant(None)])
                return self.visit_Assert(ast.copy_location(ast.Assert(test, None), node))
        return self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> ast.If:
        aid = self.ledger.register(self.section, node.lineno)
        if node.lineno in self.once:
            self.ledger.once.add(aid)
        test = _Tolerances(aid).visit(self.generic_visit(node).test)
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            test.values = [
                ast.Call(_ledger("operand"), [ast.Constant(aid), v], []) for v in test.values
            ]
        # Each element of an all(...) is a case it checks (all() of no case is true: it checks
        # nothing). An any(...) of no case is false, and `not any(...)` of none is the claim
        # "none of them": those count as the runs of the assert.
        for n in ast.walk(test):
            if isinstance(n, ast.Call) and called(n) == "all" and n.args:
                each = n.args[0]
                if isinstance(each, ast.GeneratorExp | ast.ListComp | ast.SetComp):
                    self.ledger.cases[aid] = 0
                    each.elt = ast.Call(_ledger("case"), [ast.Constant(aid), each.elt], [])
        held = ast.Call(_ledger("held"), [ast.Constant(aid), test], [])
        failed = ast.Expr(ast.Call(_ledger("failed"), [ast.Constant(aid)], []))
        error = ast.Call(_ledger("error"), [node.msg or ast.Constant(None)], [])
        new = ast.If(ast.UnaryOp(ast.Not(), held), [failed, ast.Raise(error, None)], [])
        # its new parts get the assert's line (every new node is in this statement)
        return ast.fix_missing_locations(ast.copy_location(new, node))


_DISTANCES = {"abs", "fabs", "absolute", "norm", "vector_norm", "square"}


def _abs_difference(node: ast.AST) -> ast.BinOp | None:
    """The `a - b` of a distance in an expression: abs(a - b), torch.abs(a - b), (a - b).abs(),
    numpy.absolute, a norm of it, its square or (a - b) ** 2."""
    for n in ast.walk(node):
        inner = None
        if isinstance(n, ast.Call) and called(n) in _DISTANCES:
            inner = n.args[0] if n.args else getattr(n.func, "value", None)
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
            inner = n.left
        if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub):
            return inner
    return None


class _Tolerances(ast.NodeTransformer):
    def __init__(self, aid: int) -> None:
        self.aid = aid

    def visit_Call(self, node: ast.Call) -> ast.AST:
        text = ast.unparse(node)
        self.generic_visit(node)
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        name, aid = called(node), ast.Constant(self.aid)
        if starred or not node.args and name != "all":
            return node
        if name in TOLERANT_CALLS and len(node.args) >= 2:
            args = [aid, ast.Constant(text), node.func, *node.args]
            return ast.copy_location(ast.Call(_ledger("close"), args, node.keywords), node)
        if name in SAME_CALLS:
            args = [aid, ast.Constant(text), node.func, *node.args]
            return ast.copy_location(ast.Call(_ledger("equal"), args, node.keywords), node)
        comprehension = ast.GeneratorExp | ast.ListComp | ast.SetComp
        if name == "all" and not (node.args and isinstance(node.args[0], comprehension)):
            args = [aid, node.func, *node.args]  # all(...) of a comprehension counts its cases
            return ast.copy_location(ast.Call(_ledger("every"), args, node.keywords), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        text = ast.unparse(node)
        self.generic_visit(node)
        if len(node.ops) != 1:
            return node
        if type(node.ops[0]) in _OP_OF and _abs_difference(node) is None:
            op = ast.Constant(_OP_OF[type(node.ops[0])])
            args = [ast.Constant(self.aid), ast.Constant(text), op, node.left, node.comparators[0]]
            return ast.copy_location(ast.Call(_ledger("compare"), args, []), node)
        op, small = node.ops[0], None
        if isinstance(op, ast.Lt | ast.LtE):
            small = _abs_difference(node.left)
        elif isinstance(op, ast.Gt | ast.GtE):
            small = _abs_difference(node.comparators[0])
        if small is None:
            return node
        a, b = small.left, small.right
        probe = copy.deepcopy(node)
        inner = _abs_difference(probe)
        inner.left, inner.right = ast.Name(_A, ast.Load()), ast.Name(_B, ast.Load())
        arguments = ast.arguments([], [ast.arg(_A), ast.arg(_B)], None, [], [], None, [])
        compare = ast.Lambda(arguments, probe)
        call = ast.Call(_ledger("within"), [ast.Constant(self.aid), compare, a, b], [])
        return ast.copy_location(call, node)


# ---- what a claim section may not change ----


def _signature(value):
    """What an in-place change of a tensor or module changes: version counters and .grad."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        if isinstance(value, torch.Tensor):
            grad = value.grad if value.is_leaf or value.retains_grad else None
            return (
                value._version,
                value.requires_grad,
                id(grad),
                grad._version if grad is not None else None,
            )
        if isinstance(value, torch.nn.Module):
            return (value.training, *(_signature(p) for p in value.parameters()))
    except Exception:  # an inference tensor has no version counter
        return None
    return None


def _page_changes(state: dict, namespace: dict):
    """(name, how) of each global in `state` (name -> (id, _signature) as Watch.before took
    them) that the namespace no longer holds as it was; `how` has {} where the name goes."""
    for name, (ident, signature) in state.items():
        if name not in namespace:
            yield name, "deletes {}"
        elif id(namespace[name]) != ident:
            yield name, "rebinds {}"
        elif _signature(namespace[name]) != signature:
            yield name, "changes {} in place (its version counter or its .grad)"


_WATCHED = ("builtins", "math", "operator", "torch", "torch.testing", "numpy", "numpy.testing")


class Watch:
    """The state a claim section must leave as it found it (see the module docstring)."""

    def __init__(self) -> None:
        self.shown: set[str] = set()  # globals that the page's sections bound
        self.ids: dict[str, int] = {}

    def before(self, namespace: dict, claim: bool) -> None:
        self.ids = {k: id(v) for k, v in namespace.items()}
        if not claim:
            return
        self.state = {k: (id(v), _signature(v)) for k, v in namespace.items() if k in self.shown}
        self.modules = {
            m: {a: v for a, v in vars(m).items() if _replaceable(v)}
            for m in self._modules(namespace)
        }

    def guard(self, namespace: dict, later: set[str]):
        """What Ledger.held asks at each assert: has the claim section, so far, changed a
        global of the page's that later code reads, or a function comparisons call? (A change
        put back before the section ends is caught here, not by after_claim.)"""
        shown = {k: v for k, v in self.state.items() if k in later}
        functions = _comparers()

        def changed() -> str:
            for name, _ in _page_changes(shown, namespace):
                return f"had changed `{name}`"
            for (owner, attr), value in functions.items():
                if getattr(owner, attr, None) is not value:
                    return f"had replaced {getattr(owner, '__name__', owner)}.{attr}"
            return ""

        return changed

    def after_shown(self, namespace: dict) -> None:
        """After a section of the page's code: what it bound is the page's."""
        self.shown.update(k for k, v in namespace.items() if self.ids.get(k) != id(v))

    def after_claim(self, namespace: dict, later: set[str]) -> list[str]:
        """After a claim section: what it changed of the page's globals that a later section
        reads (`later`: the names later sections read), and of the modules' functions."""
        shown = {k: v for k, v in self.state.items() if k in later}
        changed = [how.format(f"`{name}`") for name, how in _page_changes(shown, namespace)]
        for owner, functions in self.modules.items():
            for attr, value in functions.items():
                now = vars(owner).get(attr)
                if now is not value and not _installed_wrapper(now, value):
                    changed.append(f"replaces {owner.__name__}.{attr}")
        return changed

    @staticmethod
    def _modules(namespace: dict) -> list:
        """The modules the snippet's globals hold and those asserts compare with, and the
        classes whose methods a comparison calls (torch.Tensor, numpy.ndarray), and the
        ledger's own class."""
        found = {id(m): m for m in namespace.values() if issubclass(type(m), types.ModuleType)}
        for name in _WATCHED:
            if name in sys.modules:
                found[id(sys.modules[name])] = sys.modules[name]
        for module, cls in (("torch", "Tensor"), ("numpy", "ndarray")):
            if module in sys.modules:
                owner = getattr(sys.modules[module], cls, None)
                if owner is not None:
                    found[id(owner)] = owner
        found[id(Ledger)] = Ledger
        return list(found.values())


_INSTALLED = tuple(
    os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
)


def _installed_wrapper(now, before) -> bool:
    """Whether `now` is an installed package's own wrapper of `before` (its __wrapped__ chain
    reaches it, and its code is the package's): torch wraps torch.manual_seed so when a first
    optimizer step imports torch._dynamo. A wrapper the snippet wrote is no such thing."""
    code = getattr(now, "__code__", None)
    if code is None or not os.path.realpath(code.co_filename).startswith(_INSTALLED):
        return False
    seen = now
    for _ in range(10):
        seen = getattr(seen, "__wrapped__", None)
        if seen is None:
            return False
        if seen is before:
            return True
    return False


# What an assert's comparison calls: each is checked at every assert a claim runs.
_COMPARERS = {
    "builtins": ("abs", "all", "any", "len", "max", "min", "round", "sum", "isinstance", "bool"),
    "operator": ("eq", "ne", "lt", "le", "gt", "ge", "not_", "truth"),
    "math": ("isclose", "fabs", "isnan", "isinf"),
    "torch": ("allclose", "equal", "isclose", "all", "any", "abs", "eq"),
    "torch.testing": ("assert_close",),
    "numpy": ("allclose", "isclose", "array_equal", "all", "any", "abs", "absolute"),
    "numpy.testing": ("assert_allclose", "assert_array_equal", "assert_equal"),
}
_TENSOR_METHODS = (
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__abs__",
    "__sub__", "allclose", "equal", "item", "abs", "all", "any", "tolist",
)  # fmt: skip


def _comparers() -> dict:
    found = {}
    for name, attrs in _COMPARERS.items():
        module = sys.modules.get(name)
        for attr in attrs if module is not None else ():
            found[module, attr] = getattr(module, attr, None)
    torch = sys.modules.get("torch")
    if torch is not None:
        for attr in _TENSOR_METHODS:
            found[torch.Tensor, attr] = getattr(torch.Tensor, attr, None)
    return found


def _replaceable(value) -> bool:
    # type(value), not isinstance: isinstance reads value.__class__, which runs the value's own
    # __getattribute__ (torch.distributed.reduce_op warns there, into the claim's output)
    return callable(value) or issubclass(type(value), types.ModuleType | Ledger)

"""The layout shows the architecture: the page side never imports the run side, every module
opens with its job, and only the command line finds the repository from its own location.

Read with ast from the source files (no module is imported), so a lazy import inside a function
counts as much as one at the top of a module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from projects import REPO

pytestmark = pytest.mark.unit


PACKAGE = REPO / "scripts" / "docpipe"
SIDES = ("pages", "run", "recorded", "formats")


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of docpipe by its dotted name."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, name: str, top_level_only: bool = False) -> set[str]:
    """The docpipe modules a module imports (in any function too, unless top_level_only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("docpipe")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if base.startswith("docpipe"):
                found.add(base)
                found |= {f"{base}.{a.name}" for a in node.names}  # `from docpipe.run import x`
    return found


def reach(start: str, graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Every module reachable from `start`, with the chain of imports that reaches it."""
    chains = {start: [start]}
    todo = [start]
    while todo:
        here = todo.pop()
        for there in graph.get(here, ()):
            if there in graph and there not in chains:
                chains[there] = [*chains[here], there]
                todo.append(there)
    return chains


def side(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in SIDES else None


def test_the_page_side_never_imports_the_run_side():
    """Directly, anywhere in a page module; or through any module a page module imports."""
    found = modules()
    graph = {name: imports(path, name) for name, path in found.items()}
    problems = []
    for name in found:
        if side(name) != "pages":
            continue
        for reached, chain in reach(name, graph).items():
            if side(reached) == "run":
                problems.append(" -> ".join(chain))
    assert not problems, "the page side imports the run side:\n" + "\n".join(problems)


def test_the_layout_check_sees_a_page_module_that_imports_the_run_side(tmp_path):
    """The check above can fail: a page module importing a run module, even through a module
    on top, is found."""
    package = tmp_path / "docpipe"
    for relative, text in {
        "__init__.py": '"""p"""\n',
        "pages/__init__.py": '"""p"""\n',
        "pages/reading.py": '"""p"""\n\ndef f():\n    from docpipe import verify\n',
        "verify.py": '"""p"""\nfrom docpipe.run import pool\n',
        "run/__init__.py": '"""p"""\n',
        "run/pool.py": '"""p"""\n',
    }.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text)
    found = modules(package)
    graph = {name: imports(path, name) for name, path in found.items()}
    chain = reach("docpipe.pages.reading", graph)
    assert chain["docpipe.run.pool"] == [
        "docpipe.pages.reading",
        "docpipe.verify",
        "docpipe.run.pool",
    ]


def test_every_module_opens_with_its_job():
    missing = [
        str(path.relative_to(REPO))
        for path in modules().values()
        if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not missing, f"modules without a docstring saying their job: {missing}"


def test_only_the_command_line_finds_the_repository_from_its_own_location():
    """Every pipeline entry point takes a Project; `Path(__file__).parents[...]` (the repository
    found from a module's own place) is the command line's default alone. docpipe/__init__.py
    names the runner's own folder (PACKAGE), which is not the project."""
    allowed = {PACKAGE / "cli.py", PACKAGE / "__init__.py"}
    offenders = []
    for path in modules().values():
        if path in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("parents", "parent")
                and "__file__" in ast.unparse(node.value)
            ):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}")
    assert not offenders, "\n".join(offenders)

"""The layout shows the architecture: imports point one way (no cycle between docpipe modules,
and each side imports only the sides below it), every module opens with its job, and only the
command line finds the repository from its own location.

Read with ast from the source files (no module is imported), so a lazy import inside a function
counts as much as one at the top of a module.

The order, lowest first (a side imports its own modules and the sides it lists):

    core      project, problems, catalog, sections, environment, vacuous, statuses
    recorded  core                       (the records, the cache, drift, verifications)
    pages     core, recorded             (the page side reads records; it never runs one)
    run       core, recorded             (the run side never reads a page)
    formats   core, recorded, pages, run (what the sides' values look like)
    top       anything                   (pipeline, verify, cli, live)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from projects import REPO

pytestmark = pytest.mark.unit


PACKAGE = REPO / "scripts" / "docpipe"
SIDES = ("pages", "run", "recorded", "formats")
CORE = (
    "project",
    "problems",
    "catalog",
    "sections",
    "environment",
    "vacuous",
    "statuses",
    "inputs",
    "texts",
)
TOP = (
    "pipeline",
    "verify",
    "cli",
    "live",
    "preview",
    "scaffold",
    "pagework",
    "published",
    "mainline",
)
MAY_IMPORT = {
    "core": {"core"},
    "recorded": {"core", "recorded"},
    "pages": {"core", "recorded", "pages"},
    "run": {"core", "recorded", "run"},
    "formats": {"core", "recorded", "pages", "run", "formats"},
    "top": {"core", "recorded", "pages", "run", "formats", "top"},
}


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
    return set(import_lines(path, name, top_level_only))


def import_lines(path: Path, name: str, top_level_only: bool = False) -> dict[str, int]:
    """The docpipe names a module imports, each with the line of its first import."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if top_level_only else ast.walk(tree)
    found: dict[str, int] = {}
    for node in nodes:
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("docpipe")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if base.startswith("docpipe"):
                names = [
                    base,
                    *(f"{base}.{a.name}" for a in node.names),
                ]  # `from docpipe.run import x`
        for imported in names:
            found[imported] = min(found.get(imported, node.lineno), node.lineno)
    return found


def module_graph(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Each docpipe module -> the docpipe modules it imports, anywhere in it, with the line."""
    found = modules(package)
    return {
        name: {m: n for m, n in import_lines(path, name).items() if m in found and m != name}
        for name, path in found.items()
    }


def knots(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(here: str) -> None:
        index[here] = low[here] = len(index)
        stack.append(here)
        for there in sorted(graph[here]):
            if there not in index:
                visit(there)
                low[here] = min(low[here], low[there])
            elif there in stack:
                low[here] = min(low[here], index[there])
        if low[here] == index[here]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == here:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def shortest_cycle(start: str, members: set[str], graph: dict[str, dict[str, int]]) -> list[str]:
    """The shortest chain of imports from `start` back to itself, within `members`."""
    chains = {start: [start]}
    todo = [start]
    while todo:
        here = todo.pop(0)
        for there in sorted(graph[here]):
            if there == start:
                return [*chains[here], start]
            if there in members and there not in chains:
                chains[there] = [*chains[here], there]
                todo.append(there)
    raise AssertionError(f"{start} is in no cycle")


def cycles(package: Path = PACKAGE) -> list[str]:
    """Each import cycle as a chain `a -> b -> c -> a`, each step with the line that imports,
    and, when the knot holds more modules than the chain, the rest of the knot's imports."""
    graph = module_graph(package)
    said = []
    for knot in knots(graph):
        members = set(knot)
        chain = shortest_cycle(knot[0], members, graph)
        steps = [chain[0]] + [
            f"{there} ({_where(package, here, graph[here][there])})"
            for here, there in zip(chain, chain[1:], strict=False)
        ]
        text = " -> ".join(steps)
        on_chain = set(zip(chain, chain[1:], strict=False))
        rest = [
            f"{here} -> {there} ({_where(package, here, line)})"
            for here in knot
            for there, line in sorted(graph[here].items())
            if there in members and (here, there) not in on_chain
        ]
        if rest:
            text += "\n    and in the same knot: " + "; ".join(rest)
        said.append(text)
    return said


def _where(package: Path, name: str, line: int) -> str:
    path = modules(package)[name]
    return f"{path.relative_to(package.parent).as_posix()}:{line}"


def layer(name: str) -> str | None:
    """A module's layer: core, one of the SIDES, top; None for a module nobody placed yet."""
    parts = name.split(".")
    if len(parts) > 2 and parts[1] in SIDES:
        return parts[1]
    if name == "docpipe" or (len(parts) == 2 and parts[1] in CORE):
        return "core"
    if len(parts) == 2 and parts[1] in TOP:
        return "top"
    return None


def upward(package: Path = PACKAGE) -> list[str]:
    """Every import that points up or across the layers (MAY_IMPORT), with its line."""
    graph = module_graph(package)
    said = []
    for here, imported in sorted(graph.items()):
        if layer(here) is None:
            said.append(f"{here} is in no layer: add it to CORE or TOP in tests/test_layout.py")
            continue
        for there, line in sorted(imported.items()):
            if layer(there) not in MAY_IMPORT[layer(here)]:
                said.append(
                    f"{_where(package, here, line)}: {here} ({layer(here)}) imports {there}"
                    f" ({layer(there)})"
                )
    return said


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


def test_no_import_cycle_between_docpipe_modules():
    """Not at module level, not through an import inside a function: imports point one way."""
    found = cycles()
    assert not found, "import cycles:\n" + "\n".join(found)


def test_every_import_points_down_the_layers():
    """core <- recorded <- pages, core <- recorded <- run, formats above the sides, top above
    all (the module docstring): the page side and the run side never import each other, the
    recorded side imports neither."""
    found = upward()
    assert not found, "imports against the layers:\n" + "\n".join(found)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "docpipe"
    for relative, text in {"__init__.py": '"""p"""\n', **files}.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text)
    return package


def test_the_cycle_check_names_a_cycle_hidden_in_a_function(tmp_path):
    """The checks above can fail: a cycle closed by an import inside a function is named as a
    chain, each step with the line that imports, and the rest of its knot is named too."""
    package = _package(
        tmp_path,
        {
            "pages/claims.py": '"""p"""\nfrom docpipe.pages import reproduced\n',
            "pages/reproduced.py": '"""p"""\nfrom docpipe.recorded.drift import x\n',
            "recorded/drift.py": '"""p"""\n\n\ndef f():\n    from docpipe.pages import claims\n',
            "recorded/versions.py": '"""p"""\nfrom docpipe.recorded import drift\n',
            "recorded/verified.py": '"""p"""\nimport docpipe.recorded.versions\n',
            "pipeline.py": '"""p"""\nfrom . import verify\n',
            "verify.py": '"""p"""\ndef g():\n    from docpipe import pipeline\n',
            "cli.py": '"""p"""\nfrom docpipe import pipeline, verify\n',
        },
    )
    assert cycles(package) == [
        "docpipe.pages.claims"
        " -> docpipe.pages.reproduced (docpipe/pages/claims.py:2)"
        " -> docpipe.recorded.drift (docpipe/pages/reproduced.py:2)"
        " -> docpipe.pages.claims (docpipe/recorded/drift.py:5)",
        "docpipe.pipeline -> docpipe.verify (docpipe/pipeline.py:2)"
        " -> docpipe.pipeline (docpipe/verify.py:3)",
    ]
    (package / "pages/reproduced.py").write_text(
        '"""p"""\nfrom docpipe.recorded.drift import x\nfrom docpipe.recorded import verified\n'
    )
    (package / "recorded/drift.py").write_text(
        '"""p"""\nfrom docpipe.recorded import verified\n\n\ndef f():\n'
        "    from docpipe.pages import claims\n"
    )
    (package / "recorded/versions.py").write_text('"""p"""\nfrom docpipe.recorded import drift\n')
    first = cycles(package)[0]
    assert first.startswith("docpipe.pages.claims -> docpipe.pages.reproduced")
    assert "and in the same knot:" in first
    assert "docpipe.recorded.versions -> docpipe.recorded.drift" in first
    assert "docpipe.recorded.verified -> docpipe.recorded.versions" in first


def test_the_layer_check_names_an_import_against_the_layers(tmp_path):
    """The layer check can fail: the recorded side importing a page module inside a function,
    a run module importing a page module, core importing a side, and a module in no layer."""
    package = _package(
        tmp_path,
        {
            "project.py": '"""p"""\nfrom docpipe.recorded import record\n',
            "recorded/record.py": '"""p"""\n',
            "recorded/cache.py": '"""p"""\ndef f():\n    from docpipe.pages.reading import uses\n',
            "pages/reading.py": '"""p"""\nfrom docpipe.recorded import record\n',
            "run/pool.py": '"""p"""\nfrom ..pages import reading\n',
            "formats/html.py": '"""p"""\nfrom docpipe.run import pool\nfrom docpipe import cli\n',
            "cli.py": '"""p"""\nfrom docpipe.formats import html\n',
            "helper.py": '"""p"""\n',
        },
    )
    assert upward(package) == [
        "docpipe/formats/html.py:3: docpipe.formats.html (formats) imports docpipe.cli (top)",
        "docpipe.helper is in no layer: add it to CORE or TOP in tests/test_layout.py",
        "docpipe/project.py:2: docpipe.project (core) imports docpipe.recorded.record (recorded)",
        "docpipe/recorded/cache.py:3: docpipe.recorded.cache (recorded) imports"
        " docpipe.pages.reading (pages)",
        "docpipe/run/pool.py:2: docpipe.run.pool (run) imports docpipe.pages.reading (pages)",
    ]


def status_words(package: Path = PACKAGE) -> set[str]:
    """Every spelling of a member of docpipe.statuses' enums (read with ast)."""
    tree = ast.parse((package / "statuses.py").read_text(encoding="utf-8"))
    return {
        node.value.value
        for enum in tree.body
        if isinstance(enum, ast.ClassDef)
        for node in enum.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
    }


STATUS_FIELDS = ("status", "verdict", "problem")  # the fields and keys that hold a status


def spelled_statuses(package: Path = PACKAGE) -> list[str]:
    """Each place outside docpipe.statuses that spells a status as a string: compared with
    one (`x == "failed"`, `x in ("ok", "error")`), or given one as a status field
    (`status="ok"`, `{"verdict": "same"}`)."""
    words = status_words(package)
    said = []
    for name, path in modules(package).items():
        if name == "docpipe.statuses":
            continue
        where = f"{path.relative_to(package.parent).as_posix()}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found = []
            if isinstance(node, ast.Compare):
                for side in [node.left, *node.comparators]:
                    elements = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else []
                    found += [c for c in [side, *elements] if isinstance(c, ast.Constant)]
            elif isinstance(node, ast.keyword) and node.arg in STATUS_FIELDS:
                found.append(node.value)
            elif isinstance(node, ast.Dict):
                found += [
                    value
                    for key, value in zip(node.keys, node.values, strict=True)
                    if isinstance(key, ast.Constant) and key.value in STATUS_FIELDS
                ]
            if any(isinstance(c, ast.Constant) and c.value in words for c in found):
                said.append(f"{where}:{node.lineno}: {ast.unparse(node)[:100]}")
    return sorted(set(said))


def test_every_status_is_a_member_of_its_enum():
    """A status is spelled once, in docpipe.statuses; everywhere else it is an enum member, so
    a grep for DriftKind.MISSING finds every place that means it and no false friend."""
    found = spelled_statuses()
    assert not found, "statuses spelled as strings (use docpipe.statuses):\n" + "\n".join(found)


def test_the_status_check_sees_a_status_spelled_as_a_string(tmp_path):
    package = _package(
        tmp_path,
        {
            "statuses.py": '"""p"""\nclass RunStatus:\n    OK = "ok"\n    ERROR = "error"\n',
            "run/pool.py": '"""p"""\n\n\ndef f(r):\n    return r.status in ("error", "gone")\n',
            "verify.py": '"""p"""\nX = {"status": "ok", "error": "it failed"}\n'
            'Y = dict(status="ok")\n',
            "pipeline.py": '"""p"""\nfrom docpipe.statuses import RunStatus\n'
            'Z = RunStatus.OK == "x"\n',
        },
    )
    assert spelled_statuses(package) == [
        "docpipe/run/pool.py:5: r.status in ('error', 'gone')",
        "docpipe/verify.py:2: {'status': 'ok', 'error': 'it failed'}",
        "docpipe/verify.py:3: status='ok'",
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

"""The build's pins: every distribution the site's build needs (pyproject.toml's dependencies and
everything they require, recursively, as installed here; the other generators the tests build
with) has an exact `==` line in constraints.txt, the one the tests run with is that version, and
every install of the Makefile, CI and the workflows goes through constraints.txt."""

from __future__ import annotations

import itertools
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from projects import REPO as ROOT

pytestmark = pytest.mark.unit

CONSTRAINTS = ROOT / "constraints.txt"
CONSTRAINTS_SPELLED = ("constraints.txt", "$(CONSTRAINTS)")  # in a workflow, in the Makefile
GENERATORS = ("properdocs", "zensical")  # built with by the tests (test_generators.py)
INSTALLERS = [ROOT / "Makefile", ROOT / ".ci" / "run", *(ROOT / ".github" / "workflows").glob("*")]
PIP_INSTALL = re.compile(r"\bpip3?(?:\.\d+)?\s+install\b(?P<args>[^\n]*)")  # pip, pip3, pip3.11
# The one install that must not be constrained: `make lock` finds the newest versions to pin.
UNCONSTRAINED = re.compile(r"^\s*\.cache/lock/bin/pip install", re.M)


def pins(text: str) -> dict[str, str]:
    """constraints.txt's `name==version` lines, by canonical name; any other line is an error."""
    found = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not re.fullmatch(r"[A-Za-z0-9._+!-]+", version.strip()):
            raise ValueError(f"constraints.txt:{number}: not an exact pin: {line}")
        found[canonicalize_name(name.strip())] = version.strip()
    return found


def needed(requirements: list[str]) -> dict[str, str]:
    """Every installed distribution these requirements need, recursively (environment markers
    evaluated here, extras not taken): canonical name -> installed version."""
    found: dict[str, str] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in found:
            continue
        dist = metadata.distribution(req.name)
        found[name] = dist.version
        todo += [Requirement(r) for r in dist.requires or []]
    return found


def unpinned(requirements: list[str], constraints: str) -> list[str]:
    """What the requirements need that constraints.txt does not pin to the installed version."""
    pinned = pins(constraints)
    return [
        f"{name} {version}: " + (f"pinned to {pinned[name]}" if name in pinned else "not pinned")
        for name, version in sorted(needed(requirements).items())
        if pinned.get(name) != version
    ]


def build_requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["dependencies"]


def test_everything_the_build_needs_is_pinned_to_the_version_the_tests_run_with():
    assert unpinned(build_requirements(), CONSTRAINTS.read_text(encoding="utf-8")) == []


def test_the_other_generators_are_pinned():
    pinned = pins(CONSTRAINTS.read_text(encoding="utf-8"))
    assert [g for g in GENERATORS if g not in pinned] == []


def test_a_missing_or_moved_pin_is_named():
    text = CONSTRAINTS.read_text(encoding="utf-8")
    without = re.sub(r"(?mi)^markdown==.*\n", "", text)  # Python-Markdown, needed through MkDocs
    moved = re.sub(r"(?m)^mkdocs==.*$", "mkdocs==1.6.0", text)
    assert [p for p in unpinned(build_requirements(), without) if p.startswith("markdown ")] == [
        f"markdown {metadata.version('markdown')}: not pinned"
    ]
    assert [p for p in unpinned(build_requirements(), moved) if p.startswith("mkdocs ")] == [
        f"mkdocs {metadata.version('mkdocs')}: pinned to 1.6.0"
    ]
    with pytest.raises(ValueError, match=r"constraints.txt:\d+: not an exact pin: mkdocs>=1"):
        pins(text + "mkdocs>=1\n")


def installs_without_constraints(path: Path) -> list[str]:
    """`path:line: command` for each pip install in it that does not pass -c constraints.txt
    (but upgrading pip itself, and make lock's)."""
    text = path.read_text(encoding="utf-8")
    found = []
    for m in PIP_INSTALL.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        full = text.splitlines()[line - 1]
        args = m["args"].split()
        if args[-1:] == ["pip"] or UNCONSTRAINED.match(full):
            continue
        pairs = itertools.pairwise(args)
        constrained = any(a == "-c" and b in CONSTRAINTS_SPELLED for a, b in pairs)
        if not constrained:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            found.append(f"{where}:{line}: {full.strip()}")
    return found


def test_every_install_of_the_makefile_ci_and_workflows_uses_the_constraints():
    assert [f for path in INSTALLERS for f in installs_without_constraints(path)] == []


def test_an_install_without_the_constraints_is_named(tmp_path):
    workflow = tmp_path / "deploy.yml"
    workflow.write_text(
        "steps:\n  - run: python -m pip install -c constraints.txt -e .\n"
        "  - run: python -m pip install mkdocs-material\n"
        "  - run: pip3  install -c other.txt properdocs\n"
    )
    assert installs_without_constraints(workflow) == [
        "deploy.yml:3: - run: python -m pip install mkdocs-material",
        "deploy.yml:4: - run: pip3  install -c other.txt properdocs",
    ]


# ==== The Pythons supported: requires-python, the Makefile's check, the pins' own bounds ====
MAKE_VARIABLE = re.compile(r"(?m)^(?P<name>PYTHON_MIN|PYTHON_BELOW) := (?P<value>\S+)$")


def requires_python() -> SpecifierSet:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return SpecifierSet(project["requires-python"])


def makefile_bound() -> tuple[str, str]:
    """The Makefile's PYTHON_MIN and PYTHON_BELOW, the versions its python-version target checks
    before any venv is made."""
    found = {
        m["name"]: m["value"] for m in MAKE_VARIABLE.finditer(ROOT.joinpath("Makefile").read_text())
    }
    return found["PYTHON_MIN"], found["PYTHON_BELOW"]


def python_bounds_refused(bound: SpecifierSet, dists: dict[str, str]) -> list[str]:
    """`name version: Requires-Python X` for each installed distribution whose declared Pythons
    leave out the bound's lowest version (the one Debian and the Makefile's message name)."""
    lowest = min(Version(s.version) for s in bound if s.operator in (">=", "=="))
    refused = []
    for name, version in sorted(dists.items()):
        declared = metadata.distribution(name).metadata.get("Requires-Python")
        if declared and not SpecifierSet(declared).contains(lowest, prereleases=True):
            refused.append(f"{name} {version}: Requires-Python {declared}")
    return refused


def test_the_makefile_checks_the_pythons_requires_python_names():
    low, below = makefile_bound()
    assert requires_python() == SpecifierSet(f">={low},<{below}")
    assert requires_python().contains(".".join(map(str, sys.version_info[:3])))


def test_every_pin_runs_on_the_oldest_python_supported():
    """Each distribution pinned in constraints.txt and installed here at its pin (all that the
    build needs, the first test says), and each the run and dev extras need, declares a
    Requires-Python that takes requires-python's lowest version: pip could install them all."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = [r for e in ("run", "dev") for r in project["optional-dependencies"][e]]
    dists = needed(build_requirements() + [r for r in extras if not r.startswith("autograd-docs")])
    for name, version in pins(CONSTRAINTS.read_text(encoding="utf-8")).items():
        try:
            if metadata.version(name) == version:
                dists[name] = version
        except metadata.PackageNotFoundError:
            pass  # Zensical's (its own venv): pip says so in make test's install of it
    assert python_bounds_refused(requires_python(), dists) == []


def test_a_pin_that_needs_a_newer_python_is_named():
    """pymdown-extensions 13.1.2 declares >=3.11.5: a bound reaching down to Debian 12's 3.11.2
    names it."""
    refused = python_bounds_refused(SpecifierSet(">=3.11.2,<3.12"), {"pymdown-extensions": "x"})
    declared = metadata.distribution("pymdown-extensions").metadata["Requires-Python"]
    assert refused == [f"pymdown-extensions x: Requires-Python {declared}"]
    assert not SpecifierSet(declared).contains("3.11.2")

"""Which torch: the version and build pyproject.toml pins, the one running, and the ones the
records were made with. The pin is the truth: `--check` names every disagreement as one site
problem (exit 2), and regen refuses to record with another torch than the pinned one.

The pin is the `torch==X.Y.Z` requirement of the `run` extra (what pip installs) and the build,
the part of torch.__version__ after "+", in `[tool.autograd-docs] torch-build` (pip's pin
cannot name it: the CPU build comes from PyTorch's CPU index, the README says how). The same
table lists, under `verify`, the other versions the site is verified with (docpipe.verify).
Reading the pin imports nothing heavy: the site-only venv has `packaging` through mkdocs.
"""

from __future__ import annotations

import importlib.util
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from docpipe import environment, texts
from docpipe.problems import DocpipeError, Problem
from docpipe.project import Project, Snippet
from docpipe.recorded.drift import recorded_environment

PYPROJECT = "pyproject.toml"  # at the project's root
TOOL = "autograd-docs"
UPGRADE = 'docs/authoring.md, "Upgrade torch"'
NAMED = 4  # records named in a message; the rest are counted


class PinError(DocpipeError):
    """A pin that cannot be read, at pyproject.toml's line where there is one."""


@dataclass(frozen=True)
class Pin:
    version: str  # "2.13.0", from torch==2.13.0
    build: str  # "cpu", or "" for none
    line: int  # of the torch requirement in pyproject.toml
    verify: tuple[str, ...]  # other versions the site is verified with
    path: str = PYPROJECT  # relative to the root

    @property
    def torch(self) -> str:
        """As torch.__version__ says it: "2.13.0+cpu"."""
        return f"{self.version}+{self.build}" if self.build else self.version


def pin(project: Project) -> Pin | None:
    """The pinned torch, or None for a repository without a pyproject.toml (a test sandbox)."""
    path = project.root / PYPROJECT
    if not path.is_file():
        return None
    return _pin(path, path.stat().st_mtime_ns)


@cache
def _pin(path: Path, mtime: int) -> Pin:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    text = texts.read(path, PYPROJECT)
    where = PYPROJECT
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PinError(f"not TOML ({e})", where) from None
    run = config.get("project", {}).get("optional-dependencies", {}).get("run", [])
    tool = config.get("tool", {}).get(TOOL, {})
    for line_text in run:
        try:
            req = Requirement(line_text)
        except InvalidRequirement as e:
            raise PinError(f"{line_text!r} is not a requirement ({e})", where) from None
        if req.name != "torch":
            continue
        line = _line_of(text, line_text)
        exact = [s for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
        if len(exact) != 1 or len(req.specifier) != 1:
            raise PinError(
                "torch must be pinned to one version, as torch==2.13.0"
                f" (found {line_text!r}): every recording is made with exactly one",
                where,
                line,
            )
        try:
            version = Version(exact[0].version)
        except InvalidVersion as e:
            raise PinError(str(e), where, line) from None
        build = str(tool.get("torch-build", version.local or ""))
        if version.local and version.local != build:
            raise PinError(
                f"{line_text!r} names the build {version.local}, but"
                f" [tool.{TOOL}] torch-build says {build!r}",
                where,
                line,
            )
        verify = tool.get("verify", [])
        if not isinstance(verify, list) or not all(isinstance(v, str) for v in verify):
            raise PinError(f'[tool.{TOOL}] verify must be a list of versions ("2.14.1")', where)
        return Pin(version.public, build, line, tuple(verify))
    raise PinError("the run extra pins no torch (add torch==X.Y.Z to it)", where)


def _line_of(text: str, requirement: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if f'"{requirement}"' in line or f"'{requirement}'" in line:
            return number
    return 1


def public(torch: str) -> str:
    """A torch version without its build: "2.13.0" for "2.13.0+cpu"."""
    return torch.partition("+")[0]


def running_torch() -> tuple[str, str]:
    """The running torch's version with its build, and the file that says it."""
    spec = importlib.util.find_spec("torch")
    locations = list(spec.submodule_search_locations or []) if spec else []
    where = str(Path(locations[0]) / "version.py") if locations else "(no torch installed)"
    return environment.stamp()["torch"], where


def running_problems(project: Project, running: tuple[str, str] | None = None) -> list[Problem]:
    """Regen records only with the pinned torch: a problem when another one runs."""
    return problems(project, [], running)


def problems(
    project: Project, snippets: Iterable[Snippet], running: tuple[str, str] | None = None
) -> list[Problem]:
    """One problem when the running torch or the records of these snippets differ from the
    pin (none when they agree, or there is no pyproject.toml)."""
    try:
        pinned = pin(project)
    except PinError as e:
        return [e.problem]
    if pinned is None:
        return []
    version, where = running or running_torch()
    parts = []
    if version not in (pinned.torch, "not installed"):
        parts.append(f"this run uses torch {version} ({where})")
    made_with: dict[str, list[str]] = {}
    for snippet in snippets:
        env = recorded_environment(snippet)
        if env and env.get("torch") != pinned.torch:
            made_with.setdefault(str(env.get("torch")), []).append(project.rel(snippet.record))
    for other, records in sorted(made_with.items()):
        named = ", ".join(records[:NAMED])
        more = f" and {len(records) - NAMED} more" if len(records) > NAMED else ""
        parts.append(f"{len(records)} records were made with torch {other} ({named}{more})")
    if not parts:
        return []
    message = (
        f"torch is pinned to {pinned.torch} (torch=={pinned.version} here,"
        f' torch-build = "{pinned.build}" under [tool.{TOOL}]), but '
        + " and ".join(parts)
        + "; install the pinned torch (pip install -e '.[run]', from the index the README"
        f" names), or upgrade: bump the pin, then regenerate ({UPGRADE})"
    )
    return [Problem(pinned.path, pinned.line, message)]

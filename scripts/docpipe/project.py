"""The naming rule: a snippet's path is the key for everything made from it.

snippets/<key>.py               the code a reader runs
docs/generated/<key>.txt        what it printed (stdout and stderr, as a terminal shows)
docs/generated/<key>.json       values quoted in prose, per-section output, environment
docs/generated/<key>.<fig>.svg  a figure (and <key>.<fig>.dark.svg for the dark palette)
scripts/figures/<key>.py        the code that draws that snippet's figures
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"
GENERATED = DOCS / "generated"
FIGURE_CODE = ROOT / "scripts" / "figures"
NOTEBOOKS = DOCS / "notebooks"
META = SNIPPETS / "snippets.toml"
THEMES = ("light", "dark")
KEY_PART = re.compile(r"[A-Za-z0-9_-]+")
NAMING_RULE = (
    "the naming rule maps snippets/<key>.py to docs/generated/<key>.<kind>, so every part of"
    " <key> holds only letters, digits, '_' and '-'"
)
ABSENT = "absent"  # the fingerprint of an input file that does not exist


def hosted_url() -> str:
    """The site's hosted address, the default of site_url in mkdocs.yml. Builds may point
    site_url elsewhere with SITE_URL; generated files always name the hosted address."""
    import re

    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    return re.search(r'^site_url:.*"(https?://[^"]+)"', config, re.M)[1]


def hosted_repo() -> tuple[str, str]:
    """The repository's hosted address and the edit_uri of mkdocs.yml (defaults, as above)."""
    import re

    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    repo = re.search(r'^repo_url:.*"(https?://[^"]+)"', config, re.M)[1]
    edit = re.search(r"^edit_uri:\s*(\S+)", config, re.M)
    return repo, edit[1] if edit else ""


@dataclass(frozen=True, order=True)
class Snippet:
    key: str  # "examples/fit_line": the path below snippets/, without ".py"

    @classmethod
    def from_path(cls, path: str | Path) -> Snippet:
        # Strings, not pathlib: discovery maps every snippet of the site through here.
        text = os.fspath(path)
        text = os.path.normpath(text if os.path.isabs(text) else os.path.join(ROOT, text))
        inside = str(SNIPPETS) + os.sep
        if not text.startswith(inside):
            raise ValueError(f"{path}: not a snippet (snippets live under snippets/)")
        if not text.endswith(".py"):
            raise ValueError(f"{path}: not a snippet (a snippet is a .py file)")
        key = text[len(inside) : -len(".py")].replace(os.sep, "/")
        if not all(KEY_PART.fullmatch(part) for part in key.split("/")):
            raise ValueError(f"snippets/{key}.py: a name the rule cannot map ({NAMING_RULE})")
        return cls(key)

    @property
    def name(self) -> str:
        """The id used everywhere a person reads it: tests, reports, page titles."""
        return f"snippets/{self.key}.py"

    @property
    def source(self) -> Path:
        return SNIPPETS / f"{self.key}.py"

    @property
    def output(self) -> Path:
        return GENERATED / f"{self.key}.txt"

    @property
    def record(self) -> Path:
        return GENERATED / f"{self.key}.json"

    @property
    def figure_code(self) -> Path:
        return FIGURE_CODE / f"{self.key}.py"

    def figure(self, name: str, theme: str = "light") -> Path:
        suffix = "" if theme == "light" else f".{theme}"
        return GENERATED / f"{self.key}.{name}{suffix}.svg"

    @property
    def command(self) -> str:
        return f"python {self.name}"


_ROOT_PREFIX = str(ROOT) + "/"


def rel(path: Path) -> str:
    """A path as the reader of a report types it: relative to the repository."""
    text = os.fspath(path)
    if text.startswith(_ROOT_PREFIX) and "/../" not in text:  # the common case, without I/O
        return text[len(_ROOT_PREFIX) :]
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def owner(generated: Path) -> Snippet:
    """The snippet a generated file belongs to, by the naming rule (snippet names hold no dot)."""
    rel_path = Path(os.path.normpath(generated)).relative_to(GENERATED)
    return Snippet((rel_path.parent / rel_path.name.split(".", 1)[0]).as_posix())


def generated_index() -> dict[Snippet, set[Path]]:
    """Each snippet's generated files on disk, by the naming rule, from one walk of
    docs/generated/ (not one directory listing per snippet)."""
    found: dict[Snippet, set[Path]] = {}
    stack = [GENERATED] if GENERATED.is_dir() else []
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir():
                    stack.append(Path(entry.path))
                elif entry.is_file():
                    found.setdefault(owner(Path(entry.path)), set()).add(Path(entry.path))
    return found

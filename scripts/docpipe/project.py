"""The project: one repository's paths, its naming rule and its site settings, passed everywhere.

Every pipeline entry point takes a Project; no module finds the repository from its own
location (only the command line's default does, cli.default_project). A test builds one on
a temporary folder: `Project(tmp_path)`.

The naming rule: a snippet's path is the key for everything made from it.

snippets/<key>.py               the code a reader runs
docs/generated/<key>.txt        what it printed (stdout and stderr, as a terminal shows)
docs/generated/<key>.json       values quoted in prose, per-section output, environment
docs/generated/<key>.<fig>.svg  a figure (and <key>.<fig>.dark.svg for the dark palette)
scripts/figures/<key>.py        the code that draws that snippet's figures

The site settings come from mkdocs.yml through MkDocs' own config loader, once per project
(its plugins and hooks left out: the pipeline reads none of their settings).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from docpipe import texts
from docpipe.problems import SettingsError

THEMES = ("light", "dark")
KEY_PART = re.compile(r"[A-Za-z0-9_-]+")
NAMING_RULE = (
    "the naming rule maps snippets/<key>.py to docs/generated/<key>.<kind>, so every part of"
    " <key> holds only letters, digits, '_' and '-'"
)
ABSENT = "absent"  # the fingerprint of an input file that does not exist


class NotASnippet(SettingsError, ValueError):
    """A path the naming rule cannot map to a snippet."""


@dataclass(frozen=True, order=True)
class Snippet:
    """One snippet of a project, named by its key; two snippets are equal when their keys are."""

    key: str  # "examples/fit_line": the path below snippets/, without ".py"
    project: Project = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        """The id used everywhere a person reads it: tests, reports, page titles."""
        return f"snippets/{self.key}.py"

    @cached_property
    def source(self) -> Path:
        return self.project.snippets / f"{self.key}.py"

    @cached_property
    def output(self) -> Path:
        return self.project.generated / f"{self.key}.txt"

    @cached_property
    def record(self) -> Path:
        return self.project.generated / f"{self.key}.json"

    @cached_property
    def figure_code(self) -> Path:
        return self.project.figure_code / f"{self.key}.py"

    def figure(self, name: str, theme: str = "light") -> Path:
        suffix = "" if theme == "light" else f".{theme}"
        return self.project.generated / f"{self.key}.{name}{suffix}.svg"

    def figure_of(self, path: Path) -> tuple[str, str] | None:
        """(figure, palette) when `path` is one of this snippet's figures: figure() the other
        way, as ("fit", "dark") for docs/generated/examples/fit_line.fit.dark.svg."""
        if path.suffix != ".svg" or path.parent != self.record.parent:
            return None
        middle = path.name.removeprefix(self.record.stem + ".").removesuffix(".svg")
        for theme in reversed(THEMES):  # "dark" before "light", whose name has no suffix
            name = middle.removesuffix(f".{theme}") if theme != "light" else middle
            if self.figure(name, theme) == path:
                return name, theme
        return None

    @property
    def command(self) -> str:
        return f"python {self.name}"


@dataclass(frozen=True)
class Site:
    """What the pipeline reads of mkdocs.yml, as MkDocs' config loader reads it."""

    hosted_url: str  # site_url as published (the !ENV default: builds may point it elsewhere)
    repo_url: str  # repo_url as published
    edit_uri: str  # "edit/main/docs/"
    nav: tuple[str, ...] | None  # every page the nav names, relative to docs/ (None: no nav)
    extensions: tuple[str, ...]  # the Markdown extensions the build uses, in order
    extension_configs: dict  # their options, as the build passes them

    @property
    def snippets_options(self) -> dict:
        """pymdownx.snippets' options, as the build passes them."""
        return self.extension_configs.get("pymdownx.snippets", {})

    @property
    def branch(self) -> str:
        """The branch edit_uri names ("edit/main/docs/" -> "main")."""
        m = re.match(r"(?:edit|blob)/([^/]+)/", self.edit_uri or "")
        return m[1] if m else "main"

    def page_url(self, page: str) -> str:
        """The hosted address of a page (`autograd-backward.md`, `notebooks/x.ipynb`)."""
        stem = page.rsplit(".", 1)[0]
        stem = "" if stem == "index" else stem.removesuffix("/index") + "/"
        return self.hosted_url + stem

    def code_url(self, relative: str, span: tuple[int, int] | None = None) -> str:
        """A repository file (and lines) on the hosted repository's branch."""
        lines = f"#L{span[0]}-L{span[1]}" if span else ""
        return f"{self.repo_url.rstrip('/')}/blob/{self.branch}/{relative}{lines}"


@dataclass(frozen=True)
class Project:
    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(os.path.abspath(self.root)))

    def __reduce__(self):  # pickled by its root alone (its cached settings are read again)
        return (Project, (self.root,))

    @cached_property
    def snippets(self) -> Path:
        return self.root / "snippets"

    @cached_property
    def docs(self) -> Path:
        return self.root / "docs"

    @cached_property
    def generated(self) -> Path:
        return self.root / "docs" / "generated"

    @cached_property
    def notebooks(self) -> Path:
        return self.root / "docs" / "notebooks"

    @cached_property
    def figure_code(self) -> Path:
        return self.root / "scripts" / "figures"

    @cached_property
    def meta(self) -> Path:
        """snippets/snippets.toml: every snippet's settings, values and exceptions."""
        return self.root / "snippets" / "snippets.toml"

    @cached_property
    def config_file(self) -> Path:
        return self.root / "mkdocs.yml"

    @cached_property
    def cache_dir(self) -> Path:
        return self.root / ".cache"

    @cached_property
    def verified(self) -> Path:
        return self.root / "verified"

    def snippet(self, key: str) -> Snippet:
        return Snippet(key, self)

    def snippet_at(self, path: str | Path) -> Snippet:
        """The snippet at a path (relative to the root, or absolute); ValueError if none."""
        text = os.fspath(path)
        text = os.path.normpath(text if os.path.isabs(text) else os.path.join(self.root, text))
        inside = str(self.snippets) + os.sep
        if not text.startswith(inside):
            raise NotASnippet("not a snippet (snippets live under snippets/)", os.fspath(path))
        if not text.endswith(".py"):
            raise NotASnippet("not a snippet (a snippet is a .py file)", os.fspath(path))
        key = text[len(inside) : -len(".py")].replace(os.sep, "/")
        if not all(KEY_PART.fullmatch(part) for part in key.split("/")):
            raise NotASnippet(f"a name the rule cannot map ({NAMING_RULE})", f"snippets/{key}.py")
        real = os.path.realpath(text)
        if real != text and not real.startswith(str(self.root) + os.sep):
            raise NotASnippet(
                f"a symbolic link to {real}, outside the repository: a snippet is a file of"
                " the repository (copy the file in, or link the other way round)",
                f"snippets/{key}.py",
            )
        return Snippet(key, self)

    def rel(self, path: Path | str) -> str:
        """A path as the reader of a report types it: relative to the root."""
        text = os.fspath(path)
        prefix = str(self.root) + "/"
        if text.startswith(prefix) and "/../" not in text:  # the common case, without I/O
            return text[len(prefix) :]
        try:
            return Path(text).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return text

    def owner(self, generated: Path) -> Snippet:
        """The snippet a generated file belongs to, by the naming rule (snippet names hold no
        dot)."""
        text = os.path.normpath(os.fspath(generated))
        inside = str(self.generated) + os.sep
        if text.startswith(inside):  # the common case, as strings (a site check asks per file)
            folder, _, name = text[len(inside) :].rpartition(os.sep)
            key = f"{folder}/{name.split('.', 1)[0]}" if folder else name.split(".", 1)[0]
            return Snippet(key.replace(os.sep, "/"), self)
        rel_path = Path(text).relative_to(self.generated)  # ValueError: not a generated file
        return Snippet((rel_path.parent / rel_path.name.split(".", 1)[0]).as_posix(), self)

    def generated_index(self) -> dict[Snippet, set[Path]]:
        """Each snippet's generated files on disk, by the naming rule, from one walk of
        docs/generated/ (not one directory listing per snippet)."""
        found: dict[Snippet, set[Path]] = {}
        stack = [self.generated] if self.generated.is_dir() else []
        while stack:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir():
                        stack.append(Path(entry.path))
                    elif entry.is_file():
                        found.setdefault(self.owner(Path(entry.path)), set()).add(Path(entry.path))
        return found

    @cached_property
    def site(self) -> Site:
        """mkdocs.yml's settings, read once through MkDocs' config loader."""
        return _load_site(self.config_file)


def _load_site(config_file: Path) -> Site:
    from mkdocs.config import load_config
    from mkdocs.exceptions import ConfigurationError

    if config_file.is_file():  # a byte that is not UTF-8 named by its line, not its offset
        texts.read(config_file, config_file.name)
    try:
        # Without the plugins and hooks: the pipeline reads none of their settings, and
        # loading them (mkdocs-jupyter imports nbconvert) took half a second of every fresh
        # process, each regen and each pre-commit check; `mkdocs build` still validates them.
        config = load_config(str(config_file), plugins=[], hooks=[])
        published = _published(config_file)
    except (OSError, ConfigurationError) as e:
        raise SettingsError(f"{e}", config_file.name) from e
    return Site(
        hosted_url=published.get("site_url") or config.site_url or "",
        repo_url=published.get("repo_url") or config.repo_url or "",
        edit_uri=config.edit_uri or "",
        nav=None if config.nav is None else tuple(_nav_pages(config.nav)),
        extensions=tuple(config.markdown_extensions),
        extension_configs={k: dict(v) for k, v in config.mdx_configs.items()},
    )


def _published(config_file: Path) -> dict:
    """mkdocs.yml read by MkDocs' YAML loader with each `!ENV [NAME, default]` taken as its
    default: the addresses as published, whatever this build's environment points them to."""
    import yaml
    from mkdocs.utils.yaml import get_yaml_loader

    class Published(get_yaml_loader()):
        pass

    def default(loader, node):
        items = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else []
        return items[-1] if len(items) > 1 else None

    Published.add_constructor("!ENV", default)
    with open(config_file, "rb") as f:
        return yaml.load(f, Loader=Published) or {}  # noqa: S506 (MkDocs' own safe loader)


def _nav_pages(nav) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [p for v in nav.values() for p in _nav_pages(v)]
    if isinstance(nav, list):
        return [p for v in nav for p in _nav_pages(v)]
    return []

"""The snippets there are, and their settings from the one metadata file, snippets/snippets.toml."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass, field

from docpipe import texts
from docpipe.problems import SettingsError
from docpipe.project import Project, Snippet

DEFAULT_TIMEOUT = 120.0  # seconds; generous, since a snippet normally takes milliseconds
DEFAULT_DURATION = 0.1  # seconds; what sharding assumes for a snippet with no recorded duration
# MiB: the most memory a snippet's process may allocate (docpipe.run.execute); the pool starts
# no more runs at once than their limits fit in the machine's memory (docpipe.run.pool).
DEFAULT_MEMORY = 4096
# Rules a page's phrase can be excepted from (text = [phrases]), and the one rule for a file.
PHRASE_RULES = (
    "number-in-prose",
    "typed-number",
    "general-sentence",
    "agreement-asserted",
    "glossary-first-use",
)
EXCEPTION_RULES = ("not-on-a-page", *PHRASE_RULES)
# Phrase rules that may also spare a whole page: an [[exception]] without text.
WHOLE_PAGE_RULES = ("glossary-first-use",)
EXCEPTION_KEYS = {"path", "rule", "reason", "text"}
SNIPPET_KEYS = {"timeout", "duration", "memory", "values", "normalise"}
DEFAULT_KEYS = {"timeout", "memory"}


class CatalogError(SettingsError):
    """The metadata file or the snippets tree is not as the rules say."""


@dataclass(frozen=True)
class Settings:
    timeout: float = DEFAULT_TIMEOUT
    duration: float = DEFAULT_DURATION
    memory: int = DEFAULT_MEMORY  # MiB
    values: dict[str, str] = field(default_factory=dict)  # name -> f-string over the run's globals
    normalise: tuple[str, ...] = ()  # opt-in normalisers (docpipe.run.normalise.OPT_IN) by name
    # where snippets.toml names them: the run side says which names are unknown (preflight)
    normalise_line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Exemption:
    path: str
    rule: str
    reason: str
    text: tuple[str, ...] = ()  # a phrase rule (PHRASE_RULES): the phrases of the page it spares
    line: int | None = field(default=None, compare=False)  # where snippets.toml has it


@dataclass(frozen=True)
class Catalog:
    project: Project
    settings: dict[Snippet, Settings]
    exemptions: tuple[Exemption, ...]

    @property
    def snippets(self) -> list[Snippet]:
        return sorted(self.settings)

    def exempt(self, path: str, rule: str) -> bool:
        return any(e.path == path and e.rule == rule for e in self.exemptions)

    def exempt_page(self, page: str, rule: str) -> Exemption | None:
        """The [[exception]] without text that spares a whole page from a phrase rule."""
        return next(
            (e for e in self.exemptions if (e.path, e.rule) == (page, rule) and not e.text),
            None,
        )

    def exemption_line(self, page: str, rule: str, phrase: str) -> int | None:
        """The line of snippets.toml with the [[exception]] that allows this phrase."""
        return next(
            (
                e.line
                for e in self.exemptions
                if (e.path, e.rule) == (page, rule) and phrase in e.text
            ),
            None,
        )

    def allowed_numbers(self, page: str) -> tuple[str, ...]:
        """Phrases of a page (path from the repository root) whose numbers are not run results."""
        return self.allowed(page, "number-in-prose")

    def allowed(self, page: str, rule: str) -> tuple[str, ...]:
        """The phrases of a page (path from the repository root) that a phrase rule spares."""
        return tuple(
            t for e in self.exemptions if e.path == page and e.rule == rule for t in e.text
        )


def discover(project: Project) -> list[Snippet]:
    """Every snippets/**/*.py is a snippet, except helper modules whose name starts with "_"."""
    found = []
    for folder, _, files in os.walk(project.snippets):
        found += [os.path.join(folder, f) for f in files if f.endswith(".py") and f[0] != "_"]
    return sorted(project.snippet_at(p) for p in found)  # NotASnippet names the file


def load(project: Project) -> Catalog:
    """snippets/snippets.toml and the snippets there are; CatalogError names file and line."""
    meta = project.meta
    where = project.rel(meta)
    try:
        text = texts.read(meta, where) if meta.exists() else ""
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # tomllib ends its message with "(at line N, column M)": the line goes in its place
        at = re.search(r"\s*\(at line (\d+), column \d+\)$", str(e))
        if at:
            raise CatalogError(str(e)[: at.start()], where, int(at[1])) from None
        raise CatalogError(f"{e}", where) from None
    except (OSError, UnicodeDecodeError) as e:
        raise CatalogError(f"cannot be read ({e})", where) from None
    lines = _Lines(where, text)
    defaults = data.pop("defaults", {})
    if not isinstance(defaults, dict):
        raise CatalogError("[defaults] must be a table", *lines.at("defaults"))
    for unknown in sorted(set(defaults) - DEFAULT_KEYS):
        raise CatalogError(
            f"[defaults] has unknown setting {unknown!r}"
            f" (known: {', '.join(sorted(DEFAULT_KEYS))})",
            *lines.at(unknown, "defaults"),
        )
    timeout = _seconds(defaults, "timeout", DEFAULT_TIMEOUT, lines, "defaults")
    memory = _mebibytes(defaults, DEFAULT_MEMORY, lines, "defaults")
    exceptions = data.pop("exception", [])
    if not isinstance(exceptions, list):
        raise CatalogError("exception must be [[exception]] tables", *lines.at("exception"))
    exemptions = tuple(
        _exemption(lines.nth_exception(n), e) for n, e in enumerate(exceptions, start=1)
    )
    snippets = discover(project)
    known = {s.key + ".py": s for s in snippets}
    settings = {s: Settings(timeout=timeout, memory=memory) for s in snippets}
    for name, entry in data.items():
        if name not in known:
            raise CatalogError(f'["{name}"] names no file snippets/{name}', *lines.at(name))
        if not isinstance(entry, dict):
            raise CatalogError(f'["{name}"] must be a table of settings', *lines.at(name))
        for unknown in sorted(set(entry) - SNIPPET_KEYS):
            raise CatalogError(
                f'["{name}"] has unknown setting {unknown!r}'
                f" (known: {', '.join(sorted(SNIPPET_KEYS))})",
                *lines.at(unknown, name),
            )
        values = entry.get("values", {})
        if not isinstance(values, dict):
            values = {"values": values}
        for bad in [k for k, v in values.items() if not isinstance(v, str)][:1]:
            raise CatalogError(
                f'["{name}"] values: {bad} = {values[bad]!r} is no string'
                ' (an f-string over the run\'s globals, e.g. loss = "{loss.item():.4f}")',
                *lines.at(bad, name),
            )
        normalise = entry.get("normalise", [])
        if not isinstance(normalise, list) or not all(isinstance(n, str) for n in normalise):
            raise CatalogError(
                f'["{name}"] normalise: a list of names',
                *lines.at("normalise", name),
            )
        settings[known[name]] = Settings(
            timeout=_seconds(entry, "timeout", timeout, lines, name),
            duration=_seconds(entry, "duration", DEFAULT_DURATION, lines, name),
            memory=_mebibytes(entry, memory, lines, name),
            values=dict(values),
            normalise=tuple(normalise),
            normalise_line=lines.at("normalise", name)[1] if normalise else None,
        )
    return Catalog(project, settings, exemptions)


def current(project: Project) -> Catalog:
    """load(), read again only when snippets.toml changed (its size or time): for what asks for
    a snippet's settings many times in one build (docpipe.pages.reproduced, once per claim)."""
    try:
        info = project.meta.stat()
        stats = (info.st_mtime_ns, info.st_size)
    except OSError:
        stats = None
    return _loaded(project, stats)


@functools.lru_cache(maxsize=4)
def _loaded(project: Project, stats: tuple[int, int] | None) -> Catalog:
    return load(project)


def _mebibytes(table: dict, default: int, lines: _Lines, name: str) -> int:
    value = table.get("memory", default)
    if isinstance(value, bool) or not isinstance(value, int) or not value >= 64:
        shown = f'["{name}"]' if name != "defaults" else "[defaults]"
        raise CatalogError(
            f"{shown} memory = {value!r}: a whole number of MiB, at least 64",
            *lines.at("memory", name),
        )
    return value


def _seconds(table: dict, key: str, default: float, lines: _Lines, name: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        shown = f'["{name}"]' if name != "defaults" else "[defaults]"
        raise CatalogError(
            f"{shown} {key} = {value!r}: a number of seconds above 0",
            *lines.at(key, name),
        )
    return float(value)


class _Lines:
    """Where a table or key of snippets.toml stands, for its messages (tomllib gives none)."""

    HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]]*?)\s*\]\]?\s*(#.*)?$")

    def __init__(self, where: str, text: str) -> None:
        self.where = where
        self.lines = text.splitlines()
        # Found once: load() names every [[exception]] by its line, error or not.
        self.exceptions = [
            number
            for number, line in enumerate(self.lines, start=1)
            if re.match(r"^\s*\[\[\s*exception\s*\]\]", line)
        ]

    @staticmethod
    def _parts(header: str) -> list[str]:
        """A header's dotted parts, unquoted: ["a.py".values] -> ["a.py", "values"]."""
        return [q or bare for q, bare in re.findall(r'"([^"]*)"|([^."\s]+)', header)]

    def at(self, key: str, table: str | None = None) -> tuple[str, int | None]:
        """(snippets/snippets.toml, N) where `key` is set under `table` (None: at the top level,
        or a table's header), else the table's header; without a line when neither is found."""
        current: str | None = None  # the first part of the header above; None before any
        header_line = 0
        setting = re.compile(rf'^\s*(?:"{re.escape(key)}"|{re.escape(key)})\s*[=.]')
        for number, line in enumerate(self.lines, start=1):
            m = self.HEADER.match(line)
            if m:
                parts = self._parts(m["name"])
                current = parts[0] if parts else ""
                if table is None and current == key:
                    return self.where, number
                if table is not None and current == table:
                    header_line = header_line or number
                    if parts[1:2] == [key]:
                        return self.where, number
            elif current == table and setting.match(line):
                return self.where, number
        return self.where, header_line or None

    def nth_exception(self, n: int) -> tuple[str, int | None]:
        if 0 < n <= len(self.exceptions):
            return self.where, self.exceptions[n - 1]
        return self.where, None


def _exemption(where: tuple[str, int | None], entry: dict) -> Exemption:
    if not isinstance(entry, dict):
        raise CatalogError("an [[exception]] must be a table", *where)
    missing = {"path", "rule", "reason"} - set(entry)
    if missing:
        raise CatalogError(f"an [[exception]] lacks {sorted(missing)}", *where)
    name = f"[[exception]] {entry['path']}"
    if entry["rule"] not in EXCEPTION_RULES:
        raise CatalogError(
            f"{name}: unknown rule {entry['rule']!r} (known: {', '.join(EXCEPTION_RULES)})", *where
        )
    unknown = set(entry) - EXCEPTION_KEYS
    if unknown:
        raise CatalogError(f"{name}: unknown key(s) {sorted(unknown)}", *where)
    if not isinstance(entry["reason"], str) or not entry["reason"].strip():
        raise CatalogError(f"{name}: the reason is empty; say why the rule does not apply", *where)
    text = entry.get("text", [])
    rule = entry["rule"]
    if rule in PHRASE_RULES:
        if rule in WHOLE_PAGE_RULES and "text" not in entry:
            return Exemption(entry["path"], rule, entry["reason"], (), where[1])
        if not isinstance(text, list) or not text:
            what = "with the number" if "number" in rule else "of the sentence"
            raise CatalogError(f"{name}: {rule} needs text = [phrases {what}]", *where)
        for phrase in text:
            if not isinstance(phrase, str) or not phrase.strip():
                raise CatalogError(f"{name}: text {phrase!r} is not a phrase of the page", *where)
            if rule == "number-in-prose" and not any(c.isdigit() for c in phrase):
                raise CatalogError(
                    f"{name}: text {phrase!r} holds no digit (name the phrase around the number)",
                    *where,
                )
    elif "text" in entry:
        raise CatalogError(
            f"{name}: text applies only to the rules {', '.join(PHRASE_RULES)}", *where
        )
    return Exemption(entry["path"], entry["rule"], entry["reason"], tuple(text), where[1])

"""The snippets there are, and their settings from the one metadata file, snippets/snippets.toml."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from docpipe.project import META, SNIPPETS, Snippet, rel
from docpipe.run.normalise import OPT_IN

DEFAULT_TIMEOUT = 120.0  # seconds; generous, since a snippet normally takes milliseconds
DEFAULT_DURATION = 0.1  # seconds; what sharding assumes for a snippet with no recorded duration
# Rules a page's phrase can be excepted from (text = [phrases]), and the one rule for a file.
PHRASE_RULES = ("number-in-prose", "typed-number", "general-sentence", "agreement-asserted")
EXCEPTION_RULES = ("not-on-a-page", *PHRASE_RULES)
EXCEPTION_KEYS = {"path", "rule", "reason", "text"}
SNIPPET_KEYS = {"timeout", "duration", "values", "normalise"}
DEFAULT_KEYS = {"timeout"}


class CatalogError(Exception):
    """The metadata file or the snippets tree is not as the rules say."""


@dataclass(frozen=True)
class Settings:
    timeout: float = DEFAULT_TIMEOUT
    duration: float = DEFAULT_DURATION
    values: dict[str, str] = field(default_factory=dict)  # name -> f-string over the run's globals
    normalise: tuple[str, ...] = ()  # opt-in normalisers (docpipe.run.normalise.OPT_IN) by name


@dataclass(frozen=True)
class Exemption:
    path: str
    rule: str
    reason: str
    text: tuple[str, ...] = ()  # a phrase rule (PHRASE_RULES): the phrases of the page it spares


@dataclass(frozen=True)
class Catalog:
    settings: dict[Snippet, Settings]
    exemptions: tuple[Exemption, ...]

    @property
    def snippets(self) -> list[Snippet]:
        return sorted(self.settings)

    def exempt(self, path: str, rule: str) -> bool:
        return any(e.path == path and e.rule == rule for e in self.exemptions)

    def allowed_numbers(self, page: str) -> tuple[str, ...]:
        """Phrases of a page (path from the repository root) whose numbers are not run results."""
        return self.allowed(page, "number-in-prose")

    def allowed(self, page: str, rule: str) -> tuple[str, ...]:
        """The phrases of a page (path from the repository root) that a phrase rule spares."""
        return tuple(
            t for e in self.exemptions if e.path == page and e.rule == rule for t in e.text
        )


def discover(root: Path = SNIPPETS) -> list[Snippet]:
    """Every snippets/**/*.py is a snippet, except helper modules whose name starts with "_"."""
    found = []
    for folder, _, files in os.walk(root):
        found += [os.path.join(folder, f) for f in files if f.endswith(".py") and f[0] != "_"]
    try:
        return sorted(Snippet.from_path(p) for p in found)
    except ValueError as e:
        raise CatalogError(str(e)) from None


def load(meta: Path = META, root: Path = SNIPPETS) -> Catalog:
    where = rel(meta)
    try:
        text = meta.read_text(encoding="utf-8") if meta.exists() else ""
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CatalogError(f"{where}: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CatalogError(f"{where}: cannot be read ({e})") from None
    lines = _Lines(where, text)
    defaults = data.pop("defaults", {})
    if not isinstance(defaults, dict):
        raise CatalogError(f"{lines.at('defaults')}: [defaults] must be a table")
    for unknown in sorted(set(defaults) - DEFAULT_KEYS):
        raise CatalogError(
            f"{lines.at(unknown, 'defaults')}: [defaults] has unknown setting {unknown!r}"
            f" (known: {', '.join(sorted(DEFAULT_KEYS))})"
        )
    timeout = _seconds(defaults, "timeout", DEFAULT_TIMEOUT, lines, "defaults")
    exceptions = data.pop("exception", [])
    if not isinstance(exceptions, list):
        raise CatalogError(f"{lines.at('exception')}: exception must be [[exception]] tables")
    exemptions = tuple(
        _exemption(lines.nth_exception(n), e) for n, e in enumerate(exceptions, start=1)
    )
    snippets = discover(root)
    known = {s.key + ".py": s for s in snippets}
    settings = {s: Settings(timeout=timeout) for s in snippets}
    for name, entry in data.items():
        if name not in known:
            raise CatalogError(f'{lines.at(name)}: ["{name}"] names no file snippets/{name}')
        if not isinstance(entry, dict):
            raise CatalogError(f'{lines.at(name)}: ["{name}"] must be a table of settings')
        for unknown in sorted(set(entry) - SNIPPET_KEYS):
            raise CatalogError(
                f'{lines.at(unknown, name)}: ["{name}"] has unknown setting {unknown!r}'
                f" (known: {', '.join(sorted(SNIPPET_KEYS))})"
            )
        values = entry.get("values", {})
        if not isinstance(values, dict):
            values = {"values": values}
        for bad in [k for k, v in values.items() if not isinstance(v, str)][:1]:
            raise CatalogError(
                f'{lines.at(bad, name)}: ["{name}"] values: {bad} = {values[bad]!r} is no string'
                ' (an f-string over the run\'s globals, e.g. loss = "{loss.item():.4f}")'
            )
        normalise = entry.get("normalise", [])
        if not isinstance(normalise, list) or not all(isinstance(n, str) for n in normalise):
            raise CatalogError(
                f'{lines.at("normalise", name)}: ["{name}"] normalise: a list of names'
            )
        settings[known[name]] = Settings(
            timeout=_seconds(entry, "timeout", timeout, lines, name),
            duration=_seconds(entry, "duration", DEFAULT_DURATION, lines, name),
            values=dict(values),
            normalise=tuple(normalise),
        )
        for opt in settings[known[name]].normalise:
            if opt not in OPT_IN:
                raise CatalogError(
                    f'{where}: ["{name}"] normalise: unknown normaliser {opt!r}'
                    f" (known: {', '.join(OPT_IN)})"
                )
    return Catalog(settings, exemptions)


def current(meta: Path = META) -> Catalog:
    """load(), read again only when snippets.toml changed (its size or time): for what asks for
    a snippet's settings many times in one build (docpipe.pages.reproduced, once per claim)."""
    try:
        info = meta.stat()
        stamp = (info.st_mtime_ns, info.st_size)
    except OSError:
        stamp = None
    return _loaded(meta, stamp)


@functools.lru_cache(maxsize=2)
def _loaded(meta: Path, stamp: tuple[int, int] | None) -> Catalog:
    return load(meta)


def _seconds(table: dict, key: str, default: float, lines: _Lines, name: str) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        shown = f'["{name}"]' if name != "defaults" else "[defaults]"
        raise CatalogError(
            f"{lines.at(key, name)}: {shown} {key} = {value!r}: a number of seconds above 0"
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

    def at(self, key: str, table: str | None = None) -> str:
        """'snippets/snippets.toml:N' where `key` is set under `table` (None: at the top level,
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
                    return f"{self.where}:{number}"
                if table is not None and current == table:
                    header_line = header_line or number
                    if parts[1:2] == [key]:
                        return f"{self.where}:{number}"
            elif current == table and setting.match(line):
                return f"{self.where}:{number}"
        return f"{self.where}:{header_line}" if header_line else self.where

    def nth_exception(self, n: int) -> str:
        if 0 < n <= len(self.exceptions):
            return f"{self.where}:{self.exceptions[n - 1]}"
        return self.where


def _exemption(where: str, entry: dict) -> Exemption:
    if not isinstance(entry, dict):
        raise CatalogError(f"{where}: an [[exception]] must be a table")
    missing = {"path", "rule", "reason"} - set(entry)
    if missing:
        raise CatalogError(f"{where}: an [[exception]] lacks {sorted(missing)}")
    name = f"{where}: [[exception]] {entry['path']}"
    if entry["rule"] not in EXCEPTION_RULES:
        raise CatalogError(
            f"{name}: unknown rule {entry['rule']!r} (known: {', '.join(EXCEPTION_RULES)})"
        )
    unknown = set(entry) - EXCEPTION_KEYS
    if unknown:
        raise CatalogError(f"{name}: unknown key(s) {sorted(unknown)}")
    if not isinstance(entry["reason"], str) or not entry["reason"].strip():
        raise CatalogError(f"{name}: the reason is empty; say why the rule does not apply")
    text = entry.get("text", [])
    rule = entry["rule"]
    if rule in PHRASE_RULES:
        if not isinstance(text, list) or not text:
            what = "with the number" if "number" in rule else "of the sentence"
            raise CatalogError(f"{name}: {rule} needs text = [phrases {what}]")
        for phrase in text:
            if not isinstance(phrase, str) or not phrase.strip():
                raise CatalogError(f"{name}: text {phrase!r} is not a phrase of the page")
            if rule == "number-in-prose" and not any(c.isdigit() for c in phrase):
                raise CatalogError(
                    f"{name}: text {phrase!r} holds no digit (name the phrase around the number)"
                )
    elif "text" in entry:
        raise CatalogError(f"{name}: text applies only to the rules {', '.join(PHRASE_RULES)}")
    return Exemption(entry["path"], entry["rule"], entry["reason"], tuple(text))

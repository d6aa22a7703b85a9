"""The snippets there are, and their settings from the one metadata file, snippets/snippets.toml."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .normalise import OPT_IN
from .paths import META, SNIPPETS, Snippet, rel

DEFAULT_TIMEOUT = 120.0  # seconds; generous, since a snippet normally takes milliseconds
DEFAULT_DURATION = 0.1  # seconds; what sharding assumes for a snippet with no recorded duration
# Rules a page's phrase can be excepted from (text = [phrases]), and the one rule for a file.
PHRASE_RULES = ("number-in-prose", "typed-number", "general-sentence", "agreement-asserted")
EXCEPTION_RULES = ("not-on-a-page", *PHRASE_RULES)
EXCEPTION_KEYS = {"path", "rule", "reason", "text"}
SNIPPET_KEYS = {"timeout", "duration", "values", "normalise"}


class CatalogError(Exception):
    """The metadata file or the snippets tree is not as the rules say."""


@dataclass(frozen=True)
class Settings:
    timeout: float = DEFAULT_TIMEOUT
    duration: float = DEFAULT_DURATION
    values: dict[str, str] = field(default_factory=dict)  # name -> f-string over the run's globals
    normalise: tuple[str, ...] = ()  # opt-in normalisers (docpipe.normalise.OPT_IN) by name


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
        data = tomllib.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}
    except tomllib.TOMLDecodeError as e:
        raise CatalogError(f"{where}: {e}") from None
    defaults = data.pop("defaults", {})
    timeout = float(defaults.get("timeout", DEFAULT_TIMEOUT))
    exemptions = tuple(_exemption(where, e) for e in data.pop("exception", []))
    snippets = discover(root)
    known = {s.key + ".py": s for s in snippets}
    settings = {s: Settings(timeout=timeout) for s in snippets}
    for name, entry in data.items():
        if name not in known:
            raise CatalogError(f'{where}: ["{name}"] names no file snippets/{name}')
        unknown = set(entry) - SNIPPET_KEYS
        if unknown:
            raise CatalogError(f'{where}: ["{name}"] has unknown setting(s) {sorted(unknown)}')
        settings[known[name]] = Settings(
            timeout=float(entry.get("timeout", timeout)),
            duration=float(entry.get("duration", DEFAULT_DURATION)),
            values=dict(entry.get("values", {})),
            normalise=tuple(entry.get("normalise", ())),
        )
        for opt in settings[known[name]].normalise:
            if opt not in OPT_IN:
                raise CatalogError(
                    f'{where}: ["{name}"] normalise: unknown normaliser {opt!r}'
                    f" (known: {', '.join(OPT_IN)})"
                )
    return Catalog(settings, exemptions)


def _exemption(where: str, entry: dict) -> Exemption:
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

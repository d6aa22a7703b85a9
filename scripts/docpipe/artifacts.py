"""What a successful run publishes: the exact bytes of every file derived from one snippet."""

from __future__ import annotations

import json
import platform
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from . import sources
from .cache import VERSIONED
from .catalog import Settings
from .normalize import normalise
from .paths import Snippet
from .pool import Outcome


class OutputError(Exception):
    """A run whose output cannot be published (the message names the snippet)."""


@cache
def environment() -> dict[str, str]:
    """What a recorded output was made with; shown on the page and compared by --check."""
    stamp = {"python": ".".join(map(str, sys.version_info[:2]))}
    for package in VERSIONED:
        try:
            stamp[package] = version(package)
        except PackageNotFoundError:
            stamp[package] = "not installed"
    stamp["platform"] = f"{platform.system()} {platform.machine()}"
    return dict(stamp)


def build(snippet: Snippet, settings: Settings, outcome: Outcome, env: dict) -> dict[Path, bytes]:
    raw = outcome.output
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise OutputError(
            f"{snippet.name}: printed bytes that are not UTF-8"
            f" (at byte {e.start}: {raw[e.start : e.start + 4]!r})"
        ) from None
    pieces, start = [], 0
    for section, end in outcome.result.sections:
        pieces.append([section, normalise(raw[start:end].decode(), settings.normalise)])
        start = end
    record = {
        "command": snippet.command,
        "environment": env,
        "sections": pieces,
        "values": outcome.result.values,
        "inputs": sources.inputs(snippet, settings, outcome.result.reads),
    }
    files = {
        snippet.output: normalise(raw.decode(), settings.normalise).encode(),
        snippet.record: (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode(),
    }
    for name, svg in outcome.result.figures.items():
        figure, _, theme = name.partition(".")
        files[snippet.figure(figure, theme or "light")] = svg.encode()
    return files

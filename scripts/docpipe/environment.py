"""The packages whose versions shape a run: one list, for the cache key, the environment stamp
on every page, and the modules the runner imports once before it starts the snippets."""

from __future__ import annotations

import platform
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version

VERSIONED = ("torch", "numpy", "matplotlib")


@cache
def stamp() -> dict[str, str]:
    """What a recorded output was made with; shown on the page and compared by --check."""
    found = {"python": ".".join(map(str, sys.version_info[:2]))}
    for package in VERSIONED:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    found["platform"] = f"{platform.system()} {platform.machine()}"
    return found


@cache
def fingerprint() -> str:
    """Everything about the interpreter and packages that a cached run depends on."""
    return "\n".join([sys.version, *(f"{k}=={v}" for k, v in sorted(stamp().items()))])

"""The packages whose versions shape a run: one list, for the cache key, the environment stamp
on every page, and the modules the runner imports once before it starts the snippets."""

from __future__ import annotations

import importlib.util
import platform
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

VERSIONED = ("torch", "numpy", "matplotlib")


@cache
def stamp() -> dict[str, str]:
    """What a recorded output was made with; shown on the page and compared by --check."""
    found = {"python": ".".join(map(str, sys.version_info[:2]))}
    for package in VERSIONED:
        try:
            found[package] = torch_version() if package == "torch" else version(package)
        except PackageNotFoundError:
            found[package] = "not installed"
    found["platform"] = f"{platform.system()} {platform.machine()}"
    return found


def torch_version() -> str:
    """torch.__version__ with its build ("2.13.0+cpu"), read from the torch/version.py that
    sets it, without importing torch. Package metadata may leave the build out: the CUDA wheels
    on PyPI say "2.14.1" where torch.__version__ is "2.14.1+cu130"."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise PackageNotFoundError("torch")
    source = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    if not source.is_file():  # an unusual install: its metadata is what there is
        return version("torch")
    namespace: dict = {}
    exec(
        compile(source.read_text(encoding="utf-8"), str(source), "exec", dont_inherit=True),
        namespace,
    )
    return namespace["__version__"]


@cache
def identity() -> str:
    """Everything about the interpreter and packages that a cached run depends on, as text
    (part of every cache key; not a fingerprint, which is a file's content digest)."""
    return "\n".join([sys.version, *(f"{k}=={v}" for k, v in sorted(stamp().items()))])

"""A run imports the repository's modules from their source, never from a .pyc.

Python trusts a .pyc whose recorded source mtime (to the second) and size match the source's,
so a helper edited within the second its .pyc was written, to the same size, would run as it
was. In a run, every folder of the repository imports through SourceOnlyLoader, which
compiles the source each time and reads and writes no bytecode; installed packages keep
their .pyc files (compiling torch's lazy imports from source would cost seconds a run).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname):
        return self.source_to_code(self.get_data(self.path), self.path)


def install(root: str, skipped: tuple[str, ...]) -> None:
    """Import every module found in a folder beneath root (but not beneath `skipped`) from
    its source, from now on in this process."""
    loaders = [
        (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
        (SourceOnlyLoader, importlib.machinery.SOURCE_SUFFIXES),
    ]
    inside = root + os.sep

    def hook(path: str):
        full = os.path.abspath(path or ".")
        if not full.startswith(inside) or full.startswith(skipped) or not os.path.isdir(full):
            raise ImportError("not a folder of the repository")
        return importlib.machinery.FileFinder(path, *loaders)

    sys.path_hooks.insert(0, hook)
    for path in list(sys.path_importer_cache):
        full = os.path.abspath(path or ".")
        if full.startswith(inside) and not full.startswith(skipped):
            del sys.path_importer_cache[path]

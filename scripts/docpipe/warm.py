"""Imported once by the fork server that every snippet's process is forked from: it pays the
slow imports (DOCPIPE_WARM, comma-separated) once per run instead of once per snippet.

A module that fails to import here is skipped silently on purpose: each snippet that imports it
then fails in its own process with the real error, named, and the other snippets run.
"""

import contextlib
import importlib
import os

from . import execute  # noqa: F401  (every child needs it: import it before the fork)

for _name in filter(None, os.environ.get("DOCPIPE_WARM", "").split(",")):
    with contextlib.suppress(BaseException):
        importlib.import_module(_name)
        if _name == "matplotlib":
            importlib.import_module("matplotlib.pyplot")

"""Imported once by the zygote that every snippet's process is forked from: it pays the slow
imports (DOCPIPE_WARM, comma-separated) once instead of once per snippet.

Every child needs the runner itself, so it is imported here too; the rest of the list is the
heavy packages the snippets import and what their last runs imported (docpipe.cache.imports).
A module that fails to import here is skipped silently on purpose: each snippet that imports it
then fails in its own process with the real error, named, and the other snippets run.
"""

import contextlib
import importlib
import os

from . import execute, sections  # noqa: F401  (every child runs execute.child_main)


def load(names) -> None:
    for name in names:
        with contextlib.suppress(BaseException):
            importlib.import_module(name)
            if name == "matplotlib":
                importlib.import_module("matplotlib.pyplot")


sections.preprocessor()  # every child reads its snippet's sections with pymdownx's grammar
load(filter(None, os.environ.get("DOCPIPE_WARM", "").split(",")))
execute.reseed()  # the first call pays lazy set-up (numpy's is ~9 ms); each child reseeds anyway

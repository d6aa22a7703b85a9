"""The zygote's preloads: imported once by the zygote that every snippet's process is forked
from, so that the slow imports (zygote.PRELOADS, comma-separated) are paid once, not once per
snippet.

Every child needs the runner itself, so it is imported here too; the rest of the preloads are
the heavy packages the snippets import (pool.preloads). The extended zygote then loads each
snippet's own preloads, what its last run asked for beyond them (execute.Result.preloads, kept
in its record: docpipe.recorded.record.Record.preloads, read by pipeline.last_preloads).
A module that fails to import here is skipped silently on purpose: each snippet that imports it
then fails in its own process with the real error, named, and the other snippets run.
"""

import contextlib
import importlib
import os
import sys

from docpipe import sections
from docpipe.run import execute  # noqa: F401  (every child runs execute.child_main)
from docpipe.run.messages import PRELOADS

# With matplotlib, what the runner itself draws with: pyplot, the Agg backend (MPLBACKEND in
# execute.RUN_ENV, loaded on the first figure) and the SVG backend figures are saved with.
WITH_MATPLOTLIB = (
    "matplotlib.pyplot",
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_svg",
)


def load(modules) -> None:
    """Import these modules (and, with matplotlib, what the runner draws with); once torch is
    among them, pay its first use here too (at start, or preloaded later by a message)."""
    for name in modules:
        with contextlib.suppress(BaseException):
            importlib.import_module(name)
            if name == "matplotlib":
                for module in WITH_MATPLOTLIB:
                    importlib.import_module(module)
    _warm_torch()
    if "numpy" in sys.modules:
        # Every child reseeds numpy's generator (execute.reseed), and numpy imports its random
        # module on first use: here once, not in every child.
        with contextlib.suppress(BaseException):
            importlib.import_module("numpy.random")


def _first_gradient() -> None:
    # torch sets up its CPU kernels, autograd engine and allocator on first use, and imports a
    # module on the first print of a tensor: paid here once, not in every child. (A backward()
    # given its gradient imports sympy, 0.5 s: left to the extended zygote of the few snippets
    # that do it.) Nothing a snippet can observe changes: the random state is reseeded in each
    # child, and one thread means no thread pool for a child to inherit.
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    w = torch.randn(8, 8, requires_grad=True)
    with torch.no_grad():
        w.mul_(1.0)
    y = (torch.randn(2, 8) @ w).pow(2).mean()
    y.backward()
    repr(y)
    torch.set_num_threads(threads)


# The files on the stack torch.manual_seed() keeps (for a lazy GPU start): it reads each one's
# source into linecache. Read here once, with the runner's own, not in every child that seeds.
SEED_STACK = ("torch.random", "torch.cuda.random", "torch.xpu", "torch.xpu.random", "torch.mtia")


def _stack_sources() -> None:
    import linecache

    for module in (execute, sys.modules["__main__"], *map(sys.modules.get, SEED_STACK)):
        if getattr(module, "__file__", None):
            linecache.getlines(module.__file__)


_torch_warm = False


def _warm_torch() -> None:
    global _torch_warm
    if "torch" in sys.modules and not _torch_warm:
        _torch_warm = True
        with contextlib.suppress(Exception):
            _first_gradient()
            _stack_sources()


sections.preprocessor()  # every child reads its snippet's sections with pymdownx's grammar
load(filter(None, os.environ.get(PRELOADS, "").split(",")))
execute.reseed()  # the first call pays lazy set-up (numpy's is ~9 ms); each child reseeds anyway

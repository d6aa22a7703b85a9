"""Run one snippet inside a fresh child process, exactly as `python snippets/<key>.py` would.

The child owns everything a snippet can change (globals, seeds, grad mode, default dtype, cwd,
open figures, sys.argv), so nothing leaks into the next snippet. It writes what the snippet
printed to `output` and a JSON summary to `result`; the parent reads both after the child exits.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import io
import json
import os
import random
import sys
import time
import traceback
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import figures, sections
from .paths import ABSENT, ROOT, Snippet

# The fixed environment of every run. None of it changes a result; it makes runs repeatable.
RUN_ENV = {
    "MPLBACKEND": "Agg",
    "PYTHONHASHSEED": "0",
    "PYTHONIOENCODING": "utf-8",
    "TZ": "UTC",
    "SOURCE_DATE_EPOCH": "0",
}


@dataclass
class Job:
    key: str
    values: dict[str, str]
    threads: int
    workdir: str  # holds output.txt, result.json and scratch/, the snippet's working directory

    @property
    def output(self) -> Path:
        return Path(self.workdir) / "output.txt"

    @property
    def result(self) -> Path:
        return Path(self.workdir) / "result.json"


@dataclass
class Result:
    status: str = "ok"  # ok | error
    error: str = ""
    sections: list[tuple[str | None, int]] = field(default_factory=list)  # (section, end offset)
    values: dict[str, str] = field(default_factory=dict)
    figures: dict[str, str] = field(default_factory=dict)  # "<fig>" or "<fig>.dark" -> SVG text
    # Repository files the run depends on -> sha256 of their bytes when the run read them (its
    # source, local modules (their source even when Python loaded a .pyc), data, figure code).
    inputs: dict[str, str] = field(default_factory=dict)
    writes: list[str] = field(default_factory=list)  # repository files the run opened to write
    # Installed modules the run imported that its own code (or a warm package) asked for.
    imported: list[str] = field(default_factory=list)
    # Where a failing run stopped: the section that raised and the innermost snippet line.
    failed_section: str | None = None
    failed_line: int = 0
    run_seconds: float = 0.0
    figure_seconds: float = 0.0


def child_main(job: Job) -> None:
    """Entry point of the child process (forked or spawned)."""
    result = Result()
    imports = _ImportRecorder()
    sys.meta_path.insert(0, imports)
    snippet = Snippet(job.key)
    scratch = Path(job.workdir) / "scratch"
    scratch.mkdir(exist_ok=True)
    os.environ.update(RUN_ENV)
    sys.dont_write_bytecode = True
    _limit_threads(job.threads)
    reseed()
    # Warning filters stay as the zygote has them: CPython's defaults plus what torch and numpy
    # add when they are imported, as in a reader's process.
    _watch_repository_files(result)
    stream = _capture_output(job.output)
    try:
        os.chdir(scratch)
        module = _main_module(snippet)
        started = time.perf_counter()
        kept = dict(vars(builtins))  # what the runner's own code after the run relies on
        try:
            with figures.observing(snippet):
                _run_chunks(snippet, module, stream, result)
        finally:
            vars(builtins).update(kept)  # a snippet's builtins.len = ... ends with its run
        result.run_seconds = time.perf_counter() - started
        _note_local_modules(result, imports)
        # What the page shows ends here: values and figures must not print into it.
        _capture_output(Path(job.workdir) / "aside.txt")
        if result.status == "ok":
            result.values = _values(snippet, job.values, vars(module))
            started = time.perf_counter()
            result.figures = _figures(snippet, vars(module))
            result.figure_seconds = time.perf_counter() - started
            _note_local_modules(result, imports)
        if not snippet.figure_code.exists():
            result.inputs[os.path.relpath(snippet.figure_code, ROOT)] = ABSENT
    except _Failure as failure:
        result.status, result.error = "error", str(failure)
    except BaseException as e:  # a fault of the runner itself: still report it, never crash
        result.status = "error"
        result.error = f"{snippet.name}: the runner failed: " + "".join(
            traceback.format_exception(e)
        )
    finally:
        sys.stdout.flush()
        with contextlib.suppress(OSError):
            os.chdir(ROOT)
    _write_result(job.result, asdict(result))


# Taken at import, before any snippet runs: a snippet may replace json.dumps, builtins.open or
# os.write for its own process, never for how its result is written. The parent checks the
# result anyway (pool.parsed): whatever a snippet corrupts is its own failure.
_dumps, _os_open, _os_write, _os_close = json.dumps, os.open, os.write, os.close


def _write_result(path: Path, fields: dict) -> None:
    data = _dumps(fields).encode("utf-8")
    fd = _os_open(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while data:
            data = data[_os_write(fd, data) :]
    finally:
        _os_close(fd)


def _figures(snippet: Snippet, namespace: dict) -> dict[str, str]:
    try:
        return figures.draw(snippet, namespace)
    except Exception as e:
        code = str(snippet.figure_code)
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != __file__]
        where = next(
            (
                f"{f.filename}:{f.lineno}"
                for f in reversed(frames)
                if f.filename.startswith(str(snippet.figure_code.parent))
            ),
            code,
        )
        detail = "".join(traceback.format_list(frames[-6:]))
        raise _Failure(
            f"{snippet.name}: its figure code failed at {where.replace(str(ROOT) + '/', '')}:"
            f" {type(e).__name__}: {e}\n{detail}"
        ) from None


class _Failure(Exception):
    pass


def _limit_threads(threads: int) -> None:
    # Several children share the cores: cap each one's pools so they do not fight over them.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def reseed() -> None:
    # A forked child inherits the parent's random state; a fresh interpreter would not.
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "torch" in sys.modules:
        # The CPU generator: a fresh interpreter seeds it from the OS, and seeds the others
        # (CUDA and the like) only when they start, which a forked child's have not.
        sys.modules["torch"].default_generator.seed()


RUNNER = str(Path(__file__).parent)  # keyed as a whole by the cache, not per run
_SKIP = (str(ROOT / ".venv"), str(ROOT / ".git"), sys.prefix, sys.base_prefix, RUNNER)


def _input_path(path: str) -> str | None:
    """The repository file a read depends on (a .pyc stands for its source), or None."""
    path = os.path.abspath(path)
    if not path.startswith(str(ROOT) + os.sep) or path.startswith(_SKIP):
        return None
    if f"{os.sep}__pycache__{os.sep}" in path and path.endswith(".pyc"):
        import importlib.util

        try:
            path = importlib.util.source_from_cache(path)
        except ValueError:
            return None
    return path


def _fingerprint(result: Result, path: str) -> None:
    relative = os.path.relpath(path, ROOT)
    if relative not in result.inputs:
        try:
            with open(path, "rb") as f:
                result.inputs[relative] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            result.inputs[relative] = ABSENT


class _ImportRecorder:
    """Names every module this run imports, and which of them were asked for by code that was
    already loaded (the snippet, its local modules, or a warm package importing lazily, as torch
    imports torch._dynamo on a first optimizer step). Those are what the zygote imports next
    time; the rest come with them. Reading new names off sys.modules instead would touch every
    name the zygote imported, and so copy the memory pages holding them."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.seen: set[str] = set()
        self.asked: list[str] = []

    def find_spec(self, name, path=None, target=None):
        frame = sys._getframe(1)
        while frame and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        caller = frame.f_globals.get("__name__") if frame else None
        local = frame is not None and _input_path(frame.f_code.co_filename) is not None
        if local or caller not in self.seen:
            self.asked.append(name)
        self.names.append(name)
        self.seen.add(name)
        return None  # the next finder imports it


def _note_local_modules(result: Result, imports: _ImportRecorder) -> None:
    # An import can be served from a .pyc without opening the source: fingerprint the source of
    # every repository module the run imported. Local modules are never preloaded by the zygote.
    installed = set()
    for name in dict.fromkeys(imports.names):
        found = getattr(sys.modules.get(name), "__file__", None)
        path = _input_path(found) if isinstance(found, str) else None
        if path:
            _fingerprint(result, path)
        elif isinstance(found, str) and not found.startswith(RUNNER):
            installed.add(name)
    result.imported = sorted(installed.intersection(imports.asked))


def _watch_repository_files(result: Result) -> None:
    busy = False

    def hook(event: str, args: tuple) -> None:
        nonlocal busy
        if busy or event != "open" or not isinstance(args[0], str | bytes | os.PathLike):
            return
        path = _input_path(os.fsdecode(args[0]))
        if path is None:
            return
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else "r"
        relative = os.path.relpath(path, ROOT)
        if any(c in mode for c in "wax+"):
            if relative not in result.writes:
                result.writes.append(relative)
            raise PermissionError(f"snippets may not write into the repository ({relative})")
        busy = True  # fingerprinting opens the file too
        try:
            _fingerprint(result, path)
        finally:
            busy = False

    sys.addaudithook(hook)


def _capture_output(path: Path) -> io.TextIOWrapper:
    # One file behind fd 1, fd 2, sys.stdout and sys.stderr: Python and C writes, stdout and
    # stderr, all land in the order a terminal would show them.
    stream = io.TextIOWrapper(
        io.FileIO(path, "w"), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    for fd in (1, 2):
        os.dup2(stream.fileno(), fd)
    sys.stdout = sys.stderr = stream
    return stream


def _main_module(snippet: Snippet) -> types.ModuleType:
    module = types.ModuleType("__main__")
    module.__file__ = str(snippet.source)
    module.__builtins__ = builtins
    module.__spec__ = None
    sys.modules["__main__"] = module
    sys.argv = [snippet.name]
    sys.path.insert(0, str(snippet.source.parent))
    return module


def _run_chunks(snippet: Snippet, module, stream, result: Result) -> None:
    source = snippet.source.read_bytes()
    result.inputs[os.path.relpath(snippet.source, ROOT)] = hashlib.sha256(source).hexdigest()
    text = source.decode("utf-8")
    try:
        chunks = sections.split(text, str(snippet.source), snippet.name)
    except SyntaxError as e:
        traceback.print_exception(e, limit=0)
        raise _Failure(f"{snippet.name}:{e.lineno}: SyntaxError: {e.msg}") from None
    except sections.SectionError as e:
        raise _Failure(str(e)) from None
    for chunk in chunks:
        try:
            exec(chunk.code, vars(module))
        except SystemExit as e:
            result.sections.append((chunk.section, stream.tell()))
            _exit(snippet, e)
            return
        except BaseException as e:
            traceback.print_exception(e.with_traceback(e.__traceback__.tb_next))
            result.failed_section, result.failed_line = chunk.section, _innermost_line(e, snippet)
            where = f":{result.failed_line}" if result.failed_line else ""
            raise _Failure(f"{snippet.name}{where}: {type(e).__name__}: {e}") from None
        result.sections.append((chunk.section, stream.tell()))


def _exit(snippet: Snippet, e: SystemExit) -> None:
    if e.code is None or e.code == 0:
        return
    if not isinstance(e.code, int):
        print(e.code, file=sys.stderr)
    raise _Failure(f"{snippet.name}: exited with status {e.code if isinstance(e.code, int) else 1}")


def _innermost_line(e: BaseException, snippet: Snippet) -> int:
    line = 0
    for frame, lineno in traceback.walk_tb(e.__traceback__):
        if frame.f_code.co_filename == str(snippet.source):
            line = lineno
    return line


def _values(snippet: Snippet, templates: dict[str, str], namespace: dict) -> dict[str, str]:
    values = {}
    for name, template in templates.items():
        try:
            values[name] = eval("f" + repr(template), dict(namespace))
        except Exception as e:
            raise _Failure(
                f"snippets/snippets.toml: value '{name}' of {snippet.name}"
                f" ({template}) failed: {type(e).__name__}: {e}"
            ) from None
    return values

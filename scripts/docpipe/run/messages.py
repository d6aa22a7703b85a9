"""Every message between the runner's processes, as dataclasses with one encoding.

Four processes talk: the parent (docpipe.run.pool), the zygote and the extended zygote
(docpipe.run.zygote) and the child that runs one snippet (docpipe.run.execute).

    parent -> zygote            Preload, PreloadExtended, Fork
    zygote -> extended zygote   Preload, Fork (a job it hands on)
    either zygote -> parent     Started, Exited, Forwarded, ExtendedPreloads, ExtendedReady,
                                ExtendedExited
    child -> parent             Result (the file result.json in the job's folder)

A message is one line of JSON, `{"type": <class name>, <field>: <value>, ...}`: encode() writes
it, decode() reads it back into its class, checking every field against the class's
annotations; each receiver dispatches on the class (`match`), never on which keys a dict holds.

A malformed line from a zygote is a fault of the runner, not of an author (MalformedMessage, a
ValueError: no DocpipeError). A malformed Result is the fault of the snippet whose process wrote
it (a snippet can replace json.dumps, builtins.len, os.path ...): decode_result raises
MalformedResult, and the pool fails that snippet's run with it; nothing it wrote is trusted.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
import types
import typing
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from docpipe.problems import RUN, Problem
from docpipe.project import ABSENT
from docpipe.statuses import RunStatus

# The zygote's preloads, comma-separated, in the environment it starts with (docpipe.run.preload).
PRELOADS = "DOCPIPE_PRELOADS"

# ---- the job and its result -------------------------------------------------------------


@dataclass
class Job:
    """One snippet to run: what the parent sends (in Fork) and the child runs."""

    root: str  # the project's root: the child runs snippets/<key>.py of this project
    key: str
    values: dict[str, str]
    threads: int
    workdir: str = ""  # holds output.txt, result.json and scratch/: the snippet's working dir
    memory: int = 0  # MiB its process may allocate (catalog.DEFAULT_MEMORY when 0)
    split: str = ""  # the snippet split by the parent (docpipe.run.splits; "" for none)

    @property
    def output(self) -> Path:
        return Path(self.workdir) / "output.txt"

    @property
    def result(self) -> Path:
        return Path(self.workdir) / "result.json"

    @property
    def notes(self) -> Path:
        """What the runner's own processes say of the run (docpipe.run.namespaces.Notes):
        beside the job's folder, never in it, where no process of the run can reach it."""
        return Path(self.workdir + ".notes")


@dataclass
class Result:
    """What the child found, written to the job's result.json (encode_result), read back by
    the parent (decode_result)."""

    status: RunStatus = RunStatus.OK
    # A failed run's error: what went wrong (error), and where: the file (relative to the
    # root: the snippet, its figure code, snippets.toml) and its line, 0 for none. Set through
    # fail(); its text is composed from these fields (problem), never parsed back.
    error: str = ""
    error_path: str = ""
    error_line: int = 0
    sections: list[tuple[str | None, int]] = field(default_factory=list)  # (section, end offset)
    values: dict[str, str] = field(default_factory=dict)
    figures: dict[str, str] = field(default_factory=dict)  # "<fig>" or "<fig>.dark" -> SVG text
    # Repository files the run depends on -> sha256 of their bytes when the run read them (its
    # source, local modules (their source even when Python loaded a .pyc), data, figure code).
    inputs: dict[str, str] = field(default_factory=dict)
    writes: list[str] = field(default_factory=list)  # repository files the run opened to write
    # Repository files the run may have read that `inputs` does not hold, sorted, as POSIX
    # paths relative to the root: every file it could read that Python's audit hooks cannot
    # see it read (a C library's fopen, as torch.from_file does): the data files (not .py,
    # not bytecode) of what execute.readable_inside lets a run read.
    reads: list[str] = field(default_factory=list)
    # The data files no process of the run opened, by any route (docpipe.run.opened), taken
    # out of `reads`: set by the runner from what its own processes saw (namespaces.Notes),
    # never from what the run wrote; [] where the kernel cannot tell (every one a read).
    unread: list[str] = field(default_factory=list)
    watched: bool = False  # whether the kernel told which data files it opened (`unread`)
    # How the run was kept from changing the repository: "landlock", or "" where the kernel
    # has none (then the parent compares the repository before and after: docpipe.run.tripwire).
    sealed: str = ""
    # The preloads of its next run: installed modules the run imported that its own code (or
    # a preloaded package) asked for; the zygote imports them before that run.
    preloads: list[str] = field(default_factory=list)
    # Where a failing run stopped: the section that raised and the innermost snippet line.
    failed_section: str | None = None
    failed_line: int = 0
    # The failure is a claim that could not have failed (docpipe.run.ledger), not a false one.
    cannot_fail: bool = False
    # (claim section, line, how many times it ran) of every assert of its claim sections.
    claims: list[tuple[str, int, int]] = field(default_factory=list)
    run_seconds: float = 0.0
    figure_seconds: float = 0.0
    # Milliseconds each step of the run's set-up took (docpipe.run.timing), for the benchmark.
    steps: dict[str, float] = field(default_factory=dict)

    def fail(self, message: str, path: str, line: int = 0, first: bool = False) -> None:
        """Fail the run with this error. An error it has already stays its error, and this
        one is said after it, with its place; with `first`, this one becomes its error and
        the one before is said after it."""
        if self.status != RunStatus.ERROR or not self.error:
            self.status = RunStatus.ERROR
            self.error, self.error_path, self.error_line = message, path, line
            return
        if first:
            earlier = str(self.problem)
            self.error, self.error_path, self.error_line = message, path, line
            self.error += "\n  " + earlier
        else:
            self.error += "\n  " + str(Problem(path, line or None, message, RUN))

    @property
    def problem(self) -> Problem:
        """The run's error as a Problem (its text: `path:line: error`)."""
        return Problem(self.error_path, self.error_line or None, self.error, RUN)


# ---- parent -> zygote (and zygote -> extended zygote) -------------------------------------


@dataclass(frozen=True)
class Preload:
    """Import these modules now, before the next fork."""

    modules: list[str]


@dataclass(frozen=True)
class PreloadExtended:
    """Start the extended zygote's preloads of whichever of these modules this zygote lacks,
    so that they overlap the runs that need none of them. Answered by ExtendedPreloads."""

    modules: list[str]


@dataclass(frozen=True)
class Fork:
    """Run this job in a child forked from a zygote that has the snippet's own preloads (what
    its last run asked for): this zygote, or the extended one (then Forwarded first)."""

    job: Job
    preloads: list[str]


# ---- either zygote -> parent --------------------------------------------------------------


@dataclass(frozen=True)
class Started:
    """The job's child started, with this pid (the parent kills it at its timeout)."""

    key: str
    pid: int


@dataclass(frozen=True)
class Exited:
    """The job's child ended: its exit code (-N: killed by signal N) and what its processes
    left running, killed then (execute.describe's text, or "")."""

    key: str
    code: int
    left: str


@dataclass(frozen=True)
class Forwarded:
    """The job went to the extended zygote, which reports its Started and Exited."""

    key: str


@dataclass(frozen=True)
class ExtendedPreloads:
    """The answer to PreloadExtended: the modules only the extended zygote will have."""

    modules: list[str]


@dataclass(frozen=True)
class ExtendedReady:
    """The extended zygote has its preloads."""


@dataclass(frozen=True)
class ExtendedExited:
    """The extended zygote ended (its children's reports with it), with this exit code."""

    code: int


Request = Preload | PreloadExtended | Fork  # what a zygote reads
Report = Started | Exited | Forwarded | ExtendedPreloads | ExtendedReady | ExtendedExited
Message = Request | Report
TYPES = {cls.__name__: cls for cls in typing.get_args(Message)}


class MalformedMessage(ValueError):
    """A line that is not a message of this module (a fault of the runner itself)."""


class MalformedResult(MalformedMessage):
    """A result.json that is not what execute.child_main writes: the snippet's own failure."""


# Taken at import, before any snippet runs (the zygote imports this module): a snippet may
# replace json.dumps for its own process, never for how its result is written.
_dumps, _asdict = json.dumps, dataclasses.asdict


def encode(message: Message) -> bytes:
    """One line: the message's type and fields as JSON, ending in a newline."""
    return _dumps({"type": type(message).__name__, **_asdict(message)}).encode() + b"\n"


def decode(line: bytes, expected=Message) -> Message:
    """The message encode() wrote as this line, one of the `expected` classes (Request,
    Report); MalformedMessage says what is wrong."""
    fields = _json_object(line, MalformedMessage)
    name = fields.pop("type", None)
    if name not in TYPES:
        raise MalformedMessage(f"no message type {name!r}")
    if TYPES[name] not in typing.get_args(expected):
        names = ", ".join(cls.__name__ for cls in typing.get_args(expected))
        raise MalformedMessage(f"a {name}, not one of {names}")
    return _build(TYPES[name], fields, MalformedMessage)


def encode_result(result: Result) -> bytes:
    return _dumps(_asdict(result)).encode("utf-8")


_DIGEST = re.compile(r"[0-9a-f]{64}")


def decode_result(data: bytes, snippet) -> Result:
    """The Result a child wrote for this snippet (a docpipe.project.Snippet), checked field by
    field and against its project; MalformedResult says what is wrong."""
    result = _build(Result, _json_object(data, MalformedResult), MalformedResult)
    if result.error_path and not _repository_file(result.error_path):
        raise MalformedResult(f"error_path {result.error_path!r} is no repository file path")
    if result.error_line < 0:
        raise MalformedResult(f"error_line {result.error_line}")
    for relative, digest in result.inputs.items():
        if not _repository_file(relative):
            raise MalformedResult(f"input {relative!r} is no repository file path")
        if digest != ABSENT and not _DIGEST.fullmatch(digest):
            raise MalformedResult(f"input {relative!r} has digest {digest[:80]!r}")
    project = snippet.project
    if result.status == RunStatus.OK:
        for relative in (project.rel(snippet.source), project.rel(snippet.figure_code)):
            if relative not in result.inputs:
                raise MalformedResult(f"its inputs do not name {relative}")
    for relative, digest in result.inputs.items():
        if digest != ABSENT and not (project.root / relative).exists():
            raise MalformedResult(f"input {relative!r} has a digest but no file")
    for relative in result.reads:
        if not _repository_file(relative):
            raise MalformedResult(f"read {relative!r} is no repository file path")
    last = 0
    for name, end in result.sections:
        if end < last:
            raise MalformedResult(f"section {name!r} ends at {end}, before {last}")
        last = end
    return result


def _json_object(data: bytes, error: type[MalformedMessage]) -> dict:
    try:
        fields = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise error(f"not JSON: {e}") from None
    if not isinstance(fields, dict):
        raise error(f"a JSON {type(fields).__name__}, not an object")
    return fields


def _build(cls: type, fields: dict, error: type[MalformedMessage]):
    """An instance of the dataclass `cls` from JSON fields, each checked against its
    annotation (nested dataclasses and tuples built too); a field left out takes its default."""
    hints = _hints(cls)
    built = {}
    for name, value in fields.items():
        if name not in hints:
            raise error(f"unknown field {name!r}")
        built[name] = _value(value, hints[name], name, error)
    try:
        return cls(**built)
    except TypeError as e:  # a field without a default is missing
        raise error(f"{cls.__name__}: {e}") from None


@cache
def _hints(cls: type) -> dict:
    return typing.get_type_hints(cls)


def _value(value, hint, name: str, error: type[MalformedMessage]):
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for option in args:
            try:
                return _value(value, option, name, error)
            except MalformedMessage:
                continue
        raise error(f"{name} is a {type(value).__name__}")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:  # no member spells it (a status the parent does not know)
            raise error(f"{name} {value!r}") from None
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise error(f"{name} is a {type(value).__name__}")
        return _build(hint, value, error)
    if origin is list:
        if not isinstance(value, list):
            raise error(f"{name} is a {type(value).__name__}")
        (item,) = args
        if typing.get_origin(item) is tuple:  # a tuple travels as a JSON list
            return [_tuple(v, item, name, error) for v in value]
        for v in value:
            if not _is(v, item):
                raise error(f"{name} holds a {type(v).__name__}")
        return value
    if origin is dict:
        if not isinstance(value, dict):
            raise error(f"{name} is a {type(value).__name__}")
        for k, v in value.items():
            if not _is(v, args[1]):
                raise error(f"{name}[{k!r}] is a {type(v).__name__}")
        return value
    if not _is(value, hint):
        raise error(f"{name} is a {type(value).__name__}")
    return value


def _tuple(value, hint, name: str, error: type[MalformedMessage]) -> tuple:
    """A tuple of simple types (Result.sections' (name, offset)) from its JSON list."""
    args = typing.get_args(hint)
    ok = isinstance(value, list) and len(value) == len(args)
    if not ok or not all(_is(v, a) for v, a in zip(value, args, strict=True)):
        raise error(f"{name} holds {str(value)[:80]}, not a list of {len(args)} of its types")
    return tuple(value)


def _is(value, hint) -> bool:
    """Whether a JSON value is of a simple type (str, int, float, None, or a union of them);
    a bool is no number."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_is(value, option) for option in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if isinstance(value, bool):
        return hint is bool
    if hint is float:
        return isinstance(value, int | float)
    return isinstance(value, hint)


def _repository_file(relative: str) -> bool:
    """A repository-relative POSIX path of a file: not absolute, no '.', '..' or empty part."""
    parts = relative.split("/")
    return (
        bool(relative)
        and not relative.startswith("/")
        and all(p not in ("", ".", "..") for p in parts)
        and "\0" not in relative
    )

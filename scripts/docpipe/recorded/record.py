"""The record of one run, docs/generated/<key>.json: the one type every reader of it uses."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from docpipe.problems import RUN, DocpipeError
from docpipe.project import Snippet


class RecordError(DocpipeError):
    """A record that is missing or cannot be read (the path names it); regen makes it anew."""

    kind = RUN


@dataclass(frozen=True)
class Record:
    command: str  # what a reader types to see this output
    environment: dict[str, str]  # docpipe.environment.stamp() of the run
    sections: list[tuple[str | None, str]]  # (section, what it printed), in run order
    values: dict[str, str]  # quoted in prose as {{ <key>.py:<name> }}
    normalised: list[str] = field(default_factory=list)  # normalisers that changed the output
    inputs: dict[str, str] = field(
        default_factory=dict
    )  # docpipe.recorded.fingerprints: what it was made from
    # The installed modules this snippet's forked runs imported beyond the zygote's shared
    # preloads (execute.Result.preloads): its next run's zygote imports them first, in a fresh
    # clone too. A run forked from that zygote cannot see them imported, so they stay listed
    # while the snippet exists (pipeline.publishable joins them); a hint for speed, which
    # changes no output.
    preloads: list[str] = field(default_factory=list)
    # How many times each assert of each claim section ran (docpipe.run.ledger): claim
    # section -> {line: runs}. A page's check mark says over how many cases its claim ran.
    claims: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        return (json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n").encode()

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Record:
        try:
            raw = json.loads(data)
            raw["sections"] = [tuple(s) for s in raw["sections"]]
            return cls(**raw)
        except (ValueError, TypeError, KeyError) as e:
            raise RecordError(
                f"not a run record ({e}); run: python scripts/regen.py", where
            ) from None

    def runs_of(self, section: str) -> dict[int, int] | None:
        """Line -> how many times that assert of the claim section ran; None: not recorded."""
        counted = self.claims.get(section)
        return None if counted is None else {int(line): n for line, n in counted.items()}

    def output_of(self, section: str) -> str:
        """What a section printed ("" for the whole run)."""
        return "".join(text for name, text in self.sections if name == section or not section)


def load(snippet: Snippet) -> Record:
    path = snippet.record
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        raise RecordError(
            f"no recorded run for {snippet.name} (run: python scripts/regen.py)"
        ) from None
    return _load(path, mtime, snippet.project.rel(path))


@cache
def _load(path: Path, mtime: int, where: str) -> Record:
    return Record.from_bytes(path.read_bytes(), where)


def listed_preloads(snippet: Snippet) -> list[str]:
    """What the snippet's record lists as its preloads ([] with no readable record)."""
    try:
        return load(snippet).preloads
    except RecordError:
        return []

"""Every status the pipeline gives: one enum per question, each member spelled as the files and
messages that carry it spell it (result.json, verified/torch-VERSION.json), so nothing on disk
changes. They are StrEnums: a member is its own spelling in JSON and in text.

    RunStatus       how a run of a snippet ended          run.messages.Result, the verify child
    CheckStatus     what a check found for a snippet      pipeline.Verdict
    DriftKind       how a published file differs          recorded.drift.Drift
    VerifiedStatus  a snippet under another torch         recorded.verified.Status
    ClaimStatus     a cited claim under another torch     a verification's "claims"
    ReaderStatus    a reader's run against the record     run.reader.compare

Two questions may share a word ("failed", "same", "differs"); they never share an enum."""

from __future__ import annotations

from enum import StrEnum


class RunStatus(StrEnum):
    """How one run of a snippet ended: its error, when it has one, says why."""

    OK = "ok"
    ERROR = "error"


class CheckStatus(StrEnum):
    """What a check found for one snippet, or for a notebook regen would write."""

    OK = "ok"  # the run publishes what is committed
    DRIFTED = "drifted"  # it would publish something else
    FAILED = "failed"  # it cannot publish (its error, a claim that no longer holds)
    ENVIRONMENT_ONLY = "environment-only"  # only the recorded versions would change


class DriftKind(StrEnum):
    """How one file differs from what a run would publish."""

    DIFFERS = "differs"  # committed, with other bytes
    MISSING = "missing"  # the run publishes it; nothing is committed
    STALE = "stale"  # committed; no run publishes it


class VerifiedStatus(StrEnum):
    """A snippet's standing under another torch: the "verdict" of its entry in
    verified/torch-VERSION.json, or STALE, which is never written: the snippet, its inputs or
    its recording changed since it was verified (or it never was)."""

    SAME = "same"
    DIFFERS = "differs"
    FAILED = "failed"
    STALE = "not verified"


class ClaimStatus(StrEnum):
    """One cited claim of a snippet under another torch (a verification's "claims")."""

    HELD = "held"
    FAILED = "failed"
    NOT_RUN = "not run"  # an earlier claim failed, which stops the run before this one


class ReaderStatus(StrEnum):
    """A snippet run as a reader runs it, against its recorded output."""

    SAME = "same"
    DISCLOSED = "disclosed"  # differs only where the page says so
    DIFFERS = "differs"

"""A snippet's split (its sections compiled, its claims' asserts counted in a ledger: the chunks
docpipe.run.execute runs), made by the parent before the run and handed to the child in its Job.

The split is the runner's work, not the snippet's, and the same for every run of the same text:
the pool's parent makes it before the job starts (ahead of its turn whenever the zygote has
nothing to report, while it imports or while other runs go on), and the child, instead of
splitting again (up to 50 ms for the largest snippets here), takes the parent's when it was
made of the very bytes the child reads (their SHA-256), by the same Python (its magic
number). A split is only ever made by the runner's own parent, which no snippet runs in, and
travels in the job: never from a snippet's process, whose result it controls. A snippet the
parent cannot split (a syntax error, a marker out of place) gets none: its child splits it
and says why, as before.

The payload is marshal's (code objects, tuples, lists, dicts, sets), base64 for the job's JSON.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import importlib.util
import marshal
from pathlib import Path

from docpipe import sections
from docpipe.run import ledger

Split = tuple[list[sections.Chunk], ledger.Ledger]

_LEDGER = [f.name for f in dataclasses.fields(ledger.Ledger) if f.name != "guard"]


def split(text: str, source: Path, name: str) -> Split:
    """The chunks of the snippet's text and the ledger of its claims' asserts (SyntaxError,
    sections.SectionError as the text has them): what the child runs."""
    claims = ledger.Ledger()

    def counted(section: str | None, statements):
        return (
            ledger.rewrite(statements, section, claims) if ledger.is_claim(section) else statements
        )

    return sections.split(text, str(source), name, counted), claims


def digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


def made(source: Path, name: str) -> str:
    """The split of the file at `source`, for a job ("" when it cannot be read or split: the
    child then splits it, and says why it could not)."""
    try:
        data = source.read_bytes()
        chunks, claims = split(data.decode("utf-8-sig"), source, name)
    except Exception:  # whatever it is, the child meets it again and says it
        return ""
    payload = (
        importlib.util.MAGIC_NUMBER,
        digest(data),
        [(c.section, c.code, c.line, tuple(c.reads), tuple(c.binds)) for c in chunks],
        {f: getattr(claims, f) for f in _LEDGER},
    )
    return base64.b64encode(marshal.dumps(payload)).decode("ascii")


def taken(payload: str, read: str) -> Split | None:
    """The split in a job's payload, if it was made of the bytes whose digest is `read` by
    this Python; else None (the child splits the snippet itself)."""
    if not payload:
        return None
    try:
        magic, of, chunks, fields = marshal.loads(base64.b64decode(payload, validate=True))
    except (binascii.Error, EOFError, ValueError, TypeError):
        return None
    if magic != importlib.util.MAGIC_NUMBER or of != read:
        return None
    claims = ledger.Ledger(**fields)
    made_chunks = [
        sections.Chunk(section, code, line, frozenset(reads), frozenset(binds))
        for section, code, line, reads, binds in chunks
    ]
    return made_chunks, claims

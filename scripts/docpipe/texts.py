"""The project's text files, read as UTF-8 without a byte order mark, or refused by file and line.

Every file the pipeline reads as text (a page, a snippet and the files beside it, snippets.toml,
mkdocs.yml, figure code, a recorded run) is read here (`read`, `decode`), so that a byte that
is not UTF-8 is said as `path:line: not UTF-8 (byte 0xe9 at column 4)`, never as a bare
UnicodeDecodeError naming no file (tests/test_texts.py finds any other read).

A UTF-8 byte order mark (the bytes EF BB BF that some Windows editors put first) is refused
everywhere, in the same words: Python accepts one in a script, but tomllib refuses it in
snippets.toml, pymdownx.snippets copies it into the code block a reader copies, and a marker
on the first line no longer starts the line. One rule for every file, said by its line, is
what an author can act on: save the file as "UTF-8", not "UTF-8 with BOM".
"""

from __future__ import annotations

import os
from pathlib import Path

from docpipe.problems import DocpipeError

BOM = b"\xef\xbb\xbf"


class NotText(DocpipeError, ValueError):
    """A file the pipeline reads as text that is not UTF-8, or starts with a byte order mark."""


def decode(data: bytes, name: str) -> str:
    """`data`, the bytes of the file `name` (as a report names it), as text; NotText names
    the line and column of the first byte that is not UTF-8, or the byte order mark."""
    if data.startswith(BOM):
        raise NotText(
            "starts with a UTF-8 byte order mark (BOM: the bytes EF BB BF), which the site"
            ' does not take: save it as "UTF-8", not "UTF-8 with BOM"',
            name,
            1,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        column = len(data[start : e.start].decode("utf-8", "replace")) + 1
        raise NotText(
            f"not UTF-8 (byte 0x{data[e.start]:02x} at column {column}): save it as UTF-8",
            name,
            line,
        ) from None


def read(path: Path | str, name: str | None = None) -> str:
    """The text of the file at `path`; `name`: the file as a report names it (relative to the
    project's root; default: `path` as given)."""
    with open(path, "rb") as f:
        data = f.read()
    return decode(data, name if name is not None else os.fspath(path))

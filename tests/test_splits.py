"""The parent splits each snippet before its run (docpipe.run.splits), and the child runs that
split only when it was made of the very bytes the child reads, by the same Python: else it
splits the snippet itself, as it always did. Either way the chunks and the claims' ledger are
the same."""

from __future__ import annotations

import base64
import dataclasses
import importlib.util
import marshal

import pytest

from docpipe.run import ledger, splits

pytestmark = pytest.mark.unit

TEXT = '''"""A snippet."""
from __future__ import annotations
import math
xs = [1.0, 2.0]
print(sum(xs))
# --8<-- [start:claim-sum]
for x in xs:
    assert math.isfinite(x)
assert sum(xs) == 3.0
# --8<-- [end:claim-sum]
def f(y: float) -> float:
    return y
'''


def _fields(claims: ledger.Ledger) -> dict:
    return {f.name: getattr(claims, f.name) for f in dataclasses.fields(claims)}


def test_the_parents_split_is_the_one_the_child_would_make(tmp_path):
    path = tmp_path / "s.py"
    path.write_text(TEXT)
    payload = splits.made(path, "snippets/s.py")
    taken = splits.taken(payload, splits.digest(path.read_bytes()))
    assert taken is not None
    own_chunks, own_claims = splits.split(TEXT, path, "snippets/s.py")
    chunks, claims = taken
    assert [(c.section, c.line, c.reads, c.binds) for c in chunks] == [
        (c.section, c.line, c.reads, c.binds) for c in own_chunks
    ]
    assert [c.code for c in chunks] == [c.code for c in own_chunks]
    assert _fields(claims) == _fields(own_claims) and claims.where  # its asserts counted
    ran: dict = {}
    for chunk in chunks:
        code = ledger.bind(chunk.code, claims) if ledger.is_claim(chunk.section) else chunk.code
        exec(code, ran)
    assert claims.counts() and ran["f"].__annotations__ == {"y": "float", "return": "float"}


def test_a_split_is_taken_only_for_the_bytes_it_was_made_of_by_this_python(tmp_path):
    path = tmp_path / "s.py"
    path.write_text(TEXT)
    payload = splits.made(path, "snippets/s.py")
    path.write_text(TEXT.replace("2.0]", "2.5]"))  # saved after the parent split it
    assert splits.taken(payload, splits.digest(path.read_bytes())) is None
    magic, of, chunks, fields = marshal.loads(base64.b64decode(payload))
    other = base64.b64encode(marshal.dumps((b"\0\0\r\n", of, chunks, fields))).decode()
    assert splits.taken(other, of) is None  # another Python's bytecode
    for broken in ("", "not base64!", base64.b64encode(b"not marshal").decode()):
        assert splits.taken(broken, of) is None
    assert magic == importlib.util.MAGIC_NUMBER


@pytest.mark.parametrize(
    "text",
    ["print(1\n", "x = 1\n# --8<-- [start:a]\ny = 2\n# --8<-- [start:b]\n", b"\xff\xfe"],
)
def test_a_snippet_the_parent_cannot_split_gets_no_split(tmp_path, text):
    """A syntax error, a marker out of place, bytes that are not UTF-8: the child splits it
    and says why, as it always did."""
    path = tmp_path / "s.py"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert splits.made(path, "snippets/s.py") == ""

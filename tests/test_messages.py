"""The messages between the runner's processes (docpipe.run.messages): each decodes to what was
encoded, a malformed one is named, and a zygote that sends one is stopped, never trusted."""

from __future__ import annotations

import pytest

from docpipe.project import Project
from docpipe.run import messages

pytestmark = pytest.mark.unit


def example(hint):
    """A value of a message field's annotated type."""
    import dataclasses
    import typing

    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: example(hints[f.name]) for f in dataclasses.fields(hint)})
    if origin is list:
        return [example(args[0]), example(args[0])]
    if origin is dict:
        return {"k": example(args[1])}
    if origin is tuple:
        return tuple(example(a) for a in args)
    if args:  # a union: its first type
        return example(args[0])
    assert hint in (str, int, float), f"no example of {hint}"
    return {str: "s", int: 7, float: 0.5}[hint]


def test_every_message_decodes_to_what_was_encoded():
    assert len(messages.TYPES) == 9
    for cls in messages.TYPES.values():
        message = example(cls)
        line = messages.encode(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert messages.decode(line.rstrip(b"\n")) == message, cls


def test_a_result_decodes_to_what_the_child_encoded(tmp_path):
    snippet = Project(tmp_path).snippet("a")
    snippet.source.parent.mkdir()
    snippet.source.write_text("print(1)\n")
    result = messages.Result(
        sections=[(None, 2), ("loop", 5)],
        inputs={"snippets/a.py": "0" * 64, "scripts/figures/a.py": "absent"},
        preloads=["email.mime"],
        failed_section="loop",
        status="error",
    )
    assert messages.decode_result(messages.encode_result(result), snippet) == result


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"{", "not JSON: "),
        (b'["Started"]', "a JSON list, not an object"),
        (b'{"key": "a", "pid": 3}', "no message type None"),  # a dict of the old protocol
        (b'{"type": "Spawned", "key": "a"}', "no message type 'Spawned'"),
        (b'{"type": "Started", "key": "a"}', "Started: "),  # its pid is missing
        (b'{"type": "Started", "key": "a", "pid": "3"}', "pid is a str"),
        (b'{"type": "Started", "key": "a", "pid": true}', "pid is a bool"),
        (b'{"type": "Started", "key": "a", "pid": 3, "left": ""}', "unknown field 'left'"),
        (b'{"type": "Preload", "modules": ["a", 1]}', "modules holds a int"),
        (b'{"type": "Fork", "job": {"key": "a"}, "preloads": []}', "Job: "),
    ],
)
def test_a_malformed_message_is_named(line, why):
    with pytest.raises(messages.MalformedMessage) as e:
        messages.decode(line)
    assert str(e.value).startswith(why)
    assert not isinstance(e.value, messages.MalformedResult)  # the runner's fault, no snippet's


def test_each_side_reads_only_the_messages_meant_for_it():
    report, request = messages.Started("a", 3), messages.Preload(["torch"])
    assert messages.decode(messages.encode(report), messages.Report) == report
    assert messages.decode(messages.encode(request), messages.Request) == request
    with pytest.raises(messages.MalformedMessage) as e:
        messages.decode(messages.encode(request), messages.Report)
    assert str(e.value).startswith("a Preload, not one of Started, Exited, Forwarded")
    with pytest.raises(messages.MalformedMessage):
        messages.decode(messages.encode(report), messages.Request)

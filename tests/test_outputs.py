"""The output of a section under its code (docpipe.pages.outputs): a page includes
`docs/generated/<key>.txt:<section>`, one line per section of a run of consecutive ones; the build
shows the recorded text of those sections, titled with the lines of the whole output they are.
An include of a section that does not exist or printed nothing, sections with output between
them, and a block that is not under its code are each one `page:line: ...`."""

from __future__ import annotations

import json

import pytest

from docpipe.pages import consistency, notebooks, outputs
from docpipe.pages import reading as pages
from docpipe.recorded.record import load
from docpipe.run.normalise import BY_NAME
from projects import REPO as ROOT
from projects import SITE, SmallProject, strict_build

pytestmark = pytest.mark.unit

SOURCE = """
# --8<-- [start:a]
print("one")
# --8<-- [end:a]

# --8<-- [start:quiet]
x = 1
# --8<-- [end:quiet]

# --8<-- [start:claim-x]
assert x == 1
# --8<-- [end:claim-x]

# --8<-- [start:b]
print("two")
print("three")
# --8<-- [end:b]

# --8<-- [start:c]
print("four")
# --8<-- [end:c]
"""
SECTIONS = [
    ["a", "one\n"],
    ["quiet", ""],
    ["claim-x", ""],
    ["b", "two\nthree\n"],
    ["c", "four\n"],
]


@pytest.fixture
def small(tmp_path) -> SmallProject:
    site = SmallProject(tmp_path / "repo")
    site.write("snippets/s.py", SOURCE)
    record = {"command": "python snippets/s.py", "environment": {"torch": "2.13.0"}}
    record |= {"sections": SECTIONS, "values": {}}
    site.write("docs/generated/s.json", json.dumps(record))
    site.write("docs/generated/s.txt", "".join(text for _, text in SECTIONS))
    return site


def code(section: str) -> str:
    return f'```python title="snippets/s.py"\n--8<-- "snippets/s.py:{section}"\n```\n\n'


def output(*sections: str) -> str:
    lines = "".join(f'--8<-- "docs/generated/s.txt:{s}"\n' for s in sections)
    return f'``` text title="python snippets/s.py"\n{lines}```\n\n'


def page(small: SmallProject, body: str):
    return small.write("docs/index.md", "# Home\n\n" + body)


def problems(small: SmallProject, path) -> list[str]:
    project = small.project
    found = consistency.include_problems(project, path) + consistency.typed_outputs(project, path)
    return [str(p) for p in found + consistency.output_includes(project, path)]


def test_a_part_is_its_sections_text_and_says_which_lines_of_the_whole_it_is(small):
    snippet = small.project.snippet("s")
    one = outputs.part(snippet, ("a",))
    assert (one.text, one.first, one.last, one.total) == ("one\n", 1, 1, 4)
    assert one.title == "output line 1 of 4"
    run = outputs.part(snippet, ("a", "b"))  # the quiet sections between print nothing
    assert (run.text, run.first, run.last) == ("one\ntwo\nthree\n", 1, 3)
    assert run.title == "output lines 1-3 of 4"
    last = outputs.part(snippet, ("c",))
    assert (last.first, last.last) == (4, 4)


def test_the_parts_put_end_to_end_are_the_whole_output(small):
    snippet = small.project.snippet("s")
    record = load(snippet)
    parts = [outputs.part(snippet, (s,)) for s in outputs.printed(record)]
    assert "".join(p.text for p in parts) == snippet.output.read_text() == record.output_of("")
    assert [p.first for p in parts[1:]] == [p.last + 1 for p in parts[:-1]]


@pytest.mark.parametrize(
    ("sections", "said"),
    [
        (("quiet",), "section 'quiet' of snippets/s.py printed nothing in its recorded run"),
        (("claim-x",), "section 'claim-x' of snippets/s.py printed nothing"),
        (("nope",), "the recorded run of snippets/s.py has no section 'nope'"),
        (("a", "c"), "(b printed between them)"),
        (("b", "a"), "are not a run of consecutive outputs"),
        (("a", "a"), "are not a run of consecutive outputs"),
    ],
)
def test_what_a_part_cannot_be(small, sections, said):
    with pytest.raises(outputs.OutputIncludeError) as caught:
        outputs.part(small.project.snippet("s"), sections)
    assert said in caught.value.message
    assert "\n" not in caught.value.message


def test_the_build_shows_the_sections_text_under_a_title_naming_the_lines(small):
    path = page(small, code("a") + code("quiet") + code("b") + output("a", "b") + code("c"))
    shown = outputs.expand(small.project, path, path.read_text(), "docs/index.md")
    assert (
        '``` text title="python snippets/s.py, output lines 1-3 of 4"\none\ntwo\nthree\n```'
        in shown
    )
    assert "docs/generated" not in shown  # pymdownx never sees a section of a .txt
    assert problems(small, path) == []


def test_an_indented_block_keeps_its_indent(small):
    body = code("a") + '??? note "Out"\n    ``` text title="python snippets/s.py"\n'
    body += '    --8<-- "docs/generated/s.txt:a"\n    ```\n'
    path = page(small, body + code("quiet") + code("b") + code("c"))
    shown = outputs.expand(small.project, path, path.read_text(), "docs/index.md")
    assert (
        '    ``` text title="python snippets/s.py, output line 1 of 4"\n    one\n    ```' in shown
    )


@pytest.mark.parametrize(
    ("body", "line", "said"),
    [
        (
            code("a") + code("quiet") + output("quiet"),
            12,
            "section 'quiet' of snippets/s.py printed nothing in its recorded run",
        ),
        (
            code("a") + output("nope"),
            8,
            "docs/generated/s.txt:nope names a section snippets/s.py does not have"
            " (sections: a, quiet, claim-x, b, c)",
        ),
        (
            code("a") + code("quiet") + code("b") + code("c") + output("a", "c"),
            20,
            "the sections a, c of snippets/s.py are not a run of consecutive outputs"
            " (b printed between them)",
        ),
        (
            output("a") + code("a"),
            4,
            "the output of section 'a' of snippets/s.py is not under the code that printed it",
        ),
        (
            code("a") + code("quiet") + code("b") + output("a"),
            16,
            "the output of section 'a' of snippets/s.py is under the code of section 'b',"
            " not of 'a'",
        ),
        (
            code("a") + code("quiet") + code("b") + code("c") + output("b"),
            20,
            "the output of section 'b' of snippets/s.py is under the code of section 'c'",
        ),
        (
            '``` text title="python snippets/s.py"\n--8<-- "docs/generated/s.txt:a"\n```\n',
            4,
            "the output of section 'a' of snippets/s.py is shown without the code that printed it",
        ),
        (
            code("a")
            + code("quiet")
            + code("b")
            + code("c")
            + output("a").replace("```\n\n", '--8<-- "docs/generated/s.txt"\n```\n'),
            19,
            "an output block shows one recorded output",
        ),
        (
            code("a")
            + '``` text title="python snippets/s.py"\n--8<-- "docs/generated/s.txt"\n```\n'
            + code("quiet")
            + code("b")
            + code("c"),
            8,
            "the whole output of snippets/s.py is under the code of section 'a', not of 'c'",
        ),
    ],
)
def test_a_bad_output_include_is_one_line_naming_page_and_line(small, body, line, said):
    path = page(small, body)
    found = problems(small, path)
    assert len(found) == 1, found
    assert found[0].startswith(f"docs/index.md:{line}: "), found
    assert said in found[0], found
    assert "\n" not in found[0]


def test_a_whole_output_under_the_last_section_that_printed_is_allowed(small):
    whole = '``` text title="python snippets/s.py"\n--8<-- "docs/generated/s.txt"\n```\n'
    assert (
        problems(small, page(small, code("a") + code("quiet") + code("b") + code("c") + whole))
        == []
    )
    assert problems(small, page(small, whole)) == []  # a run whose code the page does not show


def test_a_part_gets_the_reader_note_of_a_normaliser_only_where_it_left_its_trace():
    path = BY_NAME["repository-path"]
    assert path.may_have_changed("snippets/x.py:18: UserWarning: ...\n")
    assert path.may_have_changed('  File "snippets/x.py", line 3\n')
    assert not path.may_have_changed("tensor(5.)\n")
    assert BY_NAME["memory-address"].may_have_changed("<object at 0x…>")
    assert not BY_NAME["memory-address"].may_have_changed("0x12")


# ---- the site's own pages -------------------------------------------------------------------


def site_blocks():
    return [(p, b) for p in pages.markdown_pages(SITE) for b in outputs.blocks(SITE, p)]


def test_the_site_shows_outputs_under_their_code():
    """Build autograd yourself shows a part under each part of its code that prints."""
    engine = SITE.snippet("engine/engine")
    shown = {b.sections for p, b in site_blocks() if b.snippet == engine}
    assert shown == {(s,) for s in outputs.printed(load(engine))}


def test_each_part_under_its_code_is_that_sections_recorded_output_in_page_and_notebook():
    blocks = site_blocks()
    assert blocks
    built: dict = {}  # a page's notebook cells, built once
    for path, block in blocks:
        record = load(block.snippet)
        shown = outputs.expand(SITE, path, path.read_text(), SITE.rel(path))
        text = "".join(record.output_of(s) for s in block.sections)
        assert text
        title = (
            f'title="{block.snippet.command}, {outputs.part(block.snippet, block.sections).title}"'
        )
        at = shown.index(title)
        opening = shown[shown.rindex("\n", 0, at) + 1 : at]
        indent = len(opening) - len(opening.lstrip(" "))
        body = shown[shown.index("\n", at) + 1 : shown.index("```", at)]
        assert "\n".join(x[indent:] for x in body.split("\n")).rstrip("\n") == text.rstrip("\n")
        if path not in built:
            built[path] = notebooks.build(SITE, path).cells
        cells = built[path]
        for section in block.sections:
            cell = next(
                c
                for c in cells
                if c.cell_type == "code"
                and c.metadata["docpipe"] == {"snippet": block.snippet.name, "section": section}
            )
            assert "".join(o["text"] for o in cell.outputs) == record.output_of(section)


def test_every_record_s_parts_put_end_to_end_are_its_whole_output():
    for snippet in sorted({u.snippet for u in pages.all_uses(SITE) if u.kind == "output"}):
        assert load(snippet).output_of("") == snippet.output.read_text(), snippet.name


@pytest.mark.integration
@pytest.mark.parametrize(
    ("section", "named"),
    [
        ("value", "docs/index.md:7: section 'value' of snippets/engine/engine.py printed nothing"),
        ("nope", "docs/index.md:7: docs/generated/engine/engine.txt:nope names a section"),
    ],
)
def test_the_strict_build_fails_on_an_empty_or_missing_section_naming_page_and_line(
    tmp_path, section, named
):
    """The site's hook, on a project of its own that copies the engine's snippet and record."""
    import shutil

    for name in ("snippets/engine/engine.py", "docs/generated/engine/engine.json",
                 "docs/generated/engine/engine.txt"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    docs = tmp_path / "docs"
    body = '```python\n--8<-- "snippets/engine/engine.py:value"\n```\n'
    body += '``` text title="python snippets/engine/engine.py"\n'
    body += f'--8<-- "docs/generated/engine/engine.txt:{section}"\n```\n'
    (docs / "index.md").write_text("# Parts\n\n" + body)
    build = strict_build(tmp_path, f"[{ROOT / 'scripts' / 'mkdocs_hooks.py'}]")
    assert build.returncode != 0
    assert named in build.stderr, build.stderr
    assert sum(named.split(":")[0] + ":" in line for line in build.stderr.splitlines()) == 1


def test_the_authoring_example_includes_a_section_that_printed():
    text = (SITE.docs / "authoring.md").read_text()
    example = text[text.index("## Output under its code") :]
    example = example[: example.index("\n## ", 1)]
    targets = [inc.target for inc in pages.includes(SITE, SITE.docs / "authoring.md", example)]
    assert targets == []  # an example: shown as written, never included
    shown = [line.split('"')[1] for line in example.splitlines() if line.startswith("--8<--")]
    assert shown == [
        "snippets/authoring/descend.py:descend",
        "docs/generated/authoring/descend.txt:descend",
    ]
    snippet = SITE.snippet("authoring/descend")
    assert outputs.part(snippet, ("descend",)).text == snippet.output.read_text()

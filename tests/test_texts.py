"""Every file the pipeline reads as text is UTF-8 without a byte order mark, or is refused by
file and line (docpipe.texts): one byte that is not UTF-8, or a BOM, in any kind of input is
`path:line: ...` and exit 2 from regen, --check and the build's site check alike, and nothing
is run or written; no read of the pipeline decodes a file another way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import run_in_process
from docpipe import pagework, pipeline, texts
from projects import REPO, SmallProject

pytestmark = pytest.mark.unit

LATIN1 = "Caf\xe9".encode("latin-1")  # "Café" as latin-1: the byte E9 alone is not UTF-8

# Each kind of text input, as a small project holds it: (file, its valid text, the line where
# the test puts the bad byte).
INPUTS = {
    "a page": ("docs/index.md", "# Home\n\nA sentence.\n", 3),
    "a snippet": ("snippets/hello.py", 'print("hello")\n# a comment\n', 2),
    "a module beside the snippets": ("snippets/_helper.py", "X = 1\n# a comment\n", 2),
    "figure code": ("scripts/figures/hello.py", "FIGURES = {}\n# a comment\n", 2),
    "snippets.toml": ("snippets/snippets.toml", "[defaults]\n# a comment\ntimeout = 60\n", 2),
    "mkdocs.yml": ("mkdocs.yml", None, 1),
}


def small(tmp_path: Path) -> SmallProject:
    box = SmallProject(tmp_path)
    box.write("snippets/hello.py", 'print("hello")\n')
    box.write("docs/index.md", '# Home\n\n```python\n--8<-- "snippets/hello.py"\n```\n')
    return box


def spoil(box: SmallProject, kind: str, bom: bool) -> tuple[str, int]:
    """Put one latin-1 byte (or a BOM) into the file of this kind; its name and line."""
    name, text, line = INPUTS[kind]
    path = box.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (text.encode() if text is not None else path.read_bytes()).split(b"\n")
    if bom:
        data[0], line = texts.BOM + data[0], 1
    else:
        data.insert(line - 1, b"# " + LATIN1)
    path.write_bytes(b"\n".join(data))
    return name, line


@pytest.mark.parametrize("bom", [False, True], ids=["latin-1 byte", "byte order mark"])
@pytest.mark.parametrize("kind", INPUTS)
def test_a_file_that_is_not_utf8_is_named_by_line_by_regen_check_and_build(tmp_path, kind, bom):
    box = small(tmp_path)
    name, line = spoil(box, kind, bom)
    said = "starts with a UTF-8 byte order mark" if bom else "not UTF-8 (byte 0xe9 at column 6)"
    where = f"{name}:{line}: {said}"
    for argv in ([], ["--check"]):
        run = run_in_process(box.root, argv)
        assert run.returncode == 2, (argv, run.stdout, run.stderr)
        assert where in run.stderr, (argv, run.stderr)
        assert "Traceback" not in run.stderr + run.stdout
    # what `mkdocs build` fails on (mkdocs.yml itself MkDocs reads first, naming its offset)
    problems, _ = pagework.site_problems(box.project)
    assert [str(p) for p in problems if str(p).startswith(where)], problems
    assert not (box.root / "docs" / "generated").exists()  # nothing run or written
    assert not (box.root / "docs" / "notebooks").exists()


def test_every_bad_file_is_named_at_once(tmp_path):
    box = small(tmp_path)
    for kind in ("a page", "a snippet", "figure code"):
        spoil(box, kind, bom=False)
    found = pipeline.unreadable(box.project)
    assert [(p.path, p.line) for p in found] == [
        ("docs/index.md", 3),
        ("snippets/hello.py", 2),
        ("scripts/figures/hello.py", 2),
    ]


@pytest.mark.parametrize(
    "data, line, column",
    [(b"\xe9", 1, 1), (b"ab\ncd\xe9", 2, 3), ("h\u00e9!\n".encode() + b"x\xff", 2, 2)],
)
def test_decode_names_line_and_column_in_characters(data, line, column):
    with pytest.raises(texts.NotText) as e:
        texts.decode(data, "f.md")
    assert e.value.line == line
    assert f"at column {column})" in e.value.message


def test_utf8_text_reads_as_it_is():
    assert texts.decode("h\u00e9\n\u4e2d".encode(), "f.md") == "h\u00e9\n\u4e2d"


# Reads of files that are not the project's text inputs: what another program wrote.
NOT_INPUTS = {
    "environment.py",  # torch's own version.py
    "verify.py",  # the result a verification's child process wrote
    "pages/katex.py",  # the KaTeX cache regen itself wrote
    "run/namespaces.py",  # /etc/hosts
    "run/cgroups.py",  # the kernel's cgroup files
}


def test_no_read_of_the_pipeline_decodes_a_file_on_its_own():
    """A new `path.read_text(encoding="utf-8")` raises a bare UnicodeDecodeError naming no
    file: the pipeline's reads of text go through docpipe.texts."""
    found = []
    for path in sorted((REPO / "scripts" / "docpipe").rglob("*.py")):
        rel = path.relative_to(REPO / "scripts" / "docpipe").as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "read_text"
                and "errors" not in {k.arg for k in node.keywords}
                and rel not in NOT_INPUTS
            ):
                found.append(f"scripts/docpipe/{rel}:{node.lineno}")
    assert found == [], "read these with docpipe.texts.read (it names file and line)"

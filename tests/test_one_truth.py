"""One truth: the check, the tests, the build and a reader's own run agree, and every mistake an
author can make is one `path:line: message` and an exit code (2 configuration, 1 drift)."""

from __future__ import annotations

import json
import subprocess
import sys

import markdown
import pytest

from conftest import reader_machine
from docpipe import sections
from docpipe.pages import reading as pages
from docpipe.pages import values
from projects import REPO as ROOT
from projects import SITE

PAGE = """\
# Sandbox

```python title="snippets/{name}.py"
--8<-- "snippets/{name}.py"
```

``` text title="python snippets/{name}.py"
--8<-- "docs/generated/{name}.txt"
```
"""
HASH_ORDER = 'print(list({"apple", "banana", "cherry", "damson", "elder", "fig"}))\n'


def shows(box, *names: str) -> None:
    box.write("docs/index.md", "\n".join(PAGE.format(name=n) for n in names))


# One grammar ---------------------------------------------------------------------------------


@pytest.mark.unit
def test_every_section_a_page_includes_is_what_pymdownx_includes():
    """Parity on the real files: the runner's section text is pymdownx's own expansion."""
    options = SITE.site.snippets_options  # as mkdocs.yml gives them, base_path from the root
    bases = [str(ROOT / b) for b in options.get("base_path", ["."])]
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": {**options, "base_path": bases}},
    )
    checked = 0
    for page in pages.markdown_pages(SITE):
        for inc in pages.includes(SITE, page):
            if not inc.section or pages.classify(SITE, inc).kind == "output":
                continue  # a section's output: the build puts it in (docpipe.pages.outputs)
            expanded = md.preprocessors["snippet"].run([f'--8<-- "{inc.target}"'])
            text = inc.path.read_text(encoding="utf-8")
            ours = sections.section_text(text, inc.section, options)
            assert "\n".join(expanded).strip("\n") == ours, f"{page}:{inc.line}"
            checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            "# --8<-- [start:2nd]",
            "snippets/bad.py:1: not a section marker pymdownx.snippets accepts (a section name"
            " is a letter, then letters, digits, '-' or '_'): # --8<-- [start:2nd]",
        ),
        (
            "x = 1  # --8<-- [start:first]",
            "snippets/bad.py:1: a section marker must stand alone on a comment line"
            " (pymdownx.snippets drops the whole line from the page)",
        ),
    ],
)
@pytest.mark.integration
def test_a_marker_pymdownx_reads_otherwise_stops_regen_and_check(sandbox, marker, message):
    sandbox.write("snippets/bad.py", f"{marker}\nprint(1)\n")
    shows(sandbox, "bad")
    for args in ((), ("--check",)):
        run = sandbox.regen(*args)
        assert run.returncode == 2, run.stderr
        assert run.stderr.startswith(f"PROBLEM {message}\n")
        assert "Traceback" not in run.stderr
    assert not (sandbox.root / "docs" / "generated").exists()  # nothing run or written


# One path ------------------------------------------------------------------------------------


@pytest.mark.integration
def test_check_and_the_tests_agree_on_a_hash_order_snippet(sandbox):
    sandbox.write("snippets/order.py", HASH_ORDER)
    shows(sandbox, "order")
    assert sandbox.regen(process=True).returncode == 0  # as a reader's machine runs it
    assert sandbox.regen("--check").returncode == 0
    # What the pytest drift test does, in a process whose own hash seed is random.
    probe = (
        "import sys; sys.path.insert(0, 'scripts')\n"
        "from docpipe import catalog, cli, pipeline\n"
        "cat = catalog.load(cli.default_project())\n"
        "r = pipeline.check(cat.snippets, cat, pipeline.Options(), whole_site=True)\n"
        "print(sorted(s.name for s in r.drifted), r.failed, r.problems)\n"
    )
    env = {k: v for k, v in reader_machine().items() if k != "PYTHONHASHSEED"}
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", probe], cwd=sandbox.root, env=env, capture_output=True,
            text=True,
        )  # fmt: skip
        assert done.stdout == "[] {} []\n", done.stdout + done.stderr


@pytest.mark.integration
def test_the_audit_names_what_a_reader_cannot_reproduce(sandbox):
    sandbox.write("snippets/order.py", HASH_ORDER)
    sandbox.write("snippets/warns.py", 'import warnings\n\nwarnings.warn("careful")\n')
    sandbox.write("snippets/plain.py", 'print("same everywhere")\n')
    shows(sandbox, "order", "warns", "plain")
    assert sandbox.regen(process=True).returncode == 0  # as a reader's machine runs it
    assert sandbox.read("docs/generated/warns.txt") == (
        'snippets/warns.py:3: UserWarning: careful\n  warnings.warn("careful")\n'
    )
    audit = sandbox.regen("--audit")
    assert audit.returncode == 1
    assert "READER snippets/order.py: `python snippets/order.py` run from the repository root" in (
        audit.stderr
    )
    assert "READER snippets/plain.py" not in audit.stderr
    assert "READER snippets/warns.py" not in audit.stderr
    # The warning's path differs (a reader's run prints it absolute); the page says so.
    assert (
        "note snippets/warns.py: a reader's run differs only where the page says so"
        " (repository-path)\n"
    ) in audit.stdout
    assert "audited 3 snippets: 1 unstable, 1 differ when a reader runs them" in audit.stdout


@pytest.mark.integration
def test_warnings_are_filtered_as_in_a_readers_run(sandbox):
    """numpy ignores this warning from the moment it is imported, in any process: the record
    must not show it either, though the runner imported numpy before the snippet started."""
    sandbox.write(
        "snippets/filtered.py",
        """
        import warnings

        import numpy  # noqa: F401

        warnings.warn("numpy.ndarray size changed, may indicate binary incompatibility")
        warnings.warn("this one shows")
        print("done")
        """,
    )
    shows(sandbox, "filtered")
    assert sandbox.regen(process=True).returncode == 0  # as a reader's machine runs it
    reader = subprocess.run(
        [sys.executable, "snippets/filtered.py"], cwd=sandbox.root, env=reader_machine(),
        capture_output=True, text=True,
    )  # fmt: skip
    assert "this one shows" in reader.stderr and "size changed" not in reader.stderr
    recorded = sandbox.read("docs/generated/filtered.txt")
    assert recorded == (
        'snippets/filtered.py:6: UserWarning: this one shows\n  warnings.warn("this one shows")\n'
        "done\n"
    )


# Naming rule, problems first, no tracebacks --------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("name", ["x/v1.0.py"])  # one failure of the key pattern is enough
def test_a_name_the_rule_cannot_map_is_refused_with_the_rule(sandbox, name):
    sandbox.write(f"snippets/{name}", 'print("hi")\n')
    run = sandbox.regen()
    assert run.returncode == 2
    assert run.stderr == (
        f"error: snippets/{name}: a name the rule cannot map (the naming rule maps"
        " snippets/<key>.py to docs/generated/<key>.<kind>, so every part of <key> holds only"
        " letters, digits, '_' and '-')\n"
    )


@pytest.mark.integration
def test_a_page_missing_from_the_nav_stops_regen_naming_page_and_notebook(sandbox):
    sandbox.write("snippets/good.py", 'print("hi")\n')
    shows(sandbox, "good")
    sandbox.write("docs/extra.md", PAGE.format(name="good"))
    run = sandbox.regen()
    assert run.returncode == 2
    assert run.stderr == (
        "PROBLEM docs/extra.md: not in the nav of mkdocs.yml (add it to the nav)\n"
        "PROBLEM docs/notebooks/extra.ipynb: not in the nav of mkdocs.yml (add it under"
        " Notebooks)\n"
    )
    assert not (sandbox.root / "docs" / "generated").exists()  # nothing run or written


@pytest.mark.integration
def test_a_page_may_show_the_metadata_file_beside_a_snippet(sandbox):
    sandbox.write("snippets/good.py", 'print("hi")\n')
    sandbox.write("snippets/snippets.toml", '["good.py"]\ntimeout = 30\n')
    shows(sandbox, "good")
    page = sandbox.read("docs/index.md")
    sandbox.write("docs/index.md", page + '\n```toml\n--8<-- "snippets/snippets.toml"\n```\n')
    run = sandbox.regen()
    assert run.returncode == 0, run.stderr
    cells = json.loads(sandbox.read("docs/notebooks/index.ipynb"))["cells"]
    shown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    assert '```toml\n["good.py"]\ntimeout = 30\n```' in shown


@pytest.mark.integration
def test_a_module_that_fails_to_warm_up_fails_only_its_users(sandbox):
    # Outside the repository: a sealed run reads of the repository only what the runner names.
    broken = sandbox.root.parent / "broken-site" / "numpy"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text('raise RuntimeError("this numpy is broken")\n')
    sandbox.env["PYTHONPATH"] = str(broken.parent)
    sandbox.write("snippets/uses_numpy.py", "import numpy\n\nprint(numpy.pi)\n")
    sandbox.write("snippets/plain.py", 'print("fine")\n')
    shows(sandbox, "uses_numpy", "plain")
    run = sandbox.regen()
    assert run.returncode == 1
    assert "FAILED snippets/uses_numpy.py:1: RuntimeError: this numpy is broken" in run.stderr
    assert "FAILED snippets/plain.py" not in run.stderr
    assert sandbox.read("docs/generated/plain.txt") == "fine\n"


@pytest.mark.integration
def test_bytecode_written_by_the_runner_is_no_recorded_file(sandbox):
    sandbox.write("snippets/good.py", 'print("hi")\n')
    shows(sandbox, "good")
    assert sandbox.regen(process=True).returncode == 0  # as a reader's machine runs it
    assert list((sandbox.root / "scripts" / "docpipe" / "__pycache__").glob("*.pyc"))
    sandbox.commit()
    assert sandbox.regen("--check").returncode == 0
    assert sandbox.status() == ""


# Values escaped for where they land ----------------------------------------------------------


def render(text: str) -> str:
    """Markdown as the site renders it (its extensions and options, from MkDocs' loader),
    without pymdownx.snippets (nothing here is included) and docpipe.pagework (the page work
    is done here by hand, and there is no page)."""
    site = SITE.site
    extensions = [e for e in site.extensions if e not in ("pymdownx.snippets", "docpipe.pagework")]
    configs = {e: site.extension_configs.get(e, {}) for e in extensions}
    return markdown.markdown(text, extensions=extensions, extension_configs=configs)


def rendered_with(monkeypatch, value: str, page: str) -> str:
    """The page rendered, its `{{ examples/fit_line.py:v }}` the recorded value `value`."""
    monkeypatch.setattr(
        values.records, "load", lambda snippet: type("R", (), {"values": {"v": value}})
    )
    return render(values.substitute(SITE, page, "docs/x.md"))


@pytest.mark.unit
@pytest.mark.parametrize("value", ["<img src=x onerror=alert(1)>", "a<b", "*a* [b] $c$ & d"])
def test_a_value_is_shown_as_text_in_prose_alt_text_and_math(monkeypatch, value):
    page = (
        "Prose {{ examples/fit_line.py:v }} here.\n\n"
        "![Alt {{ examples/fit_line.py:v }}](x.svg)\n\n"
        "Math $x = {{ examples/fit_line.py:v }}$.\n"
    )
    html = rendered_with(monkeypatch, value, page)
    assert "<img src=x" not in html and "<b>" not in html
    import html as htmllib

    prose = html.split("<p>Prose ", 1)[1].split(" here.</p>", 1)[0]
    assert htmllib.unescape(prose) == value
    alt = html.split('alt="Alt ', 1)[1].split('"', 1)[0]
    assert htmllib.unescape(alt) == value
    math = html.split('<span class="arithmatex">\\(x = ', 1)[1].split("\\)</span>", 1)[0]
    assert "<" not in math and "$" not in math.replace("\\$", "")


@pytest.mark.unit
@pytest.mark.parametrize("value", ["13", "1. a", "- b", "+ c", "# d", "===", "!!! note", "0.5"])
def test_a_value_that_begins_a_line_never_begins_a_block(monkeypatch, value):
    # "13" before ". Only" once began a numbered list inside a bullet of build-your-own.md
    page = (
        "- **One.** The sum of both branches,\n"
        "  {{ examples/fit_line.py:v }}. Only leaves keep it.\n"
        "- **Two.** More.\n\n"
        "A paragraph that goes on\n"
        "{{ examples/fit_line.py:v }}\n"
        "and ends.\n"
    )
    html = rendered_with(monkeypatch, value, page)
    import html as htmllib

    assert html.count("<li>") == 2 and "<ol>" not in html and "<h" not in html, html
    assert "<hr" not in html and "admonition" not in html, html
    text = " ".join(htmllib.unescape(html).split())
    assert f"branches, {value}. Only leaves keep it.</li>" in text, html
    assert f"goes on {value} and ends." in text, html


@pytest.mark.integration
def test_check_names_a_snippet_that_was_never_recorded(sandbox):
    sandbox.write("snippets/good.py", 'print("hi")\n')
    shows(sandbox, "good")
    run = sandbox.regen("--check")
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert "  docs/generated/good.txt is missing (the run produces it)" in run.stderr
    assert "  fix: python scripts/regen.py snippets/good.py" in run.stderr

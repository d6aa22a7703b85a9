"""The fault suite, in-process part (issue 22): every fault of the runner, the cache, the file
system or the settings is one `path:line: message` (or `path: message`) and exit 1 or 2, never a
traceback, and nothing recorded is lost or half-written. Cases about processes (a real regen,
`mkdocs serve`) are in test_faults.py and test_live.py."""

from __future__ import annotations

import pytest

from docpipe import catalog, cli


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[defaults]\ntimout = 60\n",
            "snippets.toml:2: [defaults] has unknown setting 'timout' (known: timeout)",
        ),
        (
            "# settings\n\n[defaults]\ntimeout = 0\n",
            "snippets.toml:4: [defaults] timeout = 0: a number of seconds above 0",
        ),
        (
            '[defaults]\ntimeout = "sixty"\n',
            "snippets.toml:2: [defaults] timeout = 'sixty': a number of seconds above 0",
        ),
        ("defaults = 3\n", "snippets.toml:1: [defaults] must be a table"),
        (
            '[defaults]\ntimeout = 9\n\n["examples/fit_line.py"]\nduraton = 1\n',
            "snippets.toml:5: [\"examples/fit_line.py\"] has unknown setting 'duraton'"
            " (known: duration, normalise, timeout, values)",
        ),
        (
            '["examples/fit_line.py"]\ntimeout = -1\n',
            'snippets.toml:2: ["examples/fit_line.py"] timeout = -1: a number of seconds above 0',
        ),
        (
            '["examples/fit_line.py".values]\nw = "{w}"\nloss = 1\n',
            'snippets.toml:3: ["examples/fit_line.py"] values: loss = 1 is no string (an'
            ' f-string over the run\'s globals, e.g. loss = "{loss.item():.4f}")',
        ),
        (
            '["examples/fit_line.py"]\nnormalise = "timings"\n',
            'snippets.toml:2: ["examples/fit_line.py"] normalise: a list of names',
        ),
        ('\n["nothere.py"]\ntimeout = 1\n', 'snippets.toml:2: ["nothere.py"] names no file'),
        ("stray = 1\n", 'snippets.toml:1: ["stray"] names no file snippets/stray'),
        (
            '[[exception]]\npath = "a"\nrule = "not-on-a-page"\nreason = "x"\n\n'
            '[[exception]]\nrule = "r"\n',
            "snippets.toml:6: an [[exception]] lacks ['path', 'reason']",
        ),
    ],
)
def test_every_mistake_in_the_settings_is_one_line_naming_its_line(tmp_path, toml, message):
    meta = tmp_path / "snippets.toml"
    meta.write_text(toml)
    with pytest.raises(catalog.CatalogError) as e:
        catalog.load(meta)
    assert str(e.value).startswith(str(tmp_path) + "/")
    assert str(e.value).removeprefix(f"{tmp_path}/").startswith(message)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_timeout_that_is_no_positive_number_is_refused(value, capsys):
    with pytest.raises(SystemExit) as e:
        cli.parse(["--timeout", value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(
        f"error: argument --timeout: '{value}' is not a number of seconds above 0\n"
    )


def test_a_positive_timeout_is_taken():
    assert cli.parse(["--timeout", "0.5"]).timeout == 0.5

"""An include of a missing file or section fails `mkdocs build --strict` with this site's
settings, naming what is missing."""

from __future__ import annotations

import shutil

import pytest

from projects import REPO as ROOT
from projects import strict_build

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("hooks", ["[]", f"[{ROOT / 'scripts' / 'mkdocs_hooks.py'}]"])
@pytest.mark.parametrize(
    ("include", "bare", "named"),
    [
        (
            "snippets/examples/fit_line.py:no_such_section",
            "no_such_section",
            "index.md:4: snippets/examples/fit_line.py has no section 'no_such_section'"
            " (sections: data, loop, snapshots)",
        ),
        (
            "snippets/examples/no_such_file.py",
            "no_such_file.py",
            "index.md:4: snippets/examples/no_such_file.py does not exist",
        ),
    ],
)
def test_a_broken_include_fails_the_strict_build(tmp_path, include, bare, named, hooks):
    """Without the site's hook pymdownx still refuses it; with it, page:line says what. The
    project is the folder of the mkdocs.yml built (it inherits the site's), holding a copy of
    the snippet it includes."""
    (tmp_path / "snippets" / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "snippets/examples/fit_line.py", tmp_path / "snippets/examples")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(f'# Broken\n\n```python\n--8<-- "{include}"\n```\n')
    build = strict_build(tmp_path, hooks)
    assert build.returncode != 0
    if hooks == "[]":
        assert bare in build.stderr
    else:
        assert named in build.stderr, build.stderr

# What the page rules report on a small page that shows the code of
# snippets/authoring/descend.py: a project of its own in a temporary folder,
# holding the page as docs/example.md, a copy of descend.py and its recorded
# run, settings that declare descend.py's values (a run may not read the
# repository's snippets.toml, which the runner keys each snippet on) and the
# site's pymdownx.snippets options; then each problem the site check would
# list for the page, found by the same function the check and the build call.
import shutil
import tempfile
from pathlib import Path

import yaml

from docpipe import catalog
from docpipe.cli import default_project
from docpipe.pages import rules
from docpipe.project import Project

PAGE = """# An example page

```python title="snippets/authoring/descend.py"
--8<-- "snippets/authoring/descend.py:setup"
```

Each step moves $w$ against its gradient, at the learning rate $\\eta = 0.25$.
After five steps, $w$ is close to the target.
By hand, $2(w - {{ authoring/descend.py:target }})$; autograd agrees.
"""

SETTINGS = """["authoring/descend.py".values]
lr = "{lr:g}"
target = "{target:g}"
steps = "{len(history) - 1}"
final_w = "{w.item():.4f}"
"""

site = default_project()  # the repository this runner belongs to
descend = site.snippet("authoring/descend")
with tempfile.TemporaryDirectory() as folder:
    project = Project(Path(folder))
    options = {"pymdownx.snippets": site.site.snippets_options}
    config = {"site_name": "example", "markdown_extensions": [options]}
    project.config_file.write_text(yaml.safe_dump(config))
    copy = project.snippet(descend.key)
    for source, target in [
        (descend.source, copy.source),
        (descend.record, copy.record),
    ]:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    project.meta.write_text(SETTINGS)
    page = project.docs / "example.md"
    page.write_text(PAGE)
    print(project.rel(page))
    for number, line in enumerate(PAGE.splitlines(), start=1):
        print(f"{number}: {line}")
    print()
    for problem in rules.page_problems(catalog.load(project), page):
        print(problem)

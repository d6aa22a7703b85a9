# What the page rules report on a small page that shows the code of
# snippets/authoring/descend.py: the page, written into a temporary folder
# as docs/example.md, then each problem the site check would list
# for it, found by the same function the check and the build call, with
# settings of its own that declare descend.py's values (a run may not read
# the repository's snippets.toml, which the runner keys each snippet on).
import tempfile
from pathlib import Path

from docpipe import catalog

from docpipe.pages import rules

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

with tempfile.TemporaryDirectory() as folder:
    root = Path(folder)
    settings = root / "snippets.toml"
    settings.write_text(SETTINGS)
    docs = root / "docs"
    docs.mkdir()
    page = docs / "example.md"
    page.write_text(PAGE)
    print("docs/example.md")
    for number, line in enumerate(PAGE.splitlines(), start=1):
        print(f"{number}: {line}")
    print()
    for problem in rules.page_problems(catalog.load(settings), page, docs):
        print(problem.replace(f"{root}/", ""))

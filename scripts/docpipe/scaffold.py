"""`python scripts/regen.py --new-page NAME`: the files of a new one-snippet page, written so
that they pass every check as they are, for an author to replace piece by piece.

NAME is a snippet key (`examples/my_page`, or `my_page` for `examples/my_page`). It writes
the snippet `snippets/<key>.py` (sections `setup` and `backward`, and a claim section), its
values in `snippets/snippets.toml`, its figure code `scripts/figures/<key>.py`, the page
`docs/<page>.md` (the last part of the key, `_` written `-`), and the page and its notebook in
`mkdocs.yml`'s nav. It refuses, writing nothing, when any of those files exists or the name
breaks the naming rule. It runs nothing: the author runs `regen.py` on the snippet next (the
command it prints), which records the run and writes the notebook.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from docpipe import texts
from docpipe.pages import terms
from docpipe.problems import AUTHOR, DocpipeError
from docpipe.project import KEY_PART, Project

DEFAULT_FOLDER = "examples"


class ScaffoldError(DocpipeError):
    kind = AUTHOR


SNIPPET = """\
# {title}: the gradient of a sum of squares, y = x1**2 + x2**2 + x3**2.
# --8<-- [start:setup]
import torch

x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
# --8<-- [end:setup]

# --8<-- [start:backward]
y = (x**2).sum()
y.backward()  # fills x.grad with dy/dx, one entry per entry of x
print(f"y = {{y.item():g}}")
print(f"x.grad = {{x.grad.tolist()}}")
# --8<-- [end:backward]

# --8<-- [start:claim-twice]
# For every input tried, the gradient of sum(v**2) is 2 * v, entry by entry.
for values in ([1.0, -2.0, 0.5], [0.0, 3.0], [-1.5]):
    v = torch.tensor(values, requires_grad=True)
    (v**2).sum().backward()
    assert v.grad.tolist() == [2 * a for a in values]
# --8<-- [end:claim-twice]
"""

VALUES = """
["{key}.py".values]
y = "{{y.item():g}}"
"""

FIGURE = '''\
"""The entries of x and of x.grad in snippets/{key}.py, side by side."""

import matplotlib.pyplot as plt

from docpipe.run.figures import ink


def gradient(ns):
    x, grad = ns["x"].detach().tolist(), ns["x"].grad.tolist()  # what the run computed
    fig, ax = plt.subplots(figsize=(6, 2.6), layout="constrained")
    places = range(len(x))
    ax.bar([p - 0.2 for p in places], x, width=0.4, color="C0", label="x")
    ax.bar([p + 0.2 for p in places], grad, width=0.4, color="C1", label="x.grad")
    ax.axhline(0, color=ink("muted"), lw=1)
    ax.set_xticks(list(places), [f"x[{{p}}]" for p in places])
    ax.legend(loc="upper right")
    return fig


FIGURES = {{"gradient": gradient}}
'''

PAGE = """\
# {title}

The code below squares each entry of a tensor `x`, adds the squares into `y`, and asks
autograd for the gradient of `y` with `y.backward()`. Here `y` comes out as {{{{ {key}.py:y }}}}.

```python title="snippets/{key}.py"
--8<-- "snippets/{key}.py:setup"
```

```python title="snippets/{key}.py (continued)"
--8<-- "snippets/{key}.py:backward"
```

``` text title="python snippets/{key}.py"
--8<-- "docs/generated/{key}.txt"
```

For a sum of squares, `backward()` fills `x.grad` with twice each entry of `x`, for any
input. {{{{ claim {key}.py:claim-twice }}}}

<figure markdown="span">
  ![{alt}](generated/{key}.gradient.svg#only-light)
  ![{alt}](generated/{key}.gradient.dark.svg#only-dark)
  <figcaption>Each entry of x and its gradient.</figcaption>
</figure>
"""

ALT = "Bars of each entry of x beside the same entry of x.grad, twice as tall"


@dataclass(frozen=True)
class NewPage:
    key: str
    page: str  # docs/<page>.md, relative to docs/
    title: str

    @property
    def notebook(self) -> str:
        return "notebooks/" + self.page.removesuffix(".md") + ".ipynb"


def plan(project: Project, name: str) -> NewPage:
    key = name.removeprefix("snippets/").removesuffix(".py")
    if "/" not in key:
        key = f"{DEFAULT_FOLDER}/{key}"
    parts = key.split("/")
    bad = [p for p in parts if not KEY_PART.fullmatch(p) or p.startswith("_")]
    if bad:
        raise ScaffoldError(
            f"--new-page {name}: {bad[0]!r} is no part of a snippet key (letters, digits, '_'"
            " and '-', not starting with '_'), as snippets/examples/my_page.py"
        )
    page = parts[-1].replace("_", "-") + ".md"
    title = parts[-1].replace("_", " ").replace("-", " ").capitalize()
    return NewPage(key, page, title)


def _nav_insert(config: str, section: str, item: str) -> str:
    """mkdocs.yml with `item` as the last entry of the nav's `section` (a top-level entry
    `  - section:`), or as the last top-level entry of the nav when it has no such section."""
    lines = config.split("\n")
    try:
        start = lines.index("nav:")
    except ValueError:
        raise ScaffoldError(
            "mkdocs.yml: no `nav:` at the start of a line to add the page to"
        ) from None
    end = start + 1
    while end < len(lines) and (lines[end].startswith(" ") or lines[end].startswith("-")):
        end += 1
    head = next(
        (i for i in range(start + 1, end) if lines[i].strip() == f"- {section}:"),
        None,
    )
    if head is None:
        indent = re.match(r"\s*", lines[start + 1]).group() if end > start + 1 else "  "
        lines.insert(end, f"{indent}- {item}")
        return "\n".join(lines)
    below = head + 1
    while below < end and len(lines[below]) - len(lines[below].lstrip()) > (
        len(lines[head]) - len(lines[head].lstrip())
    ):
        below += 1
    indent = re.match(r"\s*", lines[head + 1]).group() if below > head + 1 else "      "
    lines.insert(below, f"{indent}- {item}")
    return "\n".join(lines)


def introduce_terms(project: Project, page: Path, text: str) -> str:
    """The page's text with the first use of each term the site's glossary defines made a link
    to its entry, as the rule glossary-first-use asks (docpipe.pages.terms): the page passes the
    site's rules as written, whichever words the glossary holds. A use run over a line break,
    or found only in a code span, is left for the check to name."""
    glossary = terms.glossary_path(project)
    found, _ = terms.read_glossary(glossary)
    target = os.path.relpath(glossary, page.parent).replace(os.sep, "/")
    done: set[str] = set()
    while True:
        first = {}
        for o in terms.occurrences(text, page, glossary, found):
            first.setdefault(o.term.name, o)
        todo = [o for name, o in first.items() if not o.introduces and name not in done]
        if not todo:
            return text
        o = todo[0]
        done.add(o.term.name)
        lines = text.split("\n")
        lines[o.line - 1] = _linked(lines[o.line - 1], o.text, f"{target}#{o.term.anchor}")
        text = "\n".join(lines)


def _linked(line: str, words: str, href: str) -> str:
    """`line` with the first use of `words` outside code spans and `{{ }}` markers a link."""
    pieces = re.split(r"(`[^`]*`|\{\{.*?\}\})", line)
    for i in range(0, len(pieces), 2):  # the even pieces are prose
        m = re.search(rf"(?<!\w){re.escape(words)}(?!\w)", pieces[i])
        if m:
            pieces[i] = f"{pieces[i][: m.start()]}[{m[0]}]({href}){pieces[i][m.end() :]}"
            return "".join(pieces)
    return line


def write(project: Project, name: str) -> list[str]:
    """Write the new page's files, after every refusal (none written then); the paths."""
    new = plan(project, name)
    snippet = project.snippets / f"{new.key}.py"
    figure = project.figure_code / f"{new.key}.py"
    page = project.docs / new.page
    for path in (snippet, figure, page):
        if path.exists():
            raise ScaffoldError(f"--new-page {name}: {project.rel(path)} exists; nothing written")
    settings = project.snippets / "snippets.toml"
    toml = texts.read(settings, project.rel(settings)) if settings.is_file() else ""
    if f'["{new.key}.py' in toml:
        raise ScaffoldError(f"--new-page {name}: snippets/snippets.toml has {new.key}.py already")
    config = texts.read(project.config_file, project.rel(project.config_file))
    quoted = f'"{new.title}": {new.page}'
    config = _nav_insert(config, "Tutorial", quoted)
    config = _nav_insert(config, "Notebooks", f'"Notebook: {new.title}": {new.notebook}')
    files = {
        snippet: SNIPPET.format(title=new.title),
        figure: FIGURE.format(key=new.key),
        page: introduce_terms(project, page, PAGE.format(key=new.key, title=new.title, alt=ALT)),
        settings: toml
        + ("" if toml.endswith("\n") or not toml else "\n")
        + VALUES.format(key=new.key),
        project.config_file: config,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [project.rel(p) for p in files]


def command_line(project: Project, name: str) -> int:
    import sys

    try:
        written = write(project, name)
    except ScaffoldError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    key = plan(project, name).key
    for path in written:
        print(f"wrote {path}")
    print(
        f"next: python scripts/regen.py snippets/{key}.py, then python scripts/regen.py --check"
        " and mkdocs build --strict; replace the example with yours piece by piece"
        ' (docs/authoring.md, "Add a page")'
    )
    return 0

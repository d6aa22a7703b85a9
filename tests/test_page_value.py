"""One page value (docpipe.pages.reading.Page) for every rule: a build reads each page's file
once, into the Page its session (Pages) hands to every rule and renderer; no rule opens a page
itself. A result kept for a page (docpipe.inputs) is still found again when the page's file
changes after it was read."""

from __future__ import annotations

import os

import pytest

from docpipe import inputs, pipeline
from docpipe.pages import agreement, rules
from docpipe.pages.reading import Page, Pages
from projects import SmallProject

pytestmark = pytest.mark.unit

SNIPPET = """
# --8<-- [start:show]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = x**3 - 2 * x
y.backward()
print(x.grad.item())
# --8<-- [end:show]

# --8<-- [start:claim-agrees]
assert 3 * x.item() ** 2 - 2 == x.grad.item()
# --8<-- [end:claim-agrees]
"""
META = """
["cubic.py".values]
grad = "{x.grad.item():g}"
"""
INDEX = """
# Home

A [leaf](glossary.md#leaf) gets a gradient of {{ cubic.py:grad }}, and every optimizer moves
it; by hand the two agree. {{ claim cubic.py:claim-agrees }}

```python title="snippets/cubic.py"
--8<-- "snippets/cubic.py:show"
```

``` text title="python snippets/cubic.py"
--8<-- "docs/generated/cubic.txt"
```

It took 3 steps, a {{ made up }} marker.

??? success "Solution"
    It is 46. {{ claim cubic.py:claim-agrees }}
"""
GLOSSARY = """
# Glossary

## Leaf

A tensor made by the user. Taught in [Home](index.md#home).
"""
OTHER = """
# Other

A leaf again, and $x^2 = 16$ with 46 in it.
"""


@pytest.fixture
def small(tmp_path) -> SmallProject:
    small = SmallProject(tmp_path / "repo")
    small.write("snippets/cubic.py", SNIPPET)
    small.write("snippets/snippets.toml", META)
    small.record("cubic", {"grad": "46"})
    small.write("docs/generated/cubic.txt", "46.0\n")
    small.write("docs/index.md", INDEX)
    small.write("docs/glossary.md", GLOSSARY)
    small.write("docs/other.md", OTHER)
    return small


@pytest.fixture
def page_opens(monkeypatch, small) -> dict[str, int]:
    """How often each page of the small project is opened, from here on."""
    inputs._install()  # open goes through docpipe.inputs: counted there, restored after
    counted: dict[str, int] = {}
    original = inputs._open
    docs = str(small.docs)

    def counting(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(file))
            if path.startswith(docs) and path.endswith(".md"):
                name = os.path.relpath(path, small.root)
                counted[name] = counted.get(name, 0) + 1
        return original(file, *args, **kwargs)

    monkeypatch.setattr(inputs, "_open", counting)
    return counted


def test_every_rule_is_handed_the_page_value_of_its_session(small, monkeypatch):
    seen: list[tuple[str, object]] = []
    for name, rule in list(rules.RULES.items()):

        def recording(cat, page, allowed, rule=rule, name=name):
            seen.append((name, page))
            return rule(cat, page, allowed)

        monkeypatch.setitem(rules.RULES, name, recording)
    site = Pages(small.project)
    rules.problems(small.catalog(), site=site)
    pages = {p.name for p in site.all()}
    assert {(name, page) for name, page in {(n, p.name) for n, p in seen}} == {
        (name, page) for name in rules.RULES for page in pages
    }
    for _, page in seen:
        assert isinstance(page, Page) and page.site is site
        assert page is site.page(page.path)  # the one value of its page in this build


def test_the_whole_check_reads_each_page_once(small, page_opens):
    cat = small.catalog()
    site = Pages(small.project)
    found = pipeline.site_problems(cat, site=site)
    pipeline.notebook_drift(small.project, site)
    agreement.tally(cat, site)
    assert found  # the made-up marker, at least: the checks ran over the pages
    assert any("{{ made up }}" in str(p) for p in found)
    assert page_opens == {"docs/glossary.md": 1, "docs/index.md": 1, "docs/other.md": 1}
    assert site.reads == 3


def test_a_kept_result_is_found_again_when_the_page_changed_after_it_was_read(small):
    cat = small.catalog()
    page = small.docs / "other.md"
    before = Pages(small.project).page(page)
    small.write("docs/other.md", OTHER.replace("46", "forty-six and 47 more"))
    os.utime(page, ns=(before.state[0] + 10**9, before.state[0] + 10**9))
    # the rules ran on the text read before the change...
    stale = [p.message for p in rules.page_problems(cat, before, ("number-in-prose",))]
    assert any("number 46" in m for m in stale)
    # ...so that result is not kept for the page as it is now
    fresh = Pages(small.project).page(page)
    now = [p.message for p in rules.page_problems(cat, fresh, ("number-in-prose",))]
    assert any("number 47" in m for m in now) and not any("number 46" in m for m in now)


@pytest.mark.parametrize("part", ["includes", "uses", "once"])
def test_a_page_part_is_an_input_of_every_result_that_asks_for_it_not_only_the_first(small, part):
    """A part made once per page (its includes, its uses, a rule's reading of it) notes the
    files it was made from in each recording that asks for it: a result kept for the second
    asker (another rule, a kept render) is found again when one of them changes."""
    page = Pages(small.project).page(small.docs / "index.md")

    def ask():
        return page.once(_included_exist) if part == "once" else getattr(page, part)

    with inputs.recording() as first:
        made = ask()
    with inputs.recording() as second:
        again = ask()
    assert again is made  # the part was not made again...
    included = str(small.root / "docs" / "generated" / "cubic.txt")
    assert included in first and second == first  # ...and still counts what it read


def _included_exist(page: Page) -> list[bool]:
    return [inc.path.is_file() for inc in page.includes]


# ---- one build ---------------------------------------------------------------------------------


def test_the_build_the_hooks_made_reaches_every_page_and_one_without_hooks_is_plain(tmp_path):
    """The hooks' on_config hands its pagework.Build to the extension through MkDocs' own
    extension settings; a generator without the hooks converts the page in the plain build
    of the project (which fails on problems and renders its own math)."""
    import markdown

    from docpipe import pagework

    project = pagework.project_at(SmallProject(tmp_path).root)
    page = pagework.Page(project, "index.md", project.docs / "index.md", True)
    config = {"mdx_configs": {"toc": {"permalink": True}}}
    made = pagework.Build(project, serving=True, math_later=True)
    made.hand_to_pages(config)
    assert pagework.Build.of(config) is made and config["mdx_configs"]["toc"]

    def build_of(md: markdown.Markdown) -> pagework.Build:
        return md.preprocessors["docpipe-pagework"].ext.build(page)

    hooked = markdown.Markdown(
        extensions=[pagework.EXTENSION], extension_configs=config["mdx_configs"]
    )
    assert build_of(hooked) is made
    plain = build_of(markdown.Markdown(extensions=[pagework.EXTENSION]))
    assert plain is pagework.plain(project) and not plain.serving and not plain.math_later
    assert pagework.Build.of({}) is None

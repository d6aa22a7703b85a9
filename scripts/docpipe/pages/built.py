"""The built site, checked against the sources it was built from: `regen.py --check-site DIR`.

It reads the site's HTML and nothing a generator left behind: what each page must show is
derived again from the pages' Markdown, the records in docs/generated/ and mkdocs.yml's nav,
so a generator that skips the hooks (or a hook that skips a page) cannot publish a page that
lies. Each finding names the built file and the element: `notebooks/x/index.html: <pre
title="python snippets/x.py">: line 2 is ..., the record has ...`.

What it checks, per page:

- no `{{ key.py:value }}` or `{{ claim key.py:section }}` left in text or an attribute, but those
  the page's Markdown shows as an example (a ```markdown block, docpipe.pages.markup);
- every formula rendered: each arithmatex span holds KaTeX's HTML and MathML, none is a KaTeX
  error, and no raw `$...$`, `\\(...\\)` or `\\[...\\]` stands in the text outside code;
- a claim mark (a link to the section's lines on the repository) for each claim marker of
  the page's Markdown, each pointing at an existing claim section whose run is recorded;
- each output block the Markdown includes, with the text its record holds;
- each figure the Markdown shows, and no image whose file is not in the site;
- the "How this page was made" box on every page that shows a run, naming the recorded torch;
- every page of the nav and every notebook, as HTML;
- no request outside the site: a resource the page loads as it opens (script, stylesheet,
  icon, image, frame, media, preload; `url()` in a style) from another origin. A plain link
  (`<a href>`, `<link rel="canonical">`) is navigation, not a request: the reader follows it.
"""

from __future__ import annotations

import functools
import html
import os
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from docpipe import texts
from docpipe.pages import markup
from docpipe.pages import reading as pages
from docpipe.project import Project, Snippet
from docpipe.recorded import record as records
from docpipe.sections import SectionError, find_sections

MARKER = re.compile(r"\{\{\s*(?:claim\s+)?[\w/.-]+\.py:[\w-]+\s*\}\}")
BOX = "How this page was made"
MARK = "\u2713"  # the claim mark's text (docpipe.pages.claims)
CLAIM_HREF = re.compile(
    r"/blob/[^/]+/(?P<path>snippets/[\w/.-]+\.py)#L(?P<first>\d+)-L(?P<last>\d+)$"
)
# TeX a browser would show as typed: delimiters of arithmatex's generic mode and of dollars.
RAW_MATH = re.compile(
    r"\\\((?:(?!\\\)).)+\\\)|\\\[(?:(?!\\\]).)+\\\]|\$\$.+?\$\$"
    r"|(?<![\w$\\])\$(?=[^\s$])[^$\n]{1,200}(?<=[^\s\\$])\$(?![\w$])",
    re.S,
)
VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr", "param",
}  # fmt: skip
BLOCKS = {
    "p", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "summary",
    "figcaption", "caption", "title", "blockquote", "div", "details", "table", "ul", "ol",
    "article", "section", "nav", "header", "footer", "main", "body", "form", "label", "button",
}  # fmt: skip
NOT_TEXT = {"script", "style", "svg", "template", "math"}
CODE = {"code", "pre", "kbd", "samp"}
# What a browser fetches as a page opens: (tag, attribute). A <link> fetches only for these rels.
FETCHED = {
    ("script", "src"), ("img", "src"), ("img", "srcset"), ("source", "src"),
    ("source", "srcset"), ("iframe", "src"), ("frame", "src"), ("video", "src"),
    ("video", "poster"), ("audio", "src"), ("track", "src"), ("embed", "src"),
    ("object", "data"), ("input", "src"), ("image", "href"), ("image", "xlink:href"),
    ("use", "href"), ("use", "xlink:href"), ("link", "href"), ("link", "imagesrcset"),
}  # fmt: skip
FETCHING_RELS = {
    "stylesheet", "icon", "apple-touch-icon", "mask-icon", "preload", "prefetch",
    "modulepreload", "preconnect", "dns-prefetch", "manifest", "prerender",
}  # fmt: skip
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


@dataclass(frozen=True)
class Finding:
    page: str  # the built file, relative to the site folder
    element: str  # the element, as `<tag class="...">`
    message: str

    def __str__(self) -> str:
        return f"{self.page}: {self.element}: {self.message}"


# ---- a small tree of the page (html.parser, the standard library's) --------------------------


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list = field(default_factory=list)  # Node or str
    walked: list[Node] | None = field(default=None, repr=False)

    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def walk(self) -> list[Node]:
        """This element and every element inside it, in document order (kept: a parsed page
        does not change)."""
        if self.walked is not None:
            return self.walked
        found, stack = [], [self]
        while stack:
            node = stack.pop()
            found.append(node)
            stack.extend(c for c in reversed(node.children) if isinstance(c, Node))
        self.walked = found
        return found

    def text(self, skip=NOT_TEXT) -> str:
        return "".join(
            c if isinstance(c, str) else c.text(skip)
            for c in self.children
            if isinstance(c, str) or c.tag not in skip
        )

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


class _Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.here = Node("#document", {})

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.here)
        self.here.children.append(node)
        if tag not in VOID:
            self.here = node

    def handle_startendtag(self, tag, attrs):
        self.here.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.here))

    def handle_endtag(self, tag):
        node = self.here
        while node is not None:  # an end tag closes its element and any left open inside it
            if node.tag == tag:
                self.here = node.parent or self.root
                return
            node = node.parent

    def handle_data(self, data):
        self.here.children.append(data)


@functools.lru_cache(maxsize=64)
def parse(text: str) -> Node:
    """The page's tree, read once per text in a process (the checks of this module and of
    docpipe.pages.served each walk it, and never change it)."""
    tree = _Tree()
    tree.feed(text)
    tree.close()
    return tree.root


def describe(node: Node) -> str:
    """`<tag id="..">`, `<tag class="..">` or `<tag>`; a code block also by its title."""
    if node.tag == "pre" and (title := _block_title(node)):
        return f'<pre title="{title}">'
    for name in ("id", "class", "src", "href"):
        if node.attrs.get(name):
            value = node.attrs[name]
            return f'<{node.tag} {name}="{value if len(value) < 80 else value[:77] + "..."}">'
    return f"<{node.tag}>"


def _block_title(pre: Node) -> str:
    """The title a highlighted block shows (pymdownx.highlight's filename span), or ""."""
    box = pre.parent
    if box is None:
        return ""
    for child in box.children:
        if isinstance(child, Node) and "filename" in child.classes():
            return child.text().strip()
    return ""


def _own_text(node: Node, skip: set[str], skip_classes: tuple[str, ...] = ()) -> str:
    """The text of a block without the blocks inside it (each piece of text is in one unit)."""
    return "".join(
        c if isinstance(c, str) else _own_text(c, skip, skip_classes)
        for c in node.children
        if isinstance(c, str)
        or (c.tag not in skip and c.tag not in BLOCKS and not set(c.classes()) & set(skip_classes))
    )


def _units(root: Node, skip: set[str], skip_classes: tuple[str, ...] = ()):
    """(block, its own text) for every block of the page, none inside a skipped element."""
    for node in root.walk():
        if node.tag in BLOCKS or node is root:
            inside = [node, *node.ancestors()]
            if any(n.tag in skip or set(n.classes()) & set(skip_classes) for n in inside):
                continue
            yield node, _own_text(node, skip, skip_classes)


# ---- the pages and what their sources say -------------------------------------------------


@dataclass(frozen=True)
class Page:
    built: str  # relative to the site folder: "autograd-backward/index.html"
    source: Path  # docs/x.md or docs/notebooks/x.ipynb
    tutorial: Path | None  # the Markdown page a notebook is made from (a page: itself)


def built_path(docs_relative: str, directory_urls: bool = True) -> str:
    """Where MkDocs writes a page of docs/ (`x.md` -> `x/index.html`)."""
    stem = docs_relative.rsplit(".", 1)[0]
    if stem == "index" or stem.endswith("/index") or not directory_urls:
        return stem + ".html"
    return stem + "/index.html"


def expected_pages(project: Project) -> list[Page]:
    """Every page of docs/ (Markdown and notebooks) and every page the nav names."""
    found: dict[str, Page] = {}
    for md in pages.markdown_pages(project):
        rel = md.relative_to(project.docs).as_posix()
        found[rel] = Page(built_path(rel), md, md)
    for nb in sorted(project.notebooks.glob("*.ipynb")) if project.notebooks.is_dir() else []:
        rel = nb.relative_to(project.docs).as_posix()
        tutorial = project.docs / Path(rel).relative_to("notebooks").with_suffix(".md")
        found[rel] = Page(built_path(rel), nb, tutorial if tutorial.is_file() else None)
    for rel in project.site.nav or ():
        if rel not in found and "://" not in rel:
            found[rel] = Page(built_path(rel), project.docs / rel, None)
    return list(found.values())


def check(project: Project, site: Path) -> list[Finding]:
    """Everything the build should have done to the site in `site` and did not."""
    found: list[Finding] = []
    expected = expected_pages(project)
    read = pages.Pages(project)  # each Markdown page read once, for its page and its notebook's
    for page in expected:
        path = site / page.built
        if not path.is_file():
            kind = "notebook page" if page.source.suffix == ".ipynb" else "page"
            listed = " (in the nav)" if _in_nav(project, page) else ""
            found.append(
                Finding(
                    page.built,
                    "<html>",
                    f"{kind} missing: {project.rel(page.source)}{listed} was not built",
                )
            )
            continue
        found += check_page(project, site, page, texts.read(path, project.rel(path)), read)
    for built in sorted(site.rglob("*.html")):
        rel = built.relative_to(site).as_posix()
        if rel not in {p.built for p in expected}:  # 404.html, a stray page
            found += _requests(rel, parse(texts.read(built, str(built))))
    for css in sorted(site.rglob("*.css")):
        for url in _css_urls(css.read_text(encoding="utf-8", errors="replace")):
            if _outside(url):
                rel = css.relative_to(site).as_posix()
                found.append(Finding(rel, "url()", f"a request outside the site: {url}"))
    return found


def _in_nav(project: Project, page: Page) -> bool:
    rel = page.source.relative_to(project.docs).as_posix()
    return rel in (project.site.nav or ())


def check_page(
    project: Project, site: Path, page: Page, text: str, read: pages.Pages | None = None
) -> list[Finding]:
    """What the build should have done to one built page (`text`, its HTML) and did not;
    `read`: the Markdown pages, each read once (docpipe.pages.reading.Pages)."""
    root = parse(text)
    tutorial = pages.as_page(project, page.tutorial, read) if page.tutorial else None
    source = tutorial.text if tutorial else ""
    notebook = page.source.suffix == ".ipynb"
    found = _markers(page, root, source, _included(project, tutorial) if tutorial else [])
    found += _math(page, root)
    found += _requests(page.built, root)
    found += _images(project, site, page, root, tutorial)
    if notebook and not any("jp-Notebook" in n.classes() or "jupyter-wrapper" in n.classes()
                            for n in root.walk()):  # fmt: skip
        found.append(
            Finding(
                page.built,
                "<article>",
                f"not a notebook page: {project.rel(page.source)} was not rendered as one",
            )
        )
    if page.tutorial:
        found += _claims(project, page, root, source)
    if page.tutorial and not notebook:
        found += _outputs(project, page, root, tutorial)
        found += _box(project, page, root, tutorial)
    return found


# ---- markers and math ---------------------------------------------------------------------


def _included(project: Project, tutorial: pages.Page) -> list[str]:
    """The text of what the page's Markdown includes: outputs as their records hold them."""
    shown = []
    for inc in tutorial.includes:
        if inc.problem:
            continue
        use = pages.classify(project, inc)
        try:
            if use.kind == "output":
                shown.append(records.load(use.snippet).output_of(inc.section))
            else:
                shown.append(texts.read(inc.path, project.rel(inc.path)))
        except (OSError, texts.NotText, records.RecordError):
            continue  # the output check names a missing record
    return shown


def _markers(page: Page, root: Node, source: str, included: list[str]) -> list[Finding]:
    """Markers left: any in an attribute; in text, more than the page shows as examples or
    in the files it includes (a recorded output may print one)."""
    shown = Counter(
        _spaced(m[0])
        for text in [*(ex[0] for ex in markup.EXAMPLE.finditer(source)), *included]
        for m in MARKER.finditer(text)
    )
    found = []
    for node in root.walk():
        for name in ("alt", "title", "aria-label"):
            for m in MARKER.finditer(node.attrs.get(name, "")):
                found.append(Finding(page.built, describe(node), f"marker left in {name}: {m[0]}"))
    for node, text in _units(root, NOT_TEXT):
        for m in MARKER.finditer(text):
            if shown[_spaced(m[0])] > 0:
                shown[_spaced(m[0])] -= 1
                continue
            found.append(Finding(page.built, describe(node), f"marker left: {m[0]}"))
    return found


def _spaced(marker: str) -> str:
    return " ".join(marker.replace("{{", "{{ ").replace("}}", " }}").split())


def _math(page: Page, root: Node) -> list[Finding]:
    found = []
    for node in root.walk():
        classes = node.classes()
        if "arithmatex" in classes:
            inner = [n.classes() for n in node.walk()]
            rendered = any("katex" in c for c in inner) and any("katex-mathml" in c for c in inner)
            if not rendered:
                tex = " ".join(node.text().split())
                tex = tex if len(tex) < 60 else tex[:57] + "..."
                found.append(Finding(page.built, describe(node), f"formula not rendered: {tex}"))
        if "katex-error" in classes:
            found.append(
                Finding(page.built, describe(node), f"KaTeX could not render: {node.text()}")
            )
    skip = NOT_TEXT | CODE
    for node, text in _units(root, skip, ("arithmatex", "katex", "katex-display")):
        for m in RAW_MATH.finditer(text):
            tex = " ".join(m[0].split())
            found.append(
                Finding(page.built, describe(node), f"formula not rendered (raw TeX): {tex[:60]}")
            )
    return found


# ---- claims -------------------------------------------------------------------------------


def _claims(project: Project, page: Page, root: Node, source: str) -> list[Finding]:
    """Each marker of the Markdown has its mark; each mark points at a claim that ran."""
    text = markup.without_examples(source)
    wanted: list[tuple[str, str, int]] = [  # (snippet path, section, line of the marker)
        (f"snippets/{m['snippet']}", m["section"], text.count("\n", 0, m.start()) + 1)
        for m in pages.CLAIM.finditer(text)
    ]
    marks = [
        n
        for n in root.walk()
        if n.tag == "a"
        and ("checked-claim" in n.classes() or n.text().strip() == MARK)
        and not any(a.tag in CODE for a in n.ancestors())
    ]
    found, pointed = [], Counter()
    for mark in marks:
        target, why = _claim_target(project, mark.attrs.get("href", ""))
        if why:
            found.append(Finding(page.built, describe(mark), f"claim mark points nowhere: {why}"))
        else:
            pointed[target] += 1
    for path, section, line in wanted:
        if pointed[(path, section)] > 0:
            pointed[(path, section)] -= 1
            continue
        where = f"{project.rel(page.tutorial)}:{line}"
        found.append(
            Finding(
                page.built,
                '<a class="checked-claim">',
                f"claim mark missing: {where} marks a sentence with"
                f" {{{{ claim {path.removeprefix('snippets/')}:{section} }}}}",
            )
        )
    return found


def _claim_target(project: Project, href: str) -> tuple[tuple[str, str] | None, str]:
    """The (snippet path, claim section) a mark's link names, or why it names none."""
    m = CLAIM_HREF.search(href)
    if not m:
        return None, f"{href or 'no href'} is not a link to a snippet's lines"
    source = project.root / m["path"]
    if not source.is_file():
        return None, f"{m['path']} does not exist"
    try:
        spans = find_sections(texts.read(source, m["path"]), m["path"])
    except SectionError as e:
        return None, str(e)
    span = (int(m["first"]), int(m["last"]))
    section = next((name for name, s in spans.items() if s == span), None)
    if section is None:
        return None, f"no section of {m['path']} spans lines {span[0]}-{span[1]}"
    snippet = project.snippet_at(source)
    try:
        record = records.load(snippet)
    except records.RecordError:
        return None, f"{m['path']} has no record ({project.rel(snippet.record)})"
    if section not in record.claims:
        return None, f"the record of {m['path']} holds no run of section '{section}'"
    return (m["path"], section), ""


# ---- outputs, figures, the box --------------------------------------------------------------


TITLE = re.compile(r"""\btitle=(?:"([^"]*)"|'([^']*)')""")


def _outputs(project: Project, page: Page, root: Node, tutorial: pages.Page) -> list[Finding]:
    """Each output block the Markdown includes holds its record's text, line for line."""
    blocks = [(n, _block_title(n), _code_text(n)) for n in root.walk() if n.tag == "pre"]
    used: set[int] = set()
    found = []
    for inc in tutorial.includes:
        use = pages.classify(project, inc)
        if use.kind != "output" or inc.missing or inc.problem:
            continue
        where = f"{project.rel(page.tutorial)}:{inc.line}"
        try:
            want = records.load(use.snippet).output_of(inc.section).rstrip("\n")
        except records.RecordError as e:
            found.append(Finding(page.built, "<pre>", f"{where}: {e}"))
            continue
        m = TITLE.search(inc.fence.info) if inc.fence else None
        title = (m[1] or m[2]) if m else ""
        # the block's title as built: the fence's, and where the page work labels it, which of
        # the output's lines it shows ("python snippets/x.py, output lines 2–4 of 9")
        candidates = [
            i
            for i, (_, t, _) in enumerate(blocks)
            if i not in used and title and (t == title or t.startswith(title + ", "))
        ] or [i for i in range(len(blocks)) if i not in used and blocks[i][2] == want]
        if not candidates:
            found.append(
                Finding(
                    page.built,
                    f'<pre title="{title}">' if title else "<pre>",
                    f"output block missing: {where} includes the output of {use.snippet.name}",
                )
            )
            continue
        exact = [i for i in candidates if blocks[i][2] == want]
        chosen = exact[0] if exact else candidates[0]
        used.add(chosen)
        node, _, got = blocks[chosen]
        if got != want:
            found.append(
                Finding(page.built, describe(node), _difference(got, want, use.snippet, where))
            )
    return found


def _code_text(pre: Node) -> str:
    return pre.text(NOT_TEXT).rstrip("\n")


def _difference(got: str, want: str, snippet: Snippet, where: str) -> str:
    shown, recorded = got.split("\n"), want.split("\n")
    for n, (a, b) in enumerate(zip(shown, recorded, strict=False), start=1):
        if a != b:
            return (
                f"output differs from its record ({snippet.project.rel(snippet.record)},"
                f" included at {where}): line {n} is {a!r}, the record has {b!r}"
            )
    return (
        f"output differs from its record ({snippet.project.rel(snippet.record)}, included at"
        f" {where}): {len(shown)} lines shown, {len(recorded)} recorded"
    )


def _images(
    project: Project, site: Path, page: Page, root: Node, tutorial: pages.Page | None
) -> list[Finding]:
    """No image whose file the site lacks; every figure the Markdown shows is on the page."""
    found, shown = [], set()
    base = posixpath.dirname(page.built)
    for node in root.walk():
        if node.tag not in ("img", "source", "image"):
            continue
        for attr in ("src", "srcset", "href", "xlink:href"):
            for url in _urls(node.attrs.get(attr, ""), attr):
                if _outside(url) or url.startswith(("data:", "blob:")):
                    continue
                target = _resolve(project, base, url)
                shown.add(target)
                if not (site / target).is_file():
                    found.append(Finding(page.built, describe(node), f"figure missing: {url}"))
    if tutorial and page.source.suffix == ".md":
        for use in tutorial.uses:
            if use.kind != "figure" or use.path is None:
                continue
            target = use.path.relative_to(project.docs).as_posix()
            if target not in shown:
                found.append(
                    Finding(
                        page.built,
                        "<img>",
                        f"figure missing: {project.rel(page.tutorial)}:{use.line} shows {target}",
                    )
                )
    return found


def _resolve(project: Project, base: str, url: str) -> str:
    path = unquote(urlsplit(url).path)
    if path.startswith("/"):
        prefix = urlsplit(project.site.hosted_url).path or "/"
        path = path[len(prefix) :] if path.startswith(prefix) else path.lstrip("/")
    else:
        path = posixpath.join(base, path)
    return posixpath.normpath(path)


def _box(project: Project, page: Page, root: Node, tutorial: pages.Page) -> list[Finding]:
    """A page that shows runs says how it was made, naming the torch each run used."""
    used = {u.snippet for u in tutorial.uses if u.snippet}
    recorded = [records.load(s) for s in sorted(used, key=lambda s: s.key) if s.record.exists()]
    if not recorded:
        return []
    boxes = [
        n
        for n in root.walk()
        if n.tag == "details"
        and any(
            isinstance(c, Node) and c.tag == "summary" and c.text().strip() == BOX
            for c in n.children
        )
    ]
    if not boxes:
        return [
            Finding(
                page.built,
                "<details>",
                f'no "{BOX}" box, though the page shows runs of {len(used)} snippets',
            )
        ]
    said = " ".join(boxes[0].text().split())
    torches = sorted({r.environment.get("torch", "") for r in recorded})
    missing = [t for t in torches if f"torch {t}" not in said]
    if missing:
        return [
            Finding(
                page.built,
                describe(boxes[0]),
                f'the "{BOX}" box does not name torch {", ".join(missing)}, which its runs used',
            )
        ]
    return []


# ---- requests -----------------------------------------------------------------------------


def _urls(value: str, attr: str) -> list[str]:
    if not value:
        return []
    if attr.endswith("srcset"):
        return [part.strip().split()[0] for part in value.split(",") if part.strip()]
    return [value.strip()]


def _outside(url: str) -> bool:
    """A URL another origin serves: a scheme other than data/blob, or `//host`."""
    url = html.unescape(url).strip()
    if url.startswith("//"):
        return True
    scheme = urlsplit(url).scheme.lower()
    return bool(scheme) and scheme not in ("data", "blob", "about")


def _css_urls(css: str) -> list[str]:
    return [m[1] or m[2] for m in CSS_URL.finditer(css)]


def _requests(built: str, root: Node) -> list[Finding]:
    found = []
    for node in root.walk():
        rels = set(node.attrs.get("rel", "").lower().split())
        for attr in list(node.attrs):
            if (node.tag, attr) not in FETCHED:
                continue
            if node.tag == "link" and not rels & FETCHING_RELS:
                continue  # canonical, alternate, license...: a link, not a request
            for url in _urls(node.attrs[attr], attr):
                if _outside(url):
                    found.append(
                        Finding(built, describe(node), f"a request outside the site: {url}")
                    )
        style = node.attrs.get("style", "") + (node.text(set()) if node.tag == "style" else "")
        for url in _css_urls(style):
            if _outside(url):
                found.append(Finding(built, describe(node), f"a request outside the site: {url}"))
    return found


def summary(findings: list[Finding], pages_checked: int) -> str:
    by_page = Counter(f.page for f in findings)
    return f"checked {pages_checked} pages: {len(findings)} findings on {len(by_page)} pages"


def site_folder_problem(site: Path) -> str:
    """Why `site` is not a built site to check, or ""."""
    if not site.is_dir():
        return f"{site}: no such folder (build the site first: mkdocs build -d {site})"
    if not (site / "index.html").is_file() and not os.listdir(site):
        return f"{site}: an empty folder, not a built site"
    return ""

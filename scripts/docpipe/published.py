"""What the reader reads, and every file the site serves, checked against the sources
(`regen.py --check-site DIR`, with docpipe.pages.built).

**The text of each page.** The page's Markdown is converted again here, by Python-Markdown with
the very extensions and settings of mkdocs.yml (MkDocs' own config loader reads them) and the
page work of docpipe.pagework, formulas left as TeX. The expected page and the built
`<article>` are each read as one stream of tokens, in document order: every word of prose,
headings, lists, tables, admonitions, captions and outputs; each line of a code block; each
formula as its TeX (the built one from the TeX annotation of KaTeX's MathML); each link's
target, resolved to the site file it reaches (`glossary.md#tensor` and `../glossary/#tensor`
both to `glossary/index.html#tensor`), and its title (a claim mark's tooltip); each image's
file and alt text; each heading's anchor. The streams must be equal: each difference is one
finding naming the element, what the sources say, what the site shows, and the source line.
What the theme adds inside the article is accepted by rule, never by skipping what a page
says: its "Edit this page" button, whose link must be the page's source on the repository.

**Every file.** Each file of the site is one of: a page (checked above, or a notebook page, a
404 page the theme makes); a figure or asset of docs/ (byte for byte); a notebook offered for
download (byte for byte, docs/notebooks/); a file of the theme (byte for byte, the installed
mkdocs-material's templates); the search index and the sitemaps, which must name only pages of
the site. Anything else is named. What runs on a page: every script or stylesheet it loads
must be one of those files, every inline script one of the theme's templates' (its `{{ }}`
values aside) or its configuration (JSON, whose `base` and `search` must lead into the site),
and no page redirects (`<meta http-equiv="refresh">`, the theme's redirect template).

Why our own reading rather than a comparison of whole HTML files: the generator (MkDocs,
ProperDocs) lays out the page around the article its own way; what a reader trusts is the
article's text, its links, figures and formulas, and what runs: those are compared exactly.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import json
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from docpipe.pages import built
from docpipe.pages import reading as pages
from docpipe.pages.built import Finding, Node, Page, describe, parse
from docpipe.project import Project


def check(project: Project, site: Path) -> list[Finding]:
    """Everything docpipe.pages.built checks, then the text of every Markdown page, what runs
    on every page, and every file of the site."""
    found = built.check(project, site)
    _SITE_URLS["current"] = _canonical(site)
    expected = built.expected_pages(project)
    served = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    pages_built = {p.built for p in expected if (site / p.built).is_file()}
    read = pages.Pages(project)
    for rel in sorted(r for r in served if r.endswith(".html")):
        root = parse((site / rel).read_text(encoding="utf-8", errors="replace"))
        found += runs(project, rel, root, served)
        page = next((p for p in expected if p.built == rel), None)
        if page and page.source.suffix == ".md" and page.source.is_file():
            found += content(project, page, root, read)
    found += files(project, site, pages_built)
    return found


EDIT_BUTTON = "md-content__button"  # Material's "Edit this page" link, in the article
SKIPPED = {"script", "style", "template", "svg"}
MATH_DELIMITERS = re.compile(r"^\\[(\[]|\\[)\]]$")


# ---- the text a reader reads -----------------------------------------------------------------


class _Tokens:
    """A page's tokens, each with the block it is in (for the finding) and its text."""

    def __init__(
        self,
        page_dir: str,
        markdown_side: bool = False,
        built_dir: str = "",
        pages: dict[str, str] | None = None,
        docs: Path | None = None,
    ) -> None:
        self.page_dir = page_dir  # the folder the page's links are relative to
        self.markdown_side = markdown_side  # links as the Markdown writes them (`x.md`)
        self.built_dir = built_dir  # the built page's folder (raw HTML's links)
        self.pages = pages or {}  # docs/-relative source -> the file it is built to
        self.docs = docs or Path()
        self.items: list[tuple[str, Node]] = []

    def add(self, token: str, node: Node) -> None:
        self.items.append((token, node))

    def read(self, node: Node, block: Node) -> None:
        if node.tag in SKIPPED or EDIT_BUTTON in node.classes():
            return
        if node.tag in ("p", "li", "pre", "td", "th", "figcaption", "summary", "dt", "dd") or (
            node.tag.startswith("h") and node.tag[1:].isdigit()
        ):
            block = node
            if node.tag.startswith("h") and node.attrs.get("id"):
                self.add(f"anchor #{node.attrs['id']}", node)
        if "arithmatex" in node.classes():
            self.add(f"formula {_tex(node, self.markdown_side)}", block)
            return
        if node.tag == "a":
            if "href" in node.attrs:
                self.add(f"link to {self.target(node.attrs['href'])}", node)
            if node.attrs.get("title"):
                self.add(f"title {' '.join(node.attrs['title'].split())}", node)
        if node.tag == "img":
            self.add(f"image {self.target(node.attrs.get('src', ''))}", node)
            self.add(f"alt {' '.join(node.attrs.get('alt', '').split())}", node)
            if node.attrs.get("title"):
                self.add(f"title {' '.join(node.attrs['title'].split())}", node)
        if node.tag == "pre":
            for line in node.text(SKIPPED).rstrip("\n").split("\n"):
                self.add(f"code {line.rstrip()}", node)
            return
        for child in node.children:
            if isinstance(child, str):
                for word in child.split():
                    self.add(word, block)
            else:
                self.read(child, block)

    def target(self, href: str) -> str:
        """The site file (and anchor) a link reaches, or the address it leaves the site for.
        The Markdown's links name files of docs/ (a page by its source, `glossary.md`): each
        page by the file it is built to; raw HTML's (the notebook buttons) are written for the
        built page's address already."""
        parts = urlsplit(href)
        if parts.scheme or href.startswith("//"):
            return href
        path = unquote(parts.path)
        anchor = f"#{parts.fragment}" if parts.fragment else ""
        if not path:
            return f"(this page){anchor}"
        joined = posixpath.normpath(posixpath.join(self.page_dir, path))
        if self.markdown_side:
            if joined in self.pages:
                return self.pages[joined] + anchor
            if not (self.docs / joined).exists():  # raw HTML, for the built page's address
                joined = posixpath.normpath(posixpath.join(self.built_dir, path))
        if path.endswith("/") or joined in (".", ""):
            joined = "index.html" if joined in (".", "") else joined + "/index.html"
        return joined + anchor


def _tex(node: Node, markdown_side: bool) -> str:
    """A formula's TeX: as the Markdown writes it, or from the TeX annotation KaTeX keeps."""
    if not markdown_side:
        for inner in node.walk():
            if inner.tag == "annotation" and inner.attrs.get("encoding") == "application/x-tex":
                return " ".join(inner.text(set()).split())
    text = node.text(SKIPPED).strip()
    text = re.sub(r"^\\[(\[]", "", text)
    text = re.sub(r"\\[)\]]$", "", text)
    return " ".join(text.split())


def _article(root: Node) -> Node | None:
    for node in root.walk():
        if node.tag == "article":
            return node
    return None


class _CurrentPage:
    """What docpipe.pagework.current_page reads off a Markdown instance: the page and its
    configuration, as MkDocs' own tree processor carries them."""

    def __init__(self, project: Project, source: Path) -> None:
        self.file = type("File", (), {})()
        self.file.abs_src_path = str(source)
        self.file.src_uri = source.relative_to(project.docs).as_posix()
        config = type("Config", (dict,), {"config_file_path": str(project.config_file)})
        self.config = config({"plugins": {"mkdocs-jupyter": None}})

    def run(self, root):  # a tree processor that changes nothing
        return None


@functools.cache
def _converter_settings(project: Project) -> tuple[tuple[str, ...], dict]:
    from docpipe import pagework

    build = pagework.Build(project, math_later=True)
    build.check_site = lambda: []  # the site's problems are --check's: here, the page text
    configs = {k: dict(v) for k, v in project.site.extension_configs.items()}
    if "pymdownx.snippets" in configs:  # its base path as the build, run from the root, reads it
        base = configs["pymdownx.snippets"].get("base_path") or ["."]
        base = [base] if isinstance(base, str) else base
        configs["pymdownx.snippets"]["base_path"] = [str(project.root / b) for b in base]
    configs[pagework.EXTENSION] = {**configs.get(pagework.EXTENSION, {}), "build": build}
    return project.site.extensions, configs


def expected_html(project: Project, source: Path, text: str) -> str:
    """The page's article as the sources make it: its Markdown converted with mkdocs.yml's
    extensions, the page work done, formulas as TeX."""
    import markdown

    extensions, configs = _converter_settings(project)
    md = markdown.Markdown(extensions=list(extensions), extension_configs=configs)
    md.treeprocessors.register(_CurrentPage(project, source), "docpipe-current-page", 0)
    return md.convert(text)


def content(project: Project, page: Page, root: Node, read: pages.Pages) -> list[Finding]:
    """The built article of a Markdown page against the one its sources make."""
    article = _article(root)
    if article is None:
        return [Finding(page.built, "<article>", "no article: the page's text is not there")]
    tutorial = pages.as_page(project, page.source, read)
    expected = parse(expected_html(project, page.source, tutorial.text))
    source_dir = posixpath.dirname(page.source.relative_to(project.docs).as_posix())
    built_pages = {
        p.source.relative_to(project.docs).as_posix(): p.built
        for p in built.expected_pages(project)
        if project.docs in p.source.parents
    }
    want = _Tokens(source_dir, True, posixpath.dirname(page.built), built_pages, project.docs)
    want.read(expected, expected)
    got = _Tokens(posixpath.dirname(page.built))
    got.read(article, article)
    found = _edit_button(project, page, article)
    if [t for t, _ in want.items] == [t for t, _ in got.items]:
        return found
    import difflib

    matcher = difflib.SequenceMatcher(
        None, [t for t, _ in want.items], [t for t, _ in got.items], autojunk=False
    )
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        expected_text = " ".join(t for t, _ in want.items[a1:a2]) or "nothing"
        found_text = " ".join(t for t, _ in got.items[b1:b2]) or "nothing"
        node = got.items[b1][1] if b1 < len(got.items) else article
        near = want.items[min(a1, len(want.items) - 1)] if want.items else ("", article)
        line = _source_line(tutorial.text, *near)
        found.append(
            Finding(
                page.built,
                describe(node),
                f"expected {_cut(expected_text)}, found {_cut(found_text)}"
                f" ({project.rel(page.source)}:{line})",
            )
        )
        if len(found) >= 20:
            break
    return found


def _cut(text: str) -> str:
    return repr(text if len(text) <= 160 else text[:157] + "...")


def _source_line(markdown_text: str, token: str, block: Node) -> int:
    """The Markdown line the differing block comes from: the first line holding the block's
    rarest (longest) word next to its second (within three lines), else the token's word; 1
    when none does."""
    words = sorted(
        {w.strip(".,:;()[]`*") for w in block.text(SKIPPED).split()}, key=len, reverse=True
    )
    word = token.split(" ", 1)[-1] if token.startswith(("code ", "formula ", "alt ")) else token
    lines = markdown_text.split("\n")
    if words and len(words[0]) >= 4:
        first, second = words[0], words[1] if len(words) > 1 else words[0]
        holding = [n for n, line in enumerate(lines, start=1) if first in line]
        for n in holding:
            if any(second in lines[k] for k in range(max(0, n - 4), min(len(lines), n + 3))):
                return n
        if holding:
            return holding[0]
    for n, line in enumerate(lines, start=1):
        if word.strip() and word.strip() in line:
            return n
    return 1


def _edit_button(project: Project, page: Page, article: Node) -> list[Finding]:
    site = project.site
    for node in article.walk():
        if node.tag == "a" and EDIT_BUTTON in node.classes():
            rel = page.source.relative_to(project.docs).as_posix()
            wanted = {
                f"{url.rstrip('/')}/{site.edit_uri.strip('/')}/{rel}"
                for url in (site.repo_url, _built_repo_url(project))
                if url
            }
            if node.attrs.get("href") not in wanted:
                return [
                    Finding(
                        page.built,
                        describe(node),
                        f"the edit button leads to {node.attrs.get('href')!r}, not the page's"
                        f" source ({sorted(wanted)[0]!r})",
                    )
                ]
    return []


def _built_repo_url(project: Project) -> str:
    """repo_url as this environment's build reads it (REPO_URL may point it elsewhere)."""
    return _built_config(project).get("repo_url") or ""


_SITE_URLS: dict[str, str] = {}  # the site folder -> the address its build was made for


def _built_site_url(project: Project) -> str:
    """The address the checked site was built for (SITE_URL may point it elsewhere than
    mkdocs.yml's published one): what its home page names as canonical."""
    return _SITE_URLS.get("current") or _built_config(project).get("site_url") or ""


def _canonical(site: Path) -> str:
    try:
        home = parse((site / "index.html").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return ""
    for node in home.walk():
        if node.tag == "link" and "canonical" in node.attrs.get("rel", "").split():
            return node.attrs.get("href", "")
    return ""


@functools.cache
def _built_config(project: Project) -> dict:
    from mkdocs.config import load_config

    try:
        config = load_config(str(project.config_file), plugins=[], hooks=[])
        return {"repo_url": config.repo_url, "site_url": config.site_url}
    except Exception:  # noqa: BLE001  (the published addresses are checked all the same)
        return {}


# ---- every file the site serves ---------------------------------------------------------------


def _theme_folder() -> Path | None:
    spec = importlib.util.find_spec("material")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "templates"


def _every_notebook_template() -> list[Path]:
    """Every template of mkdocs-jupyter and nbconvert, whether the build renders with it or not."""
    folders = []
    spec = importlib.util.find_spec("mkdocs_jupyter")
    if spec and spec.origin:
        folders.append(Path(spec.origin).parent / "templates")
    try:
        from jupyter_core.paths import jupyter_path

        folders += [Path(p) for p in jupyter_path("nbconvert", "templates")]
    except ImportError:
        pass
    return [t for f in folders if f.is_dir() for t in sorted(f.rglob("*")) if t.is_file()]


_NOTEBOOK_TEMPLATE = "mkdocs_html/notebook.html.j2"  # the one mkdocs_jupyter.nbconvert2 renders


def _notebook_templates() -> list[Path]:
    """The templates a notebook page is rendered with: mkdocs-jupyter's notebook template, every
    template it extends, includes or imports, and every script file they put inline
    (`resources.include_js`), each name found as nbconvert finds it (the exporter mkdocs-jupyter
    makes, with the user's nbconvert configuration). Where a name is not written out (a Jinja
    expression) or the exporter cannot be made, every template of both packages."""
    try:
        import jinja2.meta
        from mkdocs_jupyter.config import settings
        from mkdocs_jupyter.nbconvert2 import get_nbconvert_app
        from nbconvert.exporters.html import HTMLExporter

        exporter = HTMLExporter(
            config=get_nbconvert_app().config,
            template_file=_NOTEBOOK_TEMPLATE,
            extra_template_paths=[settings.templates_dir],
        )
        env = exporter.environment
        found: dict[str, Path] = {}
        todo = [_NOTEBOOK_TEMPLATE]
        while todo:
            name = todo.pop()
            if name in found:
                continue
            text, filename, _ = env.loader.get_source(env, name)
            found[name] = Path(filename)
            if not name.endswith((".html", ".j2")):
                continue
            named = list(jinja2.meta.find_referenced_templates(env.parse(text)))
            calls = re.findall(r"include_js\((.*?)\)", text, re.S)
            inline = [
                m[2] for m in (re.fullmatch(r"\s*([\"'])([^\"']+)\1\s*", c) for c in calls) if m
            ]
            if None in named or len(inline) < len(calls):
                return _every_notebook_template()
            todo += [*named, *inline]
        return sorted(set(found.values()))
    except Exception:  # noqa: BLE001  (what cannot be narrowed soundly is all of them)
        return _every_notebook_template()


def _templates() -> list[Path]:
    """The templates of what renders the pages: the theme's (mkdocs-material), all of them,
    since which partials a page includes is decided by names its templates compute; and the
    templates and inline scripts of notebook pages (_notebook_templates)."""
    theme = _theme_folder()
    found = sorted(p for p in theme.rglob("*") if p.is_file()) if theme and theme.is_dir() else []
    return found + _notebook_templates()


@functools.cache
def _theme_scripts() -> tuple[tuple[re.Pattern, ...], frozenset[str]]:
    """Each inline script of those templates (but a redirect's), as a pattern whose `{{ }}`
    values match anything without a tag, and its spaces any spaces; and each script file they
    put inline (by its text, its spaces made one)."""
    found, literals = [], set()
    for template in _templates():
        if template.name == "redirect.html":
            continue
        if template.suffix == ".js":
            literals.add(" ".join(template.read_text(encoding="utf-8", errors="replace").split()))
            continue
        if not template.name.endswith((".html", ".j2")):
            continue
        text = template.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", text, re.S):
            body = re.sub(r"\{#.*?#\}|\{%.*?%\}", "", m[1], flags=re.S).strip()
            if not body or body.startswith("{{-"):
                continue
            parts = [
                r"\s+".join(re.escape(word) for word in part.split())
                for part in re.split(r"\{\{.*?\}\}", body, flags=re.S)
            ]
            if any(parts):  # a script that is all values: what it puts inline is above
                found.append(re.compile(r"[^<]*?".join(parts), re.S))
    return tuple(found), frozenset(literals)


def runs(project: Project, page_built: str, root: Node, served: set[str]) -> list[Finding]:
    """What runs or loads on a page: files of the site the verifier accounts for, the theme's
    inline scripts and configuration, and no redirect."""
    found = []
    base = posixpath.dirname(page_built)
    for node in root.walk():
        if node.tag == "meta" and node.attrs.get("http-equiv", "").lower() == "refresh":
            found.append(
                Finding(page_built, describe(node), "a redirect: <meta http-equiv=refresh>")
            )
        loads = []
        if node.tag == "script" and node.attrs.get("src"):
            loads.append(node.attrs["src"])
        if node.tag == "link" and "stylesheet" in node.attrs.get("rel", "").lower().split():
            loads.append(node.attrs.get("href", ""))
        for url in loads:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue  # a request outside the site: docpipe.pages.built names it
            target = _local(project, base, unquote(parts.path))
            if target not in served:
                found.append(
                    Finding(page_built, describe(node), f"loads {url}, no file of the site")
                )
        if node.tag == "script" and not node.attrs.get("src"):
            body = node.text(set()).strip()
            if node.attrs.get("type") == "application/json" and node.attrs.get("id") == "__config":
                found += _config(project, page_built, node, body, served)
            elif not _theme_script(body):
                found.append(
                    Finding(
                        page_built,
                        describe(node),
                        f"an inline script the theme does not make: {_cut(body)}",
                    )
                )
    return found


def _theme_script(body: str) -> bool:
    """Whether an inline script is one the templates make."""
    patterns, literals = _theme_scripts()
    spaced = " ".join(body.split())
    return spaced in literals or any(p.fullmatch(spaced) for p in patterns)


def _local(project: Project, base: str, path: str) -> str:
    """The site file a path of a page in folder `base` names: relative, or absolute under the
    site's address (the published one, or the build's: the 404 page's links are absolute)."""
    if path.startswith("/"):
        prefixes = {
            urlsplit(u).path or "/"
            for u in (project.site.hosted_url, _built_site_url(project))
            if u
        }
        for prefix in sorted(prefixes, key=len, reverse=True):
            if path.startswith(prefix):
                return posixpath.normpath(path[len(prefix) :] or ".")
        return path
    return posixpath.normpath(posixpath.join(base, path))


def _config(
    project: Project, page_built: str, node: Node, body: str, served: set[str]
) -> list[Finding]:
    base = posixpath.dirname(page_built)
    try:
        config = json.loads(body)
        root = _local(project, base, config["base"].rstrip("/") + "/")
        search = _local(project, base, config["search"])
    except (ValueError, KeyError, TypeError):
        return [
            Finding(page_built, describe(node), "the theme's configuration is not what it makes")
        ]
    found = []
    if root != ".":
        found.append(
            Finding(
                page_built,
                describe(node),
                f"the configuration's base leads to {root!r}, not the site",
            )
        )
    if search not in served:
        found.append(
            Finding(
                page_built,
                describe(node),
                f"the configuration's search worker {search!r} is no file of the site",
            )
        )
    return found


def files(project: Project, site: Path, pages_built: set[str]) -> list[Finding]:
    """Every file of the site, accounted for: equal to its source, or named."""
    theme = _theme_folder()
    found = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel in pages_built or rel == "404.html":
            continue
        source = project.docs / rel
        m = re.fullmatch(r"notebooks/([^/]+)/\1\.ipynb", rel)  # a notebook page's download
        if m:
            source = project.notebooks / f"{m[1]}.ipynb"
        if source.is_file() and not rel.endswith(".md"):
            if path.read_bytes() != source.read_bytes():
                what = "notebook" if rel.endswith(".ipynb") else "file"
                found.append(
                    Finding(rel, "<file>", f"differs from docs/{rel}, the {what} it is served as")
                )
            continue
        if theme and (theme / rel).is_file():
            if path.read_bytes() != (theme / rel).read_bytes():
                found.append(
                    Finding(rel, "<file>", "differs from the theme's file of the same name")
                )
            continue
        if rel == "search/search_index.json":
            found += _search_index(path, pages_built)
            continue
        if rel in ("sitemap.xml", "sitemap.xml.gz"):
            found += _sitemap(project, path, pages_built)
            continue
        found.append(
            Finding(
                rel, "<file>", "a file the verifier cannot account for: no source, no theme file"
            )
        )
    return found


def _search_index(path: Path, pages_built: set[str]) -> list[Finding]:
    rel = "search/search_index.json"
    try:
        docs = json.loads(path.read_text(encoding="utf-8", errors="replace"))["docs"]
        locations = {d["location"].split("#", 1)[0] for d in docs}
    except (ValueError, KeyError, TypeError):
        return [Finding(rel, "<file>", "not the search index the search plugin writes")]
    wanted = {"" if p == "index.html" else p.removesuffix("index.html") for p in pages_built}
    stray = sorted(locations - wanted)
    return [
        Finding(rel, "<file>", f"the search index leads to {loc!r}, no page of the site")
        for loc in stray
    ]


def _sitemap(project: Project, path: Path, pages_built: set[str]) -> list[Finding]:
    rel = path.name
    data = path.read_bytes()
    try:
        text = (gzip.decompress(data) if rel.endswith(".gz") else data).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return [Finding(rel, "<file>", "not a sitemap")]
    found = []
    # the site's address is the published one, or the build's (SITE_URL may point it elsewhere)
    prefixes = {
        urlsplit(u).path or "/" for u in (project.site.hosted_url, _built_site_url(project)) if u
    }
    for url in re.findall(r"<loc>([^<]*)</loc>", text):
        path = urlsplit(url).path
        local = next(
            (path[len(p) :] for p in sorted(prefixes, key=len, reverse=True) if path.startswith(p)),
            None,
        )
        page = (
            None
            if local is None
            else "index.html"
            if local == ""
            else local.rstrip("/") + "/index.html"
        )
        if page not in pages_built:
            found.append(Finding(rel, "<loc>", f"the sitemap names {url}, no page of the site"))
    return found

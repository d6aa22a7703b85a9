"""Small projects in temporary folders, for the tests that are not about processes: a Project
of a few files, read by docpipe exactly as it reads the site (no subprocess, no torch)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import yaml

from docpipe import catalog
from docpipe.project import Project

REPO = Path(__file__).resolve().parents[1]  # the repository these tests belong to


def strict_build(folder: Path, hooks: str) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of a project in `folder`: its docs/index.md alone, built with a
    mkdocs.yml that inherits the site's (its theme overrides, `hooks` a YAML list)."""
    config = folder / "mkdocs.yml"
    config.write_text(
        f"INHERIT: {REPO / 'mkdocs.yml'}\n"
        f"docs_dir: {folder / 'docs'}\n"
        "nav: [index.md]\n"
        f"theme:\n  custom_dir: {REPO / 'overrides'}\n"
        f"hooks: {hooks}\n"
        "plugins: [search]\n"
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)]
    return subprocess.run(
        [*command, "-d", str(folder / "site")], cwd=folder, capture_output=True, text=True
    )


def site_config() -> str:
    """A minimal mkdocs.yml with the site's own addresses and pymdownx.snippets options (read
    from the real mkdocs.yml through MkDocs' loader, never written here a second time)."""
    site = Project(REPO).site
    config = {
        "site_name": "A small project",
        "site_url": site.hosted_url,
        "repo_url": site.repo_url,
        "edit_uri": site.edit_uri,
        "markdown_extensions": [{"pymdownx.snippets": site.snippets_options}],
    }
    return yaml.safe_dump(config, sort_keys=False)


class SmallProject:
    """A project of a few files: mkdocs.yml, snippets/snippets.toml, docs/index.md."""

    def __init__(self, root: Path):
        self.root = root
        self.project = Project(root)
        self.docs = self.project.docs
        self.write("mkdocs.yml", site_config())
        self.write("snippets/snippets.toml", "")
        self.write("docs/index.md", "# Home\n")

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def record(self, key: str, values: dict[str, str]) -> None:
        """A recorded run of snippets/<key>.py that recorded these values."""
        record = {"command": f"python snippets/{key}.py", "environment": {"torch": "2.13.0"}}
        record |= {"sections": [], "values": values}
        self.write(f"docs/generated/{key}.json", json.dumps(record))

    def catalog(self) -> catalog.Catalog:
        return catalog.load(self.project)


SITE = Project(REPO)  # the site itself, as a Project

"""The pre-commit hook: `--check` the snippets the files given touch (see .pre-commit-config.yaml).

python scripts/check_touched.py FILE...
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docpipe import catalog, cli  # noqa: E402
from docpipe.project import Project  # noqa: E402
from docpipe.recorded import touched  # noqa: E402


def main(files: list[str], project: Project | None = None) -> int:
    project = project or cli.default_project()
    try:
        chosen = touched.snippets(project, files, catalog.load(project))
    except catalog.CatalogError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not chosen:
        print("no snippet touched: nothing to check")
        return 0
    # A snippet not verified with the other torch yet is a note here, not a stop: the commit
    # that records it comes before `make verify` writes verified/ (`make check` and CI fail).
    return cli.main(["--check", "--unverified-ok", *(s.name for s in chosen)], project)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

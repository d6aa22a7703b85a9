"""docpipe: the pipeline that runs the site's snippets and checks what the pages say.

The layout shows the architecture (DESIGN.md, "The runner"):

    project.py, problems.py, catalog.py, sections.py   the core every side uses
    pages/      the page side: reading pages, values, claims, prose rules, notebooks, math
    run/        the run side: the zygote, the pool, one snippet's execution, figures, normalisers
    recorded/   the recorded state: records, the regen cache, fingerprints, writing, drift
    formats/    what a verdict looks like: terminal progress, GitHub, the HTML report
    pipeline.py, cli.py, live.py, verify.py   on top: check, regen, audit, serve, verify

The page side never imports the run side (tests/test_layout.py).
"""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # the runner's own code, wherever the project is

"""docpipe: the pipeline that runs the site's snippets and checks what the pages say.

The layout shows the architecture (DESIGN.md, "The runner"):

    project.py, problems.py, catalog.py, sections.py, environment.py, vacuous.py, statuses.py
                the core every side uses (statuses.py: one enum per status)
    pages/      the page side: reading pages, values, claims, prose rules, notebooks, math
    run/        the run side: the zygote, the pool, one snippet's execution, figures, normalisers
    recorded/   the recorded state: records, the regen cache, fingerprints, writing, drift
    formats/    what a verdict looks like: terminal progress, GitHub, the HTML report
    pipeline.py, cli.py, live.py, verify.py   on top: check, regen, audit, serve, verify

Imports point one way, inside functions too (tests/test_layout.py): no cycle between modules;
core <- recorded <- pages, core <- recorded <- run; formats above those sides; the top above all.
The page side and the run side never import each other, the recorded side imports neither.
"""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # the runner's own code, wherever the project is

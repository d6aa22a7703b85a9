# What `python scripts/regen.py --check` reports when a page no longer matches
# its code: fit_line.py run for real as committed and with its learning rate
# halved, compared by the same functions the check uses.
import contextlib
import io

from docpipe.cli import default_project
from docpipe.formats import terminal
from docpipe.pages.reading import pages_using
from docpipe.pipeline import Verdict
from docpipe.recorded import drift
from docpipe.statuses import CheckStatus, DriftKind

project = default_project()  # the repository this runner belongs to
snippet = project.snippet("examples/fit_line")
source = snippet.source.read_text()


def run(code: str) -> tuple[bytes, dict]:
    """What the code prints, and its globals after the run."""
    out, namespace = io.StringIO(), {"__name__": "__main__"}
    with contextlib.redirect_stdout(out):
        exec(compile(code, snippet.name, "exec"), namespace)
    return out.getvalue().encode(), namespace


recorded, committed = run(source)
lr_before = committed["lr"]
lr_after = lr_before / 2
changed = source.replace(f"lr = {lr_before:g}", f"lr = {lr_after:g}", 1)
assert changed != source, "the learning rate line was not found"
actual, _ = run(changed)
diff = drift.unified(project.rel(snippet.output), recorded, actual)
drifts = [drift.Drift(snippet.output, DriftKind.DIFFERS, diff)]
verdict = Verdict(
    snippet.name,
    CheckStatus.DRIFTED,
    snippet,
    drifts,
    pages=pages_using(snippet),
)
print(terminal.report(verdict))

# What `python scripts/regen.py --check` reports when a page no longer matches
# its code: fit_line.py run for real with its learning rate halved, compared by
# the same functions the check uses.
import contextlib
import io

from docpipe import drift
from docpipe.pages import pages_using
from docpipe.paths import Snippet

snippet = Snippet("examples/fit_line")
edited = snippet.source.read_text().replace("lr = 0.1", "lr = 0.05")
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    exec(compile(edited, snippet.name, "exec"), {"__name__": "__main__"})

actual = {snippet.output: printed.getvalue().encode()}
drifts = drift.compare(actual, {snippet.output})
print(drift.report(snippet, drifts, pages_using(snippet), ""))

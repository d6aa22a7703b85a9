# What `python scripts/regen.py --check` reports when a page no longer matches
# its code: fit_line.py run for real as committed and with its learning rate
# halved, compared by the same functions the check uses.
import contextlib
import io

from docpipe import drift
from docpipe.pages import pages_using
from docpipe.paths import Snippet

snippet = Snippet("examples/fit_line")
source = snippet.source.read_text()


def printed(code: str) -> bytes:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, snippet.name, "exec"), {"__name__": "__main__"})
    return out.getvalue().encode()


recorded = printed(source)
actual = printed(source.replace("lr = 0.1", "lr = 0.05"))
diff = drift.unified(snippet.output, recorded, actual)
drifts = [drift.Drift(snippet.output, "differs", diff)]
print(drift.report(snippet, drifts, pages_using(snippet), ""))

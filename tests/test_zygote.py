"""The zygote every snippet's process is forked from: it imports, before the next run, what the
snippets imported last time, so no child pays an import the zygote could have paid."""

from __future__ import annotations

import json

PAGE = """\
# Sandbox

```python title="snippets/lazy.py"
--8<-- "snippets/lazy.py"
```

``` text title="python snippets/lazy.py"
--8<-- "docs/generated/lazy.txt"
```
"""

# `warm` says whether the module was already imported when the snippet started: a value, so it
# lands in the record without changing what the page shows.
LAZY = """\
import sys

warm = "email.mime.text" in sys.modules
import email.mime.text  # noqa: E402

print(email.mime.text.MIMEText("hi").get_content_type())
"""
SETTINGS = '[defaults]\ntimeout = 60\n\n["lazy.py".values]\nwarm = "{warm}"\n'


def warm(sandbox) -> str:
    return json.loads(sandbox.read("docs/generated/lazy.json"))["values"]["warm"]


def recorded_imports(sandbox) -> list[str]:
    return json.loads(sandbox.read(".cache/regen.json"))["snippets"]["lazy"]["imports"]


def test_what_a_snippet_imported_last_time_is_imported_before_its_next_run(sandbox):
    sandbox.write("snippets/lazy.py", LAZY)
    sandbox.write("snippets/snippets.toml", SETTINGS)
    sandbox.write("docs/index.md", PAGE)
    first = sandbox.regen()
    assert first.returncode == 0, first.stderr
    assert warm(sandbox) == "False"
    # What the snippet asked for (email itself came with the runner), not what those modules
    # imported in turn.
    assert recorded_imports(sandbox) == ["email.mime", "email.mime.text"]

    again = sandbox.regen("--force")  # a new process, so a new zygote, warmed from the cache
    assert again.returncode == 0, again.stderr
    assert warm(sandbox) == "True"
    assert sandbox.read("docs/generated/lazy.txt") == "text/plain\n"
    # A warm run does not see those imports; they stay known all the same.
    assert recorded_imports(sandbox) == ["email.mime", "email.mime.text"]

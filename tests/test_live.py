"""`mkdocs serve` keeps pages live: an edited snippet's new code and output appear by themselves,
a failing snippet shows its error on the page, and without the run dependencies a page says
which of its snippets changed since their recording and how to refresh them."""

from __future__ import annotations

import http.client
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # real regens in a sandbox repository

SNIPPET = """
# --8<-- [start:greet]
word = "{word}"
print(f"hello, {{word}} version")
# --8<-- [end:greet]
"""

PAGE = """
# Live

The word is {{ hello.py:word }}.

```python title="snippets/hello.py"
--8<-- "snippets/hello.py:greet"
```

``` text title="python snippets/hello.py"
--8<-- "docs/generated/hello.txt"
```
"""

# Imported first by every Python started with it on PYTHONPATH: torch, numpy and matplotlib
# then cannot be found, as on a machine with only the site installed.
NO_RUN_DEPENDENCIES = """
import sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {"torch", "numpy", "matplotlib"}:
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, Missing())
"""


@pytest.fixture
def site(sandbox):
    """A sandbox whose page shows snippets/hello.py, recorded and committed, and its site."""
    # the sandbox has the hooks and the theme's overrides already (tests/conftest.py)
    sandbox.write("snippets/hello.py", SNIPPET.format(word="first"))
    sandbox.write("snippets/snippets.toml", '["hello.py".values]\nword = "{word}"\n')
    sandbox.write("docs/index.md", PAGE)
    first = sandbox.regen()
    assert first.returncode == 0, first.stderr
    sandbox.commit()
    return sandbox


def without_run_dependencies(tmp_path: Path) -> dict:
    folder = tmp_path / "blocker"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(NO_RUN_DEPENDENCIES)
    # the blocker first, then what conftest put there (this repository's scripts/)
    paths = [str(folder), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def test_the_blocker_hides_torch(tmp_path):
    probe = "import importlib.util as u; print(u.find_spec('mkdocs') is not None); import torch"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=without_run_dependencies(tmp_path),
        capture_output=True,
        text=True,
    )
    assert done.stdout == "True\n"
    assert "ModuleNotFoundError: No module named 'torch'" in done.stderr


def test_a_build_without_torch_says_which_snippet_changed_and_how_to_refresh(site, tmp_path):
    site.write("snippets/hello.py", SNIPPET.format(word="edited"))
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "out")],
        cwd=site.root,
        env=without_run_dependencies(tmp_path),
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    page = (tmp_path / "out" / "index.html").read_text()
    assert (
        '<div class="admonition warning live-notice">\n<p class="admonition-title">'
        "Out of date: snippets/hello.py changed since its output was recorded</p>"
    ) in page
    assert "come from a run made before these changed: <code>snippets/hello.py</code>" in page
    assert (
        "Refresh them with <code>python scripts/regen.py snippets/hello.py</code>, after "
        "installing the run dependencies (see the README)."
    ) in page
    assert "hello, first version" in page  # the recorded output, still shown


def test_an_unchanged_site_has_no_notice(site, tmp_path):
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "out")],
        cwd=site.root,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    assert "live-notice" not in (tmp_path / "out" / "index.html").read_text()


def free_port() -> int:
    """A free loopback port below the range the kernel hands out for port 0: serve binds it a
    second after it is chosen, and meanwhile any other process of the suite that asks for
    port 0 (a Jupyter kernel, a server) could be handed one it has just freed."""
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")  # Linux; 32768 is its default
    low = int(ephemeral.read_text().split()[0]) if ephemeral.exists() else 32768
    for port in random.Random().sample(range(10000, low), 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free loopback port between 10000 and {low}")


class Served:
    """`mkdocs serve` running in a sandbox, on a free loopback port."""

    def __init__(self, root: Path, env: dict):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/autograd-docs/"
        self.log = root / "serve.log"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mkdocs",
                "serve",
                "--strict",
                "--dev-addr",
                f"127.0.0.1:{port}",
            ],
            cwd=root,
            env=env,
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
        )

    def page(self) -> str:
        with urllib.request.urlopen(self.url, timeout=60) as response:
            return response.read().decode()

    def wait_for(self, *texts: str, gone: str = "", timeout: float = 90) -> float:
        """Seconds until the page shows every text (and no longer shows `gone`)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise AssertionError(f"mkdocs serve exited:\n{self.log.read_text()}")
            try:
                page = self.page()
            except (OSError, http.client.HTTPException):  # not serving yet
                page = ""
            if all(t in page for t in texts) and not (gone and gone in page):
                return time.monotonic() - started
            time.sleep(0.1)
        missing = [t for t in texts if t not in page]
        raise AssertionError(
            f"page never showed {missing}:\n{page}\nserve log:\n{self.log.read_text()}"
        )

    def zygote(self) -> int:
        """The pid of the runner's zygote, a child of `mkdocs serve`."""
        pid = self.process.pid
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            if b"docpipe.run.zygote" in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
        raise AssertionError("mkdocs serve started no zygote")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # as Ctrl-C: MkDocs shuts down its hooks
        self.process.wait(timeout=30)


@pytest.fixture
def serve():
    started = []

    def start(root: Path, env: dict | None = None) -> Served:
        started.append(Served(root, env or dict(os.environ)))
        return started[-1]

    yield start
    for served in started:
        if served.process.poll() is None:
            served.stop()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_serve_reruns_an_edited_snippet_and_shows_a_failure_on_the_page(site, serve):
    served = serve(site.root)
    served.wait_for("hello, first version")
    server = served.zygote()
    # it preloads what the snippets import (pipeline.preloads): hello.py imports no torch yet
    assert "libtorch" not in Path(f"/proc/{server}/maps").read_text()

    site.write("snippets/hello.py", "import torch  # noqa: F401\n" + SNIPPET.format(word="second"))
    # The page may show the new output a moment before the rebuild that drops "running…".
    seconds = served.wait_for(
        "hello, second version", '"second"</span>', "The word is second.", gone="live-notice"
    )
    print(f"save to page: {seconds:.2f} s")
    assert "live-notice" not in served.page()

    failing = SNIPPET.format(word="third").replace("print(", "raise ValueError(")
    site.write("snippets/hello.py", failing)
    served.wait_for("live-notice", "ValueError: hello, third version")
    page = served.page()
    assert (
        '<div class="admonition failure live-notice">\n<p class="admonition-title">'
        "snippets/hello.py failed: this page shows its last recorded run</p>"
    ) in page
    assert "snippets/hello.py:3: ValueError: hello, third version" in page
    assert 'raise ValueError(f"hello, {word} version")' in page  # its traceback
    assert "hello, second version" in page  # the last recorded run, kept
    assert site.read("docs/generated/hello.txt") == "hello, second version\n"

    site.write("snippets/hello.py", SNIPPET.format(word="fourth"))
    served.wait_for("hello, fourth version", gone="live-notice")
    assert served.zygote() == server, "every run forked from the one zygote"
    maps = Path(f"/proc/{server}/maps").read_text()
    assert "libtorch" in maps, "which imported torch once, when a snippet first needed it"
    mkdocs_maps = Path(f"/proc/{served.process.pid}/maps").read_text()
    assert "libtorch" not in mkdocs_maps, "the MkDocs process itself never imports torch"

    served.stop()
    deadline = time.monotonic() + 60  # unloading torch takes a while on a busy machine
    while Path(f"/proc/{server}").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(f"/proc/{server}").exists(), "the zygote ends with mkdocs serve"


def timed_page(served: Served) -> tuple[float, str]:
    started = time.monotonic()
    page = served.page()
    return time.monotonic() - started, page


@pytest.mark.waits("a snippet that hangs until its 8 s timeout")
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_serve_answers_at_once_while_a_snippet_hangs_and_shows_its_state(site, serve):
    served = serve(site.root)
    served.wait_for("hello, first version")
    site.write(
        "snippets/snippets.toml",
        '["hello.py"]\ntimeout = 8\n\n["hello.py".values]\nword = "{word}"\n',
    )
    site.write(
        "snippets/hello.py", "import time\n\n" + SNIPPET.format(word="slow") + "time.sleep(30)\n"
    )
    served.wait_for("snippets/hello.py is running\u2026", timeout=30)
    # Answered while the run goes on (it ends at its 8 s timeout): a page that waited for the
    # run would say it timed out. An order of events, not a time bound.
    assert "snippets/hello.py is running\u2026" in served.page()
    slowest, page = 0.0, ""
    while "timed out" not in page:
        seconds, page = timed_page(served)
        slowest = max(slowest, seconds)
        time.sleep(0.2)
    print(f"slowest answer while the snippet ran: {slowest:.2f} s")
    assert "snippets/hello.py failed: this page shows its last recorded run" in page
    assert "snippets/hello.py:8: timed out after 8 s" in page  # at its time.sleep(30)
    assert "hello, first version" in page  # the last recorded run, kept
    assert "is running" not in page

    site.write(
        "snippets/hello.py", "import json\n\njson.dumps = print\n" + SNIPPET.format(word="odd")
    )
    served.wait_for("hello, odd version", gone="live-notice", timeout=60)

    site.write("docs/index.md", PAGE.replace("{{ hello.py:word }}", "{{ hello.py: word }}"))
    served.wait_for("This page cannot be built", "docs/index.md:3: {{ hello.py: word }} is neither")

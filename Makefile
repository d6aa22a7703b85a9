# The README's two commands are `make serve` and `make test`; everything else is a short form.
PYTHON ?= python3.11
# The Pythons this project installs on, pyproject.toml's requires-python (tests/test_pins.py keeps
# the two equal), checked before any venv is made. 3.11.5 is the oldest Python that
# pymdown-extensions and soupsieve, at constraints.txt's versions, declare they run on (Debian 12
# ships 3.11.2). 3.12 and later are not supported: every recording is made and checked under 3.11
# with torch's CPU-only build, and a traceback or an error message may read otherwise elsewhere.
PYTHON_MIN := 3.11.5
PYTHON_BELOW := 3.12
VENV := .venv
BIN := $(VENV)/bin
export NO_MKDOCS_2_WARNING := 1
# mkdocs.yml's Markdown extension docpipe.pagework is imported before the hooks put scripts/ on
# the path: this repository's, whatever folder the venv's editable install points at.
export PYTHONPATH := $(CURDIR)/scripts$(if $(PYTHONPATH),:$(PYTHONPATH))

.PHONY: python-version serve build test screenshots check regen audit verify verify-check bench lint format system-deps node-deps clean lock zensical

# Every install takes its versions from constraints.txt: what the build imports, pinned exactly
# (`make lock` upgrades it).
CONSTRAINTS := constraints.txt

# The first command of each recipe that makes a venv (and `make python-version`): one line and
# exit 1 when $(PYTHON) is missing or outside [PYTHON_MIN, PYTHON_BELOW). Any Python, 2 too, runs
# the test, so the line names the one found. A venv already made is not checked again.
PYTHON_NEEDED := this project needs Python $(PYTHON_MIN) or a newer 3.11 (requires-python in \
  pyproject.toml); name one with make PYTHON=/path/to/python3.11
CHECK_PYTHON = command -v $(PYTHON) >/dev/null || { echo "make: $(PYTHON) not found: $(PYTHON_NEEDED)"; exit 1; }; \
  $(PYTHON) -c 'import sys; v = sys.version_info[:3]; \
  low = tuple(map(int, "$(PYTHON_MIN)".split("."))); below = tuple(map(int, "$(PYTHON_BELOW)".split("."))); \
  why = "too old" if v < low else "too new" if v >= below else ""; \
  why and sys.exit("make: Python %s at %s is %s: %s" % (".".join(map(str, v)), sys.executable, why, sys.argv[1]))' \
  "$(PYTHON_NEEDED)"
python-version:
	@$(CHECK_PYTHON)

$(BIN)/python:
	@$(CHECK_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The site alone: no torch needed to build or serve it.
$(VENV)/.site: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e .
	touch $@

# Everything: the site, the snippet runner (torch, matplotlib) and the test tools, and ProperDocs,
# which tests/test_generators.py builds the site with beside MkDocs.
$(VENV)/.dev: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e '.[dev]'
	touch $@ $(VENV)/.site

serve: $(VENV)/.site
	$(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8000

# The build, then the verifier of what it built (regen.py --check-site): it fails on anything
# the build should have done and did not.
build: $(VENV)/.site
	$(BIN)/mkdocs build --strict
	$(BIN)/python scripts/regen.py --check-site site

# Upgrade what the build imports: the newest versions pyproject.toml allows, installed in a fresh
# venv (.cache/lock), written to constraints.txt (its comment kept), then a build with them that
# the verifier checks. Review the diff of constraints.txt and commit it.
lock:
	@$(CHECK_PYTHON)
	rm -rf .cache/lock .cache/lock-site
	$(PYTHON) -m venv .cache/lock
	.cache/lock/bin/pip install --quiet --upgrade pip
	.cache/lock/bin/pip install --quiet -e . properdocs zensical
	{ sed -n '/^#/p' $(CONSTRAINTS); .cache/lock/bin/pip freeze --exclude-editable | LC_ALL=C sort -f; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	.cache/lock/bin/mkdocs build --strict --site-dir .cache/lock-site
	.cache/lock/bin/python scripts/regen.py --check-site .cache/lock-site

# Zensical reads mkdocs.yml and runs its Markdown extensions, docpipe.pagework among them (the
# values, claim marks, page rules, box and math of every Markdown page), but no hook and no
# plugin: it cannot make the notebook pages, so the extension fails its build saying so, in the
# one line this prints. If it ever builds, the verifier checks its site. Its venv (the site's
# packages and zensical) is not under .cache/: `zensical build --clean` deletes all of .cache/.
ZENSICAL := .venv-zensical/bin/zensical
$(ZENSICAL): pyproject.toml $(CONSTRAINTS)
	@$(CHECK_PYTHON)
	$(PYTHON) -m venv .venv-zensical
	.venv-zensical/bin/pip install --quiet -c $(CONSTRAINTS) -e . zensical
	touch $@

zensical: $(ZENSICAL) $(VENV)/.site
	rm -rf site
	@out=$$($(ZENSICAL) build --clean 2>&1) || { \
	  printf '%s\n' "$$out" | sed -n 's/.*PageWorkError: /zensical: /p' | head -n 1 | grep . \
	  || printf '%s\n' "$$out"; exit 1; }
	$(BIN)/python scripts/regen.py --check-site site

# System packages the browser tests need: Debian's chromium, as its headless shell.
system-deps:
	@command -v $${CHROMIUM:-chromium-headless-shell} >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; \
	  else echo "chromium-headless-shell is missing and cannot be installed here (needs root and apt-get): browser tests will skip"; fi; }

# ==== npm tools for the browser tests (axe-core, for tests/test_accessibility.py) ====
# `npm ci` installs exactly what package-lock.json pins into node_modules/, again whenever
# either file changes. Without npm (and no root to apt-get it) the audit skips, loudly.
node-deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	  fi; }
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm is missing and cannot be installed here (needs root and apt-get): the accessibility audit will skip"; fi
# ==== end of npm tools ====

# ruff over the code; actionlint and zizmor over the workflows (offline: no GitHub API).
lint: $(VENV)/.dev
	$(BIN)/ruff check scripts snippets tests
	$(BIN)/ruff format --check scripts snippets tests
	$(BIN)/actionlint
	$(BIN)/zizmor --offline --min-severity medium .github/workflows

format: $(VENV)/.dev
	$(BIN)/ruff format scripts snippets tests
	$(BIN)/ruff check --fix scripts snippets tests

# Zensical too: the tests build the site with it (it must fail naming what it lacks).
test: $(VENV)/.dev system-deps node-deps lint $(ZENSICAL)
	$(BIN)/python -m pytest

# The browser tours with a full-page screenshot of every page in both palettes, for a person to
# look at (test-artifacts/screenshots/; the run prints the path).
screenshots: $(VENV)/.dev system-deps node-deps
	AUTOGRAD_DOCS_SCREENSHOTS=1 $(BIN)/python -m pytest -m browser

check: $(VENV)/.dev
	$(BIN)/python scripts/regen.py --check

regen: $(VENV)/.dev
	$(BIN)/python scripts/regen.py

audit: $(VENV)/.dev
	$(BIN)/python scripts/regen.py --audit

# Every snippet under each other torch of pyproject.toml's [tool.autograd-docs] verify list, in
# its own venv (.cache/verify/torch-VERSION/, built on first use): writes verified/*.json.
verify: $(VENV)/.dev
	$(BIN)/python scripts/regen.py --verify

# The same runs, writing nothing: fails when a committed verified/*.json says otherwise.
verify-check: $(VENV)/.dev
	$(BIN)/python scripts/regen.py --verify --check

bench: $(VENV)/.dev
	$(BIN)/python scripts/bench.py

clean:
	rm -rf site .cache .pytest_cache .venv-zensical

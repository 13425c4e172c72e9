# Arena site: developer and CI entry points (GNU make 4.3).
#
#   make install       .venv exactly as uv.lock pins it (the project and its dev tools); uv itself is
#                      installed from PyPI into .tools/ when missing; a no-op when up to date
#   make lock          re-resolve uv.lock after editing the dependencies in pyproject.toml
#   make system-deps   redis-server, chromium, varnish and Java from Debian's packages when missing
#                      (root only)
#   make node-tools    the web's own checkers from the npm registry into tools/node_modules, exactly as
#                      tools/package-lock.json pins them (the Nu HTML Checker's jar, Lighthouse)
#   make run           install what running needs (no dev tools), migrate, load the bundled arena
#                      when empty, serve on 127.0.0.1:$(PORT) (default 8000: make run PORT=9000)
#   make smoke-prod    start the Procfile (gunicorn, Celery worker and beat) under honcho with
#                      DEBUG=0 and a real Redis, file and uphold a flag over HTTP, stop it cleanly
#   make check         ruff (lint and format), the import contract (.importlinter) with every
#                      module in a layer (scripts/check_layers.py), module and function sizes
#                      (scripts/check_sizes.py), mypy
#   make test          check, then the whole suite on SQLite under branch coverage (real
#                      Redis/Celery/Chromium), then the database-backed tests on a throwaway
#                      PostgreSQL (scripts/with-postgres.sh)
#   make lint          ruff check and ruff format --check
#   make format        ruff check --fix and ruff format
#   make hooks         install the pre-commit hooks (ruff) into .git/hooks
#   make backup-check  back up a throwaway PostgreSQL database with moderated changes, restore it
#                      into an empty one, compare every table's rows and every export (a report)
#   make bench         the benchmark (scripts/bench.py), as ratios to /healthz in one run: the arena
#                      page warm, uncached and 304 (gunicorn + wrk, else a Python client), queries
#                      per page at 6 × 53 and 30 × 300, the 30 × 300 recompute, flag submit on a
#                      throwaway PostgreSQL without and with a broker; about 5 minutes
#   make bench-deps    wrk and redis-server from Debian's packages when missing (root only)
#   make lighthouse    Lighthouse (mobile and desktop) on the home, arena, head-to-head, cell and flag
#                      pages of a production-like server (scripts/lighthouse.py: DEBUG=0, gunicorn,
#                      a scratch SQLite db with the bundled arena); prints the four category scores
#                      per page and preset and the arena page's DOM size and blocking time; fails
#                      when a score is below 100. Minutes; not part of make test

# The one place the Python version is written; uv reads the same file.
PYTHON_VERSION := $(strip $(file < .python-version))
UV_VERSION := 0.13.9

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TOOLS := .tools/uv-$(UV_VERSION)
UV := $(TOOLS)/bin/uv
PYTEST_ARGS ?=
# What the test passes run: `make test-sqlite TESTS=tests/stories` narrows one pass to a folder.
TESTS ?= tests
# Tests for the PostgreSQL pass: the database-backed ones. Browser tests already ran in the first
# pass, and the pure scoring rules (marked pure) give the same answer on any engine.
PG_PYTEST_ARGS ?= -m "not e2e and not pure"
APT_PACKAGES := redis-server chromium varnish default-jre-headless

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1
# The cache and .venv may sit on different file systems; copy without warning about hard links.
export UV_LINK_MODE := copy
export UV_NO_PROGRESS := 1

.PHONY: all install venv lock system-deps node-tools run check lint format hooks test test-sqlite \
	test-postgres backup-check smoke-prod bench bench-deps lighthouse clean help

all: help

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# uv from PyPI, pinned, in a folder of its own (works as root and as a user; no system changes).
$(UV):
	@py=""; \
	for cand in python$(PYTHON_VERSION) python3; do \
	  if command -v $$cand >/dev/null 2>&1; then py=$$cand; break; fi; \
	done; \
	if [ -z "$$py" ]; then echo "error: python$(PYTHON_VERSION) not found" >&2; exit 1; fi; \
	echo "installing uv $(UV_VERSION) into $(TOOLS)"; \
	rm -rf $(TOOLS) && $$py -m pip install -q --target $(TOOLS) uv==$(UV_VERSION)

$(STAMP): pyproject.toml uv.lock .python-version | $(UV)
	$(UV) sync --locked
	@touch $@

venv install: $(STAMP)

NODE_STAMP := tools/node_modules/.installed
$(NODE_STAMP): tools/package.json tools/package-lock.json
	# npm ci refuses this lock file (lighthouse asks for two versions of one package), so install
	# from it with npm install, which keeps to the versions it pins
	cd tools && npm install --no-audit --no-fund --loglevel=error
	@touch $@

node-tools: $(NODE_STAMP)

lock: | $(UV)
	$(UV) lock

system-deps:
	@missing=""; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	command -v varnishd >/dev/null 2>&1 || [ -x /usr/sbin/varnishd ] || missing="$$missing varnish"; \
	command -v java >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing$$missing (apt-get)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get install -y -q $$missing; \
	  else \
	    echo "warning: missing$$missing and not root: sudo apt-get install$$missing" >&2; \
	  fi; \
	fi

# What running needs, without the dev tools: --inexact keeps the dev tools `make install` put there
# (make test still finds them); a separate stamp, so it is a no-op when up to date.
PORT ?= 8000
RUN_STAMP := $(VENV)/.installed-runtime
$(RUN_STAMP): pyproject.toml uv.lock .python-version | $(UV)
	$(UV) sync --locked --no-dev --inexact
	@touch $@

run: $(RUN_STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_bundled_arena
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

# The Procfile's web, worker and beat under honcho with DEBUG=0, a real Redis and a scratch database:
# a page, a flag filed and upheld, the worker's recompute, the corrected verdict, a clean stop.
smoke-prod: install
	$(PY) scripts/smoke_prod.py

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Every step runs; the target fails if any failed.
check: install
	@status=0; \
	$(VENV)/bin/ruff check . || status=1; \
	$(VENV)/bin/ruff format --check . || status=1; \
	if [ -f .importlinter ]; then \
	  $(VENV)/bin/lint-imports || status=1; \
	  $(PY) scripts/check_layers.py || status=1; \
	  $(PY) scripts/check_sizes.py || status=1; \
	else \
	  echo "lint-imports: skipped (no .importlinter contract yet)"; \
	fi; \
	$(VENV)/bin/mypy || status=1; \
	exit $$status

hooks: install
	$(VENV)/bin/pre-commit install

# check and both passes always run; the target fails if any failed.
test: system-deps install node-tools
	@status=0; \
	$(MAKE) --no-print-directory check || status=1; \
	$(MAKE) --no-print-directory test-sqlite || status=1; \
	$(MAKE) --no-print-directory test-postgres || status=1; \
	exit $$status

# Both passes spread the tests over the machine's cores (pytest-xdist), a test file per worker:
# the suite mostly waits on browsers, workers and databases. The files are handed out costliest
# first (tests/conftest.py orders them; xdist would otherwise sort them by their number of tests).
# XDIST= runs them in one process.
XDIST ?= -n auto --dist loadfile --no-loadscope-reorder

# Branch coverage of the application (pyproject.toml [tool.coverage]; pytest-cov combines what the
# workers measured; the data file .coverage is ignored by git). Its floor (fail_under) holds for the
# whole suite only: a run narrowed with TESTS or PYTEST_ARGS still prints the report but is not
# held to it. COVERAGE=0 runs the pass without coverage (branch tracing costs CPU time).
COVERAGE ?= 1
NARROWED := $(strip $(PYTEST_ARGS))$(filter-out tests,$(TESTS))
ifeq ($(COVERAGE),1)
COVERAGE_ARGS := --cov --cov-report=term $(if $(NARROWED),--cov-fail-under=0)
else
COVERAGE_ARGS :=
endif

test-sqlite: install
	$(PY) -m pytest $(XDIST) $(COVERAGE_ARGS) $(PYTEST_ARGS) $(TESTS)

test-postgres: install
	bash scripts/with-postgres.sh $(PY) -m pytest $(XDIST) $(PG_PYTEST_ARGS) $(PYTEST_ARGS) $(TESTS)

# A backup restored: the bundled arena with a moderated change on a throwaway PostgreSQL, backed up,
# restored into an empty second database, every table's rows and every export compared (a report).
backup-check: install
	bash scripts/with-postgres.sh $(PY) -m pytest -p no:randomly -v -s tests/ops/test_backup.py

bench: install bench-deps
	$(PY) scripts/bench.py

lighthouse: install node-tools
	$(PY) scripts/lighthouse.py

# wrk drives the pages; redis-server (optional) is the flag part's cache and broker. PostgreSQL for the flag
# part is installed by scripts/with-postgres.sh when missing (without a default cluster).
bench-deps:
	@missing=""; \
	command -v wrk >/dev/null 2>&1 || missing="$$missing wrk"; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing$$missing (apt-get)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get install -y -q $$missing; \
	  else \
	    echo "warning: missing$$missing and not root: sudo apt-get install$$missing" >&2; \
	  fi; \
	fi

clean:
	rm -rf .pytest_cache .ruff_cache .mypy_cache .coverage htmlcov staticfiles
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

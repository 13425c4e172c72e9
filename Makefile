# Arena site: developer and CI entry points (GNU make 4.3).
#
#   make install       .venv with the project and its dev tools (fast when up to date)
#   make system-deps   redis-server and chromium from Debian's packages when missing (root only)
#   make run           migrate, load the bundled arena when empty, serve on 127.0.0.1:8000
#   make test          whole suite on SQLite (real Redis/Celery/Chromium), then the
#                      database-backed tests on a throwaway PostgreSQL (scripts/with-postgres.sh)
#   make lint          ruff check
#   make bench         scripts/bench.py

VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# Tests for the PostgreSQL pass (database-backed ones; browser tests already ran in the first pass).
PG_PYTEST_ARGS ?= -m "not e2e"
APT_PACKAGES := redis-server chromium

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1

.PHONY: all venv install system-deps run test test-sqlite test-postgres lint bench clean help

all: help

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# python3 resolves to 3.12 through pyenv and .python-version; fall back to python3.12.
$(PY):
	@py=""; \
	for cand in python3 python3.12; do \
	  if command -v $$cand >/dev/null 2>&1 && \
	     $$cand -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
	    py=$$cand; break; \
	  fi; \
	done; \
	if [ -z "$$py" ]; then echo "error: Python >= 3.12 not found (python3, python3.12)" >&2; exit 1; fi; \
	echo "creating $(VENV) with $$($$py --version)"; \
	$$py -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[dev]'
	@touch $@

venv install: $(STAMP)

system-deps:
	@missing=""; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing$$missing (apt-get)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get install -y -q $(APT_PACKAGES); \
	  else \
	    echo "warning: missing$$missing and not root: sudo apt-get install$$missing" >&2; \
	  fi; \
	fi

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_bundled_arena
	$(PY) manage.py runserver 127.0.0.1:8000

# Both passes always run; the target fails if either failed.
test: system-deps install
	@status=0; \
	$(MAKE) --no-print-directory test-sqlite || status=1; \
	$(MAKE) --no-print-directory test-postgres || status=1; \
	exit $$status

test-sqlite: install
	$(PY) -m pytest $(PYTEST_ARGS) tests

test-postgres: install
	bash scripts/with-postgres.sh $(PY) -m pytest $(PG_PYTEST_ARGS) $(PYTEST_ARGS) tests

lint: install
	$(PY) -m ruff check .

bench: install
	$(PY) scripts/bench.py

clean:
	rm -rf .pytest_cache .ruff_cache staticfiles
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

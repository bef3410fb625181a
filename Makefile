# The two set-up commands of the README: `make demo` and `make test`.
# Each creates .venv and installs sgam with what it needs on first use.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp

.PHONY: demo test test-python lint bench browser schema

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev,embeddings,server]'
	touch $(STAMP)

# The demo needs sgam and its run-time dependencies only, not the test tools.
$(DEMO_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(VENV)/bin/sgam demo

# The web inspector's tests drive Debian's chromium and chromedriver (same package
# version); as root, install them when missing. Another process holding the dpkg lock
# (an unattended upgrade on a fresh machine) is waited for, up to APT_LOCK_WAIT seconds.
APT_LOCK_WAIT ?= 600
APT_GET := apt-get -o DPkg::Lock::Timeout=$(APT_LOCK_WAIT) -y -q
browser:
	@command -v chromedriver >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
	  { $(APT_GET) install chromium chromium-driver >/dev/null 2>&1 || \
	    { $(APT_GET) update >/dev/null && $(APT_GET) install chromium chromium-driver >/dev/null; }; }; } || \
	  { echo "the browser tests need Debian's chromium and chromium-driver: apt-get install chromium chromium-driver"; exit 1; }

test: $(STAMP) browser
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

# The suite on another Python (PYTHON=..., VENV=...): every store fixture on SQLite only,
# the PostgreSQL-only tests and the rest as in `make test`, so every module runs; the fuzz
# runs, the browser and the example's crash runs (which exercise no module the rest does
# not) are left to `make test`.
test-python: $(STAMP)
	SGAM_TEST_BACKENDS=sqlite $(VENV)/bin/pytest --ignore=tests/fuzz --ignore=tests/examples \
	  --ignore=tests/server/test_inspector_browser.py

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench

# After adding a migration: rewrite the checked-in schema of each backend
# (src/sgam/store/*/migrations/schema.txt) from an empty database, and review the diff.
schema: $(STAMP)
	SGAM_WRITE_SCHEMA=1 $(VENV)/bin/pytest tests/store/test_schema_snapshot.py

bench: $(STAMP)
	$(VENV)/bin/python bench/ledger.py --quick

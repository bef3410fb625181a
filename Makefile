# The two set-up commands of the README: `make demo` and `make test`.
# Each creates .venv and installs sgam with what it needs on first use.
VENV ?= .venv
STAMP := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp

.PHONY: demo test lint bench

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev,embeddings]'
	touch $(STAMP)

# The demo needs sgam and its run-time dependencies only, not the test tools.
$(DEMO_STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(VENV)/bin/sgam demo

test: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench

bench: $(STAMP)
	$(VENV)/bin/python bench/ledger.py --quick

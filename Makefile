# Every target installs what it needs into .venv with the pinned versions of requirements/constraints.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export PATH := $(abspath $(BIN)):$(PATH)
CORES ?= all

.PHONY: run test lint bench install clean-results

install: $(STAMP)

$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c requirements/constraints.txt -e '.[workflow,dev]'
	touch $@

run: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/snakefmt --check Snakefile rules
	$(BIN)/snakemake --lint --cores 1

test: lint
	$(BIN)/pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python -m memshift.bench --out docs/benchmarks.md --runs 3

clean-results:
	rm -rf results .snakemake

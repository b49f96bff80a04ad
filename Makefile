# Every target installs what it needs into .venv with the pinned versions of requirements/constraints.txt.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export PATH := $(abspath $(BIN)):$(PATH)
CORES ?= all

.PHONY: run test test-docs docs-runs test-native test-cluster test-real-model test-newcomer test-studies lint bench bench-study bench-cluster install compile native-envs clean-results horizons heldout rewritten \
	failure-modes sync

install: $(STAMP)

# uv installs the same pinned set as pip in about a quarter of the time (17 s against 63 s on 2
# cores); it is itself pinned in the constraints. --compile-bytecode as pip does by default: a
# study starts hundreds of processes, and without the compiled modules each one compiles
# Snakemake's and the libraries' sources again (make test took 13 min 55 s so, against 10 min)
$(STAMP): pyproject.toml requirements/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c requirements/constraints.txt uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -c requirements/constraints.txt -e '.[workflow,dev,native]'
	touch $@

# A study starts hundreds of short processes; compiled modules spare each of them compiling the
# package again (also where PYTHONDONTWRITEBYTECODE keeps Python from caching them itself).
compile: $(STAMP)
	$(BIN)/python -m compileall -q src

# Snakemake loads profiles/default (rerun-incomplete: a killed run resumes with this same command).
# A finished run names its report and the command of Snakemake's HTML report (Snakefile, onsuccess).
run: compile
	$(BIN)/snakemake --cores $(CORES)

# Studies of several runs and a report over them (docs/running.md, Presets)
horizons: compile
	$(BIN)/memshift horizons --cores $(CORES)

heldout: compile
	$(BIN)/memshift heldout --cores $(CORES)

rewritten: compile
	$(BIN)/memshift rewritten --cores $(CORES)

# One run each: the failure-mode probes and the sync study (docs/failure-modes.md)
failure-modes: compile
	$(BIN)/snakemake --cores $(CORES) --configfile config/studies/failure-modes.yaml

sync: compile
	$(BIN)/snakemake --cores $(CORES) --configfile config/studies/sync.yaml

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/snakefmt --check Snakefile rules
	$(BIN)/snakemake --lint --cores 1

# worksteal: a worker that runs out of tests takes queued ones from the other, so a whole-study
# test that starts late does not leave one core idle at the end
test: lint compile
	$(BIN)/pytest -n 2 --dist worksteal -q

# Every number the README and docs/*.md quote from a run, against that run: the default study
# (finished jobs reused), then each generated block checked (docs/report.md, Numbers in the
# documentation); `memshift docs-tables` writes them anew
test-docs: compile
	$(BIN)/snakemake --cores $(CORES)
	$(BIN)/memshift docs-tables --check

# The validation study and the validation grid run (about an hour on 2 cores), their reports
# kept under docs/runs/ with their figures, and every page that quotes them written anew
# (docs/report.md, Numbers in the documentation)
KEPT_RUNS := validation validation-grid
docs-runs: compile
	$(BIN)/memshift validate --cores $(CORES)
	$(BIN)/memshift validate-grid --cores $(CORES)
	for run in $(KEPT_RUNS); do \
		rm -rf docs/runs/$$run && mkdir -p docs/runs/$$run && \
		cp results/$$run/report.md docs/runs/$$run/ && \
		if [ -d results/$$run/figures ]; then cp -r results/$$run/figures docs/runs/$$run/; fi \
		|| exit 1; \
	done
	$(BIN)/memshift docs-tables

# The native libraries whose pins clash with memshift's, each in an environment of its own under
# .native/ (environments/native.sh, docs/native.md)
native-envs: $(STAMP)
	bash environments/native.sh memos
	bash environments/native.sh cognee
	bash environments/native.sh amem
	bash environments/native.sh hipporag

# The real memory libraries at full size (tests/native, docs/native.md): about half an hour
test-native: compile native-envs
	$(BIN)/pytest -n 2 --dist worksteal -q -m native_full tests/native tests/pipeline/test_native_study.py \
		tests/pipeline/test_bridged_study.py

# A real model on this machine's CPU: llama.cpp's server with SmolLM2-135M-Instruct, built into
# .venv-llama (servers/llama-cpp/install.sh, a few minutes the first time), and a slice study
# with all four roles on it, world to report (tests/realmodel, docs/models.md)
test-real-model: compile
	bash servers/llama-cpp/install.sh
	$(BIN)/pytest -q -m real_model tests/realmodel

# Whole studies of tens of seconds each, apart from make test: under every model-server fault, with
# every call failing, killed and resumed, and the validation grid's seven writers (in CI)
test-studies: compile
	$(BIN)/pytest -n 2 --dist worksteal -q -m studies

# A new user's first paths as written: the README's quickstart line by line, and the smoke
# study's report.html laid out by a real browser at 1400 px (Debian's chromium, installed as root
# when missing): no table wider than the page, and a screenshot of it
test-newcomer: compile
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium)
	$(BIN)/pytest -q -m newcomer tests/test_quickstart.py tests/report/test_browser.py

# A one-node SLURM cluster on this machine (as root), the smoke study through it and locally,
# compared output for output; stops only what it started (cluster/, docs/running.md)
test-cluster: compile
	bash cluster/test-cluster.sh

# Most of its time is the coverage section (tens of thousands of simulated studies); one section
# alone: python -m memshift_tools.bench --only coverage --out docs/benchmarks.md
bench: $(STAMP)
	$(BIN)/python -m memshift_tools.bench --out docs/benchmarks.md --runs 3

# The study budgets: the main and smoke studies three times each from nothing (about half an hour).
bench-study: compile
	$(BIN)/python -m memshift_tools.bench.study --out docs/benchmarks-study.md --runs 3

# The smoke study through a one-node SLURM on this machine, three times (as root; about ten
# minutes with the set-up): the "Through SLURM" section of docs/benchmarks-study.md
bench-cluster: compile
	$(BIN)/python -m memshift_tools.bench.study --only slurm --out docs/benchmarks-study.md --runs 3

clean-results:
	rm -rf results .snakemake

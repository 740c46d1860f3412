# АРМ КА recognition subsystem. `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help install test test-fast test-pure-python check lint typecheck contracts models models-check asyncapi asyncapi-check openapi openapi-check run demo screenshots bench lock containers-check clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/' | expand -t 16

$(STAMP): pyproject.toml setup.py services/excel/_walk.c services/excel/_cells.c
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the project with its dev extra (idempotent)

test: install  ## the whole test suite (real nats-server and S3 started by the tests)
	$(PY) -m pytest

test-fast: install  ## everything but the slow and end-to-end tests
	$(PY) -m pytest -m 'not slow and not e2e'

test-pure-python: install  ## the Excel tests again on the Python kernels (the reference of the C ones)
	ARM_KA_PURE_PYTHON=1 $(PY) -m pytest tests/excel -q

lint: install  ## ruff check and format check of services, tests, scripts and benchmarks
	$(VENV)/bin/ruff check services tests scripts benchmarks
	$(VENV)/bin/ruff format --check services tests scripts benchmarks

typecheck: install  ## mypy --strict over services, tests, scripts and benchmarks as one program
	$(VENV)/bin/mypy services tests scripts benchmarks

contracts: install  ## validate schemas, examples, negative cases and the services' contract copies
	$(PY) scripts/validate_contracts.py
	$(PY) scripts/check_contract_copies.py

models: install  ## regenerate services/contract/models from contracts/
	$(PY) scripts/generate_models.py

models-check: install
	$(PY) scripts/generate_models.py --check

NODE_TOOLS := asyncapi/tools/node_modules/.installed

$(NODE_TOOLS): asyncapi/tools/package-lock.json
	npm ci --prefix asyncapi/tools --no-audit --no-fund --loglevel=error
	touch $(NODE_TOOLS)

asyncapi: install  ## regenerate the AsyncAPI documents and the offline site under asyncapi/
	$(PY) scripts/generate_asyncapi.py

asyncapi-check: install $(NODE_TOOLS)  ## committed AsyncAPI documents current and valid (@asyncapi/parser)
	$(PY) scripts/generate_asyncapi.py --check
	node asyncapi/tools/validate.js

openapi: install  ## regenerate arm-core's OpenAPI document openapi/arm-core.json (validated)
	$(PY) scripts/generate_openapi.py

openapi-check: install  ## committed OpenAPI document current and valid (openapi-spec-validator)
	$(PY) scripts/generate_openapi.py --check

check: lint typecheck contracts models-check asyncapi-check openapi-check  ## ruff, mypy, contracts and copies, models, AsyncAPI and OpenAPI current

run: install  ## the local stack on embedded defaults (core on :8000; ARGS="--port N" to move it)
	$(PY) -m services.devstack $(ARGS)

demo: install  ## the local stack plus generated sample files sent through it
	$(PY) -m services.devstack --demo $(ARGS)

screenshots: install  ## PNGs of the review pages (docs/images/) from a real local stack and Chromium
	$(PY) -m tests.browser.screenshots docs/images

bench: install  ## benchmarks; reports under benchmarks/results/
	$(PY) -m benchmarks

lock: install  ## regenerate requirements.lock (the image's run-time dependencies, hashed) with uv
	$(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
		--custom-compile-command 'make lock' -o requirements.lock

containers-check: install  ## build the image, start compose.yaml (stand-ins for unpullable images), recognise, remove
	$(PY) scripts/containers_check.py

clean:
	rm -rf .pytest_cache .mypy_cache .ruff_cache .local

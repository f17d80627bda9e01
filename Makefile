# The README's two commands, `make serve` and `make test`, start from nothing but Python 3.11:
# the first run creates .venv from requirements.txt, and a changed requirements.txt rebuilds it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
READY := $(VENV)/.ready

export NO_MKDOCS_2_WARNING := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: serve test build bench pdf offline clean

serve: $(READY)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

test: $(READY)
	$(BIN)/python -m pytest
	$(BIN)/mkdocs build --strict

build: $(READY)
	$(BIN)/mkdocs build --strict

# site/pdf/backward-twice.pdf and site/offline/backward-twice-offline.zip (needs chromium).
pdf: $(READY)
	$(BIN)/python tests/make_pdf.py

offline: $(READY)
	$(BIN)/python tests/make_pdf.py --no-pdf

bench: $(READY)
	$(BIN)/python tests/bench_suite.py

$(READY): requirements.txt
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

clean:
	rm -rf $(VENV) site build .cache .pytest_cache

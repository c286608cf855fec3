PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench coverage-doc clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/python -m glueball.demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m tools.coverage_doc --check
	$(BIN)/python -m pytest -q

coverage-doc: $(VENV)/.installed-test
	$(BIN)/python -m tools.coverage_doc

bench: $(VENV)/.installed-test
	$(BIN)/python bench/catalog.py

clean:
	rm -rf $(VENV) build *.egg-info

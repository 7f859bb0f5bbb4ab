# Two commands on a fresh clone: `make bench` runs the main job, `make test` the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: bench demo test lint typecheck pytest clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,lab]'
	touch $(STAMP)

bench: $(STAMP)
	$(BIN)/dualio demo

demo: bench

lint: $(STAMP)
	$(BIN)/ruff check dualio dualio_sync transports tests examples

typecheck: $(STAMP)
	$(BIN)/mypy --strict dualio dualio_sync transports

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: $(STAMP)
	$(BIN)/ruff check dualio dualio_sync transports tests examples
	$(BIN)/mypy --strict dualio dualio_sync transports
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)

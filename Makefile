# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest clean install uninstall

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/companion run --mock

lint: $(STAMP)
	$(BIN)/ruff check companion tests firmware
	$(BIN)/ruff format --check companion tests firmware

typecheck: $(STAMP)
	$(BIN)/mypy --strict companion

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

# On a Pi (as root): the service, its venv under /opt and the Pi libraries, no test tools.
install:
	./install.sh

uninstall:
	./install.sh uninstall

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis

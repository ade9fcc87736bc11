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
	$(BIN)/pip install --quiet -e '.[test,hardware]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/companion run --mock

lint: $(STAMP)
	$(BIN)/ruff check companion tests firmware
	$(BIN)/ruff format --check companion tests firmware

# The firmware as the Pico runs it, against CircuitPython's own API (circuitpython-stubs,
# in a venv of their own: their board/digitalio stubs would shadow Blinka's for companion).
CP_STUBS := $(VENV)/circuitpython/.installed
FIRMWARE_PY := boot.py code.py firmware.py protocol.py settings.py

$(CP_STUBS): $(BIN)/python
	$(PYTHON) -m venv $(VENV)/circuitpython
	$(VENV)/circuitpython/bin/pip install --quiet 'circuitpython-stubs>=9'
	$(VENV)/circuitpython/bin/pip install --quiet --no-deps 'adafruit-circuitpython-neopixel>=6.3'
	touch $(CP_STUBS)

typecheck: $(STAMP) $(CP_STUBS)
	$(BIN)/mypy --strict companion
	cd companion/firmware && ../../$(BIN)/mypy --strict --explicit-package-bases \
	  --python-executable ../../$(VENV)/circuitpython/bin/python --always-true ON_PICO \
	  --no-warn-unused-ignores --config-file '' --cache-dir ../../.mypy_cache/firmware $(FIRMWARE_PY)

pytest: $(STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

# On a Pi (as root): the service, its venv under /opt and the Pi libraries, no test tools.
install:
	./install.sh

uninstall:
	./install.sh uninstall

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build dist *.egg-info

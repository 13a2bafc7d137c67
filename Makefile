# Crucible: `make run` serves the platform (embedded profile), `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PG_URL    ?= postgres://postgres@127.0.0.1:5432/crucible
REDIS_URL_TEST ?= redis://127.0.0.1:6379/15

.PHONY: install run worker test test-fast test-services test-browser lint bench reproduction clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Crucible needs Python 3.11, found " + sys.version' 
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

## Embedded profile: SQLite + file-system broker; web server and one worker on http://127.0.0.1:8000
run: install
	$(BIN)/python manage.py crucible_serve --host 127.0.0.1 --port 8000

## A worker for one pool (services profile: set DATABASE_URL and REDIS_URL)
worker: install
	$(BIN)/python manage.py crucible_worker --pool $${POOL:-default}

## Everything: fast tests, browser test, then the services tests against PostgreSQL and Redis
test: install
	$(BIN)/python -m pytest -m "not services" -q
	@if $(BIN)/python scripts/services_up.py --check "$(PG_URL)" "$(REDIS_URL_TEST)"; then \
	  DATABASE_URL="$(PG_URL)" REDIS_URL="$(REDIS_URL_TEST)" $(BIN)/python -m pytest -m services -q; \
	else echo "PostgreSQL or Redis not reachable: services tests skipped (.ci/run starts them)"; fi

test-fast: install
	$(BIN)/python -m pytest -m "not services and not browser and not slow" -q

test-services: install
	DATABASE_URL="$(PG_URL)" REDIS_URL="$(REDIS_URL_TEST)" $(BIN)/python -m pytest -m services -q

lint: install
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

reproduction: install
	$(BIN)/python manage.py crucible_reproduction

clean:
	rm -rf var/broker var/media var/crucible.sqlite3*

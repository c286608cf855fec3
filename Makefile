PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench coverage-doc clean jdbc-drivers rdkafka-headers browser

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml setup.py glueball/runtime/streaming/_kafkacols.c | $(BIN)/python rdkafka-headers
	$(BIN)/pip install -q -e .
	touch $@

# aws-glue-sessions (the real Glue Jupyter kernel) without its notebook server, widgets and plotting stack
# (~370 MB it never imports): what it imports comes with the test extras
GLUE_KERNEL := aws-glue-sessions==1.0.9

$(VENV)/.installed-test: pyproject.toml setup.py glueball/runtime/streaming/_kafkacols.c | $(BIN)/python rdkafka-headers
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/pip install -q --no-deps '$(GLUE_KERNEL)'
	touch $@

# librdkafka's headers for the Kafka source's C reader (glueball/runtime/streaming/_kafkacols.c); without them
# glueball installs without it and reads Kafka through confluent-kafka alone
RDKAFKA_H := /usr/include/librdkafka/rdkafka.h
$(RDKAFKA_H):
	@if [ "$$(id -u)" = 0 ]; then \
		(apt-get install -y -qq librdkafka-dev >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null && apt-get install -y -qq librdkafka-dev >/dev/null)) || \
		echo "librdkafka-dev not installed: the Kafka source reads through confluent-kafka" >&2; \
	else echo "install librdkafka-dev as root for the Kafka source's C reader" >&2; fi

rdkafka-headers: $(RDKAFKA_H)

# JDBC drivers for Spark come from Debian's packages (Maven Central is not reachable)
JDBC_JARS := /usr/share/java/postgresql.jar /usr/share/java/mariadb-java-client.jar
$(JDBC_JARS):
	@if [ "$$(id -u)" = 0 ]; then \
		(apt-get install -y -qq libpostgresql-jdbc-java libmariadb-java >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null && apt-get install -y -qq libpostgresql-jdbc-java libmariadb-java >/dev/null)); \
	else echo "install libpostgresql-jdbc-java and libmariadb-java (JDBC drivers) as root" >&2; fi

jdbc-drivers: $(JDBC_JARS)

# headless Chromium and its WebDriver for the console's browser tests (tests/console), from Debian's packages
BROWSER_BINS := /usr/bin/chromium /usr/bin/chromedriver
$(BROWSER_BINS):
	@if [ "$$(id -u)" = 0 ]; then \
		(apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null && apt-get install -y -qq chromium chromium-driver >/dev/null)); \
	else echo "install chromium and chromium-driver (the console's browser tests) as root" >&2; fi

browser: $(BROWSER_BINS)

demo: $(VENV)/.installed
	$(BIN)/python -m glueball.demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint jdbc-drivers browser
	$(BIN)/python -m tools.coverage_doc --check
	$(BIN)/python -m pytest -q --durations=15

coverage-doc: $(VENV)/.installed-test
	$(BIN)/python -m tools.coverage_doc

bench: $(VENV)/.installed-test jdbc-drivers
	$(BIN)/python bench/catalog.py
	$(BIN)/python bench/auth.py
	$(BIN)/python bench/glue_context.py
	$(BIN)/python bench/runtime.py
	$(BIN)/python bench/crawler.py
	$(BIN)/python bench/jobs.py
	$(BIN)/python bench/workflows.py
	$(BIN)/python bench/dq.py
	$(BIN)/python bench/streaming.py
	$(BIN)/python bench/console.py

clean:
	rm -rf $(VENV) build *.egg-info

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint typecheck bench coverage-doc clean jdbc-drivers browser services jars awscli2 bytecode

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

# aws-glue-sessions (the real Glue Jupyter kernel) without its notebook server, widgets and plotting stack
# (~370 MB it never imports): what it imports comes with the test extras
GLUE_KERNEL := aws-glue-sessions==1.0.9

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/pip install -q --no-deps '$(GLUE_KERNEL)'
	touch $@

APT := sh tools/apt_install.sh

# JDBC drivers for Spark come from Debian's packages
JDBC_JARS := /usr/share/java/postgresql.jar /usr/share/java/mariadb-java-client.jar
$(JDBC_JARS):
	@$(APT) "JDBC drivers" libpostgresql-jdbc-java libmariadb-java

jdbc-drivers: $(JDBC_JARS)

# headless Chromium and its WebDriver for the console's browser tests (tests/console), from Debian's packages
BROWSER_BINS := /usr/bin/chromium /usr/bin/chromedriver
$(BROWSER_BINS):
	@$(APT) "the console's browser tests" chromium chromium-driver

browser: $(BROWSER_BINS)

# the AWS CLI v2 from Debian's awscli (/usr/bin/aws; the .venv's aws is v1): `aws logs tail --follow` and CloudWatch
# over the query protocol in the logs tests (tests/logs/test_clients.py)
AWSCLI2 := /usr/bin/aws
$(AWSCLI2):
	@$(APT) "the logs tests' AWS CLI v2" awscli

awscli2: $(AWSCLI2)

# the database servers the suite starts as throwaway clusters on free ports (tools/services); installing them
# starts no server: a machine's own databases on 5432/3306 are never touched. The suite's Kafka broker comes from
# `make jars` (the kafka-broker feature); its TLS certificates are made with openssl and the JDK's keytool
services:
	@command -v openssl >/dev/null 2>&1 || $(APT) "the suite's TLS certificates" openssl
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		$(APT) "the suite's PostgreSQL" postgresql
	@command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || \
		$(APT) "the suite's MariaDB" mariadb-server

# JVM connectors of the pinned list (glueball/jvm/pom.xml) resolved with Maven into ~/.cache/glueball/jars: Spark's
# Kafka connector, the MSK IAM login, and the Kafka broker the streaming tests and bench/streaming.py start
jars: $(VENV)/.installed
	$(BIN)/glueball jars fetch --all

# glueball's own modules and Glue's script libraries (an editable install: pip compiled only the dependencies)
# compiled ahead (pytest compiles the tests itself). Where
# PYTHONDONTWRITEBYTECODE is set, as on these machines, Python never writes them itself and compiles every module
# from source in every process it starts: 0.5 s of each `glueball server`'s 2 s start, and as much again in each
# driver, warm driver and CLI the demo and the suite start. Up-to-date files are skipped.
bytecode: $(VENV)/.installed
	$(BIN)/python -m compileall -q -j 0 glueball awsglue awsgluedq awsglueml $(wildcard gs_*.py)

demo: $(VENV)/.installed bytecode
	$(BIN)/python -m glueball.demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint jdbc-drivers browser services jars awscli2 bytecode
	$(BIN)/python -m tools.coverage_doc --check
	$(BIN)/python -m pytest -q --durations=15

coverage-doc: $(VENV)/.installed-test
	$(BIN)/python -m tools.coverage_doc

bench: $(VENV)/.installed-test jdbc-drivers services jars bytecode
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
	$(BIN)/python bench/connections.py

clean:
	rm -rf $(VENV) build *.egg-info

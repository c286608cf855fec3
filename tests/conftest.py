from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, create_postgres_database, drop_postgres_database
from tools import services
from tools.services import MariaDB, PostgreSQL


@pytest.fixture(scope="session")
def postgres() -> PostgreSQL:
    """The suite's PostgreSQL server (``GLUEBALL_TEST_POSTGRES_URL``'s, or a throwaway one started now)."""
    return services.postgres()


@pytest.fixture(scope="session")
def mariadb() -> MariaDB:
    """The suite's MariaDB server (``GLUEBALL_TEST_MARIADB_URL``'s, or a throwaway one started now)."""
    return services.mariadb()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Throwaway database servers end with the run (also on failure and Ctrl-C; a killed run takes them
    with it: tools.services.base.die_with_parent)."""
    services.stop_all()


# set once for the whole process: pytest's own, and PySpark's as it starts the shared session's gateway
_PROCESS_WIDE = {"PYTEST_CURRENT_TEST", "PYSPARK_PYTHON", "SPARK_AUTH_SOCKET_TIMEOUT", "SPARK_BUFFER_SIZE"}


@pytest.fixture(autouse=True)
def _environment_kept(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test ends with os.environ as it began: a variable a test leaks (GLUEBALL_ENDPOINT, GLUEBALL_SQL_CATALOG,
    credentials) would reach every server and driver started later. A leak is restored and reported as a warning
    naming the test and the variables."""
    before = dict(os.environ)
    yield
    after = dict(os.environ)
    changed = sorted(k for k in before.keys() | after.keys()
                     if before.get(k) != after.get(k) and k not in _PROCESS_WIDE)
    if not changed:
        return
    for key in changed:
        if key in before:
            os.environ[key] = before[key]
        else:
            os.environ.pop(key, None)
    import warnings

    warnings.warn(f"{request.node.nodeid} left os.environ changed: {', '.join(changed)} (restored)", stacklevel=1)


@pytest.fixture(scope="session", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A running `glueball server`, once on SQLite and once on PostgreSQL."""
    home: Path = tmp_path_factory.mktemp(f"home-{request.param}")
    store_url = create_postgres_database() if request.param == "postgres" else ""
    proc = ServerProcess(home, store_url).start()
    yield proc
    proc.stop()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def glue(server: ServerProcess) -> Any:
    """A boto3 Glue client pointed at the running server."""
    return server.client()


# modules whose tests launch driver processes (job runs, data quality runs, `glueball run`): the process
# contract - exit status, kill -9, timeout, stop, retry, streaming resume - needs real drivers
DRIVER_MODULES = {
    "tests/jobs/test_cli.py", "tests/jobs/test_cluster.py", "tests/jobs/test_runs.py", "tests/jobs/test_tutorial.py",
    "tests/jobs/test_s3a.py",
    "tests/jobs/test_crashes.py",
    "tests/runtime/test_run.py", "tests/runtime/test_s3_scripts.py",
    "tests/streaming/test_streaming_job.py", "tests/streaming/test_registry_job.py",
    "tests/streaming/test_kafka_everywhere.py",
    "tests/dataquality/test_service_runs.py",
    "tests/dataquality/test_service_spark.py", "tests/workflows/test_fires.py", "tests/workflows/test_resume.py",
    "tests/workflows/test_runs.py", "tests/workflows/test_scheduler.py", "tests/blueprints/test_blueprints.py",
    "tests/catalog/test_column_statistics_tasks.py", "tests/catalog/test_column_statistics_spark.py",
    "tests/logs/test_run_logs.py", "tests/logs/test_clients.py", "tests/logs/test_run_metrics.py",
    "tests/metastore/test_dbt_glue.py", "tests/metastore/test_iam.py", "tests/metastore/test_catalog_switch.py",
    "tests/athena/test_queries.py", "tests/athena/test_failures.py", "tests/athena/test_clients.py",
    "tests/athena/test_console.py", "tests/athena/test_iceberg.py",
    "tests/athena/test_iam.py",
    "tests/formats/test_iceberg_jobs.py", "tests/formats/test_delta_jobs.py",
}
SPARK_FIXTURES = {"spark", "glue_context", "glue_home"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``spark`` on every test that uses the shared Spark session; ``driver`` on every test that launches
    driver processes (``-m "not driver"`` runs everything else in one process)."""
    root = Path(str(config.rootpath))
    for item in items:
        if SPARK_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.spark)
        if Path(str(item.path)).relative_to(root).as_posix() in DRIVER_MODULES:
            item.add_marker(pytest.mark.driver)


@pytest.fixture(scope="session", autouse=True)
def hadoop_filesystem_jar() -> None:
    """glueball's Hadoop FileSystem for s3:// in plain Spark (glueball.runtime.hadoop), compiled once per machine
    (a few seconds): before the class archive, whose key names the drivers' jars."""
    from glueball.runtime import hadoop

    hadoop.jar()


@pytest.fixture(scope="session", autouse=True)
def jvm_class_archive(hadoop_filesystem_jar: None) -> None:
    """Spark drivers of the suite start from the class-data-sharing archive (glueball.runtime.jvmshare):
    built once per machine (about half a minute), it takes seconds off every driver's start."""
    from glueball.runtime import jvmshare
    from glueball.runtime.spark import driver_jars

    jvmshare.build(driver_jars())
    # the drivers the suite launches do little work: compiling with C1 alone starts them sooner
    # (this process's own shared session is made without it: tests.helpers.shared_spark)
    os.environ.setdefault("GLUEBALL_DRIVER_JAVA_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

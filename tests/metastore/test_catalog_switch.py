"""``--enable-glue-datacatalog``: a job run's Spark SQL sees the Data Catalog unless the job says ``false``, when
Spark keeps its own in-memory catalog (as a Glue job without the catalog as its Hive metastore); any other value
fails the run, naming it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique, wait_for

ENDED = ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED")
SCRIPT = """
from awsglue.context import GlueContext
from pyspark.context import SparkContext
spark = GlueContext(SparkContext.getOrCreate()).spark_session
print("catalog", spark.conf.get("spark.sql.catalogImplementation"))
print("databases", sorted(r.namespace for r in spark.sql("SHOW DATABASES").collect()))
"""


@pytest.fixture(scope="module")
def switch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("catalog-switch")).start()
    yield server
    server.stop()


def _output(server: ServerProcess, glue: Any, job: str, arguments: dict[str, str]) -> tuple[dict[str, Any], str]:
    run_id = glue.start_job_run(JobName=job, Arguments=arguments)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=job, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=300, what=f"run {run_id} to end", interval=0.5)
    log = server.home / "logs" / "jobs" / job / run_id / "output.log"
    return run, log.read_text() if log.exists() else ""


def test_the_catalog_is_spark_s_unless_the_job_says_false(switch_server: ServerProcess) -> None:
    glue = switch_server.client()
    sales = unique("sales")
    glue.create_database(DatabaseInput={"Name": sales})
    script = switch_server.home / "s3" / "scripts" / "switch.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT)
    job = unique("switch")
    glue.create_job(Name=job, Role="GlueRole", Command={"Name": "glueetl", "ScriptLocation": "s3://scripts/switch.py"})

    run, output = _output(switch_server, glue, job, {})
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert "catalog hive" in output and sales in output

    run, output = _output(switch_server, glue, job, {"--enable-glue-datacatalog": "false"})
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert "catalog in-memory" in output and "databases ['default']" in output

    run, _ = _output(switch_server, glue, job, {"--enable-glue-datacatalog": "yes"})
    assert run["JobRunState"] == "FAILED"
    assert "--enable-glue-datacatalog expects true or false, got 'yes'" in run["ErrorMessage"]

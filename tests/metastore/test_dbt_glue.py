"""dbt-glue runs unchanged against ``glueball server``: seed, run and test pass twice in a row, and what dbt made
is readable by boto3, awswrangler and a Glue job.

dbt (dbt-core 1.10 with dbt-glue 1.10.19) and awswrangler run from their own virtualenv
(``tools/dbt_env.py``, built on first use), as the programs their users run, with nothing but
``AWS_ENDPOINT_URL`` and credentials pointing them at the server. Every dbt command opens its own
interactive session on the server's warm driver.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess
from tools import dbt_env

PROJECT = Path(__file__).resolve().parents[2] / "examples" / "dbt_glue"


@pytest.fixture(scope="module")
def dbt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    dbt_env.ensure()
    running = ServerProcess(tmp_path_factory.mktemp("dbt-home"), warm_drivers=1).start()
    yield running
    running.stop()


def _env(server: ServerProcess, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GLUEBALL_", "DBT_"))}
    env.update({"AWS_ENDPOINT_URL": server.endpoint, "AWS_ACCESS_KEY_ID": "dbt", "AWS_SECRET_ACCESS_KEY": "dbt",
                "AWS_DEFAULT_REGION": "us-east-1", "DBT_PROFILES_DIR": str(PROJECT), "HOME": str(root),
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
    return env


def _dbt(command: str, server: ServerProcess, root: Path) -> tuple[float, str]:
    begun = time.monotonic()
    done = subprocess.run([str(dbt_env.VENV / "bin" / "dbt"), command, "--target-path", str(root / "target"),
                           "--log-path", str(root / "logs")], cwd=PROJECT, env=_env(server, root),
                          capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - begun
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return elapsed, done.stdout


def test_seed_run_and_test_pass_twice_and_the_tables_are_glue_tables(dbt_server: ServerProcess,
                                                                      tmp_path: Path) -> None:
    timings: dict[str, list[float]] = {}
    for _ in range(2):
        for command, passed in (("seed", "PASS=2"), ("run", "PASS=4"), ("test", "PASS=7")):
            elapsed, output = _dbt(command, dbt_server, tmp_path)
            assert passed in output and "ERROR=0" in output, output[-3000:]
            timings.setdefault(command, []).append(round(elapsed, 1))
    print(f"dbt command times (s), first and second round: {timings}")
    assert "create_schema exception" not in (tmp_path / "logs" / "dbt.log").read_text()

    glue = dbt_server.client()
    totals = glue.get_table(DatabaseName="shop", Name="customer_totals")["Table"]
    assert totals["TableType"] == "EXTERNAL_TABLE"
    assert totals["StorageDescriptor"]["Location"] == "s3://dbt-lake/warehouse/shop/customer_totals"
    assert totals["Parameters"]["classification"] == "parquet"
    assert [c["Name"] for c in totals["StorageDescriptor"]["Columns"]] == \
        ["customer_id", "name", "country", "orders", "total"]
    assert glue.get_table(DatabaseName="shop", Name="stg_orders")["Table"]["TableType"] == "VIRTUAL_VIEW"
    days = glue.get_partitions(DatabaseName="shop", TableName="daily_revenue")["Partitions"]
    assert sorted(p["Values"][0] for p in days) == ["2026-01-01", "2026-01-02", "2026-01-03"]

    wrangled = subprocess.run([str(dbt_env.VENV / "bin" / "python"), "-c", (
        "import json, awswrangler as wr\n"
        "totals = wr.s3.read_parquet_table(database='shop', table='customer_totals')\n"
        "log = wr.s3.read_parquet_table(database='shop', table='order_log')\n"
        "revenue = wr.s3.read_parquet_table(database='shop', table='daily_revenue')\n"
        "print(json.dumps({'totals': sorted(totals['name']), 'log': len(log),\n"
        "                  'revenue': round(float(revenue['revenue'].sum()), 2),\n"
        "                  'tables': sorted(wr.catalog.tables(database='shop')['Table'])}))")],
        env=_env(dbt_server, tmp_path), capture_output=True, text=True, timeout=300)
    assert wrangled.returncode == 0, wrangled.stderr[-3000:]
    read: dict[str, Any] = json.loads(wrangled.stdout.strip().splitlines()[-1])
    assert read["totals"] == ["Ann", "Bob", "Cho"]
    assert read["log"] == 10                                        # append ran twice over the 5 orders
    assert read["revenue"] == 50.0                                  # insert_overwrite kept one row per day
    assert {"customers", "orders", "customer_totals", "daily_revenue", "order_log"} <= set(read["tables"])

    script = tmp_path / "read_dbt_tables.py"
    script.write_text(
        "import json, sys\n"
        "from awsglue.context import GlueContext\n"
        "from pyspark.context import SparkContext\n"
        "glue = GlueContext(SparkContext.getOrCreate())\n"
        "frame = glue.create_dynamic_frame.from_catalog(database='shop', table_name='daily_revenue')\n"
        "spark = glue.spark_session\n"
        "top = spark.sql('SELECT name FROM shop.customer_totals ORDER BY total DESC LIMIT 1').collect()[0].name\n"
        "spark.sql('CREATE TABLE shop.country_revenue USING parquet PARTITIONED BY (country) AS '\n"
        "          'SELECT total, customer_id, country FROM shop.customer_totals')\n"
        "json.dump({'days': frame.count(), 'top': top}, open(sys.argv[sys.argv.index('--out') + 1], 'w'))\n")
    out = tmp_path / "job.json"
    glue.create_job(Name="read-dbt", Role="arn:aws:iam::123456789012:role/GlueRole", GlueVersion="5.0",
                    Command={"Name": "glueetl", "ScriptLocation": str(script)})
    run_id = glue.start_job_run(JobName="read-dbt", Arguments={"--out": str(out)})["JobRunId"]
    deadline = time.monotonic() + 300
    state = "STARTING"
    while time.monotonic() < deadline and state not in ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED"):
        time.sleep(1)
        state = glue.get_job_run(JobName="read-dbt", RunId=run_id)["JobRun"]["JobRunState"]
    assert state == "SUCCEEDED", glue.get_job_run(JobName="read-dbt", RunId=run_id)["JobRun"].get("ErrorMessage")
    assert json.loads(out.read_text()) == {"days": 3, "top": "Cho"}
    made = glue.get_table(DatabaseName="shop", Name="country_revenue")["Table"]       # the job's CTAS, as the
    assert made["PartitionKeys"] == [{"Name": "country", "Type": "string"}]           # AWS CLI would show it
    assert made["StorageDescriptor"]["Location"] == "s3://dbt-lake/warehouse/shop/country_revenue"
    countries = glue.get_partitions(DatabaseName="shop", TableName="country_revenue")["Partitions"]
    assert sorted(p["Values"][0] for p in countries) == ["DE", "FR"]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-s"]))

"""``--datalake-formats iceberg`` on Glue job runs: Spark's ``glue_catalog`` (Iceberg's SparkCatalog over Iceberg's
own GlueCatalog and S3FileIO) against the server's Glue and S3 APIs. The tables are Glue tables (``table_type``
ICEBERG, ``metadata_location``) committed with Glue's ``VersionId``; pyiceberg's GlueCatalog reads what Spark wrote."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique, wait_for

ENDED = ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED")
KEY, SECRET = "AKIDEXAMPLE", "secret"

WRITE = """
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["db"])
glue = GlueContext(SparkContext.getOrCreate())
spark = glue.spark_session
t = f"glue_catalog.{args['db']}.accounts"
spark.sql(f"CREATE TABLE {t} (id BIGINT, owner STRING, balance BIGINT) USING iceberg")
spark.sql(f"INSERT INTO {t} VALUES (1, 'ann', 100), (2, 'bob', 200), (3, 'cid', 300)")
first = spark.sql(f"SELECT snapshot_id FROM {t}.snapshots").collect()[0][0]
spark.createDataFrame([(2, 'bob', 250), (4, 'dee', 400)], "id BIGINT, owner STRING, balance BIGINT") \\
    .createOrReplaceTempView("changes")
spark.sql(f\"\"\"MERGE INTO {t} t USING changes c ON t.id = c.id
    WHEN MATCHED THEN UPDATE SET balance = c.balance WHEN NOT MATCHED THEN INSERT *\"\"\")
spark.sql(f"UPDATE {t} SET balance = balance + 1 WHERE owner = 'ann'")
spark.sql(f"DELETE FROM {t} WHERE id = 3")
print("now", sorted(tuple(r) for r in spark.sql(f"SELECT id, balance FROM {t}").collect()))
print("then", sorted(tuple(r) for r in spark.sql(f"SELECT id, balance FROM {t} VERSION AS OF {first}").collect()))
more = spark.createDataFrame([(5, "eve", 500)], "id BIGINT, owner STRING, balance BIGINT")
glue.write_data_frame.from_catalog(frame=more, database=args["db"], table_name="accounts")
print("appended", sorted(r["id"] for r in glue.create_data_frame.from_catalog(database=args["db"],
                                                                           table_name="accounts").collect()))
"""


@pytest.fixture(scope="module")
def lake_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("iceberg-jobs")).start()
    yield server
    server.stop()


def run_script(server: ServerProcess, source: str, arguments: dict[str, str],
               timeout: float = 420) -> tuple[dict[str, Any], str]:
    glue = server.client()
    name = unique("lake")
    script = server.home / "s3" / "scripts" / f"{name}.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(source)
    glue.create_job(Name=name, Role="GlueRole", Command={"Name": "glueetl", "ScriptLocation": f"s3://scripts/{name}.py"})
    run_id = glue.start_job_run(JobName=name, Arguments=arguments)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=timeout, what=f"run {run_id} to end", interval=0.5)
    log = server.home / "logs" / "jobs" / name / run_id / "output.log"
    return run, log.read_text() if log.exists() else ""


def pyiceberg_catalog(server: ServerProcess) -> Any:
    from pyiceberg.catalog import load_catalog

    return load_catalog("glueball", **{
        "type": "glue", "glue.endpoint": server.endpoint, "glue.region": "us-east-1",
        "glue.access-key-id": KEY, "glue.secret-access-key": SECRET,
        "s3.endpoint": server.endpoint, "s3.region": "us-east-1",
        "s3.access-key-id": KEY, "s3.secret-access-key": SECRET,
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"})


def test_a_job_merges_updates_deletes_and_travels_in_time_on_a_glue_iceberg_table(lake_server: ServerProcess) -> None:
    glue = lake_server.client()
    db = unique("lake")
    glue.create_database(DatabaseInput={"Name": db})
    run, output = run_script(lake_server, WRITE, {"--datalake-formats": "iceberg", "--db": db})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    assert "now [(1, 101), (2, 250), (4, 400)]" in output
    assert "then [(1, 100), (2, 200), (3, 300)]" in output
    assert "appended [1, 2, 4, 5]" in output     # write_data_frame.from_catalog: one more Iceberg commit

    table = glue.get_table(DatabaseName=db, Name="accounts")["Table"]
    assert table["Parameters"]["table_type"].upper() == "ICEBERG"
    assert table["Parameters"]["metadata_location"].startswith("s3://")
    # created at version 0, then insert, merge, update, delete, append: one compare-and-swap on VersionId each;
    # Iceberg asks Glue to SkipArchive (its glue.skip-archive default), so only the current version is kept
    assert table["VersionId"] == "5"
    versions = glue.get_table_versions(DatabaseName=db, TableName="accounts")["TableVersions"]
    assert [v["VersionId"] for v in versions] == ["5"]

    loaded = pyiceberg_catalog(lake_server).load_table(f"{db}.accounts")
    rows = sorted(zip(*(loaded.scan().to_arrow().column(c).to_pylist() for c in ("id", "balance")), strict=True))
    assert rows == [(1, 101), (2, 250), (4, 400), (5, 500)]
    assert len(loaded.history()) == 5  # insert, merge, update, delete, append (the create makes no snapshot)


CONCURRENT = """
import sys
from concurrent.futures import ThreadPoolExecutor
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["db"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
t = f"glue_catalog.{args['db']}.events"
print("seen", spark.sql(f"SELECT writer, seq FROM {t}").collect())
spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('commit.retry.num-retries'='50', 'commit.retry.min-wait-ms'='20')")

def write(writer):
    for seq in range(5):
        spark.sql(f"INSERT INTO {t} VALUES ({writer}, {seq})")

with ThreadPoolExecutor(4) as pool:
    list(pool.map(write, range(1, 5)))
print("rows", spark.sql(f"SELECT count(*) FROM {t}").collect()[0][0])
"""


def test_four_concurrent_writers_lose_no_commit_and_pyiceberg_and_spark_read_each_other(
        lake_server: ServerProcess) -> None:
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    glue = lake_server.client()
    db = unique("lake")
    glue.create_database(DatabaseInput={"Name": db})
    catalog = pyiceberg_catalog(lake_server)
    schema = Schema(NestedField(1, "writer", LongType(), required=False),
                    NestedField(2, "seq", LongType(), required=False))
    table = catalog.create_table(f"{db}.events", schema=schema,
                                 location=f"s3://glueball-warehouse/{db}.db/events")
    table.append(pa.table({"writer": pa.array([0], pa.int64()), "seq": pa.array([0], pa.int64())}))

    run, output = run_script(lake_server, CONCURRENT, {"--datalake-formats": "iceberg", "--db": db})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    assert "seen [Row(writer=0, seq=0)]" in output  # Spark read what pyiceberg wrote
    assert "rows 21" in output

    loaded = catalog.load_table(f"{db}.events")
    data = loaded.scan().to_arrow()
    pairs = sorted(zip(data.column("writer").to_pylist(), data.column("seq").to_pylist(), strict=True))
    assert pairs == [(0, 0)] + [(w, s) for w in range(1, 5) for s in range(5)]
    # pyiceberg's append, then Spark's property change and 20 appends: every commit one compare-and-swap
    assert len(loaded.history()) == 21
    assert glue.get_table(DatabaseName=db, Name="events")["Table"]["VersionId"] == "22"


EVOLVE = """
import datetime, sys, time
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["db"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
t = f"glue_catalog.{args['db']}.visits"
spark.sql(f"CREATE TABLE {t} (id BIGINT, day DATE) USING iceberg")
spark.sql(f"INSERT INTO {t} VALUES (1, DATE'2024-01-01')")
spark.sql(f"INSERT INTO {t} VALUES (2, DATE'2024-01-02')")
time.sleep(1.2)
# to the millisecond: a time cut to the second can fall before the second insert's commit
moment = datetime.datetime.fromtimestamp(time.time() - 0.6, datetime.timezone.utc)
between = moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
spark.conf.set("spark.sql.session.timeZone", "UTC")
spark.sql(f"ALTER TABLE {t} ADD COLUMN city STRING")
spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD days(day)")
spark.sql(f"INSERT INTO {t} VALUES (3, DATE'2024-01-03', 'Oslo')")
print("then", sorted(r.id for r in spark.sql(f"SELECT id FROM {t} TIMESTAMP AS OF '{between}'").collect()))
print("now", sorted(tuple(r) for r in spark.sql(f"SELECT id, city FROM {t}").collect()))
print("specs", spark.sql(f"SELECT count(DISTINCT spec_id) FROM {t}.files").collect()[0][0])
rewritten = spark.sql(f"CALL glue_catalog.system.rewrite_data_files(table => '{args['db']}.visits', "
                      "options => map('min-input-files', '2'))").collect()[0]
print("rewritten", rewritten.rewritten_data_files_count, rewritten.added_data_files_count)
now_ms = int(time.time() * 1000)
expired = spark.sql(f"CALL glue_catalog.system.expire_snapshots(table => '{args['db']}.visits', "
                    f"older_than => TIMESTAMP_MILLIS({now_ms}), retain_last => 1)").collect()[0]
print("expired", expired.deleted_data_files_count > 0)
orphans = spark.sql(f"CALL glue_catalog.system.remove_orphan_files(table => '{args['db']}.visits', dry_run => true)")
print("orphans", orphans.count())
print("after", sorted(tuple(r) for r in spark.sql(f"SELECT id, city FROM {t}").collect()))
print("snapshots", spark.sql(f"SELECT count(*) FROM {t}.snapshots").collect()[0][0])
"""


def test_schema_and_partition_evolution_timestamp_travel_and_maintenance_procedures(
        lake_server: ServerProcess) -> None:
    glue = lake_server.client()
    db = unique("lake")
    glue.create_database(DatabaseInput={"Name": db})
    run, output = run_script(lake_server, EVOLVE, {"--datalake-formats": "iceberg", "--db": db})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    assert "then [1, 2]" in output
    assert "now [(1, None), (2, None), (3, 'Oslo')]" in output
    assert "specs 2" in output  # files of the first spec and of the days(day) spec
    assert "rewritten 3" in output or "rewritten 2" in output
    assert "expired True" in output
    assert "after [(1, None), (2, None), (3, 'Oslo')]" in output
    assert "snapshots 1" in output
    columns = glue.get_table(DatabaseName=db, Name="visits")["Table"]["StorageDescriptor"]["Columns"]
    assert [c["Name"] for c in columns] == ["id", "day", "city"]


THROUGH_REST = """
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["db"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
spark.sql(f"CREATE TABLE rest.{args['db']}.orders (id BIGINT, total DOUBLE) USING iceberg")
spark.sql(f"INSERT INTO rest.{args['db']}.orders VALUES (1, 9.5), (2, 20.0)")
spark.sql(f"UPDATE rest.{args['db']}.orders SET total = 10.0 WHERE id = 1")
print("glue sees", sorted(tuple(r) for r in spark.sql(f"SELECT * FROM glue_catalog.{args['db']}.orders").collect()))
"""


def test_spark_s_rest_catalog_writes_the_table_glue_catalog_reads(lake_server: ServerProcess) -> None:
    glue = lake_server.client()
    db = unique("lake")
    glue.create_database(DatabaseInput={"Name": db, "LocationUri": f"s3://glueball-warehouse/{db}.db"})
    conf = (f"spark.sql.catalog.rest=org.apache.iceberg.spark.SparkCatalog --conf spark.sql.catalog.rest.type=rest "
            f"--conf spark.sql.catalog.rest.uri={lake_server.endpoint}/iceberg")
    run, output = run_script(lake_server, THROUGH_REST, {"--datalake-formats": "iceberg", "--db": db, "--conf": conf})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    assert "glue sees [(1, 10.0), (2, 20.0)]" in output
    loaded = pyiceberg_catalog(lake_server).load_table(f"{db}.orders")
    assert sorted(loaded.scan().to_arrow().column("total").to_pylist()) == [10.0, 20.0]
    assert glue.get_table(DatabaseName=db, Name="orders")["Table"]["Parameters"]["table_type"] == "ICEBERG"


def test_an_interactive_session_with_datalake_formats_writes_a_glue_iceberg_table(lake_server: ServerProcess) -> None:
    glue = lake_server.client()
    db = unique("lake")
    glue.create_database(DatabaseInput={"Name": db})
    session_id = unique("lake-session")
    glue.create_session(Id=session_id, Role="arn:aws:iam::123456789012:role/GlueInteractiveRole",
                        Command={"Name": "glueetl", "PythonVersion": "3"},
                        DefaultArguments={"--datalake-formats": "iceberg"})
    ready = wait_for(lambda: (s := glue.get_session(Id=session_id)["Session"])["Status"] in ("READY", "FAILED")
                     and s, timeout=300, what=f"session {session_id}", interval=0.5)
    assert ready["Status"] == "READY", ready
    try:
        code = (f"spark.sql('CREATE TABLE glue_catalog.{db}.notes (id BIGINT) USING iceberg')\n"
                f"spark.sql('INSERT INTO glue_catalog.{db}.notes VALUES (7), (8)')\n"
                f"spark.sql('SELECT sum(id) FROM glue_catalog.{db}.notes').collect()[0][0]")
        number = glue.run_statement(SessionId=session_id, Code=code)["Id"]
        statement = wait_for(lambda: (s := glue.get_statement(SessionId=session_id, Id=number)["Statement"])[
            "State"] in ("AVAILABLE", "ERROR", "CANCELLED") and s, timeout=300, what="the statement", interval=0.5)
        assert statement["Output"]["Status"] == "ok", statement["Output"]
        assert statement["Output"]["Data"]["TextPlain"] == "15"
    finally:
        glue.delete_session(Id=session_id)
    assert glue.get_table(DatabaseName=db, Name="notes")["Table"]["Parameters"]["table_type"].upper() == "ICEBERG"
    assert pyiceberg_catalog(lake_server).load_table(f"{db}.notes").scan().to_arrow().num_rows == 2


def test_a_run_asking_for_hudi_or_an_unknown_format_fails_saying_why(lake_server: ServerProcess) -> None:
    run, _ = run_script(lake_server, "print('never')\n", {"--datalake-formats": "iceberg,hudi"})
    assert run["JobRunState"] == "FAILED"
    assert "no hudi-spark4.1-bundle_2.13 could be resolved" in run["ErrorMessage"]
    run, _ = run_script(lake_server, "print('never')\n", {"--datalake-formats": "paimon"})
    assert run["JobRunState"] == "FAILED"
    assert "'paimon' is not a data lake format" in run["ErrorMessage"]

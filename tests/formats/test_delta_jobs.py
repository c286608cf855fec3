"""``--datalake-formats delta``: a job writes a Delta table, a crawler with ``DeltaTargets`` registers it, and
Spark SQL (the Data Catalog as its metastore, Delta's catalog over it) and a DynamicFrame read it back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.formats.test_iceberg_jobs import run_script
from tests.helpers import ServerProcess, unique, wait_for

WRITE = """
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["path"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
rows = [(i, "north" if i % 2 else "south", i * 10) for i in range(1, 7)]
df = spark.createDataFrame(rows, "id BIGINT, region STRING, amount BIGINT")
df.write.format("delta").partitionBy("region").save(args["path"])
spark.createDataFrame([(7, "north", 70)], df.schema).write.format("delta").mode("append").save(args["path"])
spark.sql(f"DELETE FROM delta.`{args['path']}` WHERE id = 1")
print("written")
"""

READ = """
import sys
from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["db", "table"])
glue = GlueContext(SparkContext.getOrCreate())
spark = glue.spark_session
sql = spark.sql(f"SELECT id, amount FROM {args['db']}.{args['table']} WHERE region = 'north'").collect()
print("sql", sorted(tuple(r) for r in sql))
frame = glue.create_dynamic_frame.from_catalog(database=args["db"], table_name=args["table"])
print("frame", frame.count(), sorted(r["id"] for r in frame.toDF().collect()))
more = DynamicFrame.fromDF(spark.createDataFrame([(8, "south", 80)], "id BIGINT, region STRING, amount BIGINT"),
                           glue, "more")
glue.write_dynamic_frame.from_catalog(frame=more, database=args["db"], table_name=args["table"])
print("appended", sorted(r["id"] for r in glue.create_data_frame.from_catalog(database=args["db"],
                                                                           table_name=args["table"]).collect()))
then = glue.create_data_frame.from_catalog(database=args["db"], table_name=args["table"],
                                           additional_options={"versionAsOf": "1"})
print("version 1", sorted(r["id"] for r in then.collect()))
path = glue.glue_client.get_table(DatabaseName=args["db"], Name=args["table"])["Table"]["StorageDescriptor"]["Location"]
direct = glue.create_dynamic_frame.from_options("s3", {"paths": [path]}, format="delta")
print("direct", sorted(r["id"] for r in direct.toDF().collect()))
"""

READ_FRAME = READ.replace(READ[READ.index("sql = "):READ.index("frame = ")], "")


@pytest.fixture(scope="module")
def delta_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("delta-jobs")).start()
    yield server
    server.stop()


def crawl(server: ServerProcess, db: str, target: dict[str, object]) -> None:
    glue = server.client()
    name = unique("delta-crawler")
    glue.create_crawler(Name=name, Role="GlueRole", DatabaseName=db, Targets={"DeltaTargets": [target]})
    glue.start_crawler(Name=name)
    crawler = wait_for(lambda: (c := glue.get_crawler(Name=name)["Crawler"])["State"] == "READY"
                       and c.get("LastCrawl") and c, timeout=120, what=f"crawler {name}", interval=0.5)
    assert crawler["LastCrawl"]["Status"] == "SUCCEEDED", crawler["LastCrawl"]


def test_a_delta_table_a_job_wrote_is_crawled_and_read_by_spark_sql_and_a_dynamic_frame(
        delta_server: ServerProcess) -> None:
    glue = delta_server.client()
    (delta_server.home / "s3" / "lake").mkdir(parents=True, exist_ok=True)
    path = f"s3://lake/{unique('sales')}"
    run, output = run_script(delta_server, WRITE, {"--datalake-formats": "delta", "--path": path})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])

    db = unique("deltadb")
    glue.create_database(DatabaseInput={"Name": db})
    crawl(delta_server, db, {"DeltaTables": [path], "CreateNativeDeltaTable": True})
    name = path.rsplit("/", 1)[-1]
    table = glue.get_table(DatabaseName=db, Name=name)["Table"]
    assert table["Parameters"]["spark.sql.sources.provider"] == "delta"
    assert table["StorageDescriptor"]["Location"] == path
    assert [c["Name"] for c in table["StorageDescriptor"]["Columns"]] == ["id", "region", "amount"]
    assert table["Parameters"]["delta.version"] == "2"  # write, append, delete

    run, output = run_script(delta_server, READ, {"--datalake-formats": "delta", "--db": db, "--table": name})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    assert "sql [(3, 30), (5, 50), (7, 70)]" in output
    assert "frame 6 [2, 3, 4, 5, 6, 7]" in output
    assert "appended [2, 3, 4, 5, 6, 7, 8]" in output  # write_dynamic_frame.from_catalog: a Delta commit
    assert "version 1 [1, 2, 3, 4, 5, 6, 7]" in output  # additional_options reach Delta's reader: time travel
    assert "direct [2, 3, 4, 5, 6, 7, 8]" in output  # from_options with format="delta" reads the table's log

    # without the format the run says what it needs
    run, _ = run_script(delta_server, READ_FRAME, {"--db": db, "--table": name})
    assert run["JobRunState"] == "FAILED"
    assert "needs --datalake-formats delta to read it" in run["ErrorMessage"]


def test_a_symlink_delta_table_gets_manifests_of_its_live_files(delta_server: ServerProcess) -> None:
    glue = delta_server.client()
    (delta_server.home / "s3" / "lake").mkdir(parents=True, exist_ok=True)
    path = f"s3://lake/{unique('orders')}"
    run, output = run_script(delta_server, WRITE, {"--datalake-formats": "delta", "--path": path})
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    db = unique("deltadb")
    glue.create_database(DatabaseInput={"Name": db})
    crawl(delta_server, db, {"DeltaTables": [path], "WriteManifest": True})
    table = glue.get_table(DatabaseName=db, Name=path.rsplit("/", 1)[-1])["Table"]
    assert table["StorageDescriptor"]["Location"] == f"{path}/_symlink_format_manifest"
    assert table["StorageDescriptor"]["InputFormat"] == "org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat"
    assert [k["Name"] for k in table["PartitionKeys"]] == ["region"]
    folder = delta_server.home / "s3" / "lake" / path.rsplit("/", 1)[-1] / "_symlink_format_manifest"
    north = (folder / "region=north" / "manifest").read_text().split()
    south = (folder / "region=south" / "manifest").read_text().split()
    # the row deleted (id 1, north) was rewritten out of its file: every listed file is live and exists
    assert all(f.startswith(f"{path}/region=north/") for f in north) and len(south) >= 1
    for uri in north + south:
        assert (delta_server.home / "s3" / uri[len("s3://"):]).is_file()

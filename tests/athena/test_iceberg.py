"""Iceberg tables through Athena: Athena's Iceberg DDL, DML (INSERT, UPDATE, DELETE, MERGE INTO), time travel,
metadata tables, OPTIMIZE and VACUUM, DROP TABLE removing the data, awswrangler's ``to_iceberg``; and what Athena
refuses of them, named."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from tests.athena.helpers import RESULTS, client, failure, select, succeeded
from tests.helpers import ServerProcess, unique

pytest.importorskip("pyspark")


@pytest.fixture(scope="module")
def database(athena_server: ServerProcess) -> str:
    name = unique("ice")
    succeeded(client(athena_server), f"CREATE DATABASE {name}")
    return name


def _failed(athena: Any, sql: str, **request: Any) -> str:
    return str(failure(athena, sql, **request)["StateChangeReason"])


def _count(athena: Any, execution: dict[str, Any]) -> int:
    return int(athena.get_query_results(QueryExecutionId=execution["QueryExecutionId"])["UpdateCount"])


def _metadata(server: ServerProcess, database: str, table: str) -> dict[str, Any]:
    """The table's current Iceberg metadata file, as the catalog points at it."""
    glue = client(server, "glue")
    location = glue.get_table(DatabaseName=database, Name=table)["Table"]["Parameters"]["metadata_location"]
    bucket, _, key = location.removeprefix("s3://").partition("/")
    return dict(json.loads(client(server, "s3").get_object(Bucket=bucket, Key=key)["Body"].read()))


def _keys(server: ServerProcess, prefix: str) -> list[str]:
    listed = client(server, "s3").list_objects_v2(Bucket="lake", Prefix=prefix)
    return [item["Key"] for item in listed.get("Contents", [])]


def test_an_iceberg_table_is_made_written_changed_travelled_maintained_and_dropped(
        athena_server: ServerProcess, athena: Any, database: str) -> None:
    context = {"QueryExecutionContext": {"Database": database}}
    succeeded(athena, "CREATE TABLE orders (ID bigint, category string, amount double, TS timestamp) "
                      "COMMENT 'orders as Athena made them' "
                      "PARTITIONED BY (category, day(TS)) LOCATION 's3://lake/iceberg/orders/' "
                      "TBLPROPERTIES ('table_type'='ICEBERG', 'format'='parquet', 'write_compression'='zstd', "
                      "'vacuum_min_snapshots_to_keep'='2')", **context)
    table = client(athena_server, "glue").get_table(DatabaseName=database, Name="orders")["Table"]
    assert table["Parameters"]["table_type"].upper() == "ICEBERG"
    assert [c["Name"] for c in table["StorageDescriptor"]["Columns"]] == ["id", "category", "amount", "ts"]
    metadata = _metadata(athena_server, database, "orders")
    fields = {f["name"]: f["type"] for f in metadata["schemas"][-1]["fields"]}
    assert fields == {"id": "long", "category": "string", "amount": "double", "ts": "timestamp"}  # no zone
    spec = metadata["partition-specs"][-1]["fields"]
    assert [(f["name"], f["transform"]) for f in spec] == [("category", "identity"), ("ts_day", "day")]
    assert metadata["format-version"] == 2
    assert metadata["properties"]["write.parquet.compression-codec"] == "zstd"
    assert metadata["properties"]["history.expire.min-snapshots-to-keep"] == "2"
    assert metadata["properties"]["comment"] == "orders as Athena made them"

    inserted = succeeded(athena, "INSERT INTO orders VALUES (1, 'a', 10.5, TIMESTAMP '2024-01-01 10:00:00'), "
                                 "(2, 'b', 20.0, TIMESTAMP '2024-01-02 11:00:00'), "
                                 "(3, 'a', 30.0, TIMESTAMP '2024-01-02 12:30:00')", **context)
    first = select(athena, f'SELECT snapshot_id FROM "{database}"."orders$snapshots"', **context)[1][0]
    # an Iceberg timestamp is Trino's timestamp(6), as Athena reads it (a Hive table's are timestamp(3))
    assert select(athena, "SELECT id, category, amount, ts FROM orders ORDER BY id", **context) == [
        ["id", "category", "amount", "ts"], ["1", "a", "10.5", "2024-01-01 10:00:00.000000"],
        ["2", "b", "20.0", "2024-01-02 11:00:00.000000"], ["3", "a", "30.0", "2024-01-02 12:30:00.000000"]]
    assert _count(athena, inserted) == 3
    typed = athena.get_query_results(QueryExecutionId=succeeded(athena, "SELECT ts FROM orders LIMIT 1", **context)[
        "QueryExecutionId"])["ResultSet"]["ResultSetMetadata"]["ColumnInfo"][0]
    assert (typed["Type"], typed["Precision"]) == ("timestamp", 6)

    # UpdateCount: the rows each statement changed, as Athena counts them
    assert _count(athena, succeeded(athena, "UPDATE orders SET amount = amount * 2 WHERE id = 1", **context)) == 1
    assert _count(athena, succeeded(athena, "DELETE FROM orders WHERE category = 'b'", **context)) == 1
    assert _count(athena, succeeded(athena, "DELETE FROM orders WHERE id = 99", **context)) == 0
    succeeded(athena, f"CREATE TABLE {database}.changes WITH (format = 'PARQUET', "
                      f"external_location = 's3://lake/{database}/changes/') AS SELECT * FROM (VALUES "
                      "(3, 'a', 33.0, TIMESTAMP '2024-01-02 12:30:00'), (4, 'c', 4.0, TIMESTAMP '2024-01-03 09:00:00')"
                      ") AS t(id, category, amount, ts)")
    merged = succeeded(athena, 'MERGE INTO "orders" target USING "changes" source ON (target."id" = source."id") '
                               'WHEN MATCHED THEN UPDATE SET "amount" = source."amount" '
                               'WHEN NOT MATCHED THEN INSERT ("id", "category", "amount", "ts") '
                               'VALUES (source."id", source."category", source."amount", source."ts")', **context)
    assert _count(athena, merged) == 2  # one updated, one inserted
    twice = _failed(athena, "MERGE INTO orders t USING (SELECT * FROM changes UNION ALL SELECT * FROM changes) s "
                            "ON t.id = s.id WHEN MATCHED THEN UPDATE SET amount = s.amount", **context)
    assert twice.startswith("MERGE_TARGET_ROW_MULTIPLE_MATCHES"), twice  # a target row matched twice: nothing written
    now = [["1", "a", "21.0"], ["3", "a", "33.0"], ["4", "c", "4.0"]]
    assert select(athena, "SELECT id, category, amount FROM Orders ORDER BY id", **context)[1:] == now  # any case

    # time travel to the first snapshot (one the table has not is the query's error), and Athena's metadata tables
    assert select(athena, f"SELECT count(*) FROM orders FOR VERSION AS OF {first}", **context)[1] == ["3"]
    assert _failed(athena, "SELECT * FROM orders FOR VERSION AS OF 42", **context).startswith("INVALID_ARGUMENTS")
    operations = [r[0] for r in select(athena, 'SELECT operation FROM "orders$snapshots" ORDER BY committed_at',
                                       **context)[1:]]
    assert operations[0] == "append" and len(operations) >= 4
    assert int(select(athena, 'SELECT count(*) FROM "orders$history"', **context)[1][0]) == len(operations)
    assert "MANIFEST" not in str(select(athena, 'SELECT count(*) FROM "orders$files"', **context))
    assert "iceberg" in str(select(athena, "SHOW CREATE TABLE orders", **context)).lower()
    described = select(athena, "DESCRIBE orders", **context)
    assert any(str(row[0]).strip().startswith("ts") for row in described)

    # maintenance keeps the rows; schema evolution
    succeeded(athena, "OPTIMIZE orders REWRITE DATA USING BIN_PACK WHERE category = 'a'", **context)
    succeeded(athena, "VACUUM orders", **context)
    assert select(athena, "SELECT id, category, amount FROM orders ORDER BY id", **context)[1:] == now
    succeeded(athena, "ALTER TABLE orders ADD COLUMNS (note string)", **context)
    assert select(athena, "SELECT id, note FROM orders WHERE id = 4", **context)[1] == ["4", None]

    # a view of an Iceberg table reads it through Iceberg
    succeeded(athena, "CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 10", **context)
    assert select(athena, "SELECT id FROM big_orders ORDER BY id", **context)[1:] == [["1"], ["3"]]

    # an Iceberg CTAS, its timestamps without a zone
    succeeded(athena, "CREATE TABLE recent WITH (table_type = 'ICEBERG', is_external = false, "
                      "location = 's3://lake/iceberg/recent/', partitioning = ARRAY['bucket(4, id)']) AS "
                      "SELECT id, ts FROM orders WHERE amount > 10", **context)
    metadata = _metadata(athena_server, database, "recent")
    assert {f["name"]: f["type"] for f in metadata["schemas"][-1]["fields"]} == {"id": "long", "ts": "timestamp"}
    assert select(athena, "SELECT id, ts FROM recent ORDER BY id", **context)[1:] == [
        ["1", "2024-01-01 10:00:00.000000"], ["3", "2024-01-02 12:30:00.000000"]]

    # DROP TABLE removes an Iceberg table's data (a managed table), not a Hive table's
    assert _keys(athena_server, "iceberg/orders/")
    succeeded(athena, "DROP TABLE orders", **context)
    assert not _keys(athena_server, "iceberg/orders/")
    succeeded(athena, "DROP TABLE changes", **context)
    assert _keys(athena_server, f"{database}/changes/")


def test_what_athena_refuses_of_iceberg_tables_is_named(athena: Any, database: str) -> None:
    context = {"QueryExecutionContext": {"Database": database}}
    succeeded(athena, f"CREATE TABLE {database}.hive_rows WITH (format = 'PARQUET', "
                      f"external_location = 's3://lake/{database}/hive_rows/') AS SELECT 1 AS a")
    refused = {
        "CREATE EXTERNAL TABLE x (a int) LOCATION 's3://lake/iceberg/x/' TBLPROPERTIES ('table_type'='ICEBERG')":
            "External keyword not supported for table type ICEBERG",
        "CREATE TABLE x (a int) LOCATION 's3://lake/iceberg/x/' TBLPROPERTIES ('table_type'='ICEBERG', "
        "'colour'='red')": "Unsupported table property key: colour",
        "CREATE TABLE x (a int) TBLPROPERTIES ('table_type'='ICEBERG')": "needs a LOCATION",
        "CREATE TABLE y WITH (table_type = 'ICEBERG', is_external = true, location = 's3://lake/iceberg/y/') "
        "AS SELECT 1 AS a": "is_external must be false",
        "CREATE TABLE z (a int, ts timestamp) PARTITIONED BY (week(ts)) LOCATION 's3://lake/iceberg/z/' "
        "TBLPROPERTIES ('table_type'='ICEBERG')": "partition transform",
        "INSERT OVERWRITE TABLE hive_rows SELECT 2": "INSERT OVERWRITE is not supported",
        **dict.fromkeys(("DELETE FROM hive_rows WHERE a = 1", "UPDATE hive_rows SET a = 2",
                         "OPTIMIZE hive_rows REWRITE DATA USING BIN_PACK", "VACUUM hive_rows"),
                        "only supported for Iceberg tables")}
    for statement, named in refused.items():
        assert named in _failed(athena, statement, **context), statement


def test_awswrangler_to_iceberg_appends_merges_evolves_and_overwrites(wrangler: Any, database: str) -> None:
    import pandas as pd

    session = boto3.Session(aws_access_key_id="AKIDWRANGLER", aws_secret_access_key="secret",
                            region_name="us-east-1")
    common = {"database": database, "table": "events", "table_location": "s3://lake/iceberg/events/",
              "temp_path": f"s3://lake/tmp/{database}/events/", "keep_files": False, "s3_output": RESULTS,
              "boto3_session": session}
    first = pd.DataFrame({"id": [1, 2], "kind": ["a", "b"], "ts": pd.to_datetime(["2024-01-01", "2024-01-02"])})
    wrangler.athena.to_iceberg(df=first, partition_cols=["kind"], **common)
    read = wrangler.athena.read_sql_query(f"SELECT id, kind, ts FROM {database}.events ORDER BY id",
                                          database=database, ctas_approach=False, s3_output=RESULTS,
                                          boto3_session=session)
    assert read["id"].tolist() == [1, 2] and read["kind"].tolist() == ["a", "b"]
    assert str(read["ts"][1])[:10] == "2024-01-02"

    changed = pd.DataFrame({"id": [2, 3], "kind": ["b", "c"], "ts": pd.to_datetime(["2024-02-02", "2024-01-03"])})
    wrangler.athena.to_iceberg(df=changed, merge_cols=["id"], **common)  # MERGE INTO: 2 updated, 3 inserted
    read = wrangler.athena.read_sql_query(f"SELECT id, ts FROM {database}.events ORDER BY id", database=database,
                                          ctas_approach=False, s3_output=RESULTS, boto3_session=session)
    assert read["id"].tolist() == [1, 2, 3] and str(read["ts"][1])[:10] == "2024-02-02"

    evolved = pd.DataFrame({"id": [4], "kind": ["d"], "ts": pd.to_datetime(["2024-01-04"]), "score": [0.5]})
    wrangler.athena.to_iceberg(df=evolved, schema_evolution=True, **common)  # ALTER TABLE ADD COLUMNS
    read = wrangler.athena.read_sql_query(f"SELECT id, score FROM {database}.events ORDER BY id", database=database,
                                          ctas_approach=False, s3_output=RESULTS, boto3_session=session)
    assert read["id"].tolist() == [1, 2, 3, 4] and read["score"].isna().tolist() == [True, True, True, False]

    wrangler.athena.to_iceberg(df=first.assign(score=[1.0, 2.0]), mode="overwrite", **common)  # DELETE, INSERT
    read = wrangler.athena.read_sql_query(f"SELECT id, score FROM {database}.events ORDER BY id", database=database,
                                          ctas_approach=False, s3_output=RESULTS, boto3_session=session)
    assert read["id"].tolist() == [1, 2] and read["score"].tolist() == [1.0, 2.0]
    temporary = [t["Name"] for t in client_tables(session, database) if t["Name"].startswith("temp_")]
    assert not temporary  # awswrangler's staging tables are dropped again


def client_tables(session: boto3.Session, database: str) -> list[dict[str, Any]]:
    import awswrangler

    glue = session.client("glue", endpoint_url=awswrangler.config.glue_endpoint_url)
    return list(glue.get_tables(DatabaseName=database)["TableList"])


def test_an_iceberg_table_another_client_made_is_read_and_written_and_pyiceberg_reads_athenas_commits(
        athena_server: ServerProcess, athena: Any) -> None:
    from pyiceberg.catalog import load_catalog

    glue = client(athena_server, "glue")
    database = unique("ice-made").replace("_", "-")  # a name Glue takes and Iceberg's own rules would not
    glue.create_database(DatabaseInput={"Name": database})
    glue.create_table(DatabaseName=database, OpenTableFormatInput={"IcebergInput": {"MetadataOperation": "CREATE"}},
                      TableInput={"Name": "cities", "StorageDescriptor": {
                          "Location": "s3://lake/iceberg/cities", "Columns": [
                              {"Name": "name", "Type": "string"}, {"Name": "people", "Type": "bigint"}]}})
    context = {"QueryExecutionContext": {"Database": database}}
    assert select(athena, "SELECT count(*) FROM cities", **context)[1] == ["0"]  # Iceberg's: no Hive files
    succeeded(athena, "INSERT INTO cities VALUES ('Lyon', 520000), ('Oslo', 709000)", **context)
    assert select(athena, f'SELECT name FROM "{database}".cities WHERE people > 600000', **context)[1:] == [["Oslo"]]
    catalog = load_catalog("athena-iceberg", **{
        "type": "glue", "glue.endpoint": athena_server.endpoint, "glue.region": "us-east-1",
        "glue.access-key-id": "AKIDPYICEBERG", "glue.secret-access-key": "secret",
        "s3.endpoint": athena_server.endpoint, "s3.region": "us-east-1", "s3.access-key-id": "AKIDPYICEBERG",
        "s3.secret-access-key": "secret", "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"})
    table = catalog.load_table(f"{database}.cities")
    assert sorted(table.scan().to_arrow().column("name").to_pylist()) == ["Lyon", "Oslo"]

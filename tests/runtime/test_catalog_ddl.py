"""Spark SQL's DDL and writes land in the Data Catalog, with Glue's shapes, as boto3 then sees them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from tests.helpers import unique


def _database(glue_context: Any, prefix: str) -> str:
    db = unique(prefix)
    glue_context.spark_session.sql(f"CREATE DATABASE {db} LOCATION 's3://lake/{db}'")
    return db


def _files(glue_home: Path, location: str) -> list[str]:
    folder = glue_home / "s3" / location[len("s3://"):]
    return sorted(p.name for p in folder.rglob("*") if p.is_file() and not p.name.startswith((".", "_")))


def test_create_database_lands_in_the_catalog_with_its_location(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = unique("ddldb")
    spark.sql(f"CREATE DATABASE {db} COMMENT 'made by spark' WITH DBPROPERTIES ('team' = 'ops')")
    stored = client.get_database(Name=db)["Database"]
    assert stored["Description"] == "made by spark"
    assert stored["LocationUri"] == f"s3://glueball-warehouse/{db}.db" and stored["Parameters"]["team"] == "ops"
    spark.sql(f"DROP DATABASE {db}")
    with pytest.raises(client.exceptions.EntityNotFoundException):
        client.get_database(Name=db)


def test_a_partitioned_ctas_is_a_glue_table_with_its_partitions(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlctas")
    spark.sql(f"CREATE TABLE {db}.sales USING parquet PARTITIONED BY (day) AS "
              "SELECT id, id * 1.5 AS amount, CAST(id % 2 AS STRING) AS day FROM range(6)")
    table = client.get_table(DatabaseName=db, Name="sales")["Table"]
    assert table["TableType"] == "MANAGED_TABLE"
    assert table["Parameters"]["classification"] == "parquet"
    assert table["Parameters"]["spark.sql.sources.provider"] == "parquet"
    assert table["PartitionKeys"] == [{"Name": "day", "Type": "string"}]
    descriptor = table["StorageDescriptor"]
    assert [(c["Name"], c["Type"]) for c in descriptor["Columns"]] == [("id", "bigint"), ("amount", "decimal(23,1)")]
    assert descriptor["Location"] == f"s3://lake/{db}/sales"
    assert descriptor["SerdeInfo"]["SerializationLibrary"] == \
        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert descriptor["InputFormat"] == "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
    partitions = client.get_partitions(DatabaseName=db, TableName="sales")["Partitions"]
    assert sorted((p["Values"], p["StorageDescriptor"]["Location"]) for p in partitions) == \
        [(["0"], f"s3://lake/{db}/sales/day=0"), (["1"], f"s3://lake/{db}/sales/day=1")]
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="sales")   # Glue's reader too
    assert frame.count() == 6


def test_inserts_static_and_dynamic_partitions_and_overwrite(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlins")
    spark.sql(f"CREATE TABLE {db}.events (id INT, kind STRING, day STRING) USING parquet PARTITIONED BY (day)")
    spark.sql(f"INSERT INTO {db}.events PARTITION (day = '2026-01-01') VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {db}.events VALUES (3, 'c', '2026-01-02'), (4, 'd', '2026-01-03')")
    values = sorted(p["Values"][0] for p in client.get_partitions(DatabaseName=db, TableName="events")["Partitions"])
    assert values == ["2026-01-01", "2026-01-02", "2026-01-03"]
    spark.sql(f"INSERT OVERWRITE {db}.events PARTITION (day = '2026-01-01') VALUES (9, 'z')")
    rows = spark.sql(f"SELECT id, day FROM {db}.events ORDER BY id").collect()
    assert [(r.id, r.day) for r in rows] == [(3, "2026-01-02"), (4, "2026-01-03"), (9, "2026-01-01")]
    spark.sql(f"INSERT OVERWRITE {db}.events SELECT 10, 'y', '2026-01-04'")   # dynamic: other partitions kept
    assert spark.table(f"{db}.events").count() == 4
    assert len(client.get_partitions(DatabaseName=db, TableName="events")["Partitions"]) == 4


def test_save_as_table_in_every_mode(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlsave")
    name = f"{db}.numbers"
    spark.range(3).write.saveAsTable(name)
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        spark.range(3).write.saveAsTable(name)
    spark.range(2).write.mode("append").saveAsTable(name)
    assert spark.table(name).count() == 5
    spark.range(7).write.mode("ignore").saveAsTable(name)
    assert spark.table(name).count() == 5
    spark.range(7).write.mode("overwrite").format("json").saveAsTable(name)
    assert spark.table(name).count() == 7
    table = client.get_table(DatabaseName=db, Name="numbers")["Table"]
    assert table["Parameters"]["classification"] == "json"
    assert table["StorageDescriptor"]["Columns"] == [{"Name": "id", "Type": "bigint"}]
    assert table["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == "org.openx.data.jsonserde.JsonSerDe"


def test_alter_table_columns_properties_partitions_and_rename(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlalter")
    spark.sql(f"CREATE TABLE {db}.t USING parquet PARTITIONED BY (p) AS SELECT 1 AS a, 'x' AS p")
    spark.sql(f"ALTER TABLE {db}.t ADD COLUMNS (b STRING COMMENT 'new')")
    spark.sql(f"ALTER TABLE {db}.t SET TBLPROPERTIES ('owner_team' = 'ops')")
    spark.sql(f"ALTER TABLE {db}.t ADD PARTITION (p = 'y') LOCATION 's3://lake/{db}/elsewhere'")
    table = client.get_table(DatabaseName=db, Name="t")["Table"]
    assert [c["Name"] for c in table["StorageDescriptor"]["Columns"]] == ["a", "b"]
    assert table["Parameters"]["owner_team"] == "ops"
    partition = client.get_partition(DatabaseName=db, TableName="t", PartitionValues=["y"])["Partition"]
    assert partition["StorageDescriptor"]["Location"] == f"s3://lake/{db}/elsewhere"
    with pytest.raises(AnalysisException, match="PARTITIONS_ALREADY_EXIST"):
        spark.sql(f"ALTER TABLE {db}.t ADD PARTITION (p = 'y')")
    spark.sql(f"ALTER TABLE {db}.t DROP PARTITION (p = 'y')")
    assert [p["Values"] for p in client.get_partitions(DatabaseName=db, TableName="t")["Partitions"]] == [["x"]]
    spark.sql(f"ALTER TABLE {db}.t RENAME TO {db}.renamed")
    assert [t["Name"] for t in client.get_tables(DatabaseName=db)["TableList"]] == ["renamed"]
    moved = client.get_table(DatabaseName=db, Name="renamed")["Table"]["StorageDescriptor"]["Location"]
    assert moved == f"s3://lake/{db}/renamed" and _files(glue_home, moved)     # the managed folder moved
    assert not _files(glue_home, f"s3://lake/{db}/t")
    assert spark.sql(f"SELECT a, p FROM {db}.renamed").collect()[0].asDict() == {"a": 1, "p": "x"}


def test_msck_repair_adds_the_partitions_found_in_the_folders(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlmsck")
    location = f"s3://lake/{db}/ext"
    for day in ("1", "2"):
        spark.createDataFrame([(int(day),)], "v int").write.parquet(str(glue_home / "s3" / "lake" / db / "ext" /
                                                                          f"day={day}"))
    spark.sql(f"CREATE EXTERNAL TABLE {db}.ext (v INT) PARTITIONED BY (day STRING) STORED AS PARQUET "
              f"LOCATION '{location}'")
    assert client.get_partitions(DatabaseName=db, TableName="ext")["Partitions"] == []
    spark.sql(f"MSCK REPAIR TABLE {db}.ext")
    partitions = client.get_partitions(DatabaseName=db, TableName="ext")["Partitions"]
    assert sorted(p["Values"][0] for p in partitions) == ["1", "2"]
    assert spark.sql(f"SELECT sum(v) AS s FROM {db}.ext").collect()[0].s == 3


def test_drop_table_removes_managed_data_and_keeps_external(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddldrop")
    spark.sql(f"CREATE TABLE {db}.managed USING parquet AS SELECT 1 AS a")
    spark.sql(f"CREATE TABLE {db}.external USING parquet LOCATION 's3://lake/{db}/keep' AS SELECT 1 AS a")
    assert client.get_table(DatabaseName=db, Name="external")["Table"]["TableType"] == "EXTERNAL_TABLE"
    assert _files(glue_home, f"s3://lake/{db}/managed") and _files(glue_home, f"s3://lake/{db}/keep")
    spark.sql(f"DROP TABLE {db}.managed")
    spark.sql(f"DROP TABLE {db}.external")
    assert client.get_tables(DatabaseName=db)["TableList"] == []
    assert not _files(glue_home, f"s3://lake/{db}/managed")
    assert _files(glue_home, f"s3://lake/{db}/keep")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql(f"DROP TABLE {db}.managed")


def test_views_are_virtual_views(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlview")
    spark.sql(f"CREATE TABLE {db}.base USING parquet AS SELECT id FROM range(5)")
    spark.sql(f"CREATE VIEW {db}.small AS SELECT id FROM {db}.base WHERE id < 2")
    view = client.get_table(DatabaseName=db, Name="small")["Table"]
    assert view["TableType"] == "VIRTUAL_VIEW"
    assert "WHERE id < 2" in view["ViewOriginalText"]
    assert spark.table(f"{db}.small").count() == 2
    spark.sql(f"DROP VIEW {db}.small")
    assert [t["Name"] for t in client.get_tables(DatabaseName=db)["TableList"]] == ["base"]


def test_hive_format_ddl_as_athena_writes_it(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlhive")
    folder = glue_home / "s3" / "lake" / db / "raw"
    folder.mkdir(parents=True)
    (folder / "a.csv").write_text('id,name\n1,"ann, a."\n2,bob\n')
    spark.sql(f"""CREATE EXTERNAL TABLE {db}.people (id STRING, name STRING)
                  ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'
                  WITH SERDEPROPERTIES ('separatorChar' = ',', 'quoteChar' = '"')
                  STORED AS INPUTFORMAT 'org.apache.hadoop.mapred.TextInputFormat'
                  OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat'
                  LOCATION 's3://lake/{db}/raw/'
                  TBLPROPERTIES ('classification' = 'csv', 'skip.header.line.count' = '1')""")
    table = client.get_table(DatabaseName=db, Name="people")["Table"]
    assert table["TableType"] == "EXTERNAL_TABLE"
    assert table["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == \
        "org.apache.hadoop.hive.serde2.OpenCSVSerde"
    assert table["StorageDescriptor"]["Location"].rstrip("/") == f"s3://lake/{db}/raw"
    rows = spark.sql(f"SELECT id, name FROM {db}.people ORDER BY id").collect()
    assert [(r.id, r.name) for r in rows] == [("1", "ann, a."), ("2", "bob")]
    spark.sql(f"CREATE TABLE {db}.text_copy ROW FORMAT DELIMITED FIELDS TERMINATED BY '|' STORED AS TEXTFILE "
              f"AS SELECT * FROM {db}.people")
    copy = client.get_table(DatabaseName=db, Name="text_copy")["Table"]
    assert copy["StorageDescriptor"]["SerdeInfo"]["Parameters"]["field.delim"] == "|"
    assert copy["Parameters"]["classification"] == "csv"
    assert sorted(r.name for r in spark.table(f"{db}.text_copy").collect()) == ["ann, a.", "bob"]
    spark.sql(f"CREATE TABLE {db}.pq_copy STORED AS PARQUET AS SELECT * FROM {db}.people")
    assert client.get_table(DatabaseName=db, Name="pq_copy")["Table"]["Parameters"]["classification"] == "parquet"
    assert spark.table(f"{db}.pq_copy").count() == 2


def test_glue_refusals_reach_spark_as_hive_exceptions(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "ddlerr")
    spark.sql(f"CREATE TABLE {db}.t (a INT) USING parquet")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_ALREADY_EXISTS"):
        spark.sql(f"CREATE TABLE {db}.t (a INT) USING parquet")
    long_name = "x" * 300                          # Spark takes it, Glue's model does not
    with pytest.raises(Exception, match="ValidationException|InvalidInputException") as caught:
        spark.sql(f"CREATE TABLE {db}.{long_name} (a INT) USING parquet")
    assert "InvalidObjectException" in str(caught.value) or "MetaException" in str(caught.value)
    assert [t["Name"] for t in client.get_tables(DatabaseName=db)["TableList"]] == ["t"]
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_EMPTY|not empty"):
        spark.sql(f"DROP DATABASE {db}")
    spark.sql(f"DROP DATABASE {db} CASCADE")
    with pytest.raises(client.exceptions.EntityNotFoundException):
        client.get_database(Name=db)

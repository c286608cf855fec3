"""Spark SQL reads the Data Catalog as its metastore: every database and table, nothing copied up front."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from tests.helpers import unique


def _orders(glue_context: Any, glue_home: Path, db: str, table: str = "orders") -> None:
    """A boto3-made partitioned table (only ``classification``, no SerDe) with a folder the catalog does not list."""
    spark, client = glue_context.spark_session, glue_context.glue_client
    base = f"s3://lake/{db}/{table}"
    for year, rows in (("2025", [(1, 10.0), (2, 20.0)]), ("2026", [(3, 30.0)])):
        spark.createDataFrame(rows, "id bigint, amount double").write.mode("overwrite").parquet(
            str(glue_home / "s3" / "lake" / db / table / f"y{year}"))
    spark.createDataFrame([(99, 0.0)], "id bigint, amount double").write.mode("overwrite").parquet(
        str(glue_home / "s3" / "lake" / db / table / "stray"))
    try:
        client.create_database(DatabaseInput={"Name": db})
    except client.exceptions.AlreadyExistsException:
        pass
    client.create_table(DatabaseName=db, TableInput={
        "Name": table, "PartitionKeys": [{"Name": "year", "Type": "int"}],
        "Parameters": {"classification": "parquet"},
        "StorageDescriptor": {"Location": base, "Columns": [{"Name": "id", "Type": "bigint"},
                                                              {"Name": "amount", "Type": "double"}]}})
    client.batch_create_partition(DatabaseName=db, TableName=table, PartitionInputList=[
        {"Values": [y], "StorageDescriptor": {"Location": f"{base}/y{y}"}} for y in ("2025", "2026")])


def test_show_databases_and_the_catalog_api_list_every_database_even_empty_ones(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    empty = unique("emptydb")
    client.create_database(DatabaseInput={"Name": empty, "Description": "nothing in it yet"})
    assert empty in {r.namespace for r in spark.sql("SHOW DATABASES").collect()}
    assert empty in {d.name for d in spark.catalog.listDatabases()}
    assert spark.catalog.getDatabase(empty).description == "nothing in it yet"
    assert spark.sql(f"SHOW TABLES IN {empty}").collect() == []
    spark.sql(f"USE {empty}")                                           # no SCHEMA_NOT_FOUND
    spark.sql("USE default")


def test_a_catalog_table_is_queryable_at_once_with_catalog_partition_pruning(glue_context: Any,
                                                                             glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("sqlread")
    _orders(glue_context, glue_home, db)
    rows = spark.sql(f"SELECT year, sum(amount) AS total FROM {db}.orders GROUP BY year ORDER BY year").collect()
    assert [(r.year, r.total) for r in rows] == [(2025, 30.0), (2026, 30.0)]
    pruned = spark.sql(f"SELECT id FROM {db}.orders WHERE year = 2026")
    assert [r.id for r in pruned.collect()] == [3]
    files = pruned.inputFiles()
    assert files and all("/orders/y2026/" in f for f in files)
    assert spark.table(f"{db}.orders").count() == 3                      # the stray folder is never read
    assert spark.read.table(f"{db}.orders").count() == 3
    assert [t.name for t in spark.catalog.listTables(db)] == ["orders"]
    assert [c.name for c in spark.catalog.listColumns(f"{db}.orders")] == ["id", "amount", "year"]


def test_a_partition_added_through_the_api_is_seen_by_the_next_query(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = unique("sqlfresh")
    _orders(glue_context, glue_home, db)
    assert spark.table(f"{db}.orders").count() == 3
    client.batch_create_partition(DatabaseName=db, TableName="orders", PartitionInputList=[
        {"Values": ["2099"], "StorageDescriptor": {"Location": f"s3://lake/{db}/orders/stray"}}])
    assert spark.table(f"{db}.orders").count() == 4


def test_crawler_shaped_csv_and_json_tables_are_read_with_their_options(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = unique("sqlfmt")
    client.create_database(DatabaseInput={"Name": db})
    folder = glue_home / "s3" / "lake" / db
    (folder / "people").mkdir(parents=True)
    (folder / "people" / "part.csv").write_text("id|name\n1|ann\n2|bob\n")
    (folder / "events").mkdir(parents=True)
    (folder / "events" / "part.json").write_text('{"id": 1, "kind": "a"}\n{"id": 2, "kind": "b"}\n')
    client.create_table(DatabaseName=db, TableInput={
        "Name": "people", "Parameters": {"classification": "csv", "skip.header.line.count": "1"},
        "StorageDescriptor": {"Location": f"s3://lake/{db}/people/", "Columns": [
            {"Name": "id", "Type": "bigint"}, {"Name": "name", "Type": "string"}],
            "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                          "Parameters": {"field.delim": "|"}}}})
    client.create_table(DatabaseName=db, TableInput={
        "Name": "events", "Parameters": {"classification": "json"},
        "StorageDescriptor": {"Location": f"s3://lake/{db}/events/", "Columns": [
            {"Name": "id", "Type": "int"}, {"Name": "kind", "Type": "string"}],
            "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"}}})
    assert [(r.id, r.name) for r in spark.sql(f"SELECT * FROM {db}.people ORDER BY id").collect()] == \
        [(1, "ann"), (2, "bob")]
    assert [(r.id, r.kind) for r in spark.sql(f"SELECT * FROM {db}.events ORDER BY id").collect()] == \
        [(1, "a"), (2, "b")]
    stored = client.get_table(DatabaseName=db, Name="people")["Table"]
    assert "spark.sql.sources.provider" not in stored["Parameters"]      # what Spark was told is not stored


def test_tables_in_subqueries_joins_and_unqualified_names_are_found(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("sqlsub")
    for name in ("a", "b", "c"):
        _orders(glue_context, glue_home, db, name)
    rows = spark.sql(f"SELECT count(*) AS n FROM {db}.a x JOIN {db}.b y ON x.id = y.id "
                     f"WHERE x.id IN (SELECT id FROM {db}.c WHERE year = 2025)").collect()
    assert rows[0].n == 2
    current = spark.catalog.currentDatabase()
    try:
        spark.sql(f"USE {db}")
        assert spark.sql("SELECT count(*) AS n FROM a").collect()[0].n == 3
        assert spark.sql("WITH a AS (SELECT 1 AS id) SELECT count(*) AS n FROM a").collect()[0].n == 1
    finally:
        spark.sql(f"USE {current}")


def test_a_hyphenated_database_is_queryable_with_back_quotes(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("sql-hyphen")
    _orders(glue_context, glue_home, db)
    assert spark.sql(f"SELECT count(*) AS n FROM `{db}`.orders WHERE year = 2025").collect()[0].n == 2
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="orders",
                                                           push_down_predicate="year = 2025")
    assert frame.count() == 2


def test_spark_keeps_its_own_errors_for_unknown_tables_and_bad_sql(glue_context: Any) -> None:
    spark = glue_context.spark_session
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("SELECT * FROM nowhere_db.nothing").collect()
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND"):
        spark.sql("USE nowhere_db_at_all")
    with pytest.raises(Exception, match="PARSE_SYNTAX_ERROR"):
        spark.sql("SELEC 1")


def test_temporary_views_shadow_catalog_tables(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("sqlown")
    _orders(glue_context, glue_home, db)
    spark.createDataFrame([(7,)], "id int").createOrReplaceTempView("orders")
    current = spark.catalog.currentDatabase()
    try:
        spark.sql(f"USE {db}")
        assert [r.id for r in spark.sql("SELECT id FROM orders").collect()] == [7]   # the temp view wins
        assert spark.sql(f"SELECT count(*) AS n FROM {db}.orders").collect()[0].n == 3
    finally:
        spark.sql(f"USE {current}")
        spark.catalog.dropTempView("orders")


def test_constructing_a_glue_context_makes_no_catalog_call(glue_context: Any, glue_home: Path) -> None:
    from glueball.runtime.context import GlueContext

    client = glue_context.glue_client
    calls: list[str] = []

    def count(**kwargs: Any) -> None:
        calls.append(kwargs["event_name"])

    client.meta.events.register("before-call.glue.*", count)
    try:
        GlueContext(glue_context.spark_session.sparkContext)
        assert calls == []
        db = unique("sqlcount")
        _orders(glue_context, glue_home, db)
        calls.clear()
        glue_context.spark_session.sql(f"SELECT * FROM {db}.orders").collect()
        assert "before-call.glue.GetTable" in calls
        assert "before-call.glue.GetDatabases" not in calls                 # nothing but what the query names
    finally:
        client.meta.events.unregister("before-call.glue.*", count)

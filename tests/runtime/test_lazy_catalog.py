"""GlueContext() copies nothing: catalog tables are registered in Spark SQL when a statement names them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import AnalysisException

from glueball.runtime.sqlcatalog import named_tables
from tests.helpers import unique


def _orders(glue_context: Any, glue_home: Path, db: str, table: str = "orders") -> None:
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


def test_a_new_catalog_table_is_queryable_without_a_refresh_and_pruned(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("lazy")
    _orders(glue_context, glue_home, db)
    assert not spark._jsparkSession.catalog().tableExists(db, "orders")   # nothing registered ahead
    pruned = spark.sql(f"SELECT id FROM {db}.orders WHERE year = 2026")
    assert [r.id for r in pruned.collect()] == [3]
    files = pruned.inputFiles()
    assert files and all("/orders/y2026/" in f for f in files)
    assert spark.table(f"{db}.orders").count() == 3                      # the stray folder is never read
    assert spark.read.table(f"{db}.orders").count() == 3


def test_tables_in_subqueries_joins_and_after_use_are_found(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("lazysub")
    _orders(glue_context, glue_home, db, "a")
    _orders(glue_context, glue_home, db, "b")
    _orders(glue_context, glue_home, db, "c")
    rows = spark.sql(f"SELECT count(*) AS n FROM {db}.a x JOIN {db}.b y ON x.id = y.id "
                     f"WHERE x.id IN (SELECT id FROM {db}.c WHERE year = 2025)").collect()
    assert rows[0].n == 2
    current = spark.catalog.currentDatabase()
    try:
        spark.sql(f"USE {db}")
        assert spark.sql("SELECT count(*) AS n FROM a").collect()[0].n == 3   # unqualified: the current database
    finally:
        spark.sql(f"USE {current}")


def test_a_cte_named_like_a_table_is_not_looked_up(glue_context: Any) -> None:
    spark = glue_context.spark_session
    names = named_tables(spark, "WITH orders AS (SELECT 1 AS id) SELECT * FROM orders JOIN sales.customers c")
    assert names == [["sales", "customers"]]
    assert spark.sql("WITH missing_everywhere AS (SELECT 1 AS id) SELECT * FROM missing_everywhere").count() == 1
    assert named_tables(spark, "SELEC nonsense") is None


def test_a_hyphenated_database_fails_clearly_in_sql_and_reads_through_the_catalog(glue_context: Any,
                                                                                  glue_home: Path) -> None:
    from glueball.runtime.errors import GlueRuntimeError

    spark = glue_context.spark_session
    db = unique("lazy-hyphen")
    _orders(glue_context, glue_home, db)
    with pytest.raises(GlueRuntimeError, match="only letters, digits and _"):
        spark.sql(f"SELECT count(*) AS n FROM `{db}`.orders WHERE year = 2025")
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="orders",
                                                           push_down_predicate="year = 2025")
    assert frame.count() == 2


def test_spark_keeps_its_own_errors_for_unknown_tables_and_bad_sql(glue_context: Any) -> None:
    spark = glue_context.spark_session
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("SELECT * FROM nowhere_db.nothing").collect()
    with pytest.raises(Exception, match="PARSE_SYNTAX_ERROR"):
        spark.sql("SELEC 1")


def test_the_scripts_own_tables_and_views_are_left_alone(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = unique("lazyown")
    _orders(glue_context, glue_home, db)
    spark.createDataFrame([(7,)], "id int").createOrReplaceTempView("orders")
    current = spark.catalog.currentDatabase()
    try:
        spark.sql(f"USE {db}") if spark._jsparkSession.catalog().databaseExists(db) else None
        assert [r.id for r in spark.sql("SELECT id FROM orders").collect()] == [7]   # the temp view wins
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
        db = unique("lazycount")
        _orders(glue_context, glue_home, db)
        calls.clear()
        glue_context.spark_session.sql(f"SELECT * FROM {db}.orders").collect()
        assert "before-call.glue.GetTable" in calls
        calls.clear()
        glue_context.spark_session.sql(f"SELECT * FROM {db}.orders").collect()
        assert calls == []                                               # registered once
    finally:
        client.meta.events.unregister("before-call.glue.*", count)


def test_a_database_spark_rejects_does_not_break_the_others(glue_context: Any, glue_home: Path) -> None:
    from glueball.runtime.context import GlueContext

    odd = unique("odd-name")
    _orders(glue_context, glue_home, odd)
    GlueContext(glue_context.spark_session.sparkContext)      # constructing reads nothing, so nothing breaks
    report = glue_context.refresh_sql_catalog()               # the explicit full mirror skips it, naming why
    assert odd in report.skipped and not any(t.startswith(odd + ".") for t in report.tables)
    db = unique("lazyok")
    _orders(glue_context, glue_home, db)
    assert glue_context.spark_session.sql(f"SELECT count(*) AS n FROM {db}.orders").collect()[0].n == 3

"""Creating a table with data is all or nothing: a failed CTAS or saveAsTable leaves nothing that blocks a rerun."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import unique

FAILING = ("SELECT id, CAST(id % 3 AS STRING) AS p, "
           "CASE WHEN id = 7 THEN raise_error('boom') ELSE id END AS v FROM range(10)")


def _database(glue_context: Any, prefix: str) -> str:
    db = unique(prefix)
    glue_context.spark_session.sql(f"CREATE DATABASE {db} LOCATION 's3://lake/{db}'")
    return db


def _left(glue_home: Path, db: str, table: str) -> list[str]:
    folder = glue_home / "s3" / "lake" / db / table
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("ddl", [
    "CREATE TABLE {t} USING parquet PARTITIONED BY (p) AS {q}",
    "CREATE TABLE {t} STORED AS PARQUET AS {q}",
    "CREATE TABLE {t} USING json LOCATION 's3://lake/{db}/sales' AS {q}",
])
def test_a_ctas_failing_midway_leaves_nothing_and_succeeds_on_rerun(glue_context: Any, glue_home: Path,
                                                                    ddl: str) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "atomctas")
    statement = ddl.format(t=f"{db}.sales", q=FAILING, db=db)
    with pytest.raises(Exception, match="boom"):
        spark.sql(statement)
    assert client.get_tables(DatabaseName=db)["TableList"] == []
    assert _left(glue_home, db, "sales") == []
    spark.sql(statement.replace("raise_error('boom')", "-1"))
    assert spark.table(f"{db}.sales").count() == 10
    assert [t["Name"] for t in client.get_tables(DatabaseName=db)["TableList"]] == ["sales"]


def test_save_as_table_failing_midway_leaves_nothing(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "atomsave")
    with pytest.raises(Exception, match="boom"):
        spark.sql(FAILING).write.partitionBy("p").saveAsTable(f"{db}.sales")
    assert client.get_tables(DatabaseName=db)["TableList"] == []
    assert _left(glue_home, db, "sales") == []
    spark.sql(FAILING.replace("raise_error('boom')", "-1")).write.partitionBy("p").saveAsTable(f"{db}.sales")
    assert len(client.get_partitions(DatabaseName=db, TableName="sales")["Partitions"]) == 3


def test_staging_leftovers_of_a_killed_run_do_not_block_the_next(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    db = _database(glue_context, "atomkill")
    (glue_home / "s3" / "lake" / db / "sales" / ".spark-staging-1234" / "_temporary" / "0").mkdir(parents=True)
    (glue_home / "s3" / "lake" / db / "sales" / "_temporary" / "0" / "task").mkdir(parents=True)
    (glue_home / "s3" / "lake" / db / "sales" / "_temporary" / "0" / "task" / "part-0.parquet").write_bytes(b"x")
    spark.sql(f"CREATE TABLE {db}.sales USING parquet AS SELECT 1 AS a")
    assert spark.table(f"{db}.sales").count() == 1


def test_a_folder_holding_data_is_never_removed(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "atomdata")
    spark.range(3).write.parquet(str(glue_home / "s3" / "lake" / db / "sales"))
    before = _left(glue_home, db, "sales")
    with pytest.raises(Exception, match="LOCATION_ALREADY_EXISTS"):
        spark.sql(f"CREATE TABLE {db}.sales USING parquet AS SELECT 1 AS a")
    assert _left(glue_home, db, "sales") == before
    assert client.get_tables(DatabaseName=db)["TableList"] == []


def test_a_failed_insert_leaves_the_table_and_its_partitions_as_they_were(glue_context: Any) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = _database(glue_context, "atomins")
    spark.sql(f"CREATE TABLE {db}.sales USING parquet PARTITIONED BY (p) AS "
              f"{FAILING.replace('raise_error(' + chr(39) + 'boom' + chr(39) + ')', '-1')}")
    with pytest.raises(Exception, match="boom"):
        spark.sql(f"INSERT INTO {db}.sales SELECT id + 100, v, CAST(id % 5 AS STRING) FROM "
                  f"({FAILING})")
    assert spark.table(f"{db}.sales").count() == 10
    assert len(client.get_partitions(DatabaseName=db, TableName="sales")["Partitions"]) == 3

"""JDBC against real PostgreSQL and MariaDB servers (the suite's, from tools.services)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from tools import services

PG = services.postgres
MARIA = services.mariadb


def _sql(glue_context: Any, server: services.DatabaseServer, statements: list[str]) -> None:
    """Run statements through the JVM's DriverManager (the drivers Spark uses)."""
    jvm = glue_context.spark_session._jvm
    connection = jvm.java.sql.DriverManager.getConnection(server.jdbc_url, server.user, server.password)
    try:
        statement = connection.createStatement()
        for text in statements:
            statement.execute(text)
    finally:
        connection.close()


@pytest.fixture(scope="module")
def pg_table(glue_context: Any) -> Iterator[str]:
    name = f"items_{uuid.uuid4().hex[:8]}"
    values = ", ".join(f"({i}, 'n{i}', {i * 10})" if i != 20 else "(20, NULL, NULL)" for i in range(1, 21))
    _sql(glue_context, PG(), [f"CREATE TABLE {name} (id int, name text, amount int)",
                              f"INSERT INTO {name} VALUES {values}"])
    yield name
    _sql(glue_context, PG(), [f"DROP TABLE IF EXISTS {name}"])


@pytest.fixture(scope="module")
def connections(glue_context: Any) -> Iterator[tuple[str, str]]:
    suffix = uuid.uuid4().hex[:6]
    pg, maria = f"pg_{suffix}", f"maria_{suffix}"
    client = glue_context.glue_client
    client.create_connection(ConnectionInput={
        "Name": pg, "ConnectionType": "JDBC", "ConnectionProperties": PG().connection_properties()})
    client.create_connection(ConnectionInput={
        "Name": maria, "ConnectionType": "JDBC", "ConnectionProperties": MARIA().connection_properties()})
    yield pg, maria
    client.delete_connection(ConnectionName=pg)
    client.delete_connection(ConnectionName=maria)


def _ids(frame: DynamicFrame) -> list[int]:
    return sorted(r["id"] for r in frame.toDF().collect())


def test_read_postgresql_with_url_options(glue_context: Any, pg_table: str) -> None:
    frame = glue_context.create_dynamic_frame.from_options(
        "postgresql", {"url": PG().jdbc_url, "user": PG().user, "password": PG().password, "dbtable": pg_table})
    assert _ids(frame) == list(range(1, 21))
    row = frame.toDF().where("id = 3").first()
    assert row is not None and (row["name"], row["amount"]) == ("n3", 30)


def test_extract_jdbc_conf(glue_context: Any, connections: tuple[str, str]) -> None:
    conf = glue_context.extract_jdbc_conf(connections[0])
    assert (conf["url"], conf["fullUrl"], conf["user"], conf["vendor"]) == (
        f"jdbc:postgresql://{PG().host}:{PG().port}", PG().jdbc_url, PG().user, "postgresql")
    assert conf["password"] == PG().password
    assert glue_context.extract_jdbc_conf(connections[1])["vendor"] == "mysql"


@pytest.mark.parametrize("option", [{"hashfield": "name"}, {"hashexpression": "id"}])
def test_parallel_reads_with_hash_partitions(glue_context: Any, pg_table: str, connections: tuple[str, str],
                                             option: dict[str, str]) -> None:
    frame = glue_context.create_dynamic_frame.from_options("postgresql", {
        "useConnectionProperties": "true", "connectionName": connections[0], "dbtable": pg_table,
        "hashpartitions": "3", **option})
    assert frame.getNumPartitions() == 3
    sizes = frame.toDF().rdd.glom().map(len).collect()
    assert sum(sizes) == 20 and max(sizes) < 20
    assert _ids(frame) == list(range(1, 21))


def test_sample_query(glue_context: Any, pg_table: str, connections: tuple[str, str]) -> None:
    base = {"connectionName": connections[0], "useConnectionProperties": "true", "dbtable": pg_table}
    frame = glue_context.create_dynamic_frame.from_options(
        "postgresql", {**base, "sampleQuery": f"select id, amount from {pg_table} where id > 15"})
    assert _ids(frame) == [16, 17, 18, 19, 20]
    assert frame.toDF().columns == ["id", "amount"]
    parallel = glue_context.create_dynamic_frame.from_options("postgresql", {
        **base, "sampleQuery": f"select * from {pg_table} where id <= 10 and", "hashfield": "id",
        "hashpartitions": "2", "enablePartitioningForSampleQuery": True})
    assert parallel.getNumPartitions() == 2
    assert _ids(parallel) == list(range(1, 11))
    limited = glue_context.create_dynamic_frame.from_options(
        "postgresql", {**base, "sampleQuery": f"select * from {pg_table}", "sampleSize": "4"})
    assert limited.count() == 4


def test_write_mariadb_through_catalog_connection(glue_context: Any, connections: tuple[str, str],
                                                  pg_table: str) -> None:
    target = f"copy_{uuid.uuid4().hex[:8]}"
    source = glue_context.create_dynamic_frame.from_options(
        "postgresql", {"connectionName": connections[0], "dbtable": pg_table})
    try:
        glue_context.write_dynamic_frame.from_jdbc_conf(source, catalog_connection=connections[1],
                                                        connection_options={"dbtable": target, "database": "test"})
        back = glue_context.create_dynamic_frame.from_options(
            "mysql", {"useConnectionProperties": "true", "connectionName": connections[1], "dbtable": target})
        assert _ids(back) == list(range(1, 21))
        # Glue appends
        glue_context.write_dynamic_frame.from_options(
            DynamicFrame.fromDF(source.toDF().where("id = 1"), glue_context, "one"), "mysql",
            {"url": MARIA().jdbc_url, "user": MARIA().user, "password": MARIA().password, "dbtable": target})
        assert back.toDF().where("id = 1").count() == 2
    finally:
        _sql(glue_context, MARIA(), [f"DROP TABLE IF EXISTS {target}"])


def test_from_catalog_on_a_jdbc_table(glue_context: Any, pg_table: str, connections: tuple[str, str]) -> None:
    database = f"jdbc_{uuid.uuid4().hex[:8]}"
    client = glue_context.glue_client
    client.create_database(DatabaseInput={"Name": database})
    client.create_table(DatabaseName=database, TableInput={
        "Name": f"test_public_{pg_table}",
        "Parameters": {"classification": "postgresql", "connectionName": connections[0], "typeOfData": "table"},
        "StorageDescriptor": {"Location": f"test.public.{pg_table}",
                              "Columns": [{"Name": "id", "Type": "int"}, {"Name": "name", "Type": "string"}]}})
    frame = glue_context.create_dynamic_frame.from_catalog(
        database=database, table_name=f"test_public_{pg_table}", push_down_predicate="id < 4",
        additional_options={"hashfield": "id", "hashpartitions": "2"})
    assert _ids(frame) == [1, 2, 3]
    assert frame.getNumPartitions() == 2


def test_jdbc_misconfiguration_is_reported(glue_context: Any, connections: tuple[str, str]) -> None:
    with pytest.raises(GlueRuntimeError, match="does not match"):
        glue_context.create_dynamic_frame.from_options("mysql", {"connectionName": connections[0], "dbtable": "x"})
    with pytest.raises(GlueRuntimeError, match="dbtable or sampleQuery"):
        glue_context.create_dynamic_frame.from_options("postgresql", {"connectionName": connections[0]})
    with pytest.raises(GlueRuntimeError, match="end with 'where' or 'and'"):
        glue_context.create_dynamic_frame.from_options("postgresql", {
            "connectionName": connections[0], "sampleQuery": "select 1", "enablePartitioningForSampleQuery": "true",
            "hashfield": "id"})

"""JDBC nodes of a visual job against the real databases: a DirectJDBCSource on PostgreSQL through a Glue
connection, a MySQLCatalogTarget on MariaDB, a PostgreSQLCatalogSource and a PostgreSQLCatalogTarget."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.helpers import ServerProcess, unique, wait_for
from tools import services

ROLE = "arn:aws:iam::123456789012:role/glue"
ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")


def _pg(*statements: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        rows: list[tuple[Any, ...]] = []
        for statement in statements:
            cursor = conn.execute(statement)
            if cursor.description:
                rows = list(cursor.fetchall())
        return rows


def _maria(*statements: str) -> list[tuple[Any, ...]]:
    conn = services.mariadb().connect()
    try:
        rows: list[tuple[Any, ...]] = []
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
                rows = list(cursor.fetchall())
        return rows
    finally:
        conn.close()


@pytest.fixture()
def tables() -> Iterator[tuple[str, str, str]]:
    suffix = uuid.uuid4().hex[:8]
    source, copy, target = f"items_{suffix}", f"copy_{suffix}", f"doubled_{suffix}"
    _pg(f"CREATE TABLE {source} (id int, name text, amount int)",
        f"INSERT INTO {source} VALUES (1, 'a', 10), (2, 'b', 20), (3, NULL, NULL)",
        f"CREATE TABLE {copy} (id int, name text, amount int)")
    _maria(f"CREATE TABLE {target} (id int, name text, amount int, doubled int)")
    yield source, copy, target
    _pg(f"DROP TABLE IF EXISTS {source}", f"DROP TABLE IF EXISTS {copy}")
    _maria(f"DROP TABLE IF EXISTS {target}")


def _jdbc_table(name: str, classification: str, connection: str, location: str) -> dict[str, Any]:
    return {"Name": name, "Parameters": {"classification": classification, "connectionName": connection,
                                         "typeOfData": "table"},
            "StorageDescriptor": {"Location": location, "Columns": [
                {"Name": "id", "Type": "int"}, {"Name": "name", "Type": "string"}, {"Name": "amount", "Type": "int"}]}}


def test_jdbc_sources_and_targets(studio_server: ServerProcess, tables: tuple[str, str, str]) -> None:
    source, copy, target = tables
    glue = studio_server.client()
    pg, maria, db = unique("pg"), unique("maria"), unique("jdbc")
    pg_db, maria_db = services.postgres().database, services.mariadb().database
    glue.create_connection(ConnectionInput={"Name": pg, "ConnectionType": "JDBC",
                                            "ConnectionProperties": services.postgres().connection_properties()})
    glue.create_connection(ConnectionInput={"Name": maria, "ConnectionType": "JDBC",
                                            "ConnectionProperties": services.mariadb().connection_properties()})
    glue.create_database(DatabaseInput={"Name": db})
    glue.create_table(DatabaseName=db, TableInput=_jdbc_table("items", "postgresql", pg, f"{pg_db}.public.{source}"))
    glue.create_table(DatabaseName=db, TableInput=_jdbc_table("copy", "postgresql", pg, f"{pg_db}.public.{copy}"))
    doubled = _jdbc_table("doubled", "mysql", maria, f"{maria_db}.{target}")
    doubled["StorageDescriptor"]["Columns"].append({"Name": "doubled", "Type": "int"})
    glue.create_table(DatabaseName=db, TableInput=doubled)
    nodes = {
        "node-1": {"DirectJDBCSource": {"Name": "Items", "Database": pg_db, "Table": f"public.{source}",
                                        "ConnectionName": pg, "ConnectionType": "postgresql"}},
        "node-2": {"DynamicTransform": {
            "Name": "Double", "TransformName": "gs_derived", "Inputs": ["node-1"], "FunctionName": "gs_derived",
            "Path": "s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/gs_derived.py",
            "Parameters": [{"Name": "colName", "Type": "str", "Value": ["doubled"]},
                           {"Name": "expr", "Type": "str", "Value": ["amount * 2"]}]}},
        "node-3": {"MySQLCatalogTarget": {"Name": "MariaDB", "Inputs": ["node-2"], "Database": db,
                                          "Table": "doubled"}},
        "node-4": {"PostgreSQLCatalogSource": {"Name": "Items again", "Database": db, "Table": "items"}},
        "node-5": {"PostgreSQLCatalogTarget": {"Name": "Copy", "Inputs": ["node-4"], "Database": db,
                                               "Table": "copy"}},
    }
    name = unique("jdbc_job")
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=nodes)
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=300, what="the run to end", interval=1.0)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert sorted(_maria(f"SELECT id, name, amount, doubled FROM {target}"), key=repr) == sorted(
        [(1, "a", 10, 20), (2, "b", 20, 40), (3, None, None, None)], key=repr)
    assert sorted(_pg(f"SELECT id, name, amount FROM {copy}"), key=repr) == sorted(
        [(1, "a", 10), (2, "b", 20), (3, None, None)], key=repr)

"""Seed the object store and Data Catalog that the example scripts read.

    python examples/seed.py            # into $GLUEBALL_HOME (default ~/.glueball)

It copies examples/data into s3://lake/raw/... and registers the `sales` database
with the `customers` table (CSV) and the JDBC connections `pg_sales`
(PostgreSQL 127.0.0.1:5432/test) and `mariadb_sales` (MariaDB 127.0.0.1:3306/test), or the servers
``seed(jdbc=...)`` names (the test suite passes its own).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from glueball.app import Glueball
from glueball.config import Settings

DATA = Path(__file__).resolve().parent / "data"
RAW = {
    "orders.csv": "orders/orders.csv",
    "customers.csv": "customers/customers.csv",
    "events.json": "events/events.json",
    "nested_orders.json": "nested_orders/nested_orders.json",
    "payments.csv": "payments/payments.csv",
}


DEFAULT_JDBC = {
    "pg_sales": {"JDBC_CONNECTION_URL": "jdbc:postgresql://127.0.0.1:5432/test", "USERNAME": "postgres"},
    "mariadb_sales": {"JDBC_CONNECTION_URL": "jdbc:mysql://127.0.0.1:3306/test", "USERNAME": "root"},
}


def seed(settings: Settings | None = None, jdbc: dict[str, dict[str, str]] | None = None) -> None:
    """Copy the data and register the catalog; ``jdbc`` gives the two connections' properties."""
    settings = settings or Settings()
    for source, target in RAW.items():
        path = settings.object_store / "lake" / "raw" / target
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / source, path)
    glue = Glueball(settings)
    client = glue.client("glue")
    try:
        _catalog(client, jdbc or DEFAULT_JDBC)
    finally:
        glue.close()


def _ignore_existing(call: object, **params: object) -> None:
    try:
        call(**params)  # type: ignore[operator]
    except ClientError as err:
        if err.response["Error"]["Code"] != "AlreadyExistsException":
            raise


def _catalog(client: Any, jdbc: dict[str, dict[str, str]]) -> None:
    _ignore_existing(client.create_database, DatabaseInput={"Name": "sales", "LocationUri": "s3://lake/"})
    _ignore_existing(client.create_table, DatabaseName="sales", TableInput={
        "Name": "customers",
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {"classification": "csv", "skip.header.line.count": "1"},
        "StorageDescriptor": {
            "Location": "s3://lake/raw/customers/",
            "Columns": [{"Name": "customer_id", "Type": "bigint"}, {"Name": "name", "Type": "string"},
                        {"Name": "segment", "Type": "string"}, {"Name": "signup_date", "Type": "string"}],
            "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                          "Parameters": {"field.delim": ","}},
        },
    })
    for name, properties in jdbc.items():
        _ignore_existing(client.create_connection, ConnectionInput={
            "Name": name, "ConnectionType": "JDBC", "ConnectionProperties": properties})


if __name__ == "__main__":
    seed()
    print("seeded s3://lake/raw/ and the sales catalog")

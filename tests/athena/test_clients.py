"""Athena's clients, unchanged, against a server: awswrangler.athena (read_sql_query with and without the CTAS
approach, start_query_execution) and PyAthena (its DB-API cursor and its SQLAlchemy dialect)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

import boto3
import pytest

from tests.athena.helpers import RESULTS, client, succeeded
from tests.helpers import ServerProcess, unique

KEY, SECRET = "AKIDCLIENTS", "secret"


@pytest.fixture(scope="module")
def rates(athena_server: ServerProcess) -> str:
    """A Parquet table of three exchange rates (and a NULL rate) in ``default``."""
    table = unique("rates")
    succeeded(client(athena_server),
              f"CREATE TABLE default.{table} WITH (format = 'PARQUET', external_location = 's3://lake/{table}/') "
              "AS SELECT * FROM (VALUES ('EUR', 1.1E0, DATE '2024-01-01'), ('GBP', 1.27E0, DATE '2024-01-02'), "
              "('JPY', 0.0067E0, DATE '2024-01-03'), ('XXX', NULL, DATE '2024-01-04')) AS t(currency, rate, day)")
    return table


def session() -> boto3.Session:
    return boto3.Session(aws_access_key_id=KEY, aws_secret_access_key=SECRET, region_name="us-east-1")


@pytest.mark.parametrize("ctas_approach", [False, True])
def test_awswrangler_read_sql_query(wrangler: Any, rates: str, athena_server: ServerProcess,
                                    ctas_approach: bool) -> None:
    frame = wrangler.athena.read_sql_query(
        f"SELECT currency, rate, day FROM {rates} WHERE currency <> 'GBP' ORDER BY currency", database="default",
        ctas_approach=ctas_approach, s3_output=RESULTS, boto3_session=session())
    assert list(frame["currency"]) == ["EUR", "JPY", "XXX"]
    assert list(frame["rate"][:2]) == [1.1, 0.0067] and frame["rate"].isna().tolist() == [False, False, True]
    assert str(frame["day"][0])[:10] == "2024-01-01"
    assert str(frame["rate"].dtype).lower().startswith("float")
    if ctas_approach:  # its temporary table is dropped again
        tables = client(athena_server, "glue").get_tables(DatabaseName="default")["TableList"]
        assert not [t["Name"] for t in tables if t["Name"].startswith("temp_table_")]


def test_awswrangler_start_query_execution_and_wait(wrangler: Any, rates: str) -> None:
    query_id = wrangler.athena.start_query_execution(f"SELECT count(*) AS n FROM {rates}", database="default",
                                                     s3_output=RESULTS, boto3_session=session())
    done = wrangler.athena.wait_query(query_id, boto3_session=session())
    assert done["Status"]["State"] == "SUCCEEDED"
    frame = wrangler.athena.get_query_results(query_id, boto3_session=session())
    assert frame["n"].tolist() == [4]
    with pytest.raises(wrangler.exceptions.QueryFailed, match="TABLE_NOT_FOUND"):
        wrangler.athena.read_sql_query("SELECT * FROM no_such_table", database="default", ctas_approach=False,
                                       s3_output=RESULTS, boto3_session=session())


def test_pyathena_dbapi_cursor(athena_server: ServerProcess, rates: str) -> None:
    import pyathena

    connection = pyathena.connect(s3_staging_dir=RESULTS, region_name="us-east-1", schema_name="default",
                                  endpoint_url=athena_server.endpoint, aws_access_key_id=KEY,
                                  aws_secret_access_key=SECRET)
    cursor = connection.cursor()
    cursor.execute(f"SELECT currency, rate FROM {rates} WHERE rate > %(least)s ORDER BY rate", {"least": 1.0})
    assert [d[0] for d in cursor.description] == ["currency", "rate"]
    assert [d[1] for d in cursor.description] == ["varchar", "double"]
    assert cursor.fetchall() == [("EUR", 1.1), ("GBP", 1.27)]  # no header row among the data
    cursor.execute(f"SELECT day, rate FROM {rates} WHERE currency = 'XXX'")
    day, rate = cursor.fetchone()
    assert str(day) == "2024-01-04" and rate is None
    assert cursor.query_id and cursor.output_location.endswith(f"{cursor.query_id}.csv")
    cursor.execute("SELECT i FROM UNNEST(sequence(1, 2500)) AS t(i) ORDER BY i")  # three pages of results
    assert [row[0] for row in cursor.fetchall()] == list(range(1, 2501))
    with pytest.raises(pyathena.error.OperationalError, match="TABLE_NOT_FOUND"):
        cursor.execute("SELECT * FROM no_such_table")
    connection.close()


def test_pyathena_sqlalchemy(athena_server: ServerProcess, rates: str) -> None:
    import sqlalchemy

    url = (f"awsathena+rest://{KEY}:{SECRET}@athena.us-east-1.amazonaws.com:443/default?"
           f"s3_staging_dir={quote_plus(RESULTS)}&endpoint_url={quote_plus(athena_server.endpoint)}")
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as connection:
        inspector = sqlalchemy.inspect(connection)
        assert rates in inspector.get_table_names(schema="default")
        columns = {c["name"]: type(c["type"]).__name__ for c in inspector.get_columns(rates, schema="default")}
        assert list(columns) == ["currency", "rate", "day"]
        table = sqlalchemy.Table(rates, sqlalchemy.MetaData(), autoload_with=connection, schema="default")
        found = connection.execute(sqlalchemy.select(table.c.currency).where(table.c.rate < 1)
                                   .order_by(table.c.currency)).fetchall()
        assert [row[0] for row in found] == ["JPY"]
        counted = connection.execute(sqlalchemy.text(f"SELECT count(*) FROM {rates}")).scalar()
        assert counted == 4
        # a table that is not there is told from the catalog's error (as Athena words it), not raised
        assert not inspector.has_table(unique("nope"), schema="default")
        assert inspector.has_table(rates, schema="default")
    engine.dispose()


def test_pyathena_reflects_serde_properties_formats_and_compression_of_athena_ddl(athena_server: ServerProcess) -> None:
    """Tables made by Athena's DDL reflect as PyAthena reflects them from Athena: GetTableMetadata gives the SerDe's
    parameters as ``serde.param.<key>`` beside ``serde.serialization.lib``, the formats, the location and the
    table's own parameters."""
    import sqlalchemy

    athena = client(athena_server)
    tsv, csv, parquet = unique("tsv"), unique("opencsv"), unique("snappy")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{tsv} (a string, b int) ROW FORMAT DELIMITED FIELDS TERMINATED "
                      f"BY '\\t' LINES TERMINATED BY '\\n' STORED AS TEXTFILE LOCATION 's3://lake/{tsv}/'")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{csv} (a string, b int) ROW FORMAT SERDE "
                      "'org.apache.hadoop.hive.serde2.OpenCSVSerde' WITH SERDEPROPERTIES ('separatorChar'=',', "
                      f"'quoteChar'='\"', 'escapeChar'='\\\\') LOCATION 's3://lake/{csv}/'")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{parquet} (a int) STORED AS PARQUET LOCATION "
                      f"'s3://lake/{parquet}/' TBLPROPERTIES ('parquet.compression'='SNAPPY', "
                      "'parquet.compress'='GZIP')")
    metadata = athena.get_table_metadata(CatalogName="AwsDataCatalog", DatabaseName="default",
                                         TableName=tsv)["TableMetadata"]["Parameters"]
    assert {k: v for k, v in metadata.items() if k.startswith("serde.")} == {
        "serde.serialization.lib": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        "serde.param.field.delim": "\t", "serde.param.line.delim": "\n", "serde.param.serialization.format": "\t"}
    assert metadata["inputformat"] == "org.apache.hadoop.mapred.TextInputFormat"
    url = (f"awsathena+rest://{KEY}:{SECRET}@athena.us-east-1.amazonaws.com:443/default?"
           f"s3_staging_dir={quote_plus(RESULTS)}&endpoint_url={quote_plus(athena_server.endpoint)}")
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as connection:
        inspector = sqlalchemy.inspect(connection)
        options = inspector.get_table_options(tsv, schema="default")
        assert dict(options["awsathena_serdeproperties"]) == {"field.delim": "\t", "line.delim": "\n",
                                                               "serialization.format": "\t"}
        assert options["awsathena_row_format"] == "SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe'"
        assert options["awsathena_location"].rstrip("/") == f"s3://lake/{tsv}"
        options = inspector.get_table_options(csv, schema="default")
        assert dict(options["awsathena_serdeproperties"]) == {"separatorChar": ",", "quoteChar": '"',
                                                               "escapeChar": "\\", "serialization.format": "1"}
        options = inspector.get_table_options(parquet, schema="default")
        # Athena's Parquet compression property; parquet.compress is a table property like any other to Athena
        assert options["awsathena_compression"] == "SNAPPY"
        assert dict(options["awsathena_serdeproperties"]) == {"serialization.format": "1"}
        assert options["awsathena_tblproperties"]["parquet.compress"] == "GZIP"
        assert options["awsathena_file_format"] == (
            "INPUTFORMAT 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat' "
            "OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat'")
    engine.dispose()

"""Athena's query executions end to end: a real server, its Athena engine (a Spark driver), boto3 and the AWS CLI.

The seed's steps (an exchange-rates table created, three rows inserted, selected), result pages with typed
columns and Athena's header row, the result CSV and its ``.metadata`` in the result location, CTAS, UNLOAD,
views, SHOW and DESCRIBE, and failed queries named as Athena names them."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet
import pytest

from tests.athena.helpers import RESULTS, client, rows, run, select, succeeded
from tests.helpers import ServerProcess, unique, wait_for

CLI = shutil.which("aws", path=str(Path(sys.executable).parent)) or "aws"


def cli(server: ServerProcess, *args: str) -> Any:
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_PAGER="")
    done = subprocess.run([CLI, *args, "--endpoint-url", server.endpoint, "--output", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def cli_query(server: ServerProcess, sql: str) -> dict[str, Any]:
    import time

    query_id = cli(server, "athena", "start-query-execution", "--query-string", sql,
                   "--result-configuration", f"OutputLocation={RESULTS}")["QueryExecutionId"]
    while True:
        execution: dict[str, Any] = cli(server, "athena", "get-query-execution", "--query-execution-id",
                                        query_id)["QueryExecution"]
        if execution["Status"]["State"] not in ("QUEUED", "RUNNING"):
            return execution
        time.sleep(0.5)


def object_text(server: ServerProcess, uri: str) -> str:
    bucket, key = uri.removeprefix("s3://").split("/", 1)
    body: bytes = client(server, "s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    return body.decode("utf-8")


def test_seed_exchange_rates_through_the_aws_cli(athena_server: ServerProcess) -> None:
    table = unique("exchange_rates")
    created = cli_query(athena_server, f"CREATE EXTERNAL TABLE default.{table} (currency string, rate double) "
                                       f"ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE "
                                       f"LOCATION 's3://lake/{table}/'")
    assert created["Status"]["State"] == "SUCCEEDED", created["Status"]
    assert (created["StatementType"], created["SubstatementType"]) == ("DDL", "CREATE_TABLE")
    inserted = cli_query(athena_server, f"INSERT INTO default.{table} VALUES ('EUR', 1.1), ('GBP', 1.27), "
                                        "('JPY', 0.0067)")
    assert inserted["Status"]["State"] == "SUCCEEDED", inserted["Status"]
    assert inserted["StatementType"] == "DML"
    selected = cli_query(athena_server, f"SELECT * FROM default.{table} ORDER BY currency")
    assert selected["Status"]["State"] == "SUCCEEDED", selected["Status"]
    assert selected["Statistics"]["DataScannedInBytes"] > 0  # the three rows' text file
    results = cli(athena_server, "athena", "get-query-results", "--query-execution-id",
                  selected["QueryExecutionId"])
    assert [[v.get("VarCharValue") for v in r["Data"]] for r in results["ResultSet"]["Rows"]] == [
        ["currency", "rate"], ["EUR", "1.1"], ["GBP", "1.27"], ["JPY", "0.0067"]]
    columns = results["ResultSet"]["ResultSetMetadata"]["ColumnInfo"]
    assert [(c["Name"], c["Type"]) for c in columns] == [("currency", "varchar"), ("rate", "double")]
    # the Glue API sees the table Athena created, with Hive's text SerDe and its location
    stored = client(athena_server, "glue").get_table(DatabaseName="default", Name=table)["Table"]
    assert stored["StorageDescriptor"]["Location"].rstrip("/") == f"s3://lake/{table}"
    assert [c["Name"] for c in stored["StorageDescriptor"]["Columns"]] == ["currency", "rate"]

    # the seed's Studio job: a Lookup node reads the table Athena made and filled
    orders = athena_server.home / "s3" / "lake" / f"{table}_orders" / "orders.json"
    orders.parent.mkdir(parents=True)
    orders.write_text("".join(json.dumps({"id": i, "currency": c, "amount": a}) + "\n"
                              for i, (c, a) in enumerate([("EUR", 10.0), ("JPY", 2000.0), ("CHF", 5.0)])))
    node = "node-17100000000{:02d}".format
    lookup = {"Name": "Rates", "TransformName": "gs_lookup", "FunctionName": "gs_lookup", "Version": "1.0.0",
              "Inputs": [node(1)], "Path": "s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/gs_lookup.py",
              "Parameters": [{"Name": "lookupTable", "Type": "str", "Value": [f"default.{table}"]},
                             {"Name": "keyColumns", "Type": "str", "Value": ["currency"]},
                             {"Name": "columnsToTake", "Type": "str", "Value": ["rate"]}]}
    graph = {
        node(1): {"S3JsonSource": {"Name": "Orders", "Paths": [f"s3://lake/{table}_orders/"],
                                   "OutputSchemas": [{"Columns": [{"Name": "id"}, {"Name": "currency"},
                                                                  {"Name": "amount"}]}]}},
        node(2): {"DynamicTransform": lookup},
        node(3): {"S3DirectTarget": {"Name": "Priced", "Inputs": [node(2)], "Path": f"s3://lake/{table}_priced/",
                                     "Format": "json"}}}
    glue = client(athena_server, "glue")
    job = unique("lookup_rates")
    glue.create_job(Name=job, Role="arn:aws:iam::123456789012:role/glue", GlueVersion="4.0",
                    Command={"Name": "glueetl", "PythonVersion": "3"}, CodeGenConfigurationNodes=graph)
    run_id = glue.start_job_run(JobName=job)["JobRunId"]
    ended = wait_for(lambda: (r := glue.get_job_run(JobName=job, RunId=run_id)["JobRun"])["JobRunState"] in
                     ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED") and r, timeout=420,
                     what=f"job run {run_id}", interval=1.0)
    assert ended["JobRunState"] == "SUCCEEDED", ended.get("ErrorMessage")
    priced = athena_server.home / "s3" / "lake" / f"{table}_priced"
    written = [json.loads(line) for f in sorted(priced.glob("run-*")) for line in f.read_text().splitlines()]
    assert sorted((r["currency"], r.get("rate")) for r in written) == [("CHF", None), ("EUR", 1.1), ("JPY", 0.0067)]


def test_a_read_of_a_short_query_is_answered_when_it_ends(athena: Any) -> None:
    succeeded(athena, "SELECT 0")  # the engine is up
    for sql in ("SELECT 1", "SELECT 'held' AS word", "SELECT 1 + 1 AS two"):
        query_id = athena.start_query_execution(QueryString=sql, ResultConfiguration={"OutputLocation": RESULTS})[
            "QueryExecutionId"]
        first = athena.get_query_execution(QueryExecutionId=query_id)["QueryExecution"]["Status"]
        assert first["State"] == "SUCCEEDED", f"the first read of {sql!r} answered before it ended: {first}"


def test_results_are_paged_typed_and_headed(athena: Any) -> None:
    sql = ("SELECT i, CAST(i AS varchar) AS s, i * 0.5 AS half, CAST(i AS decimal(10, 2)) AS d, "
           "date_add('day', i, date '2024-01-01') AS day, i % 2 = 0 AS even, "
           "CASE WHEN i = 3 THEN NULL ELSE 'x' END AS maybe, TIMESTAMP '2024-01-01 10:00:00' AS ts "
           "FROM UNNEST(sequence(1, 25)) AS t(i) ORDER BY i")
    execution = succeeded(athena, sql)
    query_id = execution["QueryExecutionId"]
    assert execution["ResultConfiguration"]["OutputLocation"] == f"{RESULTS}{query_id}.csv"
    first = athena.get_query_results(QueryExecutionId=query_id, MaxResults=10)
    assert len(first["ResultSet"]["Rows"]) == 10 and "NextToken" in first
    columns = first["ResultSet"]["ResultSetMetadata"]["ColumnInfo"]
    assert [(c["Name"], c["Type"]) for c in columns] == [
        ("i", "integer"), ("s", "varchar"), ("half", "double"), ("d", "decimal"), ("day", "date"),
        ("even", "boolean"), ("maybe", "varchar"), ("ts", "timestamp")]
    assert (columns[3]["Precision"], columns[3]["Scale"]) == (10, 2)
    everything = rows(athena, query_id)
    assert everything[0] == ["i", "s", "half", "d", "day", "even", "maybe", "ts"]  # the header row, first page
    assert len(everything) == 26
    assert everything[3] == ["3", "3", "1.5", "3.00", "2024-01-04", "false", None, "2024-01-01 10:00:00.000"]
    second = athena.get_query_results(QueryExecutionId=query_id, MaxResults=10, NextToken=first["NextToken"])
    assert [v.get("VarCharValue") for v in second["ResultSet"]["Rows"][0]["Data"]][0] == "10"


def test_numbers_print_as_trino_prints_them_with_or_without_a_projection(athena: Any) -> None:
    """Doubles with Java 19's fewest digits (Java 17's Double.toString, Spark's cast here, prints 2E23 as
    1.9999999999999998E23), plain from 10^-3 to 10^7; the same whether Spark prints another column (a date) or not."""
    numbers = ("i, CAST(i AS bigint) * 1000000000000 AS big, i = 1 AS flag, 0.1E0 + 0.2E0 AS sum, 2E23 AS huge, "
               "1E7 AS ten_million, 9999999E0 AS below, 9.99E-4 AS small, 1E-3 AS thousandth, -0E0 AS zero, "
               "CAST(NULL AS double) AS none, 'x' AS s")
    expected = [["1", "1000000000000", "true", "0.30000000000000004", "2.0E23", "1.0E7", "9999999.0", "9.99E-4",
                 "0.001", "-0.0", None, "x"],
                ["2", "2000000000000", "false", "0.30000000000000004", "2.0E23", "1.0E7", "9999999.0", "9.99E-4",
                 "0.001", "-0.0", None, "x"]]
    alone = rows(athena, succeeded(athena, f"SELECT {numbers} FROM UNNEST(sequence(1, 2)) AS t(i) ORDER BY i")[
        "QueryExecutionId"])
    assert alone[1:] == expected
    with_a_date = rows(athena, succeeded(athena, f"SELECT {numbers}, date '2024-01-01' AS day "
                                                 f"FROM UNNEST(sequence(1, 2)) AS t(i) ORDER BY i")["QueryExecutionId"])
    assert with_a_date[0][-1] == "day" and [r[:-1] for r in with_a_date[1:]] == expected
    assert [r[-1] for r in with_a_date[1:]] == ["2024-01-01", "2024-01-01"]


def test_a_name_twice_in_a_result_names_two_columns(athena: Any) -> None:
    """Trino answers a result naming a column twice; the one projection Spark prints a date in reads each column by
    its place (by name, the second `a` would be ambiguous)."""
    for sql, expected in (("SELECT 1 AS a, 'x' AS a", ["1", "x"]),
                          ("SELECT 1 AS a, DATE '2024-01-01' AS a", ["1", "2024-01-01"])):
        assert rows(athena, succeeded(athena, sql)["QueryExecutionId"]) == [["a", "a"], expected], sql


def test_nested_values_and_odd_names_print_as_athena_prints_them(athena: Any) -> None:
    execution = succeeded(athena, "SELECT MAP(ARRAY['a', 'b'], ARRAY[1, NULL]) AS m, "
                                  "ARRAY[TIMESTAMP '2024-01-01 10:00:00', NULL] AS ts, from_hex('CAFE01') AS b, "
                                  "CAST(ROW(1, NULL) AS ROW(n INTEGER, s VARCHAR)) AS r, "
                                  "ARRAY[MAP(ARRAY['k'], ARRAY[ARRAY[1, NULL]])] AS nested, 2 AS \"odd`name\", "
                                  "ROW('John', 30) AS anonymous")
    assert rows(athena, execution["QueryExecutionId"]) == [
        ["m", "ts", "b", "r", "nested", "odd`name", "anonymous"],
        ["{a=1, b=null}", "[2024-01-01 10:00:00.000, null]", "ca fe 01", "{n=1, s=null}", "[{k=[1, null]}]", "2",
         "{field0=John, field1=30}"]]


def test_result_csv_and_metadata_land_in_the_result_location(athena_server: ServerProcess, athena: Any) -> None:
    execution = succeeded(athena, "SELECT 'a\"b' AS quoted, CAST(NULL AS varchar) AS missing, '' AS empty, 1 + 1")
    location = execution["ResultConfiguration"]["OutputLocation"]
    # Athena's CSV: every value quoted, quotes doubled, NULL an empty unquoted field; unnamed columns _colN
    assert object_text(athena_server, location) == '"quoted","missing","empty","_col3"\n"a""b",,"","2"\n'
    metadata = json.loads(object_text(athena_server, location + ".metadata"))
    assert [c["Name"] for c in metadata["ColumnInfo"]] == ["quoted", "missing", "empty", "_col3"]
    assert rows(athena, execution["QueryExecutionId"])[1] == ['a"b', None, "", "2"]


def test_ctas_with_format_partitions_and_location_then_unload_to_parquet(athena_server: ServerProcess,
                                                                         athena: Any) -> None:
    source, target = unique("src"), unique("ctas")
    succeeded(athena, f"CREATE TABLE {source} WITH (format = 'JSON', external_location = 's3://lake/{source}/') "
                      "AS SELECT i, CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END AS kind "
                      "FROM UNNEST(sequence(1, 10)) AS t(i)", QueryExecutionContext={"Database": "default"})
    ctas = succeeded(athena, f"CREATE TABLE {target} WITH (format = 'PARQUET', partitioned_by = ARRAY['kind'], "
                             f"external_location = 's3://lake/{target}/') AS SELECT i, kind FROM {source}",
                     QueryExecutionContext={"Database": "default"})
    assert ctas["SubstatementType"] == "CREATE_TABLE_AS_SELECT"
    counted = athena.get_query_results(QueryExecutionId=ctas["QueryExecutionId"])
    assert counted["UpdateCount"] == 10 and counted["ResultSet"]["Rows"] == []  # PyAthena: rowcount, no row
    assert [(c["Name"], c["Type"], c["Precision"]) for c in counted["ResultSet"]["ResultSetMetadata"]["ColumnInfo"]] \
        == [("rows", "bigint", 19)]
    manifest = object_text(athena_server, ctas["Statistics"]["DataManifestLocation"]).split()
    assert manifest and all(f.startswith(f"s3://lake/{target}/kind=") for f in manifest)
    glue = client(athena_server, "glue").get_table(DatabaseName="default", Name=target)["Table"]
    assert [k["Name"] for k in glue["PartitionKeys"]] == ["kind"]
    assert "parquet" in glue["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"].lower()
    assert select(athena, f"SELECT kind, count(*) FROM default.{target} GROUP BY kind ORDER BY kind") == [
        ["kind", "_col1"], ["even", "5"], ["odd", "5"]]
    assert select(athena, f"SHOW PARTITIONS default.{target}") == [["kind=even"], ["kind=odd"]]

    # bytes scanned: the files of the partitions a query reads, as Athena counts them; a Hive (JSON) table's files
    s3 = client(athena_server, "s3")

    def size(uri: str) -> int:
        bucket, key = uri.removeprefix("s3://").split("/", 1)
        return int(s3.head_object(Bucket=bucket, Key=key)["ContentLength"])

    def scanned(sql: str) -> int:
        return int(succeeded(athena, sql)["Statistics"]["DataScannedInBytes"])

    assert scanned(f"SELECT count(*) FROM default.{target}") == sum(size(f) for f in manifest)
    even = sum(size(f) for f in manifest if "/kind=even/" in f)
    assert 0 < even < sum(size(f) for f in manifest)
    assert scanned(f"SELECT count(*) FROM default.{target} WHERE kind = 'even'") == even
    json_files = [o for o in s3.list_objects_v2(Bucket="lake", Prefix=f"{source}/")["Contents"]
                  if not o["Key"].rsplit("/", 1)[-1].startswith(("_", "."))]
    assert scanned(f"SELECT count(*) FROM default.{source}") == sum(o["Size"] for o in json_files) > 0

    unloaded = succeeded(athena, f"UNLOAD (SELECT i FROM default.{source} WHERE i > 7) TO 's3://lake/{target}-unl/' "
                                 "WITH (format = 'PARQUET')")
    assert unloaded["SubstatementType"] == "UNLOAD"
    files = object_text(athena_server, unloaded["Statistics"]["DataManifestLocation"]).split()
    assert files
    values: list[int] = []
    for uri in files:
        bucket, key = uri.removeprefix("s3://").split("/", 1)
        body = client(athena_server, "s3").get_object(Bucket=bucket, Key=key)["Body"].read()
        values += pyarrow.parquet.read_table(io.BytesIO(body)).column("i").to_pylist()
    assert sorted(values) == [8, 9, 10]
    again = run(athena, f"UNLOAD (SELECT 1) TO 's3://lake/{target}-unl/' WITH (format = 'PARQUET')")
    assert again["Status"]["State"] == "FAILED"
    assert again["Status"]["StateChangeReason"].startswith("HIVE_PATH_ALREADY_EXISTS")
    # the query's placeholders take ExecutionParameters (awswrangler's qmark style with unload_approach)
    bound = succeeded(athena, f"UNLOAD (SELECT i FROM default.{source} WHERE i > ? AND kind = ?) TO "
                              f"'s3://lake/{target}-bound/' WITH (format = 'PARQUET')",
                      ExecutionParameters=["8", "'even'"])
    values = []
    for uri in object_text(athena_server, bound["Statistics"]["DataManifestLocation"]).split():
        body = client(athena_server, "s3").get_object(Bucket="lake", Key=uri.removeprefix("s3://lake/"))["Body"]
        values += pyarrow.parquet.read_table(io.BytesIO(body.read())).column("i").to_pylist()
    assert values == [10]
    # no rows unloaded: no files (Spark writes a file holding none)
    none = succeeded(athena, f"UNLOAD (SELECT i FROM default.{source} WHERE i > 100) TO 's3://lake/{target}-none/' "
                             "WITH (format = 'PARQUET')")
    assert object_text(athena_server, none["Statistics"]["DataManifestLocation"]) == ""
    assert athena.get_query_results(QueryExecutionId=none["QueryExecutionId"])["UpdateCount"] == 0


def test_ctas_with_no_data_and_what_athena_refuses(athena_server: ServerProcess, athena: Any) -> None:
    empty = unique("empty")
    succeeded(athena, f"CREATE TABLE default.{empty} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{empty}/') AS SELECT 1 AS id, 'x' AS code WITH NO DATA")
    assert select(athena, f"SELECT count(*) FROM default.{empty}") == [["_col0"], ["0"]]
    stored = client(athena_server, "glue").get_table(DatabaseName="default", Name=empty)["Table"]
    assert [c["Name"] for c in stored["StorageDescriptor"]["Columns"]] == ["id", "code"]
    # a result column's type as Athena names it: real is float, varchar(n) keeps its length
    typed = unique("typed")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{typed} (code varchar(10), ratio float) STORED AS PARQUET "
                      f"LOCATION 's3://lake/{typed}/'")
    succeeded(athena, f"INSERT INTO default.{typed} VALUES ('abc', 2.5)")
    described = succeeded(athena, f"SELECT code, ratio FROM default.{typed}")
    info = athena.get_query_results(QueryExecutionId=described["QueryExecutionId"])["ResultSet"]["ResultSetMetadata"]
    assert [(c["Type"], c["Precision"]) for c in info["ColumnInfo"]] == [("varchar", 10), ("float", 17)]
    # a column without a type (NULL) makes no table; awswrangler matches these words
    untyped = run(athena, f"CREATE TABLE default.{unique('untyped')} WITH (format = 'PARQUET', external_location = "
                          f"'s3://lake/{unique('untyped')}/') AS SELECT 1 AS a, NULL AS my_null")
    assert untyped["Status"]["State"] == "FAILED"
    assert untyped["Status"]["StateChangeReason"] == "NOT_SUPPORTED: Column type is unknown: my_null"
    twice = run(athena, f"CREATE TABLE default.{unique('twice')} WITH (format = 'PARQUET', external_location = "
                        f"'s3://lake/{unique('twice')}/') AS SELECT 1 AS foo, 2 AS foo")
    assert "Column name 'foo' specified more than once" in twice["Status"]["StateChangeReason"]


def test_views_show_and_describe(athena: Any) -> None:
    base, view = unique("base"), unique("view")
    succeeded(athena, f"CREATE TABLE {base} WITH (format = 'PARQUET', external_location = 's3://lake/{base}/') "
                      "AS SELECT i, i * i AS square FROM UNNEST(sequence(1, 5)) AS t(i)",
              QueryExecutionContext={"Database": "default"})
    created = succeeded(athena, f"CREATE VIEW {view} AS SELECT i FROM {base} WHERE square > 4",
                        QueryExecutionContext={"Database": "default"})
    assert created["SubstatementType"] == "CREATE_VIEW"
    assert select(athena, f"SELECT * FROM {view} ORDER BY i", QueryExecutionContext={"Database": "default"}) == [
        ["i"], ["3"], ["4"], ["5"]]
    shown = select(athena, "SHOW TABLES", QueryExecutionContext={"Database": "default"})
    assert [base] in shown and [view] in shown and all(len(r) == 1 for r in shown)
    described = select(athena, f"DESCRIBE default.{base}")
    assert [r[:2] for r in described] == [["i", "int"], ["square", "int"]]
    shown_columns = succeeded(athena, f"SHOW COLUMNS IN default.{base}")
    assert shown_columns["ResultConfiguration"]["OutputLocation"].endswith(".txt")  # Athena's text result
    # as Athena's Hive DDL engine answers: Hive's string column, each name padded to 20 (PyAthena's pandas test)
    assert rows(athena, shown_columns["QueryExecutionId"]) == [["i".ljust(20)], ["square".ljust(20)]]
    info = athena.get_query_results(QueryExecutionId=shown_columns["QueryExecutionId"])["ResultSet"][
        "ResultSetMetadata"]["ColumnInfo"]
    assert [(c["Name"], c["Type"], c["Precision"]) for c in info] == [("field", "string", 0)]
    statement = select(athena, f"SHOW CREATE TABLE default.{base}")
    assert statement[0][0].startswith("CREATE TABLE") and statement[-1] != [None]
    # PyAthena's SQLAlchemy dialect reads a view's definition so, with Trino's quoted names
    definition = select(athena, f'SHOW CREATE VIEW "default"."{view}"')
    assert definition[0][0].startswith("CREATE VIEW") and any(base in line[0] for line in definition)
    succeeded(athena, f"DROP VIEW default.{view}")
    assert [view] not in select(athena, "SHOW TABLES", QueryExecutionContext={"Database": "default"})


def test_usage_is_counted_per_workgroup_and_tag(athena_server: ServerProcess, athena: Any) -> None:
    from glueball.runtime.client import boto3_session

    group, table = unique("wg-usage"), unique("usage")
    athena.create_work_group(Name=group, Configuration={"ResultConfiguration": {"OutputLocation": RESULTS}},
                             Tags=[{"Key": "team", "Value": "risk"}])
    succeeded(athena, f"CREATE TABLE default.{table} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{table}/') AS SELECT i FROM UNNEST(sequence(1, 1000)) AS t(i)", WorkGroup=group)
    selected = succeeded(athena, f"SELECT sum(i) FROM default.{table}", WorkGroup=group)
    assert run(athena, "SELECT * FROM default.no_such_table", WorkGroup=group)["Status"]["State"] == "FAILED"
    scanned = selected["Statistics"]["DataScannedInBytes"]
    assert scanned > 0
    glueball = boto3_session().client("glueball", endpoint_url=athena_server.endpoint, region_name="us-east-1",
                                      aws_access_key_id="AKIDATHENA", aws_secret_access_key="secret")
    groups = {g["Keys"]["tag:team"]: g for g in glueball.get_usage(GroupBy=["tag:team"], Kinds=["ATHENA_QUERY"])[
        "Groups"]}
    # the CTAS (DDL) and the failed query cost nothing; the SELECT at least Athena's 10 MB minimum, at 5 USD/TB
    assert groups["risk"]["Runs"] == 3 and groups["risk"]["DpuSeconds"] == 0
    assert groups["risk"]["EstimatedCost"] == pytest.approx(max(scanned, 10 * 1024 * 1024) / 1e12 * 5, abs=1e-6)
    by_kind = {g["Keys"]["kind"] for g in glueball.get_usage(GroupBy=["kind"])["Groups"]}
    assert "ATHENA_QUERY" in by_kind


def test_each_query_reads_the_files_there_are_now(athena_server: ServerProcess, athena: Any) -> None:
    """Athena lists a table's files for every query: files another writer (a Glue job, an upload) added since the
    engine last read the table are read, and files removed are not - a listing kept from an earlier query would
    answer with the old rows."""
    s3 = client(athena_server, "s3")
    plain, parted = unique("fresh"), unique("fresh_parts")
    succeeded(athena, f"CREATE TABLE default.{plain} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{plain}/') AS SELECT i FROM UNNEST(sequence(1, 3)) AS t(i)")
    succeeded(athena, f"CREATE TABLE default.{parted} WITH (format = 'PARQUET', partitioned_by = ARRAY['kind'], "
                      f"external_location = 's3://lake/{parted}/') AS SELECT i, CASE WHEN i % 2 = 0 THEN 'even' "
                      f"ELSE 'odd' END AS kind FROM UNNEST(sequence(1, 4)) AS t(i)")

    def count(table: str) -> int:
        return int(select(athena, f"SELECT count(*) FROM default.{table}")[1][0] or 0)

    def data_keys(prefix: str) -> list[str]:
        return [o["Key"] for o in s3.list_objects_v2(Bucket="lake", Prefix=prefix)["Contents"]
                if o["Key"].endswith(".parquet")]

    def rows_in(key: str) -> int:
        return int(pyarrow.parquet.read_table(io.BytesIO(s3.get_object(Bucket="lake", Key=key)["Body"].read()))
                   .num_rows)

    assert (count(plain), count(parted)) == (3, 4)
    first = next(k for k in data_keys(f"{plain}/") if rows_in(k))
    s3.copy_object(Bucket="lake", Key=f"{plain}/added-later.parquet", CopySource={"Bucket": "lake", "Key": first})
    even = next(k for k in data_keys(f"{parted}/kind=even/") if rows_in(k))
    s3.copy_object(Bucket="lake", Key=f"{parted}/kind=even/added-later.parquet",
                   CopySource={"Bucket": "lake", "Key": even})
    assert (count(plain), count(parted)) == (3 + rows_in(first), 4 + rows_in(even))
    s3.delete_object(Bucket="lake", Key=f"{plain}/added-later.parquet")
    s3.delete_object(Bucket="lake", Key=f"{parted}/kind=even/added-later.parquet")
    assert (count(plain), count(parted)) == (3, 4)


def test_a_crawled_json_table_is_repaired_and_altered_keeping_its_serde(athena_server: ServerProcess,
                                                                        athena: Any) -> None:
    # a table as Glue's crawlers make one over partitioned JSON lines: OpenX's SerDe, which Spark's Hive client
    # cannot load (it loads a table's SerDe before it alters the table)
    table = unique("crawled")
    s3, glue = client(athena_server, "s3"), client(athena_server, "glue")
    for day, body in (("2024-01-01", b'{"id": 1, "name": "a"}\n'), ("2024-01-02", b'{"id": 2, "name": "b"}\n')):
        s3.put_object(Bucket="lake", Key=f"{table}/dt={day}/part.json", Body=body)
    succeeded(athena, "CREATE DATABASE IF NOT EXISTS default")
    glue.create_table(DatabaseName="default", TableInput={
        "Name": table, "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "json"},
        "PartitionKeys": [{"Name": "dt", "Type": "string"}],
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "int"}, {"Name": "name", "Type": "string"}],
            "Location": f"s3://lake/{table}/", "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe",
                          "Parameters": {"paths": "id,name"}}}})
    succeeded(athena, f"MSCK REPAIR TABLE default.{table}")
    succeeded(athena, f"ALTER TABLE default.{table} SET TBLPROPERTIES ('owner_team' = 'data')")
    assert select(athena, f"SELECT id, name, dt FROM default.{table} ORDER BY id") == [
        ["id", "name", "dt"], ["1", "a", "2024-01-01"], ["2", "b", "2024-01-02"]]
    stored = glue.get_table(DatabaseName="default", Name=table)["Table"]
    serde = stored["StorageDescriptor"]["SerdeInfo"]  # (Hive's client adds its serialization.format = 1)
    assert serde["SerializationLibrary"] == "org.openx.data.jsonserde.JsonSerDe"
    assert serde["Parameters"]["paths"] == "id,name" and "path" not in serde["Parameters"]
    assert stored["StorageDescriptor"]["Location"].rstrip("/") == f"s3://lake/{table}"
    assert stored["Parameters"]["owner_team"] == "data"
    assert not [k for k in stored["Parameters"] if k.startswith("spark.sql.sources")]
    partitions = glue.get_partitions(DatabaseName="default", TableName=table)["Partitions"]
    assert sorted((p["Values"], p["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"]) for p in partitions) == [
        (["2024-01-01"], "org.openx.data.jsonserde.JsonSerDe"), (["2024-01-02"], "org.openx.data.jsonserde.JsonSerDe")]


def test_a_text_table_with_a_header_line_skips_it(athena_server: ServerProcess, athena: Any) -> None:
    # Athena's DDL for CSV files with a header: ROW FORMAT DELIMITED ... TBLPROPERTIES ('skip.header.line.count'='1')
    table = unique("with_header")
    client(athena_server, "s3").put_object(Bucket="lake", Key=f"{table}/part.csv",
                                           Body=b'id,name\n1,a\n2,b\n3,"c,d\n4,\\N\n')
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{table} (id int, name string) ROW FORMAT DELIMITED FIELDS "
                      f"TERMINATED BY ',' STORED AS TEXTFILE LOCATION 's3://lake/{table}/' "
                      "TBLPROPERTIES ('skip.header.line.count'='1')")
    # read as Hive's text SerDe reads it: a quote is a character, every comma splits, \N is NULL
    assert select(athena, f"SELECT id, name FROM default.{table} ORDER BY id") == [
        ["id", "name"], ["1", "a"], ["2", "b"], ["3", '"c'], ["4", None]]
    assert select(athena, f"SELECT count(*) FROM default.{table}") == [["_col0"], ["4"]]


@pytest.mark.parametrize("serde", ["org.openx.data.jsonserde.JsonSerDe", "org.apache.hive.hcatalog.data.JsonSerDe"])
def test_a_json_serde_table_reads_its_json_lines_and_partitions(athena_server: ServerProcess, athena: Any,
                                                                serde: str) -> None:
    table = unique("events")
    s3 = client(athena_server, "s3")
    s3.put_object(Bucket="lake", Key=f"{table}/dt=2024-01-01/a.json",
                  Body=b'{"id": 1, "name": "a", "tags": ["x"], "geo": {"lat": 1.5}}\n{"id": 2, "name": null}\n')
    s3.put_object(Bucket="lake", Key=f"{table}/day_two/b.json", Body=b'{"id": 3, "name": "c"}\n')
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{table} (id int, name string, tags array<string>, "
                      f"geo struct<lat:double>) PARTITIONED BY (dt string) ROW FORMAT SERDE '{serde}' "
                      f"LOCATION 's3://lake/{table}/'")
    # one partition found by MSCK REPAIR TABLE (an ALTER TABLE of a table whose SerDe Spark has not), one added
    succeeded(athena, f"MSCK REPAIR TABLE default.{table}")
    succeeded(athena, f"ALTER TABLE default.{table} ADD PARTITION (dt = '2024-01-02') LOCATION "
                      f"'s3://lake/{table}/day_two/'")
    assert select(athena, f"SELECT id, name, tags[1], geo.lat, dt FROM default.{table} ORDER BY id") == [
        ["id", "name", "_col2", "lat", "dt"], ["1", "a", "x", "1.5", "2024-01-01"],
        ["2", None, None, None, "2024-01-01"], ["3", "c", None, None, "2024-01-02"]]
    stored = client(athena_server, "glue").get_table(DatabaseName="default", Name=table)["Table"]
    assert stored["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == "org.openx.data.jsonserde.JsonSerDe"
    assert [k["Name"] for k in stored["PartitionKeys"]] == ["dt"]
    # Glue's readers find the files where the DDL put them (not Spark's placeholder location)
    assert stored["StorageDescriptor"]["Location"].rstrip("/") == f"s3://lake/{table}"
    assert [c["Name"] for c in stored["StorageDescriptor"]["Columns"]] == ["id", "name", "tags", "geo"]
    partitions = client(athena_server, "glue").get_partitions(DatabaseName="default", TableName=table)["Partitions"]
    assert sorted((p["Values"], p["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"]) for p in partitions) == [
        (["2024-01-01"], "org.openx.data.jsonserde.JsonSerDe"), (["2024-01-02"], "org.openx.data.jsonserde.JsonSerDe")]
    # a line that is no JSON fails the query, as OpenX's SerDe does unless told to ignore it
    s3.put_object(Bucket="lake", Key=f"{table}/day_two/c.json", Body=b'{"id": 4, "name": \n')
    broken = run(athena, f"SELECT count(*) FROM default.{table}")
    assert broken["Status"]["State"] == "FAILED"
    lenient = unique("lenient")
    s3.put_object(Bucket="lake", Key=f"{lenient}/a.json", Body=b'{"id": 1}\nnot json\n')
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{lenient} (id int) ROW FORMAT SERDE '{serde}' WITH "
                      f"SERDEPROPERTIES ('ignore.malformed.json' = 'true') LOCATION 's3://lake/{lenient}/'")
    assert select(athena, f"SELECT id FROM default.{lenient} ORDER BY id") == [["id"], ["1"], [None]]
    refused = run(athena, f"CREATE EXTERNAL TABLE default.{unique('mapped')} (ts string) ROW FORMAT SERDE '{serde}' "
                          "WITH SERDEPROPERTIES ('mapping.ts' = 'timestamp') LOCATION 's3://lake/mapped/'")
    assert refused["Status"]["State"] == "FAILED" and "mapping.ts" in refused["Status"]["StateChangeReason"]


def test_show_create_table_prints_a_hive_format_tables_hive_ddl(athena: Any) -> None:
    # Athena prints a Hive-format table's DDL in Hive's words, one line a row, its delimiters escaped (Spark's plain
    # SHOW CREATE TABLE turned a text table into USING text, and OpenCSVSerde's into USING csv with strings)
    tsv, csv, parquet = unique("show_tsv"), unique("show_csv"), unique("show_ctas")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{tsv} (a string, b int) ROW FORMAT DELIMITED FIELDS TERMINATED "
                      f"BY '\\t' LINES TERMINATED BY '\\n' STORED AS TEXTFILE LOCATION 's3://lake/{tsv}/'")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{csv} (a string, b int) ROW FORMAT SERDE "
                      "'org.apache.hadoop.hive.serde2.OpenCSVSerde' WITH SERDEPROPERTIES ('separatorChar'=',', "
                      f"'quoteChar'='\"', 'escapeChar'='\\\\') LOCATION 's3://lake/{csv}/'")
    shown = [row[0] for row in select(athena, f"SHOW CREATE TABLE default.{tsv}")]
    assert shown[0] == f"CREATE EXTERNAL TABLE default.{tsv} ("
    assert "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe'" in shown
    assert "  'field.delim' = '\\t'," in shown and "  'line.delim' = '\\n'," in shown
    assert "  INPUTFORMAT 'org.apache.hadoop.mapred.TextInputFormat'" in shown
    assert f"LOCATION 's3://lake/{tsv}'" in shown and not any("USING" in line for line in shown)
    shown = [row[0] for row in select(athena, f"SHOW CREATE TABLE default.{csv}")]
    assert shown[1:3] == ["  a STRING,", "  b INT)"]  # the declared types, not the SerDe's strings
    assert "ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.OpenCSVSerde'" in shown
    assert "  'separatorChar' = ','," in shown and "  'escapeChar' = '\\\\'," in shown
    # a Spark data source table (Athena's CTAS) has no Hive DDL: Spark's statement
    succeeded(athena, f"CREATE TABLE default.{parquet} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{parquet}/') AS SELECT 1 AS x")
    shown = [row[0] for row in select(athena, f"SHOW CREATE TABLE default.{parquet}")]
    assert "USING parquet" in shown


def test_a_grok_serde_table_is_made_in_the_catalog_and_its_query_refused_by_name(athena_server: ServerProcess,
                                                                                 athena: Any) -> None:
    # Glue's Grok SerDe is not on Spark's class path (Spark's Hive client loads a table's SerDe to create it): the
    # table is made in the Data Catalog as Athena makes it, and a query of it fails naming the SerDe
    table = unique("grok")
    client(athena_server, "s3").put_object(Bucket="lake", Key=f"{table}/a.log", Body=b"Jan  1 10:00:00 host app: hi\n")
    pattern = "%{SYSLOGBASE} %{GREEDYDATA:message}"
    created = succeeded(athena, f"CREATE EXTERNAL TABLE default.{table} (syslogline string, message string) "
                                "ROW FORMAT SERDE 'com.amazonaws.glue.serde.GrokSerDe' WITH SERDEPROPERTIES "
                                f"('input.format' = '{pattern}') STORED AS INPUTFORMAT "
                                "'org.apache.hadoop.mapred.TextInputFormat' OUTPUTFORMAT "
                                "'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat' "
                                f"LOCATION 's3://lake/{table}/' TBLPROPERTIES ('team' = 'ops')")
    assert created["SubstatementType"] == "CREATE_TABLE"
    stored = client(athena_server, "glue").get_table(DatabaseName="default", Name=table)["Table"]
    descriptor = stored["StorageDescriptor"]
    assert [(c["Name"], c["Type"]) for c in descriptor["Columns"]] == [("syslogline", "string"), ("message", "string")]
    assert descriptor["SerdeInfo"]["SerializationLibrary"] == "com.amazonaws.glue.serde.GrokSerDe"
    assert descriptor["SerdeInfo"]["Parameters"]["input.format"] == pattern
    assert descriptor["Location"] == f"s3://lake/{table}/"
    assert descriptor["InputFormat"] == "org.apache.hadoop.mapred.TextInputFormat"
    assert stored["TableType"] == "EXTERNAL_TABLE" and stored["Parameters"]["team"] == "ops"
    metadata = athena.get_table_metadata(CatalogName="AwsDataCatalog", DatabaseName="default",
                                         TableName=table)["TableMetadata"]["Parameters"]
    assert metadata["serde.param.input.format"] == pattern
    again = run(athena, f"CREATE EXTERNAL TABLE default.{table} (x string) ROW FORMAT SERDE "
                        f"'com.amazonaws.glue.serde.GrokSerDe' LOCATION 's3://lake/{table}/'")
    assert again["Status"]["State"] == "FAILED" and "ALREADY_EXISTS" in again["Status"]["StateChangeReason"]
    succeeded(athena, f"CREATE EXTERNAL TABLE IF NOT EXISTS default.{table} (x string) ROW FORMAT SERDE "
                      f"'com.amazonaws.glue.serde.GrokSerDe' LOCATION 's3://lake/{table}/'")
    queried = run(athena, f"SELECT * FROM default.{table}")
    assert queried["Status"]["State"] == "FAILED"
    assert queried["Status"]["StateChangeReason"].startswith("NOT_SUPPORTED: ")
    assert "com.amazonaws.glue.serde.GrokSerDe" in queried["Status"]["StateChangeReason"]
    assert "Exception" not in queried["Status"]["StateChangeReason"]
    succeeded(athena, f"ALTER TABLE default.{table} SET TBLPROPERTIES ('owner_team' = 'data')")
    kept = client(athena_server, "glue").get_table(DatabaseName="default", Name=table)["Table"]
    assert kept["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == "com.amazonaws.glue.serde.GrokSerDe"


def test_an_avro_table_declared_with_its_serde_and_schema_literal(athena_server: ServerProcess, athena: Any) -> None:
    # Athena's DDL for Avro tables: ROW FORMAT SERDE '...AvroSerDe' WITH SERDEPROPERTIES ('avro.schema.literal'=...)
    # STORED AS AVRO (Spark refused a SerDe beside a format that brings its own)
    table = unique("avro")
    schema = '{"type": "record", "name": "rate", "fields": [{"name": "currency", "type": "string"}, ' \
             '{"name": "rate", "type": "double"}]}'
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{table} (currency string, rate double) ROW FORMAT SERDE "
                      "'org.apache.hadoop.hive.serde2.avro.AvroSerDe' WITH SERDEPROPERTIES ('avro.schema.literal'="
                      f"'{schema}') STORED AS AVRO LOCATION 's3://lake/{table}/'")
    succeeded(athena, f"INSERT INTO default.{table} VALUES ('EUR', 1.1E0)")
    assert select(athena, f"SELECT currency, rate FROM default.{table}") == [["currency", "rate"], ["EUR", "1.1"]]
    descriptor = client(athena_server, "glue").get_table(DatabaseName="default", Name=table)["Table"][
        "StorageDescriptor"]
    assert descriptor["SerdeInfo"]["SerializationLibrary"] == "org.apache.hadoop.hive.serde2.avro.AvroSerDe"
    assert descriptor["SerdeInfo"]["Parameters"]["avro.schema.literal"] == schema
    assert descriptor["InputFormat"] == "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat"
    assert descriptor["OutputFormat"] == "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat"


def test_unload_writes_avro(athena_server: ServerProcess, athena: Any) -> None:
    # Athena's UNLOAD formats include AVRO (it was refused: Spark's avro module is no jar the engine has)
    import fastavro

    target = unique("unloadavro")
    done = succeeded(athena, f"UNLOAD (SELECT * FROM (VALUES (1, 'a', DATE '2024-01-02', 'x'), (2, NULL, NULL, 'y'), "
                             f"(3, 'c', NULL, 'x')) AS t(id, name, day, part)) TO 's3://lake/{target}/' "
                             "WITH (format = 'AVRO', partitioned_by = ARRAY['part'])")
    assert athena.get_query_results(QueryExecutionId=done["QueryExecutionId"])["UpdateCount"] == 3
    files = object_text(athena_server, done["Statistics"]["DataManifestLocation"]).split()
    assert files and all(f.startswith(f"s3://lake/{target}/part=") for f in files)
    found: list[tuple[Any, ...]] = []
    for uri in files:
        body = client(athena_server, "s3").get_object(Bucket="lake", Key=uri.removeprefix("s3://lake/"))["Body"]
        reader = fastavro.reader(io.BytesIO(body.read()))
        assert reader.codec == "deflate"
        found += [(r["id"], r["name"], r["day"], uri.split("part=")[1].split("/")[0]) for r in reader]
    import datetime

    assert sorted(found) == [(1, "a", datetime.date(2024, 1, 2), "x"), (2, None, None, "y"), (3, "c", None, "x")]
    plain = succeeded(athena, f"UNLOAD (SELECT 1 AS one) TO 's3://lake/{target}-plain/' "
                              "WITH (format = 'AVRO', compression = 'NONE')")
    (uri,) = object_text(athena_server, plain["Statistics"]["DataManifestLocation"]).split()
    body = client(athena_server, "s3").get_object(Bucket="lake", Key=uri.removeprefix("s3://lake/"))["Body"]
    assert fastavro.reader(io.BytesIO(body.read())).codec == "null"


def test_a_text_table_skips_as_many_header_lines_as_it_says(athena_server: ServerProcess, athena: Any) -> None:
    # skip.header.line.count N: the first N lines of every file (Spark's CSV reader skips one; the rest are dropped by
    # their line number in the file), in each partition, with filters on the partition keys as before
    table = unique("headers")
    s3 = client(athena_server, "s3")
    for key, body in (("dt=a/one.csv", b"report\nid,name\n--,--\n1,x\n2,y\n"),
                      ("dt=a/two.csv", b"r\nid,name\n-,-\n3,z\n"), ("dt=b/three.csv", b"r\nid,name\n-,-\n4,w\n")):
        s3.put_object(Bucket="lake", Key=f"{table}/{key}", Body=body)
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{table} (id int, name string) PARTITIONED BY (dt string) ROW "
                      f"FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE LOCATION 's3://lake/{table}/' "
                      "TBLPROPERTIES ('skip.header.line.count'='3')")
    succeeded(athena, f"MSCK REPAIR TABLE default.{table}")
    assert select(athena, f"SELECT id, name, dt FROM default.{table} ORDER BY id") == [
        ["id", "name", "dt"], ["1", "x", "a"], ["2", "y", "a"], ["3", "z", "a"], ["4", "w", "b"]]
    assert select(athena, f"SELECT t.name FROM {table} AS t WHERE t.dt = 'b'",
                  QueryExecutionContext={"Database": "default"}) == [["name"], ["w"]]
    assert select(athena, f"SELECT count(*) FROM default.{table} WHERE id > 1") == [["_col0"], ["3"]]


def test_a_select_reuses_an_earlier_result_as_athena_does(athena_server: ServerProcess, athena: Any) -> None:
    table = unique("reused")
    succeeded(athena, f"CREATE TABLE default.{table} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{table}/') AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(id, name)")
    reuse = {"ResultReuseConfiguration": {"ResultReuseByAgeConfiguration": {"Enabled": True, "MaxAgeInMinutes": 5}},
             "QueryExecutionContext": {"Database": "default"}}
    sql = f"SELECT id, name FROM {table} ORDER BY id"
    first = succeeded(athena, sql, **reuse)
    assert first["Statistics"]["ResultReuseInformation"] == {"ReusedPreviousResult": False}
    assert first["ResultReuseConfiguration"]["ResultReuseByAgeConfiguration"] == {"Enabled": True,
                                                                                 "MaxAgeInMinutes": 5}
    second = succeeded(athena, sql, **reuse)
    assert second["QueryExecutionId"] != first["QueryExecutionId"]
    assert second["Statistics"]["ResultReuseInformation"] == {"ReusedPreviousResult": True}
    assert second["ResultConfiguration"]["OutputLocation"] == first["ResultConfiguration"]["OutputLocation"]
    assert rows(athena, second["QueryExecutionId"]) == rows(athena, first["QueryExecutionId"]) == [
        ["id", "name"], ["1", "a"], ["2", "b"]]
    # not reused: reuse not asked, another database, another text; and once the earlier result is gone
    plain = succeeded(athena, sql, QueryExecutionContext={"Database": "default"})
    assert plain["Statistics"]["ResultReuseInformation"] == {"ReusedPreviousResult": False}
    elsewhere = succeeded(athena, f"SELECT id, name FROM default.{table} ORDER BY id", **reuse)
    assert elsewhere["Statistics"]["ResultReuseInformation"] == {"ReusedPreviousResult": False}
    third = succeeded(athena, sql, **reuse)  # the newest result of the same query: the one run without reuse
    assert third["ResultConfiguration"]["OutputLocation"] == plain["ResultConfiguration"]["OutputLocation"]
    for gone in (first, plain):
        bucket, _, key = gone["ResultConfiguration"]["OutputLocation"].removeprefix("s3://").partition("/")
        client(athena_server, "s3").delete_object(Bucket=bucket, Key=key)
    fourth = succeeded(athena, sql, **reuse)
    assert fourth["Statistics"]["ResultReuseInformation"] == {"ReusedPreviousResult": False}  # no result is left
    assert rows(athena, fourth["QueryExecutionId"])[1:] == [["1", "a"], ["2", "b"]]
    with pytest.raises(athena.exceptions.InvalidRequestException, match="(?i)maxAgeInMinutes"):
        athena.start_query_execution(QueryString=sql, ResultConfiguration={"OutputLocation": RESULTS},
                                     ResultReuseConfiguration={"ResultReuseByAgeConfiguration": {
                                         "Enabled": True, "MaxAgeInMinutes": 10081}})

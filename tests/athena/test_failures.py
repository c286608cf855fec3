"""What Athena refuses and how a query fails, through a real server: API errors with Athena's codes
(``InvalidRequestException`` with its ``AthenaErrorCode``), FAILED queries with ``StateChangeReason`` and
``AthenaError``, statements refused by name, idempotency tokens, StopQueryExecution, workgroups' enforced
result location and bytes-scanned cutoff, prepared statements and execution parameters."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
import urllib3
from botocore.exceptions import ClientError

from tests.athena.helpers import RESULTS, client, failure, rows, run, select, succeeded, wait_query
from tests.helpers import ServerProcess, unique

LONG = ("SELECT count(*) FROM UNNEST(sequence(1, 100000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 100000)) AS b(y) "
        "WHERE x + y = 7")


def refused(call: Any, **request: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as caught:
        call(**request)
    response: dict[str, Any] = caught.value.response
    return response


def raw(server: ServerProcess, operation: str, body: Any) -> tuple[int, dict[str, Any]]:
    response = urllib3.PoolManager().request(
        "POST", server.endpoint + "/", body=json.dumps(body).encode(),
        headers={"X-Amz-Target": f"AmazonAthena.{operation}", "Content-Type": "application/x-amz-json-1.1"})
    return response.status, json.loads(response.data or b"{}")


def test_api_errors_carry_athenas_codes(athena_server: ServerProcess, athena: Any) -> None:
    missing = refused(athena.get_query_execution, QueryExecutionId="00000000-0000-0000-0000-000000000000")
    assert missing["Error"]["Code"] == "InvalidRequestException"
    assert missing["AthenaErrorCode"] == "INVALID_INPUT"
    assert "00000000-0000-0000-0000-000000000000" in missing["Error"]["Message"]
    nowhere = refused(athena.start_query_execution, QueryString="SELECT 1")  # primary has no result location
    assert nowhere["Error"]["Code"] == "InvalidRequestException"
    assert "output location" in nowhere["Error"]["Message"].lower()
    bad = refused(athena.start_query_execution, QueryString="SELECT 1",
                  ResultConfiguration={"OutputLocation": "/tmp/results"})
    assert bad["Error"]["Code"] == "InvalidRequestException" and "/tmp/results" in bad["Error"]["Message"]
    group = refused(athena.start_query_execution, QueryString="SELECT 1", WorkGroup="no-such-group",
                    ResultConfiguration={"OutputLocation": RESULTS})
    assert group["Error"]["Code"] == "InvalidRequestException" and "no-such-group" in group["Error"]["Message"]
    spark = refused(athena.start_query_execution, QueryString="SELECT 1",
                    ResultConfiguration={"OutputLocation": RESULTS},
                    EngineConfiguration={"MaxConcurrentDpus": 4})
    assert spark["Error"]["Code"] == "InvalidRequestException"
    encrypted = refused(athena.start_query_execution, QueryString="SELECT 1", ResultConfiguration={
        "OutputLocation": RESULTS, "EncryptionConfiguration": {"EncryptionOption": "SSE_KMS", "KmsKey": "k"}})
    assert encrypted["Error"]["Code"] == "InvalidRequestException" and "SSE_KMS" in encrypted["Error"]["Message"]
    token = refused(athena.get_query_results, QueryExecutionId="00000000-0000-0000-0000-000000000000",
                    NextToken="garbage")
    assert token["Error"]["Code"] == "InvalidRequestException"
    # without a client's validation: the server's own, a 400 with a code, never a 500
    status, body = raw(athena_server, "StartQueryExecution", {"ResultConfiguration": {"OutputLocation": RESULTS}})
    assert status == 400 and body["__type"].endswith("InvalidRequestException"), body
    assert "querystring" in body.get("Message", body.get("message", "")).lower()
    status, body = raw(athena_server, "GetQueryResults", {"QueryExecutionId": 7})
    assert status == 400, body


def test_failed_queries_say_why_as_athena_does(athena: Any) -> None:
    table = failure(athena, "SELECT * FROM default.no_such_table")
    assert table["AthenaError"]["ErrorCategory"] == 2 and table["AthenaError"]["ErrorType"] == 1000
    assert table["StateChangeReason"].startswith("TABLE_NOT_FOUND") and "no_such_table" in table["StateChangeReason"]
    column = failure(athena, "SELECT no_such_column FROM UNNEST(sequence(1, 2)) AS t(i)")
    assert column["StateChangeReason"].startswith("COLUMN_NOT_FOUND")
    zero = failure(athena, "SELECT i / 0 FROM UNNEST(sequence(1, 2)) AS t(i)")
    assert zero["StateChangeReason"].startswith("DIVISION_BY_ZERO") and zero["AthenaError"]["ErrorCategory"] == 2
    syntax = failure(athena, "SELEC 1")
    assert syntax["AthenaError"]["ErrorType"] == 1006 and syntax["StateChangeReason"].startswith("line 1:")
    two = failure(athena, "SELECT 1; SELECT 2")
    assert "Only one SQL statement" in two["StateChangeReason"]
    # a table whose type disagrees with its files' (awswrangler's store_parquet_metadata with a dtype override):
    # the engine's own words, not Py4J's "An error occurred while calling o222.sql"
    data, typed = unique("wide"), unique("narrow")
    succeeded(athena, f"CREATE TABLE default.{data} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{data}/') AS SELECT CAST(i AS bigint) AS id FROM UNNEST(sequence(1, 3)) AS t(i)")
    succeeded(athena, f"CREATE EXTERNAL TABLE default.{typed} (id smallint) STORED AS PARQUET "
                      f"LOCATION 's3://lake/{data}/'")
    mismatch = failure(athena, f"SELECT * FROM default.{typed}")
    assert mismatch["StateChangeReason"].startswith("HIVE_BAD_DATA: ") and "INT64" in mismatch["StateChangeReason"]
    assert "An error occurred while calling" not in mismatch["StateChangeReason"]
    assert mismatch["AthenaError"]["ErrorCategory"] == 2
    execution = run(athena, "SELECT * FROM default.no_such_table")
    results = refused(athena.get_query_results, QueryExecutionId=execution["QueryExecutionId"])
    assert results["Error"]["Code"] == "InvalidRequestException"
    assert "FAILED" in results["Error"]["Message"] and "TABLE_NOT_FOUND" in results["Error"]["Message"]


@pytest.mark.parametrize(("sql", "named"), [
    ("DELETE FROM default.t WHERE 1 = 1", "DELETE is only supported for Iceberg tables"),
    ("UPDATE default.t SET a = 1", "UPDATE is only supported for Iceberg tables"),
    ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY a ORDER BY b MEASURES A.b AS x PATTERN (A) DEFINE A AS true)",
     "MATCH_RECOGNIZE is not supported"),
    ("SELECT reflect('java.lang.System', 'exit', 0)", "FUNCTION_NOT_FOUND: Function 'reflect'"),
    ("SELECT * FROM other_catalog.db.t", "CATALOG_NOT_FOUND: Catalog 'other_catalog'"),
    ("USE other", "USE is not supported"),
    ("CREATE TABLE t2 WITH (table_type = 'ICEBERG', location = 's3://lake/i/', is_external = true) AS SELECT 1 AS a",
     "is_external must be false for an Iceberg table"),
    ("CREATE TABLE t2 WITH (table_type = 'ICEBERG', partitioned_by = ARRAY['a']) AS SELECT 1 AS a",
     "partitioned_by is a Hive table's property"),
    ("CREATE TABLE t2 WITH (partitioning = ARRAY['a']) AS SELECT 1 AS a", "'partitioning' is an Iceberg table's"),
    ("CREATE TABLE t2 WITH (table_type = 'DELTA') AS SELECT 1 AS a", "table_type 'DELTA'"),
    ("CREATE TABLE t2 WITH (location = 's3://lake/i/') AS SELECT 1 AS a", "'location' is an Iceberg table's"),
    ("CREATE TABLE t2 WITH (colour = 'red') AS SELECT 1 AS a", "INVALID_TABLE_PROPERTY: Catalog 'awsdatacatalog' "
     "table property 'colour' does not exist"),
    ("CREATE TABLE t3 (a int) TBLPROPERTIES ('table_type' = 'ICEBERG')", "Iceberg table's CREATE TABLE needs a "
     "LOCATION"),
    ("CREATE TABLE t2 WITH (bucketed_by = ARRAY['a'], bucket_count = 2) AS SELECT 1 AS a",
     "bucketed_by/bucket_count"),
    ("CREATE TABLE t2 WITH (format = 'AVRO') AS SELECT 1 AS a", "format 'AVRO'"),
    ("UNLOAD (SELECT 1) TO 's3://lake/u/' WITH (format = 'XML')", "UNLOAD needs format"),
    ("UNLOAD (SELECT 1) TO 's3://lake/u/' WITH (format = 'AVRO', compression = 'SNAPPY')",
     "NOT_SUPPORTED: compression 'SNAPPY' for AVRO"),
])
def test_what_glueball_cannot_run_is_refused_by_name(athena: Any, sql: str, named: str) -> None:
    status = failure(athena, sql)
    assert named in status["StateChangeReason"]
    assert status["AthenaError"]["ErrorCategory"] == 2  # the user's statement, not the engine


def test_client_request_token_starts_a_query_once(athena: Any) -> None:
    token = unique("token-" + "x" * 32)
    first = athena.start_query_execution(QueryString="SELECT 42", ClientRequestToken=token,
                                         ResultConfiguration={"OutputLocation": RESULTS})["QueryExecutionId"]
    again = athena.start_query_execution(QueryString="SELECT 42", ClientRequestToken=token,
                                         ResultConfiguration={"OutputLocation": RESULTS})["QueryExecutionId"]
    assert again == first
    other = refused(athena.start_query_execution, QueryString="SELECT 43", ClientRequestToken=token,
                    ResultConfiguration={"OutputLocation": RESULTS})
    assert other["Error"]["Code"] == "InvalidRequestException" and other["AthenaErrorCode"] == "INVALID_INPUT"
    assert rows(athena, wait_query(athena, first)["QueryExecutionId"]) == [["_col0"], ["42"]]
    ids = athena.list_query_executions(WorkGroup="primary")["QueryExecutionIds"]
    assert ids.count(first) == 1


def _engine_of(home: Path, query_id: str) -> tuple[str, int, str, str | None]:
    with sqlite3.connect(home / "glueball.db") as db:
        found = db.execute("SELECT e.engine_id, e.driver_pid, e.state, e.message FROM athena_engine e JOIN "
                           "athena_query q ON q.engine_id = e.engine_id WHERE q.query_id = ?", (query_id,)).fetchone()
    assert found is not None, query_id
    return found[0], int(found[1]), found[2], found[3]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"


def test_stop_query_execution_cancels_a_running_query(athena: Any, athena_server: ServerProcess) -> None:
    query_id = athena.start_query_execution(QueryString=LONG, ResultConfiguration={"OutputLocation": RESULTS})[
        "QueryExecutionId"]
    deadline = time.monotonic() + 300
    while athena.get_query_execution(QueryExecutionId=query_id)["QueryExecution"]["Status"]["State"] == "QUEUED":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    athena.stop_query_execution(QueryExecutionId=query_id)
    stopped = wait_query(athena, query_id, 60)
    assert stopped["Status"]["State"] == "CANCELLED", stopped["Status"]
    results = refused(athena.get_query_results, QueryExecutionId=query_id)
    assert "CANCELLED" in results["Error"]["Message"]
    athena.stop_query_execution(QueryExecutionId=query_id)  # an ended query: stopping it again is no error
    # the cross join's generated loop does not stop for Spark's cancellation: the engine ends, and its JVM with it,
    # rather than compute it on for hours on one of the machine's cores; the next query gets another engine
    engine_id, pid, state, message = _engine_of(athena_server.home, query_id)
    deadline = time.monotonic() + 60
    while (state != "ENDED" or _alive(pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
        engine_id, pid, state, message = _engine_of(athena_server.home, query_id)
    assert state == "ENDED" and not _alive(pid), (engine_id, state, message)
    assert "a stopped query's tasks did not stop" in (message or ""), message
    assert select(athena, "SELECT 1 AS after_stop") == [["after_stop"], ["1"]]  # another engine serves the next


def test_workgroup_enforces_its_result_location_and_bytes_scanned_cutoff(athena_server: ServerProcess,
                                                                        athena: Any) -> None:
    group, table = unique("wg"), unique("big")
    athena.create_work_group(Name=group, Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://athena-results/enforced/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 10_000_000})
    # ~13 MB of text: more than the smallest cutoff Athena allows
    succeeded(athena, f"CREATE TABLE default.{table} WITH (format = 'TEXTFILE', external_location = "
                      f"'s3://lake/{table}/') AS SELECT CAST(uuid() AS varchar) AS u "
                      "FROM UNNEST(sequence(1, 350000)) AS t(i)")
    small = succeeded(athena, "SELECT 1 AS one", WorkGroup=group,
                      ResultConfiguration={"OutputLocation": "s3://athena-results/ignored/"})
    assert small["ResultConfiguration"]["OutputLocation"].startswith("s3://athena-results/enforced/")
    assert small["WorkGroup"] == group
    s3 = client(athena_server, "s3")
    assert s3.list_objects_v2(Bucket="athena-results", Prefix="ignored/").get("KeyCount") == 0
    scanned = failure(athena, f"SELECT count(*) FROM default.{table}", WorkGroup=group)
    assert scanned["StateChangeReason"].startswith("Query cancelled! : Bytes scanned limit was exceeded")
    assert scanned["AthenaError"]["ErrorCategory"] == 2
    assert select(athena, f"SELECT count(*) FROM default.{table}") == [["_col0"], ["350000"]]  # primary: no cutoff
    athena.update_work_group(WorkGroup=group, ConfigurationUpdates={"EnforceWorkGroupConfiguration": False})
    chosen = succeeded(athena, "SELECT 2 AS two", WorkGroup=group,
                       ResultConfiguration={"OutputLocation": "s3://athena-results/chosen/"})
    assert chosen["ResultConfiguration"]["OutputLocation"].startswith("s3://athena-results/chosen/")
    athena.update_work_group(WorkGroup=group, State="DISABLED")
    disabled = refused(athena.start_query_execution, QueryString="SELECT 1", WorkGroup=group)
    assert disabled["Error"]["Code"] == "InvalidRequestException" and "disabled" in disabled["Error"]["Message"]


def test_prepared_statements_and_execution_parameters(athena: Any) -> None:
    group = unique("wgp")
    athena.create_work_group(Name=group, Configuration={"ResultConfiguration": {"OutputLocation": RESULTS}})
    sql = "SELECT i FROM UNNEST(sequence(1, 10)) AS t(i) WHERE i > ? AND i < ? ORDER BY i"
    assert select(athena, sql, WorkGroup=group, ExecutionParameters=["3", "6"]) == [["i"], ["4"], ["5"]]
    wrong = failure(athena, sql, WorkGroup=group, ExecutionParameters=["3"])
    assert "Incorrect number of parameters: expected 2 but found 1" in wrong["StateChangeReason"]
    # a parameter that is no literal value is its text as a string: compared with an integer it fails the cast,
    # never runs as SQL
    injected = failure(athena, sql, WorkGroup=group, ExecutionParameters=["3", "6 OR 1 = 1"])
    assert injected["StateChangeReason"].startswith("INVALID_CAST_ARGUMENT") and "6 OR 1 = 1" in \
        injected["StateChangeReason"]
    assert select(athena, "SELECT s FROM (VALUES 'Washington', 'Seattle') AS t(s) WHERE s = ?", WorkGroup=group,
                  ExecutionParameters=["Washington"]) == [["s"], ["Washington"]]
    succeeded(athena, f"PREPARE between_them FROM {sql}", WorkGroup=group)
    assert athena.get_prepared_statement(StatementName="between_them", WorkGroup=group)[
        "PreparedStatement"]["QueryStatement"] == sql
    assert select(athena, "EXECUTE between_them USING 7, 10", WorkGroup=group) == [["i"], ["8"], ["9"]]
    # the parameters as ExecutionParameters, and the name quoted, as awswrangler sends them
    assert select(athena, 'EXECUTE "between_them"', WorkGroup=group, ExecutionParameters=["1", "3"]) == [
        ["i"], ["2"]]
    both = failure(athena, "EXECUTE between_them USING 7, 10", WorkGroup=group, ExecutionParameters=["1", "3"])
    assert "give them one way" in both["StateChangeReason"]
    succeeded(athena, "DEALLOCATE PREPARE between_them", WorkGroup=group)
    gone = failure(athena, "EXECUTE between_them USING 7, 10", WorkGroup=group)
    assert "between_them" in gone["StateChangeReason"]


def test_list_batch_get_and_runtime_statistics(athena: Any) -> None:
    done = succeeded(athena, "SELECT i FROM UNNEST(sequence(1, 4)) AS t(i)")
    query_id = done["QueryExecutionId"]
    assert query_id in athena.list_query_executions()["QueryExecutionIds"]
    found = athena.batch_get_query_execution(QueryExecutionIds=[query_id, "00000000-0000-0000-0000-000000000001"])
    assert [q["QueryExecutionId"] for q in found["QueryExecutions"]] == [query_id]
    assert found["UnprocessedQueryExecutionIds"][0]["QueryExecutionId"] == "00000000-0000-0000-0000-000000000001"
    statistics = athena.get_query_runtime_statistics(QueryExecutionId=query_id)["QueryRuntimeStatistics"]
    assert statistics["Rows"]["OutputRows"] == 4
    # Athena's timeline: planning is part of the engine's time; the result is written after it; the whole is more
    figures = done["Statistics"]
    assert 0 < figures["QueryPlanningTimeInMillis"] <= figures["EngineExecutionTimeInMillis"]
    assert figures["ServicePreProcessingTimeInMillis"] >= 0 and figures["ServiceProcessingTimeInMillis"] >= 0
    assert figures["TotalExecutionTimeInMillis"] >= figures["QueryQueueTimeInMillis"] + \
        figures["EngineExecutionTimeInMillis"] + figures["ServiceProcessingTimeInMillis"]
    assert statistics["Timeline"] == {k: v for k, v in figures.items() if k.endswith("Millis")}

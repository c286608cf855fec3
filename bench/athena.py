"""What the Athena API costs over Spark itself: a SELECT over 1M Parquet rows through StartQueryExecution /
GetQueryExecution / GetQueryResults against the same query in a warm Spark session directly; and how long the
first query of a server waits, cold (its engine starts a JVM) and warm (its engine takes a warm driver).

Run ``.venv/bin/python bench/athena.py [--rows N] [--rounds R]``. It starts a ``glueball server`` (one warm
driver), writes the rows as Parquet with a CTAS through the API, warms both JVMs with the same number of
queries (``--warm-up N``: N through the API, in this session N/2 over each of the two direct forms below; a JVM's
JIT compiles the query's code over its first few dozen runs, halving its CPU), then alternates rounds: the query
through the API (start to the last result page read, the state asked every 10 ms) and
in this process's own warm Spark session (``collect``) the same Spark SQL two ways: over a temporary view of the
same files, resolved once (no catalog at all), and as the very same statement over the catalog table, which this
session's Spark resolves through the server's Data Catalog on each query as the engine does (glueball's catalog
as every Spark session's metastore, its Glue client against the server); and one more query through the API,
untimed, so that each JVM runs two queries a round and neither JIT gets ahead over the rounds. It prints the median
and best of each and the ratios (goal: at most 1.2x). Then, on fresh homes, the first ``SELECT 1`` of a server without
warm drivers and of one whose warm drivers are ready (an installation that ran an Athena query before keeps one of
the engine's shape warm). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.athena.helpers import client, rows, succeeded, wait_query  # noqa: E402
from tests.helpers import ServerProcess  # noqa: E402

QUERY = "SELECT bucket, count(*) AS n, sum(value) AS total, max(id) AS top FROM {table} WHERE value > 0.1 " \
        "GROUP BY bucket ORDER BY bucket"
RESULTS = "s3://bench-results/q/"
# how often the API side asks GetQueryExecution: the figure is the service's cost, not a client's sleep between two
# questions (PyAthena's default is 1 s, the AWS CLI has no waiter), which would add half an interval on average
POLL_SECONDS = 0.01


STATISTICS: list[dict[str, Any]] = []  # each API round's QueryExecutionStatistics: where its time went
TIMELINE = ("ServicePreProcessingTimeInMillis", "QueryQueueTimeInMillis", "QueryPlanningTimeInMillis",
            "EngineExecutionTimeInMillis", "ServiceProcessingTimeInMillis", "TotalExecutionTimeInMillis")


def through_api(athena: Any, sql: str) -> tuple[float, list[list[str | None]]]:
    begun = time.perf_counter()
    query_id = athena.start_query_execution(QueryString=sql, QueryExecutionContext={"Database": "default"},
                                            ResultConfiguration={"OutputLocation": RESULTS})["QueryExecutionId"]
    execution = wait_query(athena, query_id, interval=POLL_SECONDS)
    assert execution["Status"]["State"] == "SUCCEEDED", execution["Status"]
    found = rows(athena, query_id)
    STATISTICS.append(execution["Statistics"])
    return time.perf_counter() - begun, found


def directly(spark: Any, sql: str) -> tuple[float, list[Any]]:
    begun = time.perf_counter()
    found = spark.sql(sql).collect()
    return time.perf_counter() - begun, found


def wait_warm(home: Path, count: int = 1, timeout: float = 300) -> None:
    """Wait until ``count`` warm drivers are ready."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(1 for r in (home / "warm").glob("*/ready") if r.read_text().strip()) >= count:
            return
        time.sleep(0.2)
    raise SystemExit(f"{count} warm drivers did not become ready")


def first_query(warm: bool, env: dict[str, str]) -> float:
    """The first query of a fresh server: cold, on a new installation without warm drivers; warm, on an
    installation that has run an Athena query before (its engine has ended since), whose restarted server keeps a
    driver of a default job's shape and one of the engine's (with Iceberg) warm."""
    with tempfile.TemporaryDirectory(prefix="bench-athena-first-") as folder:
        if warm:
            before = ServerProcess(Path(folder), warm_drivers=0).start({**env, "GLUEBALL_SESSION_ORPHAN_SECONDS": "2"})
            try:
                client(before, "s3").create_bucket(Bucket="bench-results")
                succeeded(client(before), "SELECT 1", ResultConfiguration={"OutputLocation": RESULTS})
            finally:
                before.stop()
            time.sleep(10)  # its engine ends when it finds no server (2 s after its last answer)
        server = ServerProcess(Path(folder), warm_drivers=1 if warm else 0).start(env)
        try:
            if not warm:
                client(server, "s3").create_bucket(Bucket="bench-results")
            else:
                wait_warm(server.home, count=2)
            begun = time.perf_counter()
            succeeded(client(server), "SELECT 1", ResultConfiguration={"OutputLocation": RESULTS})
            return time.perf_counter() - begun
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warm-up", type=int, default=20,
                        help="untimed queries in each JVM before the rounds (the engine's and this session's)")
    parser.add_argument("--no-first-query", action="store_true", help="skip the cold and warm first queries")
    args = parser.parse_args()
    # the engine ends a few seconds after its server (the bench's servers are not restarted)
    env = dict(os.environ, GLUEBALL_SESSION_ORPHAN_SECONDS="5")

    from glueball.runtime.spark import spark_session

    with tempfile.TemporaryDirectory(prefix="bench-athena-") as folder:
        server = ServerProcess(Path(folder), warm_drivers=1).start(env)
        try:
            client(server, "s3").create_bucket(Bucket="bench-results")
            client(server, "s3").create_bucket(Bucket="bench")
            athena = client(server)
            begun = time.perf_counter()
            succeeded(athena, f"CREATE TABLE default.bench_rows WITH (format = 'PARQUET', external_location = "
                              f"'s3://bench/rows/') AS SELECT i AS id, i % 100 AS bucket, rand() AS value "
                              f"FROM UNNEST(sequence(1, {args.rows})) AS t(i)",
                      ResultConfiguration={"OutputLocation": RESULTS})
            print(f"{args.rows} rows written as Parquet through the API (CTAS) in {time.perf_counter() - begun:.1f} s")
            files = server.home / "s3" / "bench" / "rows"
            size = sum(f.stat().st_size for f in files.rglob("*.parquet"))
            print(f"  {size / 1e6:.1f} MB in {len(list(files.rglob('*.parquet')))} files")

            # this process's Spark: the server's catalog as its metastore (its Glue client against the server)
            os.environ.update(GLUEBALL_HOME=str(server.home), GLUEBALL_ENDPOINT=server.endpoint,
                              AWS_ACCESS_KEY_ID="AKIDATHENA", AWS_SECRET_ACCESS_KEY="secret",
                              AWS_DEFAULT_REGION="us-east-1")
            spark = spark_session(app_name="bench-athena-direct")
            spark.read.parquet(str(files)).createOrReplaceTempView("bench_rows_direct")
            api_sql, spark_sql = QUERY.format(table="bench_rows"), QUERY.format(table="bench_rows_direct")
            catalog_sql = QUERY.format(table="default.bench_rows")
            _, api_rows = through_api(athena, api_sql)  # the engine's first plan of the table
            _, spark_rows = directly(spark, spark_sql)
            _, catalog_rows = directly(spark, catalog_sql)
            for done in range(1, args.warm_up):  # each JVM as many queries as the other before any is timed
                through_api(athena, api_sql)
                directly(spark, spark_sql if done % 2 else catalog_sql)
            print(f"each JVM warmed with {max(args.warm_up, 1)} queries")
            assert len(api_rows) == len(spark_rows) + 1 == 101  # the header row, then one row per bucket
            assert [int(r[1] or 0) for r in api_rows[1:]] == [int(r["n"]) for r in spark_rows] == \
                [int(r["n"]) for r in catalog_rows]
            api_times, spark_times, catalog_times, timed = [], [], [], []
            for _ in range(args.rounds):
                api_times.append(through_api(athena, api_sql)[0])
                timed.append(STATISTICS[-1])
                spark_times.append(directly(spark, spark_sql)[0])
                catalog_times.append(directly(spark, catalog_sql)[0])
                through_api(athena, api_sql)  # untimed: each JVM runs two queries a round, as many as the other
            spark.stop()
        finally:
            server.stop()
    api_median, spark_median = statistics.median(api_times), statistics.median(spark_times)
    catalog_median = statistics.median(catalog_times)
    print(f"SELECT over {args.rows} Parquet rows, {args.rounds} rounds:")
    print(f"  through the Athena API                      median {api_median:6.3f} s  best {min(api_times):6.3f} s")
    print(f"  warm Spark session, view of the files       median {spark_median:6.3f} s  "
          f"best {min(spark_times):6.3f} s")
    print(f"  warm Spark session, same SQL on the catalog median {catalog_median:6.3f} s  "
          f"best {min(catalog_times):6.3f} s")
    print(f"  ratio to the view    (median) {api_median / spark_median:.2f}x   "
          f"(best) {min(api_times) / min(spark_times):.2f}x")
    print(f"  ratio to the catalog (median) {api_median / catalog_median:.2f}x   "
          f"(best) {min(api_times) / min(catalog_times):.2f}x")
    print("  the API's rounds as Athena times them (medians): " + ", ".join(
        f"{name.removesuffix('TimeInMillis')} {statistics.median(t[name] for t in timed) / 1000:.3f} s"
        for name in TIMELINE))
    print("    (planning - parsed, resolved through the catalog, files listed, optimized - is part of the engine's "
          "time; TotalExecution is from the query's submission to its end as the service recorded it; the rest of a "
          "round is the client's: the start's request, the polls, the result read)")
    if args.no_first_query:
        return
    cold = first_query(False, env)
    warm = first_query(True, env)
    print(f"first query of a server: cold (engine starts a JVM) {cold:.1f} s, warm (engine takes a warm driver) "
          f"{warm:.1f} s")


if __name__ == "__main__":
    main()

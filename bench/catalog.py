"""Catalog benchmark: partitions at scale, indexed GetPartitions, GetTable throughput.

Run ``.venv/bin/python bench/catalog.py [--partitions N]``. It starts a
``glueball server`` on SQLite in a temporary home, loads N partitions with
BatchCreatePartition (100 per call), then prints, side by side and measured in
the same run:

1. GetPartitions latency for a selective predicate without and with a partition index (both are answered
   through the stored values' indexes: a partition index is metadata in glueball);
2. the raw SQL answering the same predicate through the index (sqlite3, no API);
3. GetTable requests per second (one client, then several threads) next to raw
   SQL reads of the table's spec and an HTTP no-op (``GET /health``).

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import urllib3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.app import Glueball
from glueball.config import Settings
from glueball.edge.wire import WireRequest
from tests.helpers import ServerProcess, table_input  # noqa: E402

DATABASE = "bench"
TABLE = "events"
KEYS = [("year", "string"), ("month", "int"), ("day", "int"), ("region", "string")]
PREDICATE = "year='2024' AND month=7 AND day=14"
# the statement the indexed GetPartitions path runs, written out by hand: the most
# selective key (day) drives through its index, the others are probed by primary key
RAW_INDEXED_SQL = """
SELECT p.id, p."values", p.spec, p.create_time
FROM catalog_partition_value d JOIN catalog_partition p ON p.id = d.partition_id
WHERE d.table_id = :t AND d.position = 2 AND d.int_value = 14
  AND EXISTS (SELECT 1 FROM catalog_partition_value v WHERE v.partition_id = d.partition_id
              AND v.table_id = :t AND v.position = 0 AND v.text_value = '2024')
  AND EXISTS (SELECT 1 FROM catalog_partition_value v WHERE v.partition_id = d.partition_id
              AND v.table_id = :t AND v.position = 1 AND v.int_value = 7)
ORDER BY p.id
"""
RAW_TABLE_SQL = """
SELECT t.spec FROM catalog_table t JOIN catalog_database d ON t.database_id = d.id
WHERE d.account_id = ? AND d.region = ? AND d.name = ? AND t.name = ?
"""


def partition_values(count: int) -> Iterator[list[str]]:
    """``count`` distinct partitions: 4 years x 12 months x 28 days x as many regions as needed."""
    regions = max(1, -(-count // (4 * 12 * 28)))
    combos = itertools.product(range(2021, 2025), range(1, 13), range(1, 29), range(regions))
    for year, month, day, region in itertools.islice(combos, count):
        yield [str(year), str(month), str(day), f"r{region:03d}"]


def batched(items: Iterator[list[str]], size: int) -> Iterator[list[list[str]]]:
    while batch := list(itertools.islice(items, size)):
        yield batch


def partition_input(values: list[str]) -> dict[str, Any]:
    location = "s3://lake/events/" + "/".join(f"{k}={v}" for (k, _), v in zip(KEYS, values, strict=True))
    return {
        "Values": values,
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "bigint"}, {"Name": "amount", "Type": "double"}],
            "Location": location,
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"},
        },
        "Parameters": {"classification": "parquet"},
    }


def timed(call: Callable[[], Any], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rate(call: Callable[[], Any], total: int, threads: int = 1) -> float:
    """Calls per second of ``call`` made ``total`` times over ``threads`` threads."""
    per_thread = total // threads

    def worker() -> None:
        for _ in range(per_thread):
            call()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return per_thread * threads / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=100_000, help="partitions to load (default 100000)")
    parser.add_argument("--calls", type=int, default=30, help="GetPartitions calls per measurement")
    parser.add_argument("--get-table-calls", type=int, default=2000, help="GetTable calls per measurement")
    parser.add_argument("--threads", type=int, default=4, help="client threads for the concurrent GetTable run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="glueball-bench-") as tmp:
        server = ServerProcess(Path(tmp)).start()
        try:
            run(server, Path(tmp) / "glueball.db", args)
        finally:
            server.stop()


def run(server: ServerProcess, db_path: Path, args: argparse.Namespace) -> None:
    glue = server.client()
    glue.create_database(DatabaseInput={"Name": DATABASE})
    glue.create_table(DatabaseName=DATABASE, TableInput=table_input(TABLE, partition_keys=KEYS))
    rows: list[tuple[str, str, str]] = []

    # load
    start = time.perf_counter()
    batches = 0
    for batch in batched(partition_values(args.partitions), 100):
        answer = glue.batch_create_partition(DatabaseName=DATABASE, TableName=TABLE,
                                             PartitionInputList=[partition_input(v) for v in batch])
        if answer.get("Errors"):
            raise SystemExit(f"BatchCreatePartition failed: {answer['Errors'][:3]}")
        batches += 1
    load_seconds = time.perf_counter() - start
    rows.append(("BatchCreatePartition load", f"{args.partitions:,} partitions in {batches} calls",
                 f"{load_seconds:.1f} s = {args.partitions / load_seconds:,.0f} partitions/s"))

    def get_partitions() -> int:
        pages = glue.get_paginator("get_partitions").paginate(
            DatabaseName=DATABASE, TableName=TABLE, Expression=PREDICATE)
        return sum(len(page["Partitions"]) for page in pages)

    matches = get_partitions()
    unindexed = timed(get_partitions, max(20, args.calls // 3))
    glue.create_partition_index(DatabaseName=DATABASE, TableName=TABLE,
                                PartitionIndex={"IndexName": "by_date", "Keys": ["year", "month", "day"]})
    if get_partitions() != matches:
        raise SystemExit("indexed and unindexed GetPartitions disagree")
    indexed = timed(get_partitions, max(20, args.calls))

    # raw SQL through the same index, on the same file
    raw = sqlite3.connect(db_path, check_same_thread=False)
    table_id = raw.execute("SELECT id FROM catalog_table WHERE name = ?", (TABLE,)).fetchone()[0]

    def raw_partitions() -> int:
        found = raw.execute(RAW_INDEXED_SQL, {"t": table_id}).fetchall()
        for _, values, spec, _ in found:
            json.loads(values), json.loads(spec)
        return len(found)

    if raw_partitions() != matches:
        raise SystemExit("raw SQL and GetPartitions disagree")
    raw_samples = timed(raw_partitions, max(20, args.calls))
    plan = [r[3] for r in raw.execute("EXPLAIN QUERY PLAN " + RAW_INDEXED_SQL, {"t": table_id})]

    def ms(samples: list[float]) -> str:
        return f"p50 {statistics.median(samples) * 1000:8.2f} ms   p95 {percentile(samples, 0.95) * 1000:8.2f} ms"

    rows.append((f"GetPartitions, no index ({matches} of {args.partitions:,} match)", ms(unindexed), ""))
    rows.append(("GetPartitions, partition index (year, month, day)", ms(indexed),
                 f"{statistics.median(unindexed) / statistics.median(indexed):,.1f}x faster than no index"))
    rows.append(("raw SQL via the index (sqlite3)", ms(raw_samples),
                 f"API = {statistics.median(indexed) / statistics.median(raw_samples):,.1f}x raw SQL"))

    # GetTable throughput
    clients = threading.local()

    def get_table() -> None:
        client = getattr(clients, "glue", None)
        if client is None:
            client = clients.glue = server.client()
        client.get_table(DatabaseName=DATABASE, Name=TABLE)

    def raw_table() -> None:
        json.loads(raw.execute(RAW_TABLE_SQL, ("123456789012", "us-east-1", DATABASE, TABLE)).fetchone()[0])

    http = urllib3.PoolManager(maxsize=args.threads)

    def health() -> None:
        http.request("GET", server.endpoint + "/health")

    get_table_body = json.dumps({"DatabaseName": DATABASE, "Name": TABLE}).encode()
    get_table_headers = {"X-Amz-Target": "AWSGlue.GetTable", "Content-Type": "application/x-amz-json-1.1"}

    def raw_http_get_table() -> None:
        response = http.request("POST", server.endpoint + "/", body=get_table_body, headers=get_table_headers)
        if response.status != 200:
            raise RuntimeError(response.data)

    embedded = Glueball(Settings(home=server.home), migrate=False)
    wire_headers = {k.lower(): v for k, v in get_table_headers.items()}

    def in_process_get_table() -> None:
        if embedded.handle(WireRequest("POST", "/", "", wire_headers, get_table_body)).status != 200:
            raise RuntimeError("GetTable failed in-process")

    get_table()
    n = args.get_table_calls
    single = rate(get_table, n)
    threaded = rate(get_table, n, args.threads)
    raw_rate = rate(raw_table, n * 5)
    health_rate = rate(health, n)
    health_threaded = rate(health, n, args.threads)
    raw_http = rate(raw_http_get_table, n)
    raw_http_threaded = rate(raw_http_get_table, n, args.threads)
    in_process = rate(in_process_get_table, n * 2)
    embedded.close()
    rows.append(("GetTable, 1 boto3 client", f"{single:8,.0f} req/s",
                 f"{raw_rate / single:,.0f}x slower than raw SQL, {health_rate / single:,.1f}x slower than no-op"))
    rows.append((f"GetTable, {args.threads} threads", f"{threaded:8,.0f} req/s",
                 f"{threaded / single:.2f}x one client; no-op at {args.threads} threads: "
                 f"{health_threaded / threaded:,.1f}x"))
    rows.append(("GetTable, raw HTTP 1 client (urllib3)", f"{raw_http:8,.0f} req/s",
                 f"no-op is {health_rate / raw_http:,.1f}x faster; boto3 costs {raw_http / single:,.1f}x"))
    rows.append((f"GetTable, raw HTTP {args.threads} threads", f"{raw_http_threaded:8,.0f} req/s",
                 f"no-op at {args.threads} threads is {health_threaded / raw_http_threaded:,.1f}x faster"))
    rows.append(("GetTable in-process (dispatcher, no HTTP)", f"{in_process:8,.0f} req/s",
                 f"raw SQL is {raw_rate / in_process:,.1f}x faster"))
    rows.append(("raw SQL SELECT spec FROM catalog_table (sqlite3)", f"{raw_rate:8,.0f} q/s", ""))
    rows.append(("HTTP no-op GET /health, 1 client (urllib3)", f"{health_rate:8,.0f} req/s", ""))
    rows.append((f"HTTP no-op GET /health, {args.threads} threads", f"{health_threaded:8,.0f} req/s", ""))

    width = max(len(r[0]) for r in rows)
    print(f"\nglueball catalog benchmark (SQLite, {args.partitions:,} partitions)\n")
    for name, figure, ratio in rows:
        print(f"  {name:<{width}}  {figure:<36} {ratio}")
    print("\n  query plan of the raw indexed SQL:")
    for step in plan:
        print(f"    {step}")


if __name__ == "__main__":
    main()

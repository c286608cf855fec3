"""GlueContext start-up against catalog size: an empty catalog vs 1,000 tables x 100 partitions.

Run ``.venv/bin/python bench/glue_context.py [--tables N] [--partitions M] [--rounds R]``. It fills
an embedded catalog (BatchCreatePartition, 100 per call) in one home and leaves another empty, then,
in the same process and the same Spark session (whose catalog is the Data Catalog, through the
driver's Hive metastore endpoint), alternates constructing ``GlueContext()`` over each catalog R
times and prints the medians and their ratio (goal: at most 1.1x). For scale it then prints what
``SHOW TABLES`` over the big catalog's database costs (goal: under 1 s), ``spark.catalog.listTables``
(every table's definition), and the first and a repeated query on one partitioned table. Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.app import Glueball  # noqa: E402
from glueball.config import Settings  # noqa: E402

DATABASE = "bench_ctx"


def fill(home: Path, tables: int, partitions: int) -> None:
    glue = Glueball(Settings(home=home))
    client = glue.client("glue")
    client.create_database(DatabaseInput={"Name": DATABASE})
    for t in range(tables):
        name = f"t{t:04d}"
        location = f"s3://bench/{name}/"
        client.create_table(DatabaseName=DATABASE, TableInput={
            "Name": name, "Parameters": {"classification": "parquet"},
            "PartitionKeys": [{"Name": "day", "Type": "int"}],
            "StorageDescriptor": {"Location": location, "Columns": [{"Name": "v", "Type": "bigint"}]}})
        for start in range(0, partitions, 100):
            client.batch_create_partition(DatabaseName=DATABASE, TableName=name, PartitionInputList=[
                {"Values": [str(d)], "StorageDescriptor": {"Location": f"{location}day={d}/"}}
                for d in range(start, min(partitions, start + 100))])
    glue.close()


def use(home: Path) -> None:
    """Point the runtime's embedded client at ``home``."""
    from glueball.runtime.client import reset_client

    os.environ["GLUEBALL_HOME"] = str(home)
    reset_client()


def construct(home: Path) -> float:
    from pyspark.context import SparkContext

    from awsglue.context import GlueContext

    use(home)
    gc.collect()  # the previous context's garbage is not this one's cost
    begun = time.perf_counter()
    context: Any = GlueContext(SparkContext.getOrCreate())
    elapsed = time.perf_counter() - begun
    del context
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-glue-context-"))
    big, empty = root / "big", root / "empty"
    begun = time.perf_counter()
    fill(big, args.tables, args.partitions)
    Glueball(Settings(home=empty)).close()
    print(f"catalog: {args.tables} tables x {args.partitions} partitions written in "
          f"{time.perf_counter() - begun:.1f} s")

    from glueball.runtime.spark import spark_session

    spark = spark_session()
    construct(empty)  # warm: Spark, the embedded installation, pyspark's imports
    construct(big)
    times: dict[str, list[float]] = {"empty": [], "big": []}
    for round_ in range(args.rounds):  # alternate, and alternate which goes first
        for which in (("empty", "big") if round_ % 2 else ("big", "empty")):
            times[which].append(construct(empty if which == "empty" else big))
    median_empty, median_big = statistics.median(times["empty"]), statistics.median(times["big"])
    print(f"GlueContext() over an empty catalog:  median {median_empty * 1000:8.2f} ms ({args.rounds} rounds)")
    print(f"GlueContext() over the big catalog:    median {median_big * 1000:8.2f} ms")
    print(f"ratio big/empty: {median_big / median_empty:.2f}x (goal <= 1.1x)")

    from pyspark.context import SparkContext

    from awsglue.context import GlueContext

    use(big)
    GlueContext(SparkContext.getOrCreate())
    spark.sql(f"SHOW TABLES IN {DATABASE}").collect()  # the Hive client's first call of this home
    shows, collects = [], []
    for _ in range(5):
        begun = time.perf_counter()
        answer = spark.sql(f"SHOW TABLES IN {DATABASE}")  # a command: it runs here, answering a local relation
        shows.append(time.perf_counter() - begun)
        begun = time.perf_counter()
        listed = answer.collect()
        collects.append(time.perf_counter() - begun)
    print(f"SHOW TABLES IN {DATABASE} ({len(listed)} tables): median {statistics.median(shows) * 1000:.0f} ms "
          f"(goal < 1 s); collecting its rows into Python: {statistics.median(collects) * 1000:.0f} ms more")
    begun = time.perf_counter()
    tables = spark.catalog.listTables(DATABASE)
    print(f"spark.catalog.listTables ({len(tables)} tables, each definition read): "
          f"{(time.perf_counter() - begun) * 1000:.0f} ms")
    begun = time.perf_counter()
    spark.sql(f"SELECT count(*) FROM {DATABASE}.t0007 WHERE day = 3").collect()
    first = time.perf_counter() - begun
    begun = time.perf_counter()
    spark.sql(f"SELECT count(*) FROM {DATABASE}.t0007 WHERE day = 3").collect()
    again = time.perf_counter() - begun
    print(f"first query on one table ({args.partitions} partitions, one selected by the catalog): "
          f"{first * 1000:.0f} ms; the same query again: {again * 1000:.0f} ms")


if __name__ == "__main__":
    main()

"""Plain Spark over ``s3://`` (glueball's Hadoop FileSystem) against the same files over ``file://``.

Run ``.venv/bin/python bench/s3_spark.py [--rows N] [--csv-rows M] [--rounds R]``. It writes, in a
temporary ``GLUEBALL_HOME``, a Parquet dataset (N rows, 8 files), the same rows partitioned by day
(60 folders: listing and partition discovery) and a CSV dataset (M rows), all through ``s3://`` so
no checksum files lie beside them. Then, in one Spark session, it alternates R rounds of the same
read-and-aggregate query through ``s3://bench/...`` and through ``file:///.../s3/bench/...`` (which
goes first alternates too) and prints the median time of each, and the median of the rounds' own
s3/file ratios (goal: at most 1.05x) — each round's pair runs back to back, so a busy machine's
slow spells fall on both sides of a ratio. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def timed(work: Callable[[], Any]) -> float:
    """Seconds ``work`` took."""
    begun = time.perf_counter()
    work()
    return time.perf_counter() - begun


def main() -> None:
    """Write the datasets, then time each query through s3:// and file:// alternately and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--csv-rows", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-s3-spark-"))
    os.environ["GLUEBALL_HOME"] = str(home)  # before the session: the object store's root

    from pyspark.sql import functions as F

    from glueball.runtime.spark import spark_session

    spark = spark_session(app_name="bench-s3-spark")
    if spark.sparkContext._jsc.hadoopConfiguration().get("fs.s3.impl") is None:
        raise SystemExit("glueball's Hadoop FileSystem is not available (see the message above)")
    rows = (spark.range(args.rows)
            .select(F.col("id"),
                    F.element_at(F.array(*(F.lit(r) for r in ("emea", "amer", "apac", "latam", "anz"))),
                                 (F.col("id") % 5 + 1).cast("int")).alias("region"),
                    (F.col("id") % 60).cast("int").alias("day"),
                    ((F.col("id") * 7919) % 100000 / 100.0).alias("amount"),
                    (F.col("id") % 17).cast("int").alias("qty")))
    rows.repartition(8).write.parquet("s3://bench/parquet")
    rows.repartition(4, "day").write.partitionBy("day").parquet("s3://bench/by_day")
    rows.limit(args.csv_rows).repartition(4).write.option("header", "true").csv("s3://bench/csv")
    store = home / "s3" / "bench"
    sizes = {name: sum(f.stat().st_size for f in (store / name).rglob("*") if f.is_file())
             for name in ("parquet", "by_day", "csv")}
    assert not list(store.rglob("*.crc")), "checksum files would slow file:// down"

    def parquet(base: str) -> Callable[[], Any]:
        """Aggregate the flat Parquet dataset under ``base`` (all columns read)."""
        return lambda: spark.read.parquet(f"{base}/parquet").groupBy("region").agg(
            F.sum("amount"), F.sum("id"), F.max("qty"), F.min("day")).collect()

    def by_day(base: str) -> Callable[[], Any]:
        """Aggregate half the partitions of the partitioned dataset (discovery and pruning)."""
        return lambda: spark.read.parquet(f"{base}/by_day").where("day >= 30").groupBy("day").agg(
            F.sum("amount")).collect()

    def csv(base: str) -> Callable[[], Any]:
        """Parse and aggregate the CSV dataset."""
        return lambda: spark.read.option("header", "true").schema(
            "id long, region string, day int, amount double, qty int").csv(f"{base}/csv").groupBy(
            "region").agg(F.sum("amount"), F.avg("qty")).collect()

    print(f"{args.rows:,} rows: Parquet {sizes['parquet'] / 1e6:.0f} MB in 8 files, by day "
          f"{sizes['by_day'] / 1e6:.0f} MB in 60 folders; CSV {args.csv_rows:,} rows, {sizes['csv'] / 1e6:.0f} MB; "
          f"{args.rounds} rounds, alternating, in one session ({spark.sparkContext.master})")
    local = store.resolve().as_uri()  # file:///.../s3/bench
    for name, query in (("parquet aggregate", parquet), ("partitioned parquet", by_day), ("csv aggregate", csv)):
        s3_work, file_work = query("s3://bench"), query(local)
        assert s3_work() == file_work()  # warm-up, and the same answer both ways
        s3_times: list[float] = []
        file_times: list[float] = []
        for round_ in range(args.rounds):
            order = [(s3_work, s3_times), (file_work, file_times)]
            for work, times in order if round_ % 2 == 0 else reversed(order):
                times.append(timed(work))
        ratios = [s3_time / file_time for s3_time, file_time in zip(s3_times, file_times, strict=True)]
        print(f"{name:20s} s3:// median {statistics.median(s3_times):6.3f} s  file:// median "
              f"{statistics.median(file_times):6.3f} s  s3/file: median of rounds {statistics.median(ratios):.3f}x, "
              f"best/best {min(s3_times) / min(file_times):.3f}x")
    spark.stop()
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

"""The stock-options visual job: its generated script vs the same pipeline written by hand in PySpark.

Run ``.venv/bin/python bench/studio.py [--rows N] [--rounds R]`` (default 2,000,000 trades, 3 rounds).
It writes N synthetic trades as JSON into an embedded installation's object store (with Spark), makes
the catalog lookup table, then in one process and one Spark session alternates the two:

- **generated**: the script glueball generates from the seed's graph (``tests/studio/stock.py``; the ten
  visual transforms as ``gs_*`` calls on DynamicFrames, Glue's readers and writers), run as a job
  script would be;
- **hand-written**: ``spark.read.json``, the same steps in plain DataFrame code, ``df.write``.

Both write the history (parquet, partitioned by action) and the per-symbol CSV summary. It prints
each round, the medians and the ratio generated / hand-written (goal: at most 1.1x). Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.studio.codegen import generate  # noqa: E402
from tests.studio import stock  # noqa: E402


def synthetic_trades(spark: Any, rows: int, folder: Path) -> None:
    """``rows`` trades shaped like ``stock.trades`` (symbol, instrument, price, venue, sold/bought lists)."""
    from pyspark.sql import functions as F

    symbols = F.array(*[F.lit(s) for s in stock.SYMBOLS])
    months = F.array(*[F.lit(m) for m in stock.MONTHS])
    venues = F.array(*[F.lit(v) for v in (*stock.EXCHANGES, stock.UNLISTED)])

    def pick(values: Any, count: int, salt: int) -> Any:
        return F.element_at(values, (F.abs(F.hash(F.col("id"), F.lit(salt))) % count + 1).cast("int"))

    def fills(salt: int, least: int) -> Any:
        size = (F.abs(F.hash(F.col("id"), F.lit(salt))) % 3 + least).cast("int")
        return F.slice(F.array(*[(F.abs(F.hash(F.col("id"), F.lit(salt + i))) % 9 + 1) for i in range(3)]), 1, size)

    df = spark.range(1, rows + 1).select(
        F.col("id").alias("order_id"), pick(symbols, len(stock.SYMBOLS), 1).alias("symbol"),
        F.lit("usd").alias("currency"), F.round(F.rand(3) * 29.5 + 0.5, 2).alias("price"),
        pick(venues, len(stock.EXCHANGES) + 1, 2).alias("exchange"),
        F.when(F.abs(F.hash(F.col("id"), F.lit(9))) % 4 == 0, F.array().cast("array<bigint>"))
         .otherwise(fills(10, 1)).alias("sold"), fills(20, 1).alias("bought"),
        pick(months, len(stock.MONTHS), 4).alias("month"), (F.abs(F.hash(F.col("id"), F.lit(5))) % 28 + 1).alias("d"))
    strike = F.concat(F.lit("$"), (F.col("order_id") % 35 * 10 + 50).cast("string"))
    kind = F.when(F.col("order_id") % 2 == 0, "PUT").otherwise("CALL")
    df = df.withColumn("instrument", F.concat_ws(" ", "symbol", "month", F.col("d").cast("string"), F.lit("24"),
                                                 strike, kind))
    df.select(*stock.INPUT_COLUMNS).write.mode("overwrite").json(str(folder))


def run_generated(script: str, out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    saved = sys.argv
    sys.argv = ["stock_options.py", "--JOB_NAME", "bench_stock_options"]
    try:
        begun = time.perf_counter()
        exec(compile(script, "stock_options.py", "exec"), {"__name__": "__main__"})  # noqa: S102
        return time.perf_counter() - begun
    finally:
        sys.argv = saved


def run_hand_written(spark: Any, root: Path, out: Path) -> float:
    shutil.rmtree(out, ignore_errors=True)
    begun = time.perf_counter()
    trades = spark.read.json(str(root / "stock-data" / "options"))
    venues = spark.read.json(str(root / "stock-data" / "exchanges"))
    history, summary = stock.hand_written(trades, venues)
    history.repartition(2).write.partitionBy("action").parquet(str(out / "history"))
    summary.coalesce(1).write.option("header", True).csv(str(out / "summary"))
    return time.perf_counter() - begun


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-studio-"))
    os.environ["GLUEBALL_HOME"] = str(home)
    os.environ.pop("GLUEBALL_ENDPOINT", None)
    from glueball.runtime.client import glue_client
    from glueball.runtime.spark import spark_session

    spark = spark_session()
    root = home / "s3"
    stock.write_inputs(root, [])  # the folders and the venues table's file
    synthetic_trades(spark, args.rows, root / "stock-data" / "options")
    client = glue_client()
    client.create_database(DatabaseInput={"Name": "stocks"})
    client.create_table(DatabaseName="stocks", TableInput=stock.exchanges_table_input())
    script = generate(stock.graph("s3://bench-generated", update_catalog=False)).text()
    print(f"{args.rows:,} trades, {args.rounds} rounds (after one warm-up each)")
    run_generated(script, root / "bench-generated")
    run_hand_written(spark, root, root / "bench-hand")
    generated, hand = [], []
    for number in range(1, args.rounds + 1):
        generated.append(run_generated(script, root / "bench-generated"))
        hand.append(run_hand_written(spark, root, root / "bench-hand"))
        print(f"round {number}: generated {generated[-1]:.2f} s, hand-written {hand[-1]:.2f} s")
    # what the readers alone cost: the generated script reads with Glue's DynamicFrame JSON reader (its own
    # typing, choices and error records), the hand-written one with spark.read.json
    from awsglue.context import GlueContext

    context = GlueContext(spark.sparkContext)
    begun = time.perf_counter()
    context.create_dynamic_frame.from_options(connection_type="s3", format="json", connection_options={
        "paths": ["s3://stock-data/options/"]}).toDF().selectExpr("sum(size(sold) + price)").collect()
    dynamic_read = time.perf_counter() - begun
    begun = time.perf_counter()
    spark.read.json(str(root / "stock-data" / "options")).selectExpr("sum(size(sold) + price)").collect()
    plain_read = time.perf_counter() - begun
    print(f"reading the trades alone: DynamicFrame {dynamic_read:.2f} s, spark.read.json {plain_read:.2f} s")
    rows_generated = spark.read.parquet(str(root / "bench-generated" / "history")).count()
    rows_hand = spark.read.parquet(str(root / "bench-hand" / "history")).count()
    print(f"history rows: generated {rows_generated:,}, hand-written {rows_hand:,}")
    g, h = statistics.median(generated), statistics.median(hand)
    print(f"median: generated {g:.2f} s, hand-written {h:.2f} s, ratio {g / h:.2f}x (goal <= 1.1x)")
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

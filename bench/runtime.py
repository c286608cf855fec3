"""The DynamicFrame pipeline against hand-written DataFrame code doing the same work, in one run.

    .venv/bin/python bench/runtime.py [--rows 5000000] [--json-rows 1000000] [--raw-rows 3000000] [--repeat 3]
        [--only-raw] [--raw-cases csv,json,unmapped,map]

Pipeline: read Parquet orders (N rows) and customers, ApplyMapping (renames and
casts incl. string -> timestamp), join, drop a field, write Parquet partitioned by
region. The DataFrame side writes the same with select/cast/join/partitionBy.
Also: reading mixed-type JSON with choice inference against spark.read.json; and
the same pipeline from raw CSV (``withHeader``) and JSON-lines files (issue 18),
with and without a Filter lambda (against a DataFrame Python-UDF filter), and the
unmapped case (read CSV, write Parquet with the inferred types); with ``--raw-cases
map``, the CSV pipeline with a Map lambda against a Python-UDF ``withColumn`` (issue
34). Each pair also reports the JVM's peak heap (driver and executors share it in local mode).
Runs alternate and the best of each is compared; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from raw_formats import raw_formats  # noqa: E402

MAPPINGS = [
    ("order_id", "long", "order_id", "long"),
    ("customer_id", "long", "customer_id", "long"),
    ("order_ts", "string", "ordered_at", "timestamp"),
    ("amount", "string", "amount", "double"),
    ("region", "string", "region", "string"),
]


def best_of(label: str, runs: list[float]) -> float:
    print(f"  {label:<44} runs: {', '.join(f'{r:6.2f}s' for r in runs)}")
    return min(runs)


def timed(work: Callable[[], None]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--json-rows", type=int, default=1_000_000)
    parser.add_argument("--raw-rows", type=int, default=3_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only-raw", action="store_true", help="run only the raw CSV/JSON section")
    parser.add_argument("--raw-cases", default="csv,json,unmapped",
                        help="raw cases to run, comma-separated: csv, json, unmapped, map")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="glueball-bench-"))
    os.environ["GLUEBALL_HOME"] = str(work / "home")
    os.environ["GLUEBALL_SQL_CATALOG"] = "off"
    from pyspark.sql import functions as F

    from glueball.runtime.context import GlueContext
    from glueball.runtime.spark import spark_session
    from glueball.runtime.transforms.mapping import ApplyMapping
    from glueball.runtime.transforms.record_transforms import Join

    spark = spark_session(app_name="glueball-bench")
    glue = GlueContext(spark.sparkContext)
    lake = work / "home" / "s3" / "bench"

    if args.only_raw:
        raw_formats(spark, glue, lake, work, args.raw_rows, args.repeat, tuple(args.raw_cases.split(",")))
        shutil.rmtree(work, ignore_errors=True)
        return
    print(f"generating {args.rows:,} orders and {args.rows // 50:,} customers ...")
    spark.range(args.rows).select(
        F.col("id").alias("order_id"),
        (F.col("id") % (args.rows // 50)).alias("customer_id"),
        F.date_format(F.timestamp_seconds(F.lit(1767225600) + F.col("id") * 7), "yyyy-MM-dd HH:mm:ss").alias(
            "order_ts"),
        F.format_number((F.col("id") % 10000) / 7, 2).alias("amount"),
        F.element_at(F.array(F.lit("emea"), F.lit("amer"), F.lit("apac")), (F.col("id") % 3 + 1).cast("int"))
        .alias("region"),
    ).write.parquet(str(lake / "orders"))
    spark.range(args.rows // 50).select(F.col("id").alias("cust_id"),
                                        F.concat(F.lit("customer-"), F.col("id")).alias("customer_name"),
                                        F.lit("retail").alias("segment")).write.parquet(str(lake / "customers"))

    def dynamic_pipeline(out: Path) -> None:
        orders = glue.create_dynamic_frame.from_options("s3", {"paths": ["s3://bench/orders/"]}, format="parquet")
        customers = glue.create_dynamic_frame.from_options("s3", {"paths": ["s3://bench/customers/"]},
                                                           format="parquet")
        mapped = ApplyMapping.apply(frame=orders, mappings=MAPPINGS)
        joined = Join.apply(mapped, customers, "customer_id", "cust_id").drop_fields(["cust_id", "segment"])
        glue.write_dynamic_frame.from_options(joined, "s3", {"path": str(out), "partitionKeys": ["region"]},
                                              format="parquet")

    def dataframe_pipeline(out: Path) -> None:
        orders = spark.read.parquet(str(lake / "orders"))
        customers = spark.read.parquet(str(lake / "customers"))
        mapped = orders.select(
            F.col("order_id").cast("long"), F.col("customer_id").cast("long"),
            F.col("order_ts").cast("timestamp").alias("ordered_at"), F.col("amount").cast("double"),
            F.col("region").cast("string"))
        joined = mapped.join(customers, mapped["customer_id"] == customers["cust_id"]).drop("cust_id", "segment")
        joined.write.mode("append").partitionBy("region").parquet(str(out))

    dyn_runs, df_runs = [], []
    for i in range(args.repeat):
        for runs, pipeline, name in ((df_runs, dataframe_pipeline, "df"), (dyn_runs, dynamic_pipeline, "dyn")):
            out = work / f"out-{name}-{i}"
            runs.append(timed(lambda p=pipeline, o=out: p(o)))
            shutil.rmtree(out, ignore_errors=True)

    print(f"\nglueball runtime benchmark ({args.rows:,} rows, {spark.sparkContext.master})\n")
    df_best = best_of("hand-written DataFrame pipeline", df_runs)
    dyn_best = best_of("DynamicFrame pipeline (awsglue API)", dyn_runs)
    print(f"  DynamicFrame / DataFrame = {dyn_best / df_best:.3f}x   (goal <= 1.05x)\n")

    print(f"generating {args.json_rows:,} JSON lines with a mixed-type field ...")
    spark.range(args.json_rows).select(F.when(
        F.col("id") % 10 == 0,
        F.format_string('{"id": %d, "sku": "S%d", "price": "%d.50", "tags": ["a"]}', "id", F.col("id") % 97, "id"),
    ).otherwise(F.format_string('{"id": %d, "sku": "S%d", "price": %d, "tags": ["a"]}', "id", F.col("id") % 97,
                                "id")).alias("value")).write.text(str(lake / "json"))

    def glue_json() -> None:
        frame = glue.create_dynamic_frame.from_options("s3", {"paths": ["s3://bench/json/"]}, format="json")
        frame.toDF().write.mode("overwrite").format("noop").save()

    def spark_json() -> None:
        spark.read.json(str(lake / "json")).write.mode("overwrite").format("noop").save()

    json_glue, json_spark = [], []
    for _ in range(args.repeat):
        json_spark.append(timed(spark_json))
        json_glue.append(timed(glue_json))
    spark_best = best_of("spark.read.json (price inferred as string)", json_spark)
    glue_best = best_of("glueball json (price a choice long|string)", json_glue)
    print(f"  glueball JSON / spark.read.json = {glue_best / spark_best:.3f}x\n")
    raw_formats(spark, glue, lake, work, args.raw_rows, args.repeat, tuple(args.raw_cases.split(",")))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

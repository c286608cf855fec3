"""The Python worker's side of Map and Filter lambdas, per record, in one process (no Spark job timed).

    PYTHONPATH=. .venv/bin/python bench/map_worker.py [--rows 100000] [--batch 10000] [--repeat 7] [--profile CASE]

Builds a frame like ``bench/runtime.py``'s raw orders after ApplyMapping (``order_id``, ``customer_id``,
``ordered_at``, ``amount`` with about 30% nulls, ``region``), applies each case's Map or Filter (which runs
Map's sample in Spark), catches the function the Arrow UDF would call on the executors, and times that
function over ``--rows`` rows in Arrow batches of ``--batch`` rows, in a Python process of its own (the
functions pickled as Spark ships them) — what a Python worker does. Beside each, the same Python work
written as a plain UDF's loop would do it (the column to a list, the function per value, the results to
Arrow): the floor any record abstraction adds to. ``--profile CASE`` prints cProfile's top entries for
one case. CPU time of the timing process, best of ``--repeat``; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def in_cents(record: Any) -> Any:
    record["amount"] = None if record["amount"] is None else round(record["amount"] * 100)
    return record


def with_total(record: Any) -> Any:
    record["total"] = None if record["amount"] is None else record["amount"] * record["customer_id"]
    return record


def via_helper(record: Any) -> Any:  # the record passed on: its reads are unknown, every field is sent
    return _cents(record)


def _cents(record: Any) -> Any:
    record["amount"] = None if record["amount"] is None else round(record["amount"] * 100)
    return record


def big(record: Any) -> bool:
    return record["amount"] is not None and record["amount"] > 100.0


def _floor_map(amount: Any) -> Any:
    import pyarrow as pa

    return pa.array([None if a is None else round(a * 100) for a in amount.to_pylist()], pa.int64())


def _floor_total(amount: Any, customer: Any) -> Any:
    import pyarrow as pa

    return pa.array([None if a is None else a * c for a, c in zip(amount.to_pylist(), customer.to_pylist(),
                                                                  strict=True)], pa.float64())


def _floor_filter(amount: Any) -> Any:
    import pyarrow as pa

    return pa.array([a is not None and a > 100.0 for a in amount.to_pylist()], pa.bool_())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=10_000, help="rows per Arrow batch (Spark's default: 10,000)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--profile", default="", help="a case to profile: map, map-new-field, map-unknown-reads, "
                                                      "filter")
    parser.add_argument("--worker", default="", help=argparse.SUPPRESS)  # the timing process's input
    args = parser.parse_args()
    if args.worker:
        _time_in_worker(args)
        return
    work = Path(tempfile.mkdtemp(prefix="glueball-bench-"))
    os.environ["GLUEBALL_HOME"] = str(work / "home")
    os.environ["GLUEBALL_SQL_CATALOG"] = "off"

    from pyspark import cloudpickle
    from pyspark.sql import functions as F

    import glueball.runtime.ops.record_functions as record_functions
    import glueball.runtime.ops.record_map as record_map
    from glueball.runtime.context import GlueContext
    from glueball.runtime.dynamicframe import DynamicFrame
    from glueball.runtime.ops.field_reads import fields_read
    from glueball.runtime.spark import spark_session
    from glueball.runtime.transforms.record_transforms import Filter, Map

    spark = spark_session(app_name="glueball-map-worker")
    glue = GlueContext(spark.sparkContext)
    df = spark.range(args.rows).select(
        F.col("id").alias("order_id"), (F.col("id") % 997).alias("customer_id"),
        F.timestamp_seconds(F.lit(1767225600) + F.col("id") * 7).alias("ordered_at"),
        F.when(F.col("id") % 10 < 3, F.lit(None)).otherwise((F.col("id") % 10000) / 7).alias("amount"),
        F.element_at(F.array(F.lit("emea"), F.lit("amer"), F.lit("apac")), (F.col("id") % 3 + 1).cast("int"))
        .alias("region")).coalesce(1)
    table = df.toArrow()
    frame = DynamicFrame.fromDF(df, glue, "orders")

    caught: list[Callable[..., Any]] = []

    def catching(original: Callable[..., Any]) -> Callable[..., Any]:
        def arrow_udf(function: Callable[..., Any], return_type: Any) -> Any:
            caught.append(function)
            return original(function, return_type)
        return arrow_udf

    record_map._arrow_udf = catching(record_map._arrow_udf)  # type: ignore[assignment]
    record_functions._arrow_udf = catching(record_functions._arrow_udf)  # type: ignore[assignment]

    def worker_of(apply: Callable[[], Any], f: Callable[..., Any], returned: bool) -> tuple[Any, list[str]]:
        caught.clear()
        apply()
        reads = fields_read(f, returned=returned)
        return caught[0], [n for n in table.column_names if reads is None or n in reads]

    cases = {
        "map": (worker_of(lambda: Map.apply(frame=frame, f=in_cents), in_cents, True), (_floor_map, ["amount"])),
        "map-new-field": (worker_of(lambda: Map.apply(frame=frame, f=with_total), with_total, True),
                          (_floor_total, ["amount", "customer_id"])),
        "map-unknown-reads": (worker_of(lambda: Map.apply(frame=frame, f=via_helper), via_helper, True),
                              (_floor_map, ["amount"])),
        "filter": (worker_of(lambda: Filter.apply(frame=frame, f=big), big, False), (_floor_filter, ["amount"])),
    }
    payload = work / "cases.pickle"
    payload.write_bytes(cloudpickle.dumps((cases, table)))
    spark.stop()
    # the functions are timed in a process of their own, as a Python worker runs them: nothing of the driver's
    # (Spark's gateway, its objects) around, so the garbage collector sees what a worker's would
    command = [sys.executable, __file__, "--worker", str(payload), "--batch", str(args.batch), "--repeat",
               str(args.repeat), "--profile", args.profile]
    try:
        subprocess.run(command, check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _time_in_worker(args: argparse.Namespace) -> None:
    import pickle

    cases, table = pickle.loads(Path(args.worker).read_bytes())
    batches = table.to_batches(max_chunksize=args.batch)
    rows = table.num_rows

    def over_batches(function: Callable[..., Any], names: list[str]) -> Callable[[], None]:
        inputs = [[batch.column(table.schema.get_field_index(n)) for n in names] for batch in batches]
        return lambda: [function(*arrays) for arrays in inputs] and None

    if args.profile:
        (function, names), _ = cases[args.profile]
        profiler = cProfile.Profile()
        profiler.runcall(over_batches(function, names))
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    print(f"{rows:,} rows in batches of {args.batch:,}, CPU time, best of {args.repeat}; µs per record")
    for name, ((function, names), (floor, floor_names)) in cases.items():
        timings = {}
        for label, work in (("glueball", over_batches(function, names)), ("plain loop", over_batches(floor,
                                                                                                   floor_names))):
            work()
            runs = []
            for _ in range(args.repeat):
                start = time.process_time()  # CPU time: what other processes on a shared machine take is not counted
                work()
                runs.append(time.process_time() - start)
            timings[label] = min(runs) / rows * 1e6
        print(f"  {name:<18} glueball {timings['glueball']:6.3f}   plain loop {timings['plain loop']:6.3f}   "
              f"difference {timings['glueball'] - timings['plain loop']:6.3f}")


if __name__ == "__main__":
    main()

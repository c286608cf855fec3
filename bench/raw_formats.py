"""Issue 18: the DynamicFrame pipeline on raw CSV and JSON-lines input against hand-written PySpark.

Used by ``bench/runtime.py``. Orders (N rows) and customers (N / 50) are written
as CSV with a header and as JSON lines; each case runs glueball and the
DataFrame equivalent alternately in one process, after one uncounted warm-up run of each side
(the JVM's first runs of a plan shape pay for JIT compilation: on 2 cores a first run took twice
a later one), and prints the best run of each,
their ratio in wall time and in the JVM's CPU time (steadier on a shared machine), and
each side's peak memory: the JVM's heap and resident set (local mode: the driver and
the executors are that one JVM), the Python workers' resident set (summed; a Filter lambda's
or a Python UDF's) and the Python driver's. Nothing is asserted.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ORDER_MAPPINGS = [
    ("order_id", "string", "order_id", "long"),
    ("customer_id", "string", "customer_id", "long"),
    ("order_ts", "string", "ordered_at", "timestamp"),
    ("amount", "string", "amount", "double"),
    ("region", "string", "region", "string"),
]
CUSTOMER_MAPPINGS = [("cust_id", "string", "cust_id", "long"), ("customer_name", "string", "customer_name", "string")]


def _peak_heap_mb(spark: Any, reset: bool) -> float:
    """The JVM's peak heap use since the last reset, in MB (local mode: driver and executors are one JVM)."""
    pools = spark._jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
    total = 0
    for pool in pools:
        if str(pool.getType().toString()) != "Heap memory":
            continue
        if reset:
            pool.resetPeakUsage()
        else:
            total += pool.getPeakUsage().getUsed()
    return total / 1e6


def _jvm_pid(spark: Any) -> int:
    return int(spark._jvm.java.lang.ProcessHandle.current().pid())


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of process ``pid`` so far: on a shared machine, steadier than wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _all_cpu_seconds(pid: int) -> float:
    """CPU time of the JVM and of every process below it (the Python workers a lambda or a UDF runs in,
    those that ended included: their parent has counted them)."""
    total = _cpu_seconds(pid)
    for child in _descendants(pid):
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def _peak_rss_mb(pid: int, reset: bool) -> float:
    """The process's peak resident memory (VmHWM) since the last reset, in MB (0 where it cannot be read)."""
    try:
        if reset:
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS
            return 0.0
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (the JVM's Python daemon and the Python workers it forks)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _peak_workers_mb(pid: int, reset: bool) -> float:
    """The Python workers' peak resident memory since the last reset, summed over the workers, in MB."""
    return sum(_peak_rss_mb(child, reset) for child in _descendants(pid))


def _generate(spark: Any, lake: Path, rows: int) -> None:
    from pyspark.sql import functions as F

    customers = max(1, rows // 50)
    orders = spark.range(rows).select(
        F.col("id").alias("order_id"),
        (F.col("id") % customers).alias("customer_id"),
        F.date_format(F.timestamp_seconds(F.lit(1767225600) + F.col("id") * 7), "yyyy-MM-dd HH:mm:ss")
        .alias("order_ts"),
        F.round((F.col("id") % 10000) / 7, 2).alias("amount"),
        F.element_at(F.array(F.lit("emea"), F.lit("amer"), F.lit("apac")), (F.col("id") % 3 + 1).cast("int"))
        .alias("region"))
    people = spark.range(customers).select(F.col("id").alias("cust_id"),
                                          F.concat(F.lit("customer-"), F.col("id")).alias("customer_name"))
    for name, df in (("orders", orders), ("customers", people)):
        df.write.option("header", "true").csv(str(lake / "csv" / name))
        df.write.json(str(lake / "json" / name))


def _pair(spark: Any, label: str, glue_side: Callable[[Path], None], spark_side: Callable[[Path], None],
          work: Path, repeat: int, goal: str, warmup: int = 1) -> None:
    pid = _jvm_pid(spark)
    for i in range(warmup):  # not counted, not measured
        for side, fn in (("spark", spark_side), ("glue", glue_side)):
            out = work / f"raw-{side}-warmup-{i}"
            fn(out)
            shutil.rmtree(out, ignore_errors=True)
    runs: dict[str, list[tuple[float, float, float]]] = {"spark": [], "glue": []}
    heap: dict[str, float] = {"spark": 0.0, "glue": 0.0}
    rss: dict[str, float] = {"spark": 0.0, "glue": 0.0}
    workers: dict[str, float] = {"spark": 0.0, "glue": 0.0}
    driver: dict[str, float] = {"spark": 0.0, "glue": 0.0}
    for i in range(repeat):
        for side, fn in (("spark", spark_side), ("glue", glue_side)):
            out = work / f"raw-{side}-{i}"
            _peak_heap_mb(spark, reset=True)
            for process in (pid, os.getpid()):
                _peak_rss_mb(process, reset=True)
            _peak_workers_mb(pid, reset=True)
            cpu, everything, start = _cpu_seconds(pid), _all_cpu_seconds(pid), time.perf_counter()
            fn(out)
            wall = time.perf_counter() - start
            runs[side].append((wall, _cpu_seconds(pid) - cpu, _all_cpu_seconds(pid) - everything))
            heap[side] = max(heap[side], _peak_heap_mb(spark, reset=False))
            rss[side] = max(rss[side], _peak_rss_mb(pid, reset=False))
            workers[side] = max(workers[side], _peak_workers_mb(pid, reset=False))
            driver[side] = max(driver[side], _peak_rss_mb(os.getpid(), reset=False))
            shutil.rmtree(out, ignore_errors=True)
    best = {side: tuple(min(r[i] for r in runs[side]) for i in range(3)) for side in runs}
    print(f"  {label}   ({repeat} runs each after {warmup} warm-up)")
    for side, name in (("spark", "hand-written PySpark "), ("glue", "glueball DynamicFrame")):
        print(f"    {name} wall {', '.join(f'{r[0]:6.2f}s' for r in runs[side])}   JVM CPU "
              f"{', '.join(f'{r[1]:6.2f}s' for r in runs[side])}   JVM + Python workers CPU "
              f"{', '.join(f'{r[2]:6.2f}s' for r in runs[side])}")
        print(f"    {' ' * len(name)} peak: JVM heap {heap[side]:5.0f} MB, JVM RSS {rss[side]:5.0f} MB (driver and "
              f"executors), Python workers {workers[side]:4.0f} MB, Python driver {driver[side]:4.0f} MB")
    ratios = sorted(g[0] / s[0] for g, s in zip(runs["glue"], runs["spark"], strict=True))
    print(f"    glueball / PySpark = {best['glue'][0] / best['spark'][0]:.3f}x wall (best runs; run by run "
          f"{ratios[0]:.3f}-{ratios[-1]:.3f}x), {best['glue'][1] / max(best['spark'][1], 1e-9):.3f}x JVM CPU, "
          f"{best['glue'][2] / max(best['spark'][2], 1e-9):.3f}x JVM + Python workers CPU   (goal {goal})")


def raw_formats(spark: Any, glue: Any, lake: Path, work: Path, rows: int, repeat: int,
                cases: tuple[str, ...] = ("csv", "json", "unmapped")) -> None:
    """Run the issue-18 cases (``csv``, ``json``, ``unmapped``) and issue 34's ``map`` (not run unless asked
    for), and print their figures."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, LongType

    from glueball.runtime.transforms.mapping import ApplyMapping
    from glueball.runtime.transforms.record_transforms import Filter, Join, Map

    print(f"generating {rows:,} orders and {max(1, rows // 50):,} customers as CSV and JSON lines ...")
    _generate(spark, lake, rows)
    print(f"\nraw formats ({rows:,} orders, {spark.sparkContext.master})\n")

    def glue_read(fmt: str, name: str) -> Any:
        options = {"withHeader": True} if fmt == "csv" else {}
        return glue.create_dynamic_frame.from_options("s3", {"paths": [f"s3://bench/{fmt}/{name}/"]}, format=fmt,
                                                      format_options=options)

    def spark_read(fmt: str, name: str) -> Any:
        path = str(lake / fmt / name)
        return spark.read.option("header", "true").csv(path) if fmt == "csv" else spark.read.json(path)

    def in_cents(record: Any) -> Any:
        record["amount"] = None if record["amount"] is None else round(record["amount"] * 100)
        return record

    def glue_pipeline(fmt: str, with_filter: bool, with_map: bool = False) -> Callable[[Path], None]:
        def run(out: Path) -> None:
            orders = ApplyMapping.apply(frame=glue_read(fmt, "orders"), mappings=ORDER_MAPPINGS)
            if with_filter:
                orders = Filter.apply(frame=orders, f=lambda r: r["amount"] is not None and r["amount"] > 100.0)
            if with_map:
                orders = Map.apply(frame=orders, f=in_cents)
            customers = ApplyMapping.apply(frame=glue_read(fmt, "customers"), mappings=CUSTOMER_MAPPINGS)
            joined = Join.apply(orders, customers, "customer_id", "cust_id").drop_fields(["cust_id"])
            glue.write_dynamic_frame.from_options(joined, "s3", {"path": str(out), "partitionKeys": ["region"]},
                                                  format="parquet")
        return run

    def spark_pipeline(fmt: str, with_filter: bool, with_map: bool = False) -> Callable[[Path], None]:
        def run(out: Path) -> None:
            orders = spark_read(fmt, "orders").select(
                F.col("order_id").try_cast("long"), F.col("customer_id").try_cast("long"),
                F.col("order_ts").try_cast("timestamp").alias("ordered_at"), F.col("amount").try_cast("double"),
                F.col("region").cast("string"))
            if with_filter:
                keep = F.udf(lambda amount: amount is not None and amount > 100.0, BooleanType())
                orders = orders.where(keep(F.col("amount")))
            if with_map:
                cents = F.udf(lambda amount: None if amount is None else round(amount * 100), LongType())
                orders = orders.withColumn("amount", cents(F.col("amount")))
            customers = spark_read(fmt, "customers").select(F.col("cust_id").try_cast("long"),
                                                            F.col("customer_name").cast("string"))
            joined = orders.join(customers, orders["customer_id"] == customers["cust_id"]).drop("cust_id")
            joined.write.mode("append").partitionBy("region").parquet(str(out))
        return run

    for fmt in [c for c in ("csv", "json") if c in cases]:
        _pair(spark, f"{fmt}: read orders + customers, ApplyMapping, Join, partitioned Parquet",
              glue_pipeline(fmt, False), spark_pipeline(fmt, False), work, repeat, "<= 1.15x")
        _pair(spark, f"{fmt}: the same with a Filter lambda vs a Python-UDF filter",
              glue_pipeline(fmt, True), spark_pipeline(fmt, True), work, repeat, "<= 1.05x")

    if "map" in cases:
        _pair(spark, "csv: the pipeline with a Map lambda (a field changed) vs a Python-UDF withColumn",
              glue_pipeline("csv", False, with_map=True), spark_pipeline("csv", False, with_map=True), work, repeat,
              "<= 1.05x, issue 34")

    def glue_unmapped(out: Path) -> None:
        glue.write_dynamic_frame.from_options(glue_read("csv", "orders"), "s3", {"path": str(out)}, format="parquet")

    def spark_unmapped(out: Path) -> None:
        spark.read.option("header", "true").option("inferSchema", "true").csv(str(lake / "csv" / "orders")) \
            .write.mode("append").parquet(str(out))

    if "unmapped" not in cases:
        return
    _pair(spark, "csv unmapped: read orders, write Parquet with inferred types (Spark: inferSchema)",
          glue_unmapped, spark_unmapped, work, repeat, "<= 1.6x")

"""Iceberg against plain Parquet in one run: a MERGE of 1% changed rows into N rows, and a full read.

Run ``.venv/bin/python bench/table_formats.py [--rows N]`` (default 3,000,000). It runs one Glue script with
``glueball run ... --datalake-formats iceberg`` on an embedded installation in a temporary home (so Iceberg's
GlueCatalog and S3FileIO reach glueball through the driver's own loopback endpoint, every commit a Glue
``UpdateTable`` with ``VersionId``). In the same Spark session it builds the same N rows (id, group, amount, note)
as:

- a ``glue_catalog`` Iceberg table with the default copy-on-write MERGE,
- the same table with ``write.merge.mode`` merge-on-read (deletes written as delete files),
- plain Parquet under ``s3://``, where a MERGE without a table format is the whole table read, joined with the
  changes and written again (then swapped in),

then times, for each: the MERGE of N/100 rows (half updates of existing ids, half new ids) and a full read
(``count`` and ``sum(amount)`` over every row, checked equal across the three). Times are the best of
``--rounds`` MERGEs on fresh changes and reads. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import sys, time
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
from pyspark.sql import functions as F

args = getResolvedOptions(sys.argv, ["rows", "rounds"])
rows, rounds = int(args["rows"]), int(args["rounds"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
spark.sql("CREATE DATABASE IF NOT EXISTS bench")

def base(n):
    return (spark.range(n).select(F.col("id"), (F.col("id") % 100).alias("grp"),
            (F.col("id") * 3 % 1000).cast("double").alias("amount"),
            F.concat(F.lit("row-"), F.col("id").cast("string")).alias("note")))

def changes(n, total, salt):
    k = max(n // 2, 1)
    # half: existing ids spread over the table (updated), half: ids past the end (inserted)
    updated = spark.range(k).select(((F.col("id") * 97 + salt) % total).alias("id"))
    inserted = spark.range(k).select((F.col("id") + total + salt * k).alias("id"))
    return (updated.union(inserted).dropDuplicates(["id"])
            .select("id", (F.col("id") % 100).alias("grp"), F.lit(1.0 + salt).alias("amount"),
                    F.lit("changed").alias("note")))

def timed(action):
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result

def full_read(read):
    r = read().agg(F.count("*").alias("n"), F.sum("amount").alias("s")).collect()[0]
    return (r["n"], round(r["s"], 3))

results = {}
data = base(rows).cache()
data.count()
for name, props in (("iceberg_cow", ""), ("iceberg_mor", ", 'write.merge.mode'='merge-on-read', "
                                          "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read'")):
    table = f"glue_catalog.bench.{name}"
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, grp BIGINT, amount DOUBLE, note STRING) USING iceberg "
              f"TBLPROPERTIES ('format-version'='2'{props})")
    load, _ = timed(lambda: data.writeTo(table).append())
    merges, reads = [], []
    for salt in range(1, rounds + 1):
        changes(rows // 100, rows, salt).createOrReplaceTempView("changes")
        seconds, _ = timed(lambda: spark.sql(f"MERGE INTO {table} t USING changes c ON t.id = c.id "
                                             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"))
        merges.append(seconds)
        seconds, check = timed(lambda: full_read(lambda: spark.table(table)))
        reads.append(seconds)
    results[name] = (load, min(merges), min(reads), check)

path = "s3://glueball-warehouse/bench/parquet"
swap = path + "-next"
load, _ = timed(lambda: data.write.mode("overwrite").parquet(path))
merges, reads = [], []
for salt in range(1, rounds + 1):
    def merge_parquet():
        current = spark.read.parquet(path)
        c = changes(rows // 100, rows, salt)
        merged = current.join(c.select("id"), "id", "left_anti").unionByName(c)
        merged.write.mode("overwrite").parquet(swap)
        jvm = spark.sparkContext._jvm
        conf = spark.sparkContext._jsc.hadoopConfiguration()
        fs_path = jvm.org.apache.hadoop.fs.Path(spark.conf.get("spark.glueball.benchParquet"))
        next_path = jvm.org.apache.hadoop.fs.Path(spark.conf.get("spark.glueball.benchParquetNext"))
        fs = fs_path.getFileSystem(conf)
        fs.delete(fs_path, True)
        fs.rename(next_path, fs_path)
    seconds, _ = timed(merge_parquet)
    merges.append(seconds)
    seconds, check = timed(lambda: full_read(lambda: spark.read.parquet(path)))
    reads.append(seconds)
results["parquet"] = (load, min(merges), min(reads), check)
for name, (load, merge, read, check) in results.items():
    print(f"RESULT {name} load={load:.2f} merge={merge:.2f} read={read:.2f} rows={check[0]} sum={check[1]}")
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="glueball-bench-formats-") as work:
        home = Path(work) / "home"
        script = Path(work) / "merge_bench.py"
        script.write_text(SCRIPT)
        env = {**os.environ, "GLUEBALL_HOME": str(home), "PYTHONPATH": str(ROOT)}
        env.pop("GLUEBALL_ENDPOINT", None)
        sys.path.insert(0, str(ROOT))
        from glueball.objects.locations import to_spark_path

        env["GLUEBALL_HOME"] = str(home)
        os.environ["GLUEBALL_HOME"] = str(home)
        parquet = "s3://glueball-warehouse/bench/parquet"
        cmd = [sys.executable, "-m", "glueball", "run", str(script),
               "--conf", f"spark.glueball.benchParquet={to_spark_path(parquet)}",
               "--conf", f"spark.glueball.benchParquetNext={to_spark_path(parquet + '-next')}",
               "--datalake-formats", "iceberg", "--rows", str(args.rows), "--rounds", str(args.rounds)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        results = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not results:
            output = done.stdout + done.stderr
            print(*[line for line in output.splitlines() if "Exception:" in line or "Error:" in line][:15],
                  output[-3000:], sep="\n")
            raise SystemExit(f"the benchmark run failed ({done.returncode})")
    figures = {r[0]: dict(kv.split("=", 1) for kv in r[1:]) for r in results}
    print(f"\nIceberg vs plain Parquet: MERGE of {args.rows // 100:,} changed rows (1%) into {args.rows:,} rows, "
          f"then a full read (best of {args.rounds})\n")
    print(f"{'table':<14}{'load s':>10}{'MERGE s':>10}{'read s':>10}{'rows after':>14}")
    for name, f in figures.items():
        print(f"{name:<14}{float(f['load']):>10.2f}{float(f['merge']):>10.2f}{float(f['read']):>10.2f}"
              f"{int(f['rows']):>14,}")
    parquet_figures = figures["parquet"]
    for name in ("iceberg_cow", "iceberg_mor"):
        print(f"{name}: MERGE {float(figures[name]['merge']) / float(parquet_figures['merge']):.2f}x parquet's, "
              f"read {float(figures[name]['read']) / float(parquet_figures['read']):.2f}x")
    sums = {f["sum"] for f in figures.values()}
    print("same rows and sums in all three" if len(sums) == 1 else f"SUMS DIFFER: {sums}")


if __name__ == "__main__":
    main()

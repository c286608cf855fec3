"""JSON inference with choice types (VARIANT, glueball.runtime.inference) vs ``spark.read.json``.

Generates N JSON lines (default 1,000,000) where ``price`` is a long in some records, a string in
others and null in some, and times, side by side in one Spark session:

- schema inference alone: ``spark.read.json(path)`` (Spark's sampling-free inference pass) vs
  ``frame_from_json_texts`` (its aggregate passes);
- inference plus one full read of the records (``noop`` write).

Usage: ``.venv/bin/python bench/inference.py [N] [--master local[2]]``
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path


def generate(path: Path, n: int) -> None:
    rng = random.Random(7)
    with path.open("w") as out:
        for i in range(n):
            roll = rng.random()
            price: object = rng.randint(1, 1000) if roll < 0.6 else (f"{rng.randint(1, 1000)}" if roll < 0.9 else None)
            record = {"id": i, "name": f"item-{i}", "price": price, "qty": rng.randint(0, 50),
                      "tags": ["a", "b"][: rng.randint(0, 2)], "dims": {"w": rng.randint(1, 9), "h": rng.randint(1, 9)}}
            out.write(json.dumps(record) + "\n")


class _Ctx:
    def __init__(self, spark: object) -> None:
        self.spark_session = spark


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()

    from pyspark.sql import functions as F

    from glueball.runtime.jsonrecords import frame_from_json_texts
    from glueball.runtime.spark import spark_session

    spark = spark_session(master=args.master, app_name="bench-inference")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.json"
        generate(path, args.n)
        print(f"{args.n} JSON lines, {path.stat().st_size / 1e6:.1f} MB, master {args.master}")
        # warm up the JVM and the file cache
        spark.read.text(str(path)).count()

        start = time.perf_counter()
        spark_df = spark.read.json(str(path))
        spark_infer = time.perf_counter() - start
        spark_df.write.format("noop").mode("overwrite").save()
        spark_total = time.perf_counter() - start

        start = time.perf_counter()
        texts = spark.read.text(str(path)).select("value", F.col("_metadata.file_path").alias("source"))
        records, errors = frame_from_json_texts(_Ctx(spark), texts)
        ours_infer = time.perf_counter() - start
        records.write.format("noop").mode("overwrite").save()
        ours_total = time.perf_counter() - start

        print(f"spark.read.json schema: {spark_df.schema.simpleString()}")
        print(f"glueball schema:        {records.schema.simpleString()}")
        print(f"inference only:      spark.read.json {spark_infer:6.2f}s  glueball {ours_infer:6.2f}s  "
              f"ratio {ours_infer / spark_infer:.2f}")
        print(f"inference + 1 read:  spark.read.json {spark_total:6.2f}s  glueball {ours_total:6.2f}s  "
              f"ratio {ours_total / spark_total:.2f}")
        if errors is not None:
            print(f"error records: {errors.count()}")


if __name__ == "__main__":
    main()

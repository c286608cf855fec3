"""25 data quality rules over 5M rows: glueball's planner against one rule at a time and Great Expectations.

    .venv/bin/python bench/dq.py [--rows 5000000] [--repeat 2] [--no-ge]

The data is generated with spark.range and cached (and counted) before anything is timed, so every
contender reads the same in-memory rows. The 25 rules are ones Great Expectations has a counterpart
for (table row and column counts, column existence, completeness, uniqueness, compound uniqueness,
value sets, ranges, regexes with a tolerated fraction, lengths, distinct counts, mean, sum, standard
deviation), written in DQDL and as GE expectations. Contenders:

1. glueball's evaluator: the 25 rules in one ruleset (one pass: one Spark job).
2. the naive plan: the same evaluator, one rule at a time (25 evaluations).
3. Great Expectations (installed into the venv by this script when missing; never a test
   dependency) with its Spark execution engine on the same DataFrame — or, when it cannot run on
   this Spark, on a pandas sample of the same data (said so in the output).

Spark jobs are counted with a job group per contender. The contenders run in turn, ``--repeat``
times (so that none alone profits from a warm JVM), and the best run of each counts; nothing is
asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

STATUSES = ["new", "shipped", "returned", "lost"]
COUNTRIES = ["FR", "DE", "IT", "ES", "PT"]


def rules(rows: int) -> list[tuple[str, Callable[[Any], Any]]]:
    """(DQDL rule, Great Expectations expectation) pairs."""

    def ge(name: str, **kwargs: Any) -> Callable[[Any], Any]:
        return lambda gx: getattr(gx.expectations, name)(**kwargs)

    low, high = int(rows * 0.8), int(rows * 1.2)
    return [
        (f"RowCount between {low} and {high}", ge("ExpectTableRowCountToBeBetween", min_value=low + 1,
                                                  max_value=high - 1)),
        ("ColumnCount = 8", ge("ExpectTableColumnCountToEqual", value=8)),
        ('ColumnExists "email"', ge("ExpectColumnToExist", column="email")),
        ('IsComplete "id"', ge("ExpectColumnValuesToNotBeNull", column="id")),
        ('IsComplete "status"', ge("ExpectColumnValuesToNotBeNull", column="status")),
        ('IsComplete "created"', ge("ExpectColumnValuesToNotBeNull", column="created")),
        ('Completeness "email" > 0.99', ge("ExpectColumnValuesToNotBeNull", column="email", mostly=0.99)),
        ('Completeness "country" >= 0.999', ge("ExpectColumnValuesToNotBeNull", column="country", mostly=0.999)),
        ('IsUnique "id"', ge("ExpectColumnValuesToBeUnique", column="id")),
        ('IsPrimaryKey "id" "customer"', ge("ExpectCompoundColumnsToBeUnique", column_list=["id", "customer"])),
        ('DistinctValuesCount "status" = 4', ge("ExpectColumnUniqueValueCountToBeBetween", column="status",
                                                 min_value=4, max_value=4)),
        ('DistinctValuesCount "country" = 5', ge("ExpectColumnUniqueValueCountToBeBetween", column="country",
                                                  min_value=5, max_value=5)),
        ('ColumnValues "status" in ["new", "shipped", "returned", "lost"]',
         ge("ExpectColumnValuesToBeInSet", column="status", value_set=STATUSES)),
        ('ColumnValues "country" not in ["XX"]', ge("ExpectColumnValuesToNotBeInSet", column="country",
                                                     value_set=["XX"])),
        ('ColumnValues "amount" between -1 and 100', ge("ExpectColumnValuesToBeBetween", column="amount",
                                                         min_value=-1, max_value=100, strict_min=True,
                                                         strict_max=True)),
        ('ColumnValues "quantity" >= 0', ge("ExpectColumnValuesToBeBetween", column="quantity", min_value=0)),
        ('ColumnValues "quantity" <= 19', ge("ExpectColumnValuesToBeBetween", column="quantity", max_value=19)),
        ('ColumnValues "email" matches "user[0-9]+@example\\\\.com" with threshold > 0.99',
         ge("ExpectColumnValuesToMatchRegex", column="email", regex="^user[0-9]+@example\\.com$", mostly=0.99)),
        ('ColumnLength "status" between 2 and 9', ge("ExpectColumnValueLengthsToBeBetween", column="status",
                                                      min_value=3, max_value=8)),
        ('ColumnLength "country" = 2', ge("ExpectColumnValueLengthsToEqual", column="country", value=2)),
        # GE skips nulls; ColumnLength takes no threshold, so its where clause does
        ('ColumnLength "email" <= 30 where "email is not null"', ge("ExpectColumnValueLengthsToBeBetween",
                                                                     column="email", max_value=30)),
        ('Mean "amount" between 40 and 60', ge("ExpectColumnMeanToBeBetween", column="amount", min_value=40,
                                                max_value=60)),
        ('Sum "quantity" > 0', ge("ExpectColumnSumToBeBetween", column="quantity", min_value=0, strict_min=True)),
        ('StandardDeviation "amount" < 50', ge("ExpectColumnStdevToBeBetween", column="amount", max_value=50)),
        ('Mean "quantity" between 9 and 10', ge("ExpectColumnMeanToBeBetween", column="quantity", min_value=9,
                                                 max_value=10)),
    ]


def generate(spark: Any, rows: int) -> Any:
    from pyspark.sql import functions as F

    def pick(values: list[str], key: Any) -> Any:
        return F.element_at(F.array(*[F.lit(v) for v in values]), (key % len(values) + 1).cast("int"))

    return spark.range(rows).select(
        F.col("id"),
        (F.col("id") % 100_000).alias("customer"),
        ((F.col("id") * 7919 % 1000) / 10.0).alias("amount"),
        (F.col("id") % 20).cast("int").alias("quantity"),
        pick(STATUSES, F.col("id")).alias("status"),
        pick(COUNTRIES, F.col("id") * 31).alias("country"),
        F.when(F.col("id") % 1000 == 0, F.lit(None)).otherwise(
            F.concat(F.lit("user"), F.col("id"), F.lit("@example.com"))).alias("email"),
        F.date_add(F.lit("2024-01-01").cast("date"), (F.col("id") % 365).cast("int")).alias("created"),
    )


class Jobs:
    """Counts the Spark jobs of a block through a job group."""

    def __init__(self, spark: Any) -> None:
        self.context = spark.sparkContext
        self.count = 0

    @contextlib.contextmanager
    def group(self) -> Any:
        name = f"bench-{uuid.uuid4().hex}"
        self.context.setJobGroup(name, name)
        try:
            yield
        finally:
            self.count = len(self.context.statusTracker().getJobIdsForGroup(name))
            self.context.setLocalProperty("spark.jobGroup.id", None)


def best(label: str, runs: list[float]) -> float:
    print(f"  {label:<48} runs: {', '.join(f'{r:6.2f}s' for r in runs)}")
    return min(runs)


def great_expectations() -> Any:
    try:
        import great_expectations as gx
    except ImportError:
        print("installing great_expectations into the venv (bench only) ...")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "great_expectations"], check=True)
        import great_expectations as gx
    return gx


def run_ge(gx: Any, frame: Any, pairs: list[tuple[str, Callable[[Any], Any]]], engine: str) -> tuple[bool, int]:
    context = gx.get_context(mode="ephemeral")
    with contextlib.suppress(Exception):
        context.variables.progress_bars = {"globally": False, "metric_calculations": False}
    source = context.data_sources.add_spark("spark") if engine == "spark" else context.data_sources.add_pandas("pd")
    batch = source.add_dataframe_asset("orders").add_batch_definition_whole_dataframe("all").get_batch(
        batch_parameters={"dataframe": frame})
    suite = context.suites.add(gx.ExpectationSuite(name="orders"))
    for _, expectation in pairs:
        suite.add_expectation(expectation(gx))
    with contextlib.redirect_stderr(io.StringIO()):
        result = batch.validate(suite)
    return bool(result.success), sum(1 for r in result.results if r.success)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-ge", action="store_true", help="skip Great Expectations")
    args = parser.parse_args()
    os.environ.setdefault("GLUEBALL_HOME", tempfile.mkdtemp(prefix="glueball-bench-dq-"))

    from glueball.dataquality.evaluator import evaluate
    from glueball.runtime.spark import spark_session

    spark = spark_session(app_name="glueball-bench-dq")
    pairs = rules(args.rows)
    ruleset = "Rules = [\n" + ",\n".join(f"    {rule}" for rule, _ in pairs) + "\n]"
    print(f"generating and caching {args.rows:,} rows (8 columns) ...")
    frame = generate(spark, args.rows).cache()
    frame.count()
    jobs = Jobs(spark)

    print(f"{len(pairs)} rules, {args.rows:,} rows, Spark {spark.version}, master {spark.sparkContext.master}")
    gx = None if args.no_ge else great_expectations()
    engine = "spark"
    sample = None
    ours_runs: list[float] = []
    naive_runs: list[float] = []
    ge_runs: list[float] = []
    evaluation = None
    naive: list[Any] = []
    ge_passed = ge_jobs = 0
    for _ in range(args.repeat):  # alternating, so that no contender alone enjoys a warm JVM
        start = time.perf_counter()
        evaluation = evaluate(frame, ruleset)
        ours_runs.append(time.perf_counter() - start)
        start = time.perf_counter()
        naive = [evaluate(frame, f"Rules = [{rule}]") for rule, _ in pairs]
        naive_runs.append(time.perf_counter() - start)
        if gx is None:
            continue
        if engine == "spark":
            try:
                with jobs.group():
                    start = time.perf_counter()
                    _, ge_passed = run_ge(gx, frame, pairs, "spark")
                    ge_runs.append(time.perf_counter() - start)
                ge_jobs = jobs.count
                continue
            except Exception as error:  # noqa: BLE001 - fall back to pandas and say so
                print(f"  Great Expectations cannot run on Spark {spark.version} here ({type(error).__name__}: "
                      f"{str(error)[:120]}); running it on a pandas sample of 1,000,000 rows instead")
                engine = "pandas"
                sample = frame.limit(1_000_000).toPandas()
        start = time.perf_counter()
        _, ge_passed = run_ge(gx, sample, pairs, "pandas")
        ge_runs.append(time.perf_counter() - start)

    assert evaluation is not None
    ours = best("glueball planner (25 rules, one ruleset)", ours_runs)
    failed = [r.rule for r in evaluation.rules if not r.passed]
    print(f"    passes {evaluation.passes}, Spark jobs {evaluation.spark_jobs}, rules passed "
          f"{len(pairs) - len(failed)}/{len(pairs)}{' failed: ' + ', '.join(failed) if failed else ''}")
    naive_time = best("naive plan (same evaluator, one rule at a time)", naive_runs)
    print(f"    passes {sum(n.passes for n in naive)}, Spark jobs {sum(n.spark_jobs for n in naive)}")
    ge_time = None
    if gx is not None:
        label = "Spark engine" if engine == "spark" else "pandas, 1M-row sample: not comparable row for row"
        ge_time = best(f"Great Expectations {gx.__version__} ({label})", ge_runs)
        print(f"    expectations met {ge_passed}/{len(pairs)}" + (f", Spark jobs {ge_jobs}" if engine == "spark"
                                                                  else ""))

    print("ratios (time of the other / time of the glueball planner):")
    print(f"  naive plan         {naive_time / ours:5.1f}x")
    if ge_time is not None:
        print(f"  Great Expectations {ge_time / ours:5.1f}x")


if __name__ == "__main__":
    main()

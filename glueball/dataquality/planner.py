"""The Spark work of one evaluation: every metric of a ruleset in as few passes as possible.

Rules register what they need (:mod:`glueball.dataquality._measures`) and the plan folds it:

1. **One aggregation** for every scan-shareable metric: row counts, completeness (``count_if`` of
   non-null), mean, sum, population standard deviation, correlation, min/max (lengths too), and the
   ``count_if`` of every row-level rule's per-row condition (ColumnValues, ColumnLength,
   ColumnDataType, DataFreshness, thresholds) — ``where`` variants as conditional aggregates.
2. **One frequency pass** for every frequency-based metric — Uniqueness, IsUnique, IsPrimaryKey,
   UniqueValueRatio, DistinctValuesCount, Entropy — whatever their column sets: rules over the same
   column set (and ``where``) share one group-by counting each value (combination), each group-by is
   reduced to one row (rows, distinct, unique, ``Σ n·ln n``), and the rows of all column sets are
   collected by one action over their union. (A single ``GROUPING SETS`` query would read the data
   once, but expanding every row once per column set made it 2-3x slower here than the union.)
3. **Own passes** only for what reads other data or arbitrary SQL: CustomSql, ReferentialIntegrity,
   DatasetMatch, RowCountMatch's and AggregateMatch's reference side, and ROW-evaluated composite
   rules over window-based (uniqueness) or join-based rules.

Schema rules (ColumnCount, ColumnExists, ColumnNamesMatchPattern, SchemaMatch) read no data. The
plan counts the Spark actions it runs (:attr:`Plan.passes`); the evaluator counts Spark's jobs
(adaptive execution runs each shuffle stage of a pass as a job of its own).

Column names and ``where`` clauses are checked here, before any data is read: a rule that names a
column the data lacks, or has a ``where`` clause Spark cannot analyze, is refused with
:class:`PreconditionFailed`, leaving the other rules to run. Should a shared pass still fail — Spark
refusing one rule's aggregate when it analyzes the pass, or a value it cannot convert while running
it — its aggregates are tried again in halves until the failing ones are found: only the rules
reading those fail, and the pass count grows only when something failed (an analysis that fails
runs no job and is not counted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import StructField

__all__ = ["Grouping", "Plan", "PlanError", "PreconditionFailed"]

#: internal column names get this prefix (never a user column's)
HELPER = "__dq_"


class PlanError(ValueError):
    """A rule that cannot be planned (an unknown alias, invalid SQL...): its outcome is Error."""


class PreconditionFailed(PlanError):
    """The data does not meet a rule's precondition — a column it lacks, or of a type the rule cannot
    use, a ``where`` clause its columns cannot satisfy: the rule is Failed with this reason, as deequ
    (Glue's engine) fails a constraint whose precondition does not hold."""


@dataclass(frozen=True)
class Grouping:
    """The keys of one column set's frequency statistics in the plan's results."""

    distinct: str  # value combinations seen (rows with at least one non-null value)
    unique: str  # combinations seen exactly once
    rows: str  # rows counted (Σ n)
    n_log_n: str  # Σ n·ln(n)
    count: str  # rows the metric is relative to (all rows passing the where clause, NULLs included)


class Plan:
    """Metrics of one evaluation, registered by rules, computed by :meth:`execute`."""

    def __init__(self, frame: DataFrame, additional: Mapping[str, DataFrame] | None = None) -> None:
        self.frame = frame
        self.additional = dict(additional or {})
        self.spark = frame.sparkSession
        self.fields = {f.name.lower(): f for f in frame.schema.fields}
        self._aggregates: dict[str, tuple[str, Column]] = {}  # description -> (alias, aggregate)
        self._groupings: dict[tuple[tuple[str, ...], str | None], Grouping] = {}
        self._passes: dict[str, Callable[[], float | None]] = {}
        self._wheres: dict[str, Column] = {}
        self._values: dict[str, float | None] = {}
        self._errors: dict[str, BaseException] = {}
        self.passes = 0
        self.executed = False

    # ------------------------------------------------------------ checks

    def field(self, name: str) -> StructField:
        """The frame's field called ``name`` (case-insensitively, as Spark SQL resolves it)."""
        found = self.fields.get(str(name).lower())
        if found is None and "." in str(name):  # a field of a struct column: "info.city"
            from pyspark.sql.utils import AnalysisException

            try:
                return self.frame.select(self.column(name)).schema.fields[0]
            except AnalysisException:
                pass
        if found is None:
            raise PreconditionFailed(f"Input data does not include column {name}!")
        return found

    def column(self, name: str) -> Column:
        """The column ``name`` (a top-level column, however spelled, or a ``struct.field`` path)."""
        from pyspark.sql import functions as F

        field = self.fields.get(str(name).lower())
        return F.col(f"`{field.name}`") if field is not None else F.col(str(name))


    def where(self, text: str | None) -> Column | None:
        """The ``where`` clause as a boolean column (NULL counts as false), checked against the data."""
        if text is None:
            return None
        if text not in self._wheres:
            from pyspark.sql import functions as F
            from pyspark.sql.utils import AnalysisException, ParseException

            try:
                condition = F.expr(text)
                self.frame.select(condition)  # analyzed at once: unknown columns and syntax errors surface here
            except (ParseException, AnalysisException) as error:
                raise PreconditionFailed(f'The where clause "{text}" is not valid Spark SQL: '
                                         f"{_first_line(error)}") from None
            self._wheres[text] = F.coalesce(condition.cast("boolean"), F.lit(False))
        return self._wheres[text]

    def frame_for(self, alias: str) -> DataFrame:
        """An additional data source by its alias (``reference``), or the primary frame for ``primary``."""
        if alias in self.additional:
            return self.additional[alias]
        if alias.lower() == "primary":
            return self.frame
        known = ", ".join(sorted(self.additional)) or "none were given"
        # Failed, as the reference evaluator fails a rule whose reference dataset is not there
        raise PreconditionFailed(f"{alias} not found in additional sources (additional data sources: {known})")

    # ------------------------------------------------------------ registration

    def aggregate(self, description: str, build: Callable[[], Column]) -> str:
        """Register one aggregate of the single aggregation (deduplicated by ``description``)."""
        if description not in self._aggregates:
            alias = f"{HELPER}m{len(self._aggregates)}"
            self._aggregates[description] = (alias, build())
        return description

    def count(self, where: str | None = None) -> str:
        """Rows (passing ``where``)."""
        from pyspark.sql import functions as F

        condition = self.where(where)
        if condition is None:
            return self.aggregate("count", lambda: F.count(F.lit(1)))
        return self.aggregate(f"count where {where}", lambda: F.count_if(condition))

    def count_if(self, description: str, predicate: Column, where: str | None = None) -> str:
        """Rows (passing ``where``) for which ``predicate`` is true."""
        from pyspark.sql import functions as F

        condition = self.where(where)
        test = predicate if condition is None else condition & predicate
        suffix = f" where {where}" if where else ""
        return self.aggregate(f"count_if {description}{suffix}", lambda: F.count_if(F.coalesce(test, F.lit(False))))

    def grouped(self, columns: Sequence[str], where: str | None = None) -> Grouping:
        """Frequency statistics of the value combinations of ``columns`` (rows passing ``where``)."""
        names = tuple(sorted({self.path(c) for c in columns}, key=str.lower))
        self.where(where)  # checked before any data is read
        key = (names, where)
        if key not in self._groupings:
            prefix = f"grouped {','.join(names)}" + (f" where {where}" if where else "")
            self._groupings[key] = Grouping(f"{prefix}.distinct", f"{prefix}.unique", f"{prefix}.rows",
                                            f"{prefix}.nlogn", f"{prefix}.count")
        return self._groupings[key]

    def path(self, name: str) -> str:
        """How a column is named in the plan: its own spelling, or the checked ``struct.field`` path."""
        field = self.fields.get(str(name).lower())
        if field is not None:
            return field.name
        self.field(name)
        return str(name)

    def own_pass(self, description: str, run: Callable[[], float | None]) -> str:
        """A pass of its own (one Spark action) whose single number ``run`` returns."""
        self._passes.setdefault(description, run)
        return description

    # ------------------------------------------------------------ execution

    def execute(self) -> None:
        """Run every pass. A failing pass fails only the metrics that read it."""
        if not self._run_shared():  # run again in parts, to find what failed
            self._run_aggregation()
            self._run_groupings()
        for description, run in self._passes.items():
            self.passes += 1
            try:
                self._values[description] = run()
            except Exception as error:  # noqa: BLE001 - a rule's own pass failing is that rule's Error outcome
                self._errors[description] = error
        self.executed = True

    def value(self, key: str) -> float | None:
        """A computed metric; raises the error of the pass that should have computed it."""
        if key in self._errors:
            raise self._errors[key]
        return self._values[key]

    def _run_shared(self) -> bool:
        """The aggregation and every column set's frequencies in one action: the union of the aggregation's
        row and each set's row, every metric as a double (the plan keeps them as floats). Adaptive execution
        is off for it: it would submit each shuffle stage as a Spark job of its own, and so the whole pass is
        one job, its stages scheduled together. False when it failed (nothing is kept then)."""
        from functools import reduce

        from pyspark.sql import functions as F

        wanted = list(self._aggregates)
        if wanted:
            refused = set(self._refused(wanted))
            wanted = [d for d in wanted if d not in refused]
        specs = list(self._groupings.items())
        if not wanted and not specs:
            return True
        parts = []
        if wanted:
            values = F.array(*[self._aggregates[d][1].cast("double") for d in wanted])
            parts.append(self.frame.agg(F.lit(-1).alias("set"), values.alias("values")))
        for index, ((names, where), _) in enumerate(specs):
            row = self._frequencies(names, where, index)
            parts.append(row.select("set", F.array("count", "distinct", "unique", "rows", "nlogn").alias("values")))
        try:
            union = reduce(lambda a, b: a.unionByName(b), parts)  # analyzed here: no job
            self.passes += 1
            with _adaptive_off(self.spark, self.frame):
                found = {row["set"]: row["values"] for row in union.collect()}
        except Exception:  # noqa: BLE001 - run again in parts: only the failing metrics fail
            return False
        for description, value in zip(wanted, found.get(-1) or (), strict=False):
            self._values[description] = value
        for index, (_, grouping) in enumerate(specs):
            count, distinct, unique, rows, n_log_n = found[index]
            self._values[grouping.count] = count or 0.0
            self._values[grouping.distinct] = distinct or 0.0
            self._values[grouping.unique] = unique or 0.0
            self._values[grouping.rows] = rows or 0.0
            self._values[grouping.n_log_n] = n_log_n or 0.0
        return True

    def _refused(self, descriptions: Sequence[str]) -> list[str]:
        """The aggregates Spark refuses to analyze (halving the set; analysis runs no job), with their errors."""
        from pyspark.sql.utils import AnalysisException

        try:
            self.frame.agg(*[self._aggregates[d][1].alias(self._aggregates[d][0]) for d in descriptions])
            return []
        except AnalysisException as error:
            if len(descriptions) == 1:
                self._errors[descriptions[0]] = PlanError(f"{descriptions[0]} cannot be computed: "
                                                          f"{_first_line(error)}")
                return list(descriptions)
            half = len(descriptions) // 2
            return self._refused(descriptions[:half]) + self._refused(descriptions[half:])

    def _run_aggregation(self, descriptions: Sequence[str] | None = None) -> None:
        """One pass for ``descriptions`` (all aggregates); when it fails, each half again, to isolate."""
        wanted = list(self._aggregates) if descriptions is None else list(descriptions)
        if descriptions is None and wanted:
            refused = set(self._refused(wanted))
            wanted = [d for d in wanted if d not in refused]
        if not wanted:
            return
        columns = [self._aggregates[d][1].alias(self._aggregates[d][0]) for d in wanted]
        try:
            aggregated = self.frame.agg(*columns)  # analyzed here: no job runs
            self.passes += 1
            row = aggregated.collect()[0]
        except Exception as error:  # noqa: BLE001 - isolated below: only the failing aggregates fail
            if len(wanted) == 1:
                self._errors[wanted[0]] = error
                return
            half = len(wanted) // 2
            self._run_aggregation(wanted[:half])
            self._run_aggregation(wanted[half:])
            return
        for description in wanted:
            value = row[self._aggregates[description][0]]
            self._values[description] = None if value is None else float(value)

    def _frequencies(self, names: tuple[str, ...], where: str | None, index: int) -> DataFrame:
        """One row of frequency statistics for the value combinations of ``names``."""
        from pyspark.sql import functions as F

        count = f"{HELPER}n"
        n = F.col(count)
        condition = self.where(where)
        base = self.frame if condition is None else self.frame.where(condition)
        keys = [f"{HELPER}g{i}" for i in range(len(names))]
        frequencies = (base.select(*[self.column(c).alias(k) for c, k in zip(names, keys, strict=True)])
                       .groupBy(*keys).agg(F.count(F.lit(1)).alias(count)))
        seen = F.lit(False)
        for key in keys:  # a combination of NULLs only is no value (deequ, Glue's engine, drops it too)
            seen = seen | F.col(key).isNotNull()
        return frequencies.agg(
            F.lit(index).alias("set"), F.sum(n).cast("double").alias("count"),
            F.count_if(seen).cast("double").alias("distinct"),
            F.count_if(seen & (n == 1)).cast("double").alias("unique"),
            F.sum(F.when(seen, n)).cast("double").alias("rows"),
            F.sum(F.when(seen, n * F.log(n))).cast("double").alias("nlogn"))

    def _run_groupings(self, indexes: Sequence[int] | None = None) -> None:
        """One action for every column set: a union of per-set frequency aggregations, one row each.

        Should it fail, each half of the column sets runs again, so that only a failing set fails.
        """
        from functools import reduce

        specs = list(self._groupings.items())
        wanted = list(range(len(specs))) if indexes is None else list(indexes)
        if not wanted:
            return
        try:
            parts = [self._frequencies(specs[i][0][0], specs[i][0][1], i) for i in wanted]  # analyzed: no job
            union = reduce(lambda a, b: a.unionByName(b), parts)
            self.passes += 1
            found = {row["set"]: row for row in union.collect()}
        except Exception as error:  # noqa: BLE001 - isolated below
            if len(wanted) == 1:
                grouping = specs[wanted[0]][1]
                keys_of = (grouping.distinct, grouping.unique, grouping.rows, grouping.n_log_n, grouping.count)
                self._errors.update(dict.fromkeys(keys_of, error))
                return
            half = len(wanted) // 2
            self._run_groupings(wanted[:half])
            self._run_groupings(wanted[half:])
            return
        for index in wanted:
            grouping = specs[index][1]
            row = found[index]
            self._values[grouping.count] = row["count"] or 0.0
            self._values[grouping.distinct] = row["distinct"] or 0.0
            self._values[grouping.unique] = row["unique"] or 0.0
            self._values[grouping.rows] = row["rows"] or 0.0
            self._values[grouping.n_log_n] = row["nlogn"] or 0.0


@contextmanager
def _adaptive_off(spark: SparkSession, frame: DataFrame) -> Iterator[None]:
    """Adaptive query execution off for the queries run inside (restored after, whatever it was).

    Without it nothing coalesces the shuffles' partitions, so each group-by would shuffle into
    ``spark.sql.shuffle.partitions`` (200) tasks whatever the data's size: they are as many as the frame's
    own partitions (its size in splits), at least the default parallelism and at most that setting."""
    settings = {"spark.sql.adaptive.enabled": "false"}
    key = "spark.sql.shuffle.partitions"
    configured = int(spark.conf.get(key, "200") or 200)
    wanted = max(spark.sparkContext.defaultParallelism, frame.rdd.getNumPartitions())
    settings[key] = str(min(configured, wanted))
    before = {name: spark.conf.get(name, None) for name in settings}
    for name, value in settings.items():
        spark.conf.set(name, value)
    try:
        yield
    finally:
        for name, old in before.items():
            if old is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, old)


def _first_line(error: BaseException) -> str:
    text = str(getattr(error, "desc", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__

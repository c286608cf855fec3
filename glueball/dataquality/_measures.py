"""What each rule type measures: the metrics it registers in the plan, its per-row condition, its verdict.

:class:`Measurer` turns one rule (or analyzer, or the rule a ``DetectAnomalies`` watches) into a
:class:`Measure`: a function computing its Glue-named metrics once the plan has run, the metric its
condition compares (numeric rules), a ``decide`` function for rules whose verdict is not a plain
comparison (boolean rules, thresholds over per-row compliance), and, for row-level rules, the per-row
outcome as a column (true pass, false fail, NULL skipped by the ``where`` clause).

Metric definitions (Glue's, whose engine is deequ): Completeness = non-null / rows; Uniqueness = value
combinations seen exactly once / rows; UniqueValueRatio = seen once / distinct; DistinctValuesCount =
distinct non-null combinations; Entropy = -Σ p·ln p with p = count / rows; StandardDeviation is the
population standard deviation; ColumnCorrelation Pearson's; ``where`` restricts the rows first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from glueball.dataquality import _predicates as predicates
from glueball.dataquality._files import file_analyzer, file_measure
from glueball.dataquality._measure_types import Measure, MetricError, Metrics, NoRows
from glueball.dataquality._operands import Resolver, satisfies
from glueball.dataquality.ast import Parameter, Rule, Ruleset
from glueball.dataquality.outcomes import FileInfo, constraint_not_met
from glueball.dataquality.planner import HELPER, Plan, PlanError, PreconditionFailed
from glueball.dataquality.rules import RULE_TYPES, length_compliance

if TYPE_CHECKING:
    import datetime as dt

    from pyspark.sql import Column, DataFrame

__all__ = ["Measure", "Measurer", "MetricError", "Metrics"]

_AGGREGATION = re.compile(r"\s*(sum|avg)\(\s*([^()]+?)\s*\)\s*", re.I)
_REFERENCE = re.compile(r"([^.{}]+)\.(?:\{([^{}]+)\}|([^{}]+))")
_NUMERIC = ("byte", "short", "integer", "long", "float", "double", "decimal")


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


class Measurer:
    """Compiles rules into :class:`Measure` objects against one :class:`Plan`."""

    def __init__(self, plan: Plan, ruleset: Ruleset, now: dt.datetime, files: Sequence[FileInfo] | None) -> None:
        self.plan = plan
        self.ruleset = ruleset
        self.now = now
        self.files = files
        self._joins = 0

    def resolver(self, rule: Rule | None, metric: str = "") -> Resolver:
        zone = rule.tags.get("timeZone") if rule is not None else None
        return Resolver(lambda k: [], metric, self.now, str(zone) if zone else None)

    # ------------------------------------------------------------ entry points

    def rule(self, rule: Rule) -> Measure:
        """The measure of a rule of the Rules section."""
        method = getattr(self, f"_{rule.rule_type}", None)
        if method is None:  # pragma: no cover - the parser refuses unknown types
            raise PlanError(f"unsupported rule type {rule.rule_type}")
        measure: Measure = method(rule.parameters, rule.where, rule)
        return measure

    def analyzer(self, analyzer_type: str, parameters: tuple[Parameter, ...], where: str | None) -> Measure:
        """The measure of an analyzer (or of what a DetectAnomalies rule watches): metrics only."""
        if analyzer_type == "AllStatistics":
            return self._all_statistics(parameters, where)
        if analyzer_type == "ColumnValues":
            return self._value_range(str(parameters[0]), where)
        if analyzer_type in ("FileFreshness", "FileSize", "FileMatch", "FileUniqueness"):
            return file_analyzer(analyzer_type, tuple(str(p) for p in parameters), self.files)
        if analyzer_type in ("ColumnDataType", "DataFreshness"):
            self.plan.field(str(parameters[0]))
            raise PlanError(f"{analyzer_type} has no metric without a condition: as an analyzer it reports none")
        if analyzer_type == "ColumnLength":
            return self._lengths(str(parameters[0]), where)
        name = "CustomSql" if analyzer_type == "CustomSQL" else analyzer_type
        method = getattr(self, f"_{name}")
        measure: Measure = method(parameters, where, None)
        return measure

    # ------------------------------------------------------------ helpers

    def _names(self, rule_type: str, parameters: tuple[Parameter, ...], rule: Rule | None) -> tuple[str, ...]:
        return RULE_TYPES[rule_type].metrics(parameters, rule)

    def _numeric(self, column: str) -> Column:
        field = self.plan.field(column)
        kind = field.dataType.typeName()
        if kind not in _NUMERIC:
            raise PreconditionFailed(f"Column {field.name} is {field.dataType.simpleString()}, not numeric: "
                            "Mean, Sum, StandardDeviation and ColumnCorrelation need numbers")
        return self.plan.column(column).cast("double")

    def _restricted(self, value: Column, where: str | None) -> Column:
        from pyspark.sql import functions as F

        condition = self.plan.where(where)
        return value if condition is None else F.when(condition, value)

    def _row(self, predicate: Column, where: str | None) -> Column:
        from pyspark.sql import functions as F

        condition = self.plan.where(where)
        return predicate if condition is None else F.when(condition, predicate)

    def _compliance(self, rule: Rule, name: str, predicate: Column, where: str | None,
                    extra: Callable[[], Metrics] | None = None, always: bool = True) -> Measure:
        """A row-level rule: compliance = rows passing / rows, compared with the threshold (default: all)."""
        passing = self.plan.count_if(rule.to_dqdl(), predicate, where)
        rows = self.plan.count(where)

        def compliance() -> float | None:
            return _ratio(self.plan.value(passing), self.plan.value(rows))

        def metrics() -> Metrics:
            found = extra() if extra else {}
            if always or rule.threshold is not None:
                found[name] = compliance()
            return found

        return Measure(metrics, compared=name, decide=self._threshold(rule, compliance),
                       row=self._row(predicate, where))

    def _threshold(self, rule: Rule, compliance: Callable[[], float | None]) -> Callable[[Metrics], str | None]:
        def decide(_: Metrics) -> str | None:
            value = compliance()
            if value is None and rule.rule_type in _PASSED_WITHOUT_ROWS:
                return None
            if value is None:
                raise NoRows("No rows to evaluate" + (f' where "{rule.where}"' if rule.where else ""))
            if rule.threshold is not None:
                ok = satisfies(rule.threshold, value, self.resolver(rule))
            else:
                ok = value == 1.0
            return None if ok else constraint_not_met(value)

        return decide

    def _equals_one(self, names: Sequence[str]) -> Callable[[Metrics], str | None]:
        def decide(metrics: Metrics) -> str | None:
            for name in names:
                value = metrics.get(name)
                if value is None:
                    raise NoRows(f"{name} could not be computed: no rows to evaluate")
                if value != 1.0:
                    return constraint_not_met(value)
            return None

        return decide

    # ------------------------------------------------------------ dataset and schema

    def _RowCount(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        rows = self.plan.count(where)
        return Measure(lambda: {"Dataset.*.RowCount": self.plan.value(rows)}, compared="Dataset.*.RowCount")

    def _ColumnCount(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        count = float(len(self.plan.fields))
        return Measure(lambda: {"Dataset.*.ColumnCount": count}, compared="Dataset.*.ColumnCount")

    def _ColumnExists(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        name = str(params[0])
        try:
            self.plan.field(name)
            exists = True
        except PlanError:
            exists = False
        metric = f"Dataset.{name}.ColumnExists"

        def decide(_: Metrics) -> str | None:
            return None if exists else f"Column {name} does not exist"

        return Measure(lambda: {metric: 1.0 if exists else 0.0}, decide=decide)

    def _ColumnNamesMatchPattern(self, params: tuple[Parameter, ...], where: str | None,  # noqa: N802
                                 rule: Rule | None) -> Measure:
        pattern = re.compile(str(params[0]))
        names = [f.name for f in self.plan.fields.values()]
        misfits = [n for n in names if not pattern.fullmatch(n)]
        ratio = (len(names) - len(misfits)) / len(names) if names else 1.0
        metric = "Dataset.*.ColumnNamesPatternMatchRatio"

        def decide(_: Metrics) -> str | None:
            return None if not misfits else f"Columns not matching the pattern: {', '.join(misfits)}"

        return Measure(lambda: {metric: ratio}, compared=metric, decide=decide)

    def _ColumnDataType(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        assert rule is not None and rule.condition is not None
        field = self.plan.field(str(params[0]))
        form = rule.tags.get("format")
        predicate = predicates.data_type(self.plan.column(str(params[0])), field.dataType, rule.condition,
                                         None if form is None else str(form))
        return self._compliance(rule, f"Column.{params[0]}.ColumnDataType.Compliance", predicate, where)

    # ------------------------------------------------------------ per-row conditions

    def _ColumnValues(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        if rule is None:
            return self._value_range(str(params[0]), where)
        assert rule.condition is not None
        field = self.plan.field(str(params[0]))
        predicate = predicates.column_values(self.plan.column(str(params[0])), field.dataType, rule.condition,
                                             self.resolver(rule), ignore_case=_flag(rule, "ignoreCase"))
        return self._compliance(rule, f"Column.{params[0]}.ColumnValues.Compliance", predicate, where)

    def _ColumnLength(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        lengths = self._lengths(str(params[0]), where)
        if rule is None:
            return lengths
        assert rule.condition is not None
        predicate = predicates.column_length(self.plan.column(str(params[0])), rule.condition, self.resolver(rule))
        return self._compliance(rule, f"Column.{params[0]}.LengthCompliance", predicate, where,
                                extra=lengths.metrics, always=length_compliance(rule))

    def _lengths(self, column: str, where: str | None) -> Measure:
        from pyspark.sql import functions as F

        self.plan.field(column)
        length = self._restricted(F.length(self.plan.column(column).cast("string")), where)
        suffix = f" where {where}" if where else ""
        shortest = self.plan.aggregate(f"min length {column}{suffix}", lambda: F.min(length))
        longest = self.plan.aggregate(f"max length {column}{suffix}", lambda: F.max(length))
        return Measure(lambda: {f"Column.{column}.MinimumLength": self.plan.value(shortest),
                                f"Column.{column}.MaximumLength": self.plan.value(longest)})

    def _value_range(self, column: str, where: str | None) -> Measure:
        """The ColumnValues analyzer: minimum and maximum of a numeric column."""
        from pyspark.sql import functions as F

        value = self._restricted(self._numeric(column), where)
        suffix = f" where {where}" if where else ""
        low = self.plan.aggregate(f"min {column}{suffix}", lambda: F.min(value))
        high = self.plan.aggregate(f"max {column}{suffix}", lambda: F.max(value))
        return Measure(lambda: {f"Column.{column}.Minimum": self.plan.value(low),
                                f"Column.{column}.Maximum": self.plan.value(high)})

    def _DataFreshness(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        assert rule is not None and rule.condition is not None
        self.plan.field(str(params[0]))
        predicate = predicates.freshness(self.plan.column(str(params[0])), rule.condition, self.resolver(rule))
        return self._compliance(rule, f"Column.{params[0]}.DataFreshness.Compliance", predicate, where)

    # ------------------------------------------------------------ completeness and aggregates

    def _completeness(self, column: str, where: str | None) -> tuple[str, Callable[[], float | None]]:
        self.plan.field(column)
        present = self.plan.count_if(f"{column} is not null", self.plan.column(column).isNotNull(), where)
        rows = self.plan.count(where)
        return f"Column.{column}.Completeness", lambda: _ratio(self.plan.value(present), self.plan.value(rows))

    def _Completeness(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        name, value = self._completeness(str(params[0]), where)
        row = self._row(self.plan.column(str(params[0])).isNotNull(), where)
        return Measure(lambda: {name: value()}, compared=name, row=row)

    def _IsComplete(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        measure = self._Completeness(params, where, rule)
        measure.decide = self._equals_one([f"Column.{params[0]}.Completeness"])
        return measure

    def _statistic(self, params: tuple[Parameter, ...], where: str | None, statistic: str,
                   build: Callable[[Column], Column]) -> Measure:
        column = str(params[0])
        value = self._restricted(self._numeric(column), where)
        suffix = f" where {where}" if where else ""
        key = self.plan.aggregate(f"{statistic} {column}{suffix}", lambda: build(value))
        name = f"Column.{column}.{statistic}"
        return Measure(lambda: {name: self.plan.value(key)}, compared=name)

    def _Mean(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        from pyspark.sql import functions as F

        return self._statistic(params, where, "Mean", F.avg)

    def _Sum(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        from pyspark.sql import functions as F

        return self._statistic(params, where, "Sum", F.sum)

    def _StandardDeviation(self, params: tuple[Parameter, ...], where: str | None,  # noqa: N802
                           rule: Rule | None) -> Measure:
        from pyspark.sql import functions as F

        return self._statistic(params, where, "StandardDeviation", F.stddev_pop)

    def _Variance(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        from pyspark.sql import functions as F

        return self._statistic(params, where, "Variance", F.var_pop)

    def _ColumnCorrelation(self, params: tuple[Parameter, ...], where: str | None,  # noqa: N802
                           rule: Rule | None) -> Measure:
        from pyspark.sql import functions as F

        first, second = (self._restricted(self._numeric(str(p)), where) for p in params[:2])
        suffix = f" where {where}" if where else ""
        key = self.plan.aggregate(f"corr {params[0]},{params[1]}{suffix}", lambda: F.corr(first, second))
        name = self._names("ColumnCorrelation", params, rule)[0]
        return Measure(lambda: {name: self.plan.value(key)}, compared=name)

    def _all_statistics(self, params: tuple[Parameter, ...], where: str | None) -> Measure:
        """A column's statistics; ``AllStatistics of AllColumns`` (no such column): every column's."""
        if str(params[0]) == "AllColumns" and "allcolumns" not in self.plan.fields:
            columns = [(f.name,) for f in self.plan.frame.schema.fields]
        else:
            columns = [(str(params[0]),)]
        parts = [self._RowCount((), where, None)]
        for column in columns:
            parts += [self._Completeness(column, where, None), self._Uniqueness(column, where, None)]
            if self.plan.field(column[0]).dataType.typeName() in _NUMERIC:
                parts += [self._Mean(column, where, None), self._StandardDeviation(column, where, None),
                          self._value_range(column[0], where)]

        def metrics() -> Metrics:
            found: Metrics = {}
            for part in parts:
                found.update(part.metrics())
            return found

        return Measure(metrics)

    # ------------------------------------------------------------ frequencies (one pass for all column sets)

    def _frequencies(self, params: tuple[Parameter, ...], where: str | None) -> Callable[[str], float | None]:
        grouping = self.plan.grouped([str(p) for p in params], where)

        def stat(name: str) -> float | None:
            rows = self.plan.value(grouping.count)
            distinct, unique = self.plan.value(grouping.distinct), self.plan.value(grouping.unique)
            if name == "Uniqueness":
                return _ratio(unique, rows)
            if name == "UniqueValueRatio":
                return _ratio(unique, distinct)
            if name == "DistinctValuesCount":
                return distinct
            if not rows:
                return None
            counted, n_log_n = self.plan.value(grouping.rows) or 0.0, self.plan.value(grouping.n_log_n) or 0.0
            return counted / rows * math.log(rows) - n_log_n / rows  # -Σ (n/rows)·ln(n/rows)

        return stat

    def _unique_row(self, params: tuple[Parameter, ...], where: str | None) -> Column:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        columns = [self.plan.column(str(p)) for p in params]
        condition = self.plan.where(where)
        present = F.lit(False)
        for column in columns:
            present = present | column.isNotNull()
        counted = F.lit(1) if condition is None else F.when(condition, 1)
        occurrences = F.sum(counted).over(Window.partitionBy(*columns))
        return self._row(present & (occurrences == 1), where)

    def _Uniqueness(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        stat = self._frequencies(params, where)
        name = self._names("Uniqueness", params, rule)[0]
        return Measure(lambda: {name: stat("Uniqueness")}, compared=name, row=self._unique_row(params, where),
                       windowed=True)

    def _IsUnique(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        measure = self._Uniqueness(params, where, rule)
        measure.decide = self._equals_one([measure.compared or ""])
        return measure

    def _IsPrimaryKey(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        complete = [self._completeness(str(p), where) for p in params]
        unique = self._Uniqueness(params, where, rule)
        names = [name for name, _ in complete] + [unique.compared or ""]

        def metrics() -> Metrics:
            return {**{name: value() for name, value in complete}, **unique.metrics()}

        present = _all_of([self.plan.column(str(p)).isNotNull() for p in params])
        row = unique.row if unique.row is not None else None
        return Measure(metrics, decide=self._equals_one(names),
                       row=None if row is None else self._row(present, where) & row, windowed=True)

    def _frequency_metric(self, statistic: str, params: tuple[Parameter, ...], where: str | None) -> Measure:
        stat = self._frequencies(params, where)
        name = f"Column.{params[0]}.{statistic}"
        return Measure(lambda: {name: stat(statistic)}, compared=name)

    def _UniqueValueRatio(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        return self._frequency_metric("UniqueValueRatio", params, where)

    def _DistinctValuesCount(self, params: tuple[Parameter, ...], where: str | None,  # noqa: N802
                             rule: Rule | None) -> Measure:
        return self._frequency_metric("DistinctValuesCount", params, where)

    def _Entropy(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        return self._frequency_metric("Entropy", params, where)

    # ------------------------------------------------------------ SQL and other data sources

    def _views(self) -> dict[str, DataFrame]:
        views = {"primary": self.plan.frame, **self.plan.additional}
        primary = self.ruleset.primary_source
        if primary:
            views.setdefault(primary, self.plan.frame)
        return views

    def sql(self, statement: str) -> DataFrame:
        """``statement`` over the temporary views ``primary`` and every additional source's alias."""
        from glueball.dataquality._sql import run_sql

        return run_sql(self.plan.spark, statement, self._views())

    def _CustomSql(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        statement = str(params[0])
        result = self.sql(statement)
        metric = "Dataset.*.CustomSQL"
        if rule is None or rule.condition is not None:
            if len(result.columns) != 1:
                raise PlanError(f"The CustomSql statement must return one column, not {len(result.columns)}: "
                                f"{statement}")

            def single() -> float | None:
                rows = result.take(2)
                if len(rows) != 1:
                    raise MetricError(f"The CustomSql statement must return one row, not {len(rows)}")
                value = rows[0][0]
                if value is not None and not isinstance(value, int | float):
                    try:
                        value = float(value)
                    except (TypeError, ValueError):
                        raise MetricError(f"The CustomSql statement returned {value!r}, not a number") from None
                return None if value is None else float(value)

            key = self.plan.own_pass(f"sql {statement}", single)
            return Measure(lambda: {metric: self.plan.value(key)}, compared=metric)
        return self._row_sql(rule, statement, result, f"{metric}.Compliance")

    def _row_sql(self, rule: Rule, statement: str, result: DataFrame, metric: str) -> Measure:
        """CustomSql without a condition: the rows it returns pass, matched on the columns it selects. As in the
        reference evaluator, the rule fails when none of those columns is the data's, or when some are not."""
        common = [c for c in result.columns if c.lower() in self.plan.fields]
        if not common:
            raise PreconditionFailed("The output from CustomSQL must contain at least one column that matches the "
                                     "input dataset. Ensure that matching columns are returned from the SQL.")
        others = [c for c in result.columns if c not in common]
        if others:
            raise PreconditionFailed("The columns returned from the SQL statement should only belong to the primary "
                                     f"table. Columns not found: {', '.join(others)}")
        pairs = [(self.plan.field(c).name, c) for c in common]
        matched = self._semi_join_count(f"rows of {statement}", self.plan.frame, result.distinct(), pairs,
                                        null_safe=True)
        rows = self.plan.count()

        def compliance() -> float | None:
            return _ratio(self.plan.value(matched), self.plan.value(rows))

        flag, prepare = self._hit_flag(result.distinct(), pairs, null_safe=True)
        return Measure(lambda: {metric: compliance()}, compared=metric, decide=self._threshold(rule, compliance),
                       row=flag, prepare=prepare)

    def _semi_join_count(self, description: str, frame: DataFrame, other: DataFrame,
                         pairs: Sequence[tuple[str, str]], null_safe: bool) -> str:
        """Rows of ``frame`` with a row of ``other`` equal on ``pairs`` (frame column, other column)."""
        renamed = other.select(*[other[theirs].alias(f"{HELPER}k{i}") for i, (_, theirs) in enumerate(pairs)])
        condition = None
        for i, (mine, _) in enumerate(pairs):
            left, right = frame[mine], renamed[f"{HELPER}k{i}"]
            equal = left.eqNullSafe(right) if null_safe else left == right
            condition = equal if condition is None else condition & equal
        return self.plan.own_pass(description, lambda: float(frame.join(renamed, condition, "left_semi").count()))

    def _hit_flag(self, other: DataFrame, pairs: Sequence[tuple[str, str]],
                  null_safe: bool) -> tuple[Column, Callable[[DataFrame], DataFrame]]:
        """A per-row flag: does ``other`` (distinct) hold a row equal on ``pairs``? Added by a left join."""
        from pyspark.sql import functions as F

        self._joins += 1
        tag = f"{HELPER}j{self._joins}"
        keys = [f"{tag}_k{i}" for i in range(len(pairs))]
        renamed = other.select(*[other[theirs].alias(keys[i]) for i, (_, theirs) in enumerate(pairs)],
                               F.lit(True).alias(tag)).distinct()

        def prepare(frame: DataFrame) -> DataFrame:
            condition = None
            for i, (mine, _) in enumerate(pairs):
                equal = frame[mine].eqNullSafe(renamed[keys[i]]) if null_safe else frame[mine] == renamed[keys[i]]
                condition = equal if condition is None else condition & equal
            return frame.join(renamed, condition, "left").drop(*keys)

        return F.col(tag).isNotNull(), prepare

    def _reference(self, text: str) -> tuple[str, list[str]]:
        match = _REFERENCE.fullmatch(text)
        if not match:
            raise PlanError(f'expected reference columns such as "reference.id", found "{text}"')
        return match[1], [c.strip() for c in (match[2] or match[3]).split(",")]

    def _ReferentialIntegrity(self, params: tuple[Parameter, ...], where: str | None,  # noqa: N802
                              rule: Rule | None) -> Measure:
        mine = [c.strip() for c in str(params[0]).split(",")]
        alias, theirs = self._reference(str(params[1]))
        if len(mine) != len(theirs):
            raise PlanError(f"ReferentialIntegrity compares {len(mine)} column(s) with {len(theirs)}")
        reference = self.plan.frame_for(alias)
        pairs = [(self.plan.path(m), _field_of(reference, t)) for m, t in zip(mine, theirs, strict=True)]
        matched = self._semi_join_count(f"referential {params[0]} {params[1]}", self.plan.frame, reference,
                                        pairs, null_safe=False)
        rows = self.plan.count()
        name = self._names("ReferentialIntegrity", params, rule)[0]
        flag, prepare = self._hit_flag(reference, pairs, null_safe=False)
        return Measure(lambda: {name: _ratio(self.plan.value(matched), self.plan.value(rows))}, compared=name,
                       row=flag, prepare=prepare)

    def _RowCountMatch(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        reference = self.plan.frame_for(str(params[0]))
        theirs = self.plan.own_pass(f"count {params[0]}", lambda: float(reference.count()))
        mine = self.plan.count()
        name = self._names("RowCountMatch", params, rule)[0]
        return Measure(lambda: {name: _ratio(self.plan.value(mine), self.plan.value(theirs))}, compared=name)

    def _DatasetMatch(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        reference = self.plan.frame_for(str(params[0]))
        keys = _mappings(str(params[1]))
        if len(params) > 2:
            compared = _mappings(str(params[2]))
        else:  # every other column of the primary frame, by name: one the reference lacks fails the rule
            key_columns = {m.lower() for m, _ in keys}
            theirs = {c.lower(): c for c in reference.columns}
            others = [f.name for f in self.plan.fields.values() if f.name.lower() not in key_columns]
            missing = [name for name in others if name.lower() not in theirs]
            if missing:
                raise PreconditionFailed(f"The following columns were not found in the second dataset "
                                         f"({params[0]}): {', '.join(missing)}")
            compared = [(name, theirs[name.lower()]) for name in others]
        pairs = [(self.plan.path(m), _field_of(reference, t)) for m, t in [*keys, *compared]]
        matched = self._semi_join_count(f"dataset match {params}", self.plan.frame, reference, pairs,
                                        null_safe=True)
        rows = self.plan.count()
        name = self._names("DatasetMatch", params, rule)[0]
        return Measure(lambda: {name: _ratio(self.plan.value(matched), self.plan.value(rows))}, compared=name)

    def _SchemaMatch(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        reference = self.plan.frame_for(str(params[0]))
        mine = {(f.name.lower(), f.dataType.simpleString()) for f in self.plan.frame.schema.fields}
        theirs = {(f.name.lower(), f.dataType.simpleString()) for f in reference.schema.fields}
        ratio = len(mine & theirs) / max(len(mine), len(theirs), 1)
        name = self._names("SchemaMatch", params, rule)[0]
        return Measure(lambda: {name: ratio}, compared=name)

    def _AggregateMatch(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:  # noqa: N802
        first, second = (self._aggregate_side(str(p)) for p in params[:2])
        name = self._names("AggregateMatch", params, rule)[0]

        def metrics() -> Metrics:
            mine, theirs = first(), second()
            if mine is not None and theirs == 0:  # 0 / 0: the aggregates agree; x / 0 has no ratio
                if mine != 0:
                    raise NoRows(f"{params[1]} is 0 and {params[0]} is {mine:g}: the ratio has no value")
                return {name: 1.0}
            return {name: _ratio(mine, theirs)}

        return Measure(metrics, compared=name)

    def _aggregate_side(self, text: str) -> Callable[[], float | None]:
        from pyspark.sql import functions as F

        match = _AGGREGATION.fullmatch(text)
        if not match:
            raise PlanError(f'expected an aggregation such as "sum(amount)", found "{text}"')
        function = F.sum if match[1].lower() == "sum" else F.avg
        target = match[2]
        alias, _, column = target.rpartition(".")
        if alias and alias in self.plan.additional:
            frame = self.plan.additional[alias]
            name = _field_of(frame, column)
            key = self.plan.own_pass(f"{match[1]}({target})",
                                     lambda: _float(frame.agg(function(frame[name].cast("double"))).collect()[0][0]))
        else:
            primary = alias and (alias.lower() == "primary" or alias == self.ruleset.primary_source)
            column = column if primary else target
            value = self._numeric(column)
            key = self.plan.aggregate(f"{match[1].lower()} {column}", lambda: function(value))
        return lambda: self.plan.value(key)

    # ------------------------------------------------------------ files

    def _file_rule(self, params: tuple[Parameter, ...], where: str | None, rule: Rule | None) -> Measure:
        assert rule is not None
        return file_measure(rule, self.files, self.now, self.resolver(rule))

    _FileFreshness = _FileSize = _FileMatch = _FileUniqueness = _file_rule


def _flag(rule: Rule, tag: str) -> bool:
    """A ``with tag = "true"`` flag (``"false"``, or no tag: false)."""
    value = str(rule.tags.get(tag, "false")).lower()
    if value not in ("true", "false"):
        raise PlanError(f'The tag {tag} takes "true" or "false", not {rule.tags[tag]!r}')
    return value == "true"


def _all_of(conditions: Sequence[Column]) -> Column:
    """All of ``conditions`` (true for none)."""
    from pyspark.sql import functions as F

    result = F.lit(True)
    for condition in conditions:
        result = result & condition
    return result


def _mappings(text: str) -> list[tuple[str, str]]:
    """``"a->b,c"`` as [(a, b), (c, c)]."""
    pairs = []
    for part in text.split(","):
        mine, _, theirs = part.partition("->")
        pairs.append((mine.strip(), (theirs or mine).strip()))
    return pairs


#: rule types that pass when no row is left to check (an empty frame, or a where clause keeping none), as the
#: reference evaluator decides them ("No rows matched the filter"); the others fail (deequ's empty state)
_PASSED_WITHOUT_ROWS = frozenset({"ColumnDataType", "DataFreshness"})


def _field_of(frame: DataFrame, name: str) -> str:
    found = {c.lower(): c for c in frame.columns}.get(name.lower())
    if found is None:
        raise PreconditionFailed(f"The reference data does not include column {name} "
                                 f"(columns: {', '.join(frame.columns)})")
    return found


def _float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


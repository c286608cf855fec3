"""Evaluating a DQDL ruleset on a Spark DataFrame, as AWS Glue Data Quality does.

:func:`evaluate` parses the ruleset, lets every rule register its metrics in one
:class:`~glueball.dataquality.planner.Plan` (one aggregation, one frequency pass over all column
sets, own passes only for SQL and other data sources), runs it, and compares:

- **Numeric rules** compare their metric with the condition; dynamic operands (``avg(last(5))``...)
  read the evaluation context's :class:`~glueball.dataquality.outcomes.MetricHistory`.
- **Row-level rules** (ColumnValues, ColumnLength, ColumnDataType, DataFreshness, IsComplete,
  Completeness, Uniqueness, IsUnique, IsPrimaryKey, ReferentialIntegrity, row-returning CustomSql)
  pass when every row passes, or when the fraction of passing rows meets ``with threshold``.
- **Composite rules**: with Glue's default ``compositeRuleEvaluation.method`` ``COLUMN`` each rule is
  evaluated on the whole data and the outcomes combined (``and``: all pass; ``or``: one passes); with
  ``ROW`` the rules are combined per row and the composite passes when no row fails it. ROW needs
  every rule inside to be row-level; a composite holding a dataset-level rule (RowCount, Mean...)
  is evaluated as COLUMN.
- **DetectAnomalies** fails when its metric leaves the range learned from history
  (:mod:`glueball.dataquality.anomaly`); analyzers' metrics become observations the same way.

Outcomes are ``Passed``, ``Failed`` (with Glue's ``Value: 0.95 does not meet the constraint
requirement!``, or a failed precondition — ``Input data does not include column x!`` —, or no rows to
compute a metric from, as deequ fails such constraints) or ``Error`` (invalid SQL, an unknown alias or
function, a tag the rule type does not honour, a dynamic rule without history, a pass failing at run
time). Each rule errs alone: whatever happens to one rule, the others' outcomes are what they would be
without it.

With ``row_level=True`` the result carries the input rows plus Glue's ``DataQualityRulesPass``,
``DataQualityRulesFail``, ``DataQualityRulesSkip`` (arrays of rule texts) and
``DataQualityEvaluationResult`` (``Failed`` when any rule failed the row). Rules that have no per-row
outcome (dataset-level rules, rules whose outcome is ``Error``) and rows a rule's ``where`` clause
excludes are in ``Skip``. These
columns are expressions over the input (uniqueness as window counts, reference lookups as joins):
they cost nothing until the rows are used.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from glueball.dataquality import anomaly
from glueball.dataquality._measure_types import NoRows
from glueball.dataquality._measures import Measure, Measurer, Metrics
from glueball.dataquality._operands import NoHistory, Resolver, dynamic_depth, satisfies, substitute
from glueball.dataquality.ast import CompositeRule, Rule, RuleNode, Ruleset
from glueball.dataquality.outcomes import (
    ERROR,
    FAILED,
    PASSED,
    ROW_LEVEL_COLUMNS,
    Evaluation,
    FileInfo,
    MetricHistory,
    Outcome,
    RuleOutcome,
    constraint_not_met,
    format_value,
)
from glueball.dataquality.parser import parse
from glueball.dataquality.planner import HELPER, Plan, PreconditionFailed
from glueball.dataquality.rules import SUPPORTED_TAGS, is_row_level, metric_names, unsupported_tags

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["COMPOSITE_METHODS", "Evaluation", "MetricHistory", "RuleOutcome", "evaluate"]

COMPOSITE_METHODS = ("COLUMN", "ROW")


@dataclass
class _Leaf:
    rule: Rule
    measure: Measure | None = None
    error: str | None = None
    fails: bool = False  # the error is a failed precondition: the outcome is Failed, not Error

    def leaves(self) -> Iterator[_Leaf]:
        yield self

    @property
    def row(self) -> Column | None:
        if self.measure is None or not is_row_level(self.rule):
            return None
        return self.measure.row


@dataclass
class _Composite:
    node: CompositeRule
    children: list[_Leaf | _Composite]
    failing: str | None = None  # ROW method: the plan's count of rows the composite fails
    rows: str | None = None
    prepares: list[Callable[[DataFrame], DataFrame]] = field(default_factory=list)
    row_method: bool = False  # CompositeRuleEvaluationMethod ROW: an erring child makes it err

    def leaves(self) -> Iterator[_Leaf]:
        for child in self.children:
            yield from child.leaves()

    @property
    def row(self) -> Column | None:
        rows = [child.row for child in self.children]
        if any(r is None for r in rows):
            return None
        return _combine(self.node.operator, [r for r in rows if r is not None])


def _combine(operator: str, rows: Sequence[Column]) -> Column:
    """Per-row and/or over outcomes that may be NULL (skipped): a skipped rule decides nothing."""
    from pyspark.sql import functions as F

    failed = F.lit(False)
    passed = F.lit(False)
    for row in rows:
        failed = failed | row.eqNullSafe(F.lit(False))
        passed = passed | row.eqNullSafe(F.lit(True))
    if operator == "and":
        return F.when(failed, F.lit(False)).when(passed, F.lit(True))
    return F.when(passed, F.lit(True)).when(failed, F.lit(False))


def evaluate(
    frame: DataFrame,
    ruleset: str | Ruleset,
    *,
    additional: Mapping[str, DataFrame] | None = None,
    history: MetricHistory | None = None,
    row_level: bool = False,
    files: Sequence[FileInfo] | None = None,
    now: dt.datetime | None = None,
    composite_method: str = "COLUMN",
    observations: bool = True,
) -> Evaluation:
    """Evaluate ``ruleset`` (DQDL text or parsed) on ``frame``.

    Args:
        frame: the primary data.
        ruleset: the DQDL document; a syntax or semantic error raises ``DqdlError`` before any data is read.
        additional: the additional data sources by alias (``DataSources``'s ``AdditionalDataSources``,
            referenced as ``reference.id``, ``sum(reference.amount)`` or a table in CustomSql).
        history: earlier metric values of the evaluation context, for ``last(k)`` and anomaly detection.
        row_level: add the per-row outcome columns (:attr:`Evaluation.row_level`).
        files: the data's files, for File* rules without a path.
        now: the evaluation time (``now()``, DataFreshness); default the current time (UTC).
        composite_method: ``COLUMN`` (Glue's default) or ``ROW`` (see the module docstring).
        observations: report anomaly observations for analyzer metrics (Glue's ``observations.scope`` ALL).
    """
    started = dt.datetime.now(dt.UTC)
    if composite_method.upper() not in COMPOSITE_METHODS:
        raise ValueError(f"compositeRuleEvaluation.method must be COLUMN or ROW, not {composite_method!r}")
    if not hasattr(frame, "sparkSession") and hasattr(frame, "toDF"):
        frame = frame.toDF()
    parsed = ruleset if isinstance(ruleset, Ruleset) else parse(ruleset)
    now = now or started
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    plan = Plan(frame, additional)
    measurer = Measurer(plan, parsed, now, files)
    tops = [_compile(node, measurer, plan, composite_method.upper() == "ROW") for node in parsed.rules]
    analyzers = [(a.to_dqdl(), _measure_analyzer(measurer, a.analyzer_type, a.parameters, None))
                 for a in parsed.analyzers]
    lookup = _History(history, _wanted(tops, parsed))
    with _job_group(plan.spark) as jobs:
        plan.execute()
        spark_jobs = jobs()
    judge = _Judge(plan, lookup, now)
    outcomes = [judge.node(node, parsed) for node in tops]
    analyzer_results: dict[str, dict[str, float]] = {}
    analyzer_messages: dict[str, str] = {}
    for text, (measure, error) in analyzers:
        analyzer_results[text] = {}
        try:
            if measure is not None:
                analyzer_results[text] = _finite(judge.metrics(measure))
        except Exception as failure:  # noqa: BLE001 - an analyzer that cannot be computed reports why, alone
            error = _reason(failure)
        if error is not None:
            analyzer_messages[text] = error
    flat = {name: value for metrics in analyzer_results.values() for name, value in metrics.items()}
    metrics = {**judge.all_metrics, **flat}
    found = judge.observations
    if observations and history is not None:
        for name, value in flat.items():
            seen = anomaly.observation(name, value, lookup.values(name, anomaly.WINDOW))
            if seen is not None and all(o["MetricBasedObservation"]["MetricName"] != name for o in found):
                found.append(seen)
    passed = sum(1 for outcome in outcomes if outcome.passed)
    return Evaluation(
        rules=outcomes,
        analyzers=flat,
        metrics=metrics,
        row_level=_row_level(frame, tops, outcomes) if row_level else None,
        score=passed / len(outcomes) if outcomes else 1.0,
        spark_jobs=spark_jobs,
        observations=found,
        passes=plan.passes,
        started_on=started,
        completed_on=dt.datetime.now(dt.UTC),
        analyzer_results=analyzer_results,
        analyzer_messages=analyzer_messages,
    )


# ---------------------------------------------------------------- planning


def _measure_analyzer(measurer: Measurer, kind: str, parameters: tuple[Any, ...],
                      where: str | None) -> tuple[Measure | None, str | None]:
    try:
        return measurer.analyzer(kind, parameters, where), None
    except Exception as error:  # noqa: BLE001 - an analyzer that cannot be computed reports no metrics
        return None, _reason(error)


def _compile(node: RuleNode, measurer: Measurer, plan: Plan, row_method: bool) -> _Leaf | _Composite:
    if isinstance(node, CompositeRule):
        composite = _Composite(node, [_compile(child, measurer, plan, row_method) for child in node.rules],
                               row_method=row_method)
        leaves = list(composite.leaves())
        combined = composite.row
        if row_method and combined is not None and all(is_row_level(leaf.rule) for leaf in leaves):
            _plan_row_composite(composite, combined, leaves, plan)
        return composite
    leaf = _Leaf(node)
    unsupported = unsupported_tags(node)
    if unsupported:
        honoured = ", ".join(SUPPORTED_TAGS.get(node.rule_type, ())) or "none"
        leaf.error = (f"{node.rule_type} does not support the tag(s) {', '.join(unsupported)} "
                      f"(tags it supports: {honoured})")
        return leaf
    try:
        if node.rule_type == "DetectAnomalies":
            leaf.measure = measurer.analyzer(str(node.parameters[0]), node.parameters[1:], None)
        else:
            leaf.measure = measurer.rule(node)
    except PreconditionFailed as error:
        leaf.error, leaf.fails = _reason(error), True
    except Exception as error:  # noqa: BLE001 - one rule's failure is that rule's Error, never the others'
        leaf.error = _reason(error)
    return leaf


def _plan_row_composite(composite: _Composite, combined: Column, leaves: list[_Leaf], plan: Plan) -> None:
    """ROW method: count the rows the combined per-row outcome fails, in the aggregation when it can."""
    from pyspark.sql import functions as F

    prepares = [leaf.measure.prepare for leaf in leaves if leaf.measure and leaf.measure.prepare]
    windowed = any(leaf.measure and leaf.measure.windowed for leaf in leaves)
    fails = combined.eqNullSafe(F.lit(False))
    composite.rows = plan.count()
    if not prepares and not windowed:
        composite.failing = plan.count_if(composite.node.to_dqdl(), fails)
        return
    frame = plan.frame

    def run() -> float:
        prepared = frame
        for prepare in prepares:
            if prepare is not None:
                prepared = prepare(prepared)
        return float(prepared.select(fails.alias(f"{HELPER}fails")).agg(F.count_if(F.col(f"{HELPER}fails")))
                     .collect()[0][0])

    composite.failing = plan.own_pass(f"row composite {composite.node.to_dqdl()}", run)


# ---------------------------------------------------------------- history


class _History:
    """The evaluation context's history, fetched at most once per metric; errors surface per rule."""

    def __init__(self, history: MetricHistory | None, wanted: dict[str, int]) -> None:
        self.history = history
        self.error: str | None = None
        prefetch = getattr(history, "prefetch", None)
        if wanted and callable(prefetch):
            try:
                prefetch(list(wanted), max(wanted.values()))
            except Exception as error:  # noqa: BLE001 - a history service that fails fails the rules reading it
                self.error = f"The metric history could not be read: {error}"

    def values(self, metric: str, limit: int) -> list[float]:
        if self.error is not None:
            raise NoHistory(self.error)
        if self.history is None:
            return []
        try:
            return list(self.history.values(metric, limit))
        except Exception as error:  # noqa: BLE001
            raise NoHistory(f"The metric history could not be read: {error}") from None


def _wanted(tops: list[_Leaf | _Composite], ruleset: Ruleset) -> dict[str, int]:
    """Every metric whose history the evaluation reads, with how many values (to fetch them at once)."""
    wanted: dict[str, int] = {}
    for top in tops:
        for leaf in top.leaves():
            depth = dynamic_depth(leaf.rule.condition)
            if leaf.rule.rule_type == "DetectAnomalies":
                for name in metric_names(leaf.rule):
                    wanted[name] = max(wanted.get(name, 0), anomaly.WINDOW)
            elif depth and leaf.measure is not None and leaf.measure.compared:
                name = leaf.measure.compared
                wanted[name] = max(wanted.get(name, 0), depth)
    for analyzer in ruleset.analyzers:
        for name in metric_names(analyzer):
            wanted[name] = max(wanted.get(name, 0), anomaly.WINDOW)
    return wanted


# ---------------------------------------------------------------- verdicts


def _finite(metrics: Metrics) -> dict[str, float]:
    return {name: float(value) for name, value in metrics.items() if value is not None and value == value}


def _reason(error: BaseException) -> str:
    text = str(getattr(error, "desc", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class _Judge:
    """Turns the executed plan's metrics into outcomes."""

    def __init__(self, plan: Plan, history: _History, now: dt.datetime) -> None:
        self.plan = plan
        self.history = history
        self.now = now
        self.all_metrics: dict[str, float] = {}
        self.observations: list[dict[str, Any]] = []
        self.evaluated: dict[int, str] = {}  # id(rule) -> the rule with its dynamic values substituted

    def metrics(self, measure: Measure) -> Metrics:
        found = measure.metrics()
        self.all_metrics.update(_finite(found))
        return found

    def node(self, node: _Leaf | _Composite, ruleset: Ruleset) -> RuleOutcome:
        if isinstance(node, _Leaf):
            outcome = self.leaf(node)
            outcome.labels = dict(ruleset.labels_for(node.rule))
            return outcome
        children = [self.node(child, ruleset) for child in node.children]
        metrics = {name: value for child in children for name, value in child.evaluated_metrics.items()}
        text = node.node.to_dqdl()
        labels = dict(ruleset.labels_for(node.node))
        erring = [f"{c.rule}: {c.failure_reason}" for c in children if c.outcome == ERROR]
        if node.row_method and erring:  # rows cannot be judged without every child's per-row outcome
            return RuleOutcome(text, ERROR, "; ".join(erring), metrics, labels)
        if node.failing is not None and node.rows is not None:
            try:
                failing, rows = self.plan.value(node.failing), self.plan.value(node.rows)
            except Exception as error:  # noqa: BLE001
                return RuleOutcome(text, ERROR, _reason(error), metrics, labels)
            if not failing:
                return RuleOutcome(text, PASSED, None, metrics, labels)
            share = (rows - failing) / rows if rows else 0.0
            return RuleOutcome(text, FAILED, constraint_not_met(share), metrics, labels)
        outcomes = [child.outcome for child in children]
        if node.node.operator == "and":
            verdict: Outcome = FAILED if FAILED in outcomes else ERROR if ERROR in outcomes else PASSED
        else:
            verdict = PASSED if PASSED in outcomes else ERROR if ERROR in outcomes else FAILED
        reasons = [f"{c.rule}: {c.failure_reason}" for c in children if c.failure_reason and c.outcome != PASSED]
        return RuleOutcome(text, verdict, "; ".join(reasons) if verdict != PASSED else None, metrics, labels)

    def leaf(self, leaf: _Leaf) -> RuleOutcome:
        rule = leaf.rule
        text = rule.to_dqdl()
        if leaf.error is not None or leaf.measure is None:
            return RuleOutcome(text, FAILED if leaf.fails else ERROR, leaf.error)
        measure = leaf.measure
        try:
            metrics = self.metrics(measure)
        except NoRows as error:
            return RuleOutcome(text, FAILED, str(error))
        except Exception as error:  # noqa: BLE001 - the pass computing this metric failed
            return RuleOutcome(text, ERROR, _reason(error))
        shown = _finite(metrics)
        try:
            if rule.rule_type == "DetectAnomalies":
                reason = self.anomalies(metrics)
            elif measure.decide is not None:
                reason = measure.decide(metrics)
            else:
                reason = self.compare(rule, measure, metrics)
        except NoRows as error:  # no data to compute the metric from: Failed, as deequ fails the constraint
            return RuleOutcome(text, FAILED, str(error), shown)
        except Exception as error:  # noqa: BLE001 - the rule errs alone, with its reason
            return RuleOutcome(text, ERROR, _reason(error), shown)
        evaluated = self.evaluated.pop(id(rule), text)
        if reason is None:
            return RuleOutcome(text, PASSED, None, shown, evaluated_rule=evaluated)
        return RuleOutcome(text, FAILED, reason, shown, evaluated_rule=evaluated)

    def compare(self, rule: Rule, measure: Measure, metrics: Metrics) -> str | None:
        name = measure.compared
        assert name is not None and rule.condition is not None
        value = metrics.get(name)
        if value is None or value != value:
            raise NoRows(f"{name} could not be computed: there are no rows (or no non-null values) to "
                             "compute it from" + (f' where "{rule.where}"' if rule.where else ""))
        zone = rule.tags.get("timeZone")
        resolver = Resolver(lambda k: self.history.values(name, k), name, self.now, str(zone) if zone else None)
        if dynamic_depth(rule.condition):
            evaluated = dataclasses.replace(rule, condition=substitute(rule.condition, resolver))
            self.evaluated[id(rule)] = evaluated.to_dqdl()
        return None if satisfies(rule.condition, value, resolver) else constraint_not_met(value)

    def anomalies(self, metrics: Metrics) -> str | None:
        problems = []
        for name, value in metrics.items():
            if value is None:
                continue
            past = self.history.values(name, anomaly.WINDOW)
            seen = anomaly.observation(name, value, past)
            if seen is not None:
                self.observations.append(seen)
                limits = seen["MetricBasedObservation"]["MetricValues"]
                problems.append(f"{name}: {format_value(value)} is outside the expected range "
                                f"[{format_value(limits['LowerLimit'])}, {format_value(limits['UpperLimit'])}]")
        return "Anomaly detected: " + "; ".join(problems) if problems else None


# ---------------------------------------------------------------- row-level outcomes


def _row_level(frame: DataFrame, tops: list[_Leaf | _Composite], outcomes: list[RuleOutcome]) -> DataFrame:
    """The input rows with Glue's per-row outcome columns.

    A rule that ended in Error has no trustworthy per-row outcome: it is in every row's Skip list.
    """
    from pyspark.sql import functions as F

    rows = [None if outcome.outcome == ERROR else top.row for top, outcome in zip(tops, outcomes, strict=True)]
    prepared = frame
    for top, row in zip(tops, rows, strict=True):
        for leaf in top.leaves():
            if leaf.measure is not None and leaf.measure.prepare is not None and row is not None:
                prepared = leaf.measure.prepare(prepared)
    originals = [F.col(f"`{c}`") for c in frame.columns]
    flags, skipped = [], []
    for index, (top, row) in enumerate(zip(tops, rows, strict=True)):
        text = top.rule.to_dqdl() if isinstance(top, _Leaf) else top.node.to_dqdl()
        if row is None:
            skipped.append(text)
        else:
            flags.append((text, f"{HELPER}f{index}", row))
    flagged = prepared.select(*originals, *[row.alias(name) for _, name, row in flags])

    def texts(test: Callable[[Column], Column], always: Sequence[str] = ()) -> Column:
        items = [F.when(test(F.col(name)), F.lit(text)) for text, name, _ in flags] + [F.lit(t) for t in always]
        if not items:
            return F.array().cast("array<string>")
        return F.array_compact(F.array(*items))

    passed = texts(lambda c: c.eqNullSafe(F.lit(True)))
    failed = texts(lambda c: c.eqNullSafe(F.lit(False)))
    skip = texts(lambda c: c.isNull(), skipped)
    pass_name, fail_name, skip_name, result_name = ROW_LEVEL_COLUMNS
    outcome = F.when(F.size(failed) > 0, F.lit(FAILED)).otherwise(F.lit(PASSED))
    return flagged.select(*originals, passed.alias(pass_name), failed.alias(fail_name), skip.alias(skip_name),
                          outcome.alias(result_name))


# ---------------------------------------------------------------- Spark jobs


@contextmanager
def _job_group(spark: SparkSession) -> Iterator[Callable[[], int]]:
    """Run the passes in a job group of their own, to count Spark's jobs honestly; restore the caller's."""
    context = spark.sparkContext
    keys = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
    previous = {key: context.getLocalProperty(key) for key in keys}
    group = f"glueball-dq-{uuid.uuid4().hex}"
    context.setJobGroup(group, "glueball data quality evaluation")
    try:
        yield lambda: len(context.statusTracker().getJobIdsForGroup(group))
    finally:
        for key, value in previous.items():
            context.setLocalProperty(key, value)  # type: ignore[arg-type]

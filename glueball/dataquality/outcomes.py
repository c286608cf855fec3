"""What an evaluation of a DQDL ruleset produces, in AWS Glue Data Quality's shapes.

- :class:`RuleOutcome`: one row of Glue's ``ruleOutcomes`` frame (``Rule``, ``Outcome``
  ``Passed``/``Failed``/``Error``, ``FailureReason``, ``EvaluatedMetrics``, ``EvaluatedRule``)
  and, as ``PASS``/``FAIL``/``ERROR``, one of the service's ``RuleResults``.
- :class:`Evaluation`: every rule outcome, the analyzer and dataset metrics (Glue's names such as
  ``Dataset.*.RowCount`` and ``Column.<c>.Completeness``), the row-level frame (the input rows plus
  ``DataQualityRulesPass``, ``DataQualityRulesFail``, ``DataQualityRulesSkip`` and
  ``DataQualityEvaluationResult``), the score (passed / total), the Spark jobs the plan ran and the
  anomaly observations.
- :class:`MetricHistory`: what dynamic rules (``last(k)``) and anomaly detection read — metric values
  of earlier runs of the same evaluation context, newest first.
- :func:`data_quality_result`: an evaluation as Glue's ``DataQualityResult`` (minus ``ResultId``),
  the shape ``glueball.dataquality.publish.publish`` takes and ``resultsS3Prefix`` files hold.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = [
    "ERROR",
    "FAILED",
    "PASSED",
    "ROW_LEVEL_COLUMNS",
    "Evaluation",
    "FileInfo",
    "MetricHistory",
    "Outcome",
    "RuleOutcome",
    "constraint_not_met",
    "data_quality_result",
    "format_value",
]

Outcome = Literal["Passed", "Failed", "Error"]
PASSED: Outcome = "Passed"
FAILED: Outcome = "Failed"
ERROR: Outcome = "Error"
#: the columns process_rows adds to every input row, as Glue names them
ROW_LEVEL_COLUMNS = ("DataQualityRulesPass", "DataQualityRulesFail", "DataQualityRulesSkip",
                     "DataQualityEvaluationResult")
#: the longest Description, EvaluationMessage and EvaluatedRule of a DataQualityRuleResult
MAX_TEXT = 2048
#: ruleOutcomes outcome -> the service's RuleResults Result
SERVICE_RESULT = {PASSED: "PASS", FAILED: "FAIL", ERROR: "ERROR"}


class MetricHistory(Protocol):
    """Metric values of earlier evaluations of the same evaluation context."""

    def values(self, metric: str, limit: int) -> list[float]:
        """The last ``limit`` values of ``metric``, newest first, past runs only (fewer when there are fewer)."""
        ...


@dataclass(frozen=True)
class FileInfo:
    """One file of the data, for the File* rules (``FileFreshness``, ``FileSize``, ``FileMatch``...).

    ``path`` is an ``s3://`` URI or a local path; ``modified`` is timezone-aware (UTC when naive);
    ``checksum`` (hex, of ``hash_algorithm``) is computed from the file's bytes when not given.
    """

    path: str
    size: int
    modified: dt.datetime
    checksum: str | None = None
    hash_algorithm: str = "MD5"


@dataclass
class RuleOutcome:
    """The outcome of one (top-level) rule, as a row of Glue's ``ruleOutcomes``.

    ``evaluated_rule`` is the rule as evaluated: dynamic operands (``avg(last(3))``) replaced by their
    values, as Glue's ``EvaluatedRule`` shows them.
    """

    rule: str
    outcome: Outcome
    failure_reason: str | None = None
    evaluated_metrics: dict[str, float] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    evaluated_rule: str = ""

    def __post_init__(self) -> None:
        self.evaluated_rule = self.evaluated_rule or self.rule

    @property
    def passed(self) -> bool:
        return self.outcome == PASSED

    def as_rule_result(self, position: int) -> dict[str, Any]:
        """The service's ``DataQualityRuleResult``: named ``Rule_<position>`` (1-based) as Glue names them,
        the rule's text as ``Description``; texts cut to the 2048 characters the shape allows."""
        result: dict[str, Any] = {
            "Name": f"Rule_{position}",
            "Description": self.rule[:MAX_TEXT],
            "Result": SERVICE_RESULT[self.outcome],
            "EvaluatedMetrics": _finite(self.evaluated_metrics),
            "EvaluatedRule": self.evaluated_rule[:MAX_TEXT],
        }
        if self.failure_reason:
            result["EvaluationMessage"] = self.failure_reason[:MAX_TEXT]
        if self.labels:
            result["Labels"] = dict(self.labels)
        return result


@dataclass
class Evaluation:
    """Everything one evaluation produced (see the module docstring)."""

    rules: list[RuleOutcome]
    analyzers: dict[str, float]
    metrics: dict[str, float]
    row_level: DataFrame | None
    score: float
    spark_jobs: int
    observations: list[dict[str, Any]] = field(default_factory=list)
    passes: int = 0
    analyzer_results: dict[str, dict[str, float]] = field(default_factory=dict)
    #: why an analyzer reports no metrics (its ``EvaluationMessage``), by its text
    analyzer_messages: dict[str, str] = field(default_factory=dict)
    started_on: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    completed_on: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))

    @property
    def passed(self) -> bool:
        """Whether every rule passed (a script's "fail the job" test)."""
        return all(rule.passed for rule in self.rules)

    def failed_rules(self) -> list[RuleOutcome]:
        return [rule for rule in self.rules if not rule.passed]


def format_value(value: float | None) -> str:
    """A metric value as Glue prints it in messages (``0.95``, ``100.0``)."""
    if value is None:
        return "null"
    return repr(float(value))


def constraint_not_met(value: float | None) -> str:
    """Glue's failure reason for a metric that does not satisfy its rule's condition."""
    return f"Value: {format_value(value)} does not meet the constraint requirement!"


def _finite(metrics: Mapping[str, float]) -> dict[str, float]:
    """Metrics without NaN/inf, which Glue's wire format (JSON numbers) cannot carry."""
    return {name: float(value) for name, value in metrics.items() if value is not None and math.isfinite(value)}


def data_quality_result(
    evaluation: Evaluation,
    *,
    evaluation_context: str,
    ruleset_name: str | None = None,
    data_source: Mapping[str, Any] | None = None,
    job_name: str | None = None,
    job_run_id: str | None = None,
    ruleset_evaluation_run_id: str | None = None,
) -> dict[str, Any]:
    """``evaluation`` as Glue's ``DataQualityResult`` minus ``ResultId``, plus ``Metrics`` (every metric).

    ``AnalyzerResults`` has one entry per analyzer of the ruleset; datetimes are epoch seconds, as on
    Glue's wire.
    """
    result: dict[str, Any] = {
        "Score": evaluation.score,
        "EvaluationContext": evaluation_context,
        "StartedOn": evaluation.started_on.timestamp(),
        "CompletedOn": evaluation.completed_on.timestamp(),
        "RuleResults": [rule.as_rule_result(i) for i, rule in enumerate(evaluation.rules, 1)],
        "Metrics": _finite(evaluation.metrics),
    }
    optional = {"RulesetName": ruleset_name, "JobName": job_name, "JobRunId": job_run_id,
                "RulesetEvaluationRunId": ruleset_evaluation_run_id}
    result.update({key: value for key, value in optional.items() if value})
    if data_source:
        result["DataSource"] = dict(data_source)
    if evaluation.analyzer_results:
        result["AnalyzerResults"] = [
            {"Name": f"Analyzer_{i}", "Description": name[:MAX_TEXT], "EvaluatedMetrics": _finite(metrics),
             **({"EvaluationMessage": evaluation.analyzer_messages[name][:MAX_TEXT]}
                if name in evaluation.analyzer_messages else {})}
            for i, (name, metrics) in enumerate(evaluation.analyzer_results.items(), 1)
        ]
    if evaluation.observations:
        result["Observations"] = [dict(o) for o in evaluation.observations]
    return result


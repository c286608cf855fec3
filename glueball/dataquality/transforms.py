"""``EvaluateDataQuality``: AWS Glue Data Quality inside ETL scripts (``from awsgluedq.transforms import ...``).

- ``EvaluateDataQuality.apply(frame, ruleset, publishing_options)`` returns a DynamicFrame of rule
  outcomes with Glue's columns ``Rule``, ``Outcome`` (``Passed``/``Failed``/``Error``),
  ``FailureReason``, ``EvaluatedMetrics`` (map<string,double>) and ``EvaluatedRule`` (plus ``Labels``
  when the ruleset labels its rules).
- ``EvaluateDataQuality().process_rows(frame=, ruleset=, publishing_options=, additional_options=,
  additional_data_sources=)`` returns a DynamicFrameCollection with ``ruleOutcomes`` (the same frame)
  and ``rowLevelOutcomes`` (the input rows plus ``DataQualityRulesPass``, ``DataQualityRulesFail``,
  ``DataQualityRulesSkip`` and ``DataQualityEvaluationResult``).

``publishing_options`` (Glue's names and defaults):

- ``dataQualityEvaluationContext`` (default ``default_context``): the namespace of the results and of
  the metric history dynamic rules (``last(k)``) and anomaly detection read.
- ``enableDataQualityResultsPublishing`` (default true): publish the result to the data quality
  service (``glueball.dataquality.publish``), where GetDataQualityResult and the history find it,
  with the ``JobName`` and ``JobRunId`` of the script's ``Job.init`` (with ``GLUEBALL_ENDPOINT=aws``
  there is no service to publish to: a warning is logged).
- ``enableDataQualityCloudWatchMetrics`` (default false): accepted and ignored — there is no
  CloudWatch here (the metrics are in the published result).
- ``resultsS3Prefix`` (default ``""``): also write the result as JSON to
  ``<prefix>/<evaluation context>/<result id>.json``.

``additional_options``: ``compositeRuleEvaluation.method`` (``COLUMN``, Glue's default, or ``ROW``),
``observations.scope`` (``ALL``, the default, or ``NONE``), ``performanceTuning.caching``
(``CACHE_INPUT``, the default: the input is persisted while it is read more than once — and kept for
the row-level outcomes process_rows returns — or ``CACHE_NOTHING``) and
``dataQualityResultsPublishing.strategy`` (``BEST_EFFORT``: a publishing failure is logged instead of
raised). Unknown options are refused.

``additional_data_sources`` maps the aliases of DQDL's ``DataSources`` (``reference``) to
DynamicFrames, for ReferentialIntegrity, DatasetMatch, RowCountMatch, SchemaMatch, AggregateMatch and
CustomSql. Whether a failed rule fails the job is the script's choice (raise when an outcome is
``Failed``), as on Glue.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import Any

from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.outcomes import Evaluation, data_quality_result
from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection
from glueball.runtime.transforms.base import GlueTransform

__all__ = ["EvaluateDataQuality"]

log = logging.getLogger("glueball.dataquality")

PUBLISHING_OPTIONS = ("dataQualityEvaluationContext", "enableDataQualityCloudWatchMetrics",
                      "enableDataQualityResultsPublishing", "resultsS3Prefix")
ADDITIONAL_OPTIONS = {
    "compositeRuleEvaluation.method": ("COLUMN", "ROW"),
    "observations.scope": ("ALL", "NONE"),
    "performanceTuning.caching": ("CACHE_INPUT", "CACHE_NOTHING"),
    "dataQualityResultsPublishing.strategy": ("BEST_EFFORT",),
}
DEFAULT_CONTEXT = "default_context"
OUTCOME_SCHEMA = "Rule string, Outcome string, FailureReason string, EvaluatedMetrics map<string,double>, " \
                 "EvaluatedRule string"


def _flag(options: Mapping[str, Any], name: str, default: bool) -> bool:
    value = options.get(name, default)
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "false"):
        return str(value).lower() == "true"
    raise ValueError(f"publishing_options {name} must be true or false, not {value!r}")


def _check(publishing: Mapping[str, Any], additional: Mapping[str, Any]) -> dict[str, str]:
    unknown = [k for k in publishing if k not in PUBLISHING_OPTIONS]
    if unknown:
        raise ValueError(f"Unknown publishing_options {', '.join(unknown)}; EvaluateDataQuality takes "
                         f"{', '.join(PUBLISHING_OPTIONS)}")
    chosen = {}
    for key, value in additional.items():
        if key not in ADDITIONAL_OPTIONS:
            raise ValueError(f"Unknown additional_options {key}; EvaluateDataQuality takes "
                             f"{', '.join(ADDITIONAL_OPTIONS)}")
        allowed = ADDITIONAL_OPTIONS[key]
        if str(value).upper() not in allowed:
            raise ValueError(f"additional_options {key} must be one of {', '.join(allowed)}, not {value!r}")
        chosen[key] = str(value).upper()
    return chosen


class EvaluateDataQuality(GlueTransform):
    """Evaluates a DQDL ruleset on a DynamicFrame (upstream ``awsgluedq.transforms.EvaluateDataQuality``)."""

    def __call__(self, frame: DynamicFrame, ruleset: str, publishing_options: Mapping[str, Any] | None = None,
                 additional_options: Mapping[str, Any] | None = None,
                 additional_data_sources: Mapping[str, DynamicFrame] | None = None) -> DynamicFrame:
        """The rule outcomes frame (``EvaluateDataQuality.apply(frame=..., ruleset=..., publishing_options=...)``)."""
        outcomes, _ = self._evaluate(frame, ruleset, publishing_options, additional_options,
                                     additional_data_sources, row_level=False)
        return outcomes

    def process_rows(self, frame: DynamicFrame, ruleset: str, publishing_options: Mapping[str, Any] | None = None,
                     additional_options: Mapping[str, Any] | None = None,
                     additional_data_sources: Mapping[str, DynamicFrame] | None = None) -> DynamicFrameCollection:
        """``ruleOutcomes`` and ``rowLevelOutcomes`` (the input rows with their per-row outcomes)."""
        outcomes, rows = self._evaluate(frame, ruleset, publishing_options, additional_options,
                                        additional_data_sources, row_level=True)
        assert rows is not None
        return DynamicFrameCollection({"ruleOutcomes": outcomes, "rowLevelOutcomes": rows}, frame.glue_ctx)

    def _evaluate(self, frame: DynamicFrame, ruleset: str, publishing_options: Mapping[str, Any] | None,
                  additional_options: Mapping[str, Any] | None,
                  additional_data_sources: Mapping[str, DynamicFrame] | None,
                  row_level: bool) -> tuple[DynamicFrame, DynamicFrame | None]:
        publishing = dict(publishing_options or {})
        options = _check(publishing, dict(additional_options or {}))
        context = str(publishing.get("dataQualityEvaluationContext") or DEFAULT_CONTEXT)
        publish_results = _flag(publishing, "enableDataQualityResultsPublishing", True)
        if _flag(publishing, "enableDataQualityCloudWatchMetrics", False):
            log.info("enableDataQualityCloudWatchMetrics: there is no CloudWatch here; the metrics are in the "
                     "published result")
        df = frame.toDF()
        cached = options.get("performanceTuning.caching", "CACHE_INPUT") == "CACHE_INPUT" and \
            not df.storageLevel.useMemory and not df.storageLevel.useDisk
        if cached:
            df = df.persist()
        additional = {alias: source.toDF() for alias, source in (additional_data_sources or {}).items()}
        history = _history(context)
        try:
            evaluation = evaluate(df, ruleset, additional=additional, history=history, row_level=row_level,
                                  composite_method=options.get("compositeRuleEvaluation.method", "COLUMN"),
                                  observations=options.get("observations.scope", "ALL") == "ALL")
        finally:
            if cached and not row_level:
                df.unpersist()
        run = _job_run()
        result = data_quality_result(evaluation, evaluation_context=context, job_name=run[0], job_run_id=run[1])
        result_id = None
        if publish_results:
            result_id = _publish(result, options.get("dataQualityResultsPublishing.strategy") == "BEST_EFFORT")
        prefix = str(publishing.get("resultsS3Prefix") or "")
        if prefix:
            _write_result(prefix, context, result, result_id)
        outcomes = _outcome_frame(frame, evaluation)
        rows = DynamicFrame.fromDF(evaluation.row_level, frame.glue_ctx, "rowLevelOutcomes") \
            if evaluation.row_level is not None else None
        return outcomes, rows


def _job_run() -> tuple[str | None, str | None]:
    """The job and run id of the script's ``Job.init``, which Glue records with the result."""
    from glueball.runtime.bookmarks import active

    current = active()
    return (current.job_name, current.run_id) if current is not None else (None, None)


def _history(context: str) -> Any:
    from glueball.dataquality.publish import history

    return history(context)


def _publish(result: dict[str, Any], best_effort: bool) -> str | None:
    from glueball.dataquality.publish import PublishError, publish

    try:
        return publish(result)
    except Exception as error:
        unsupported = isinstance(error, PublishError) and error.code == "UnsupportedOperation"
        if not best_effort and not unsupported:  # against AWS Glue itself there is nothing to publish to
            raise
        log.warning("data quality results were not published (BEST_EFFORT): %s", error)
        return None


def _write_result(prefix: str, context: str, result: dict[str, Any], result_id: str | None) -> None:
    from glueball.objects.access import write_location

    name = result_id or f"dqresult-{uuid.uuid4().hex}"
    body = {**({"ResultId": result_id} if result_id else {}), **{k: v for k, v in result.items() if k != "Metrics"}}
    write_location(f"{prefix.rstrip('/')}/{context}/{name}.json", json.dumps(body, indent=2, sort_keys=True).encode())


def _outcome_frame(frame: DynamicFrame, evaluation: Evaluation) -> DynamicFrame:
    spark = frame.toDF().sparkSession
    labelled = any(rule.labels for rule in evaluation.rules)
    rows = [(r.rule, r.outcome, r.failure_reason, dict(r.evaluated_metrics), r.evaluated_rule,
             *((dict(r.labels),) if labelled else ())) for r in evaluation.rules]
    schema = OUTCOME_SCHEMA + (", Labels map<string,string>" if labelled else "")
    return DynamicFrame.fromDF(spark.createDataFrame(rows, schema), frame.glue_ctx, "ruleOutcomes")

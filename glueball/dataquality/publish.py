"""Publishing data quality results, and reading metric history, from a Glue script or driver.

``EvaluateDataQuality`` with ``enableDataQualityResultsPublishing`` and the driver of a
ruleset evaluation run call :func:`publish`; dynamic rules (``last(k)``) and anomaly
detection read :func:`history`. Both are glueball's own operations, called through the
process's glueball client (:func:`glueball.runtime.client.internal_client`: boto3 with
glueball's model, answered in-process when embedded or by the server on ``GLUEBALL_ENDPOINT``):

- ``Glueball.PublishDataQualityResult`` ``{"Result": <DataQualityResult minus ResultId>,
  "Metrics"?: {name: value}}`` -> ``{"ResultId"}``: the result is validated against Glue's
  ``DataQualityResult`` shape; ``Metrics`` adds metric values to the history beyond the
  rules' ``EvaluatedMetrics`` (every dataset metric the evaluation computed).
- ``Glueball.GetDataQualityMetricHistory`` ``{"EvaluationContext", "MetricNames": [...],
  "Limit"}`` -> ``{"History": {name: [values, newest first]}}``.

In a job run (``GLUEBALL_JOB_NAME``/``GLUEBALL_JOB_RUN_ID`` set by the launcher) a result
without ``JobName``/``JobRunId`` gets the run's, as Glue records which job run published it.
Against AWS Glue itself (``GLUEBALL_ENDPOINT=aws``) neither is available here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.supervise import driverenv

__all__ = ["MAX_LIMIT", "PublishError", "ServiceHistory", "history", "publish"]

MAX_LIMIT = 10_000
_DEFAULT_FETCH = 100


class PublishError(GlueRuntimeError):
    """The data quality service refused or failed a call (``code`` is the Glue error code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def _call(operation: str, request: Mapping[str, Any]) -> dict[str, Any]:
    from botocore.exceptions import BotoCoreError

    from glueball.runtime.bookmarks import BookmarkError, call_service

    contract = driverenv.current()
    endpoint = contract.endpoint
    if contract.on_aws:
        raise PublishError("UnsupportedOperation", "data quality results are published by AWS Glue itself, not "
                                                   "by a script run outside it")
    try:
        return call_service(operation, request)
    except BookmarkError as err:
        raise PublishError(err.code, str(err).partition(": ")[2]) from err
    except (BotoCoreError, OSError) as exc:
        raise PublishError("ServiceUnavailable", f"the data quality service at {endpoint} cannot be reached "
                                                 f"({type(exc).__name__})") from exc


def _plain(value: Any) -> Any:
    """``value`` as JSON: datetimes become epoch seconds, mappings and sequences are copied."""
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.UTC)).timestamp()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def publish(result: Mapping[str, Any]) -> str:
    """Publish one data quality result; returns the ResultId the service gave it.

    Args:
        result: Glue's ``DataQualityResult`` members minus ``ResultId`` (Score, DataSource, RulesetName,
            EvaluationContext, StartedOn/CompletedOn as epoch seconds or datetimes, JobName, JobRunId,
            RulesetEvaluationRunId, RuleResults, AnalyzerResults, Observations), plus optionally
            ``Metrics`` ({metric name: value}: every dataset metric computed, for the history).
            ``Score`` and the rule totals are recomputed by the service from ``RuleResults``.

    Raises:
        PublishError: the service refused the result (e.g. a member of the wrong shape) or is unreachable.
    """
    body: dict[str, Any] = _plain(result)
    metrics = body.pop("Metrics", None)
    if not body.get("RulesetEvaluationRunId"):
        contract = driverenv.current()
        job_name, run_id = contract.job_name, contract.run_id
        if job_name and not body.get("JobName"):
            body["JobName"] = job_name
        if run_id and not body.get("JobRunId"):
            body["JobRunId"] = run_id
    request: dict[str, Any] = {"Result": body}
    if metrics:
        request["Metrics"] = metrics
    return str(_call("PublishDataQualityResult", request)["ResultId"])


class ServiceHistory:
    """The metric history of one evaluation context, read from the service on demand and cached.

    Satisfies the evaluator's ``MetricHistory`` protocol: :meth:`values` answers the newest values
    first, of results published before (the result being evaluated is not published yet).
    """

    def __init__(self, evaluation_context: str) -> None:
        self.evaluation_context = evaluation_context
        self._cache: dict[str, tuple[int, list[float]]] = {}

    def prefetch(self, metrics: Sequence[str], limit: int = _DEFAULT_FETCH) -> None:
        """Fetch the history of several metrics in one call (an evaluator knows them before it compares)."""
        wanted = [m for m in dict.fromkeys(metrics) if self._cache.get(m, (0, []))[0] < limit]
        if wanted:
            self._fetch(wanted, limit)

    def values(self, metric: str, limit: int) -> list[float]:
        """The last ``limit`` values of ``metric``, newest first (fewer when there are fewer earlier results)."""
        if limit <= 0:
            return []
        limit = min(limit, MAX_LIMIT)
        cached = self._cache.get(metric)
        if cached is None or (cached[0] < limit and len(cached[1]) >= cached[0]):
            self._fetch([metric], max(limit, _DEFAULT_FETCH))
            cached = self._cache[metric]
        return list(cached[1][:limit])

    def _fetch(self, metrics: list[str], limit: int) -> None:
        limit = min(limit, MAX_LIMIT)
        answer = _call("GetDataQualityMetricHistory", {"EvaluationContext": self.evaluation_context,
                                                       "MetricNames": metrics, "Limit": limit})
        found = answer.get("History") or {}
        for metric in metrics:
            self._cache[metric] = (limit, [float(v) for v in found.get(metric) or []])


def history(evaluation_context: str) -> ServiceHistory:
    """The metric history of earlier published results of ``evaluation_context`` (a ``MetricHistory``)."""
    return ServiceHistory(evaluation_context)

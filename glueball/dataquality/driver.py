"""The data quality drivers: what runs in a run's own process (``python -m glueball run driver.py``).

The server side (:mod:`glueball.dataquality.runs`) writes ``run.json`` into the run's directory and
launches ``driver.py``, which calls :func:`drive` (or the function ``GLUEBALL_DQ_DRIVER`` names).
The evaluation driver reads the catalog table with ``GlueContext.create_dynamic_frame.from_catalog``,
evaluates each ruleset with :func:`glueball.dataquality.evaluator.evaluate` against the metric
history of the ruleset's evaluation context, and publishes one result per ruleset with
``RulesetEvaluationRunId``; the recommendation driver is :mod:`glueball.dataquality.recommend`.
Either reports how its work went (:func:`glueball.supervise.outcome.report`), which the driver's keeper
records with its exit status for the watcher. Nothing here runs in the server.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from glueball.dataquality.models import RunKind, RunState
from glueball.dataquality.reading import glue_context, read_source
from glueball.objects import locations
from glueball.supervise import driverenv, outcome

RUN_FILE = "run.json"
RECOMMENDATION_FILE = "recommended_ruleset.dqdl"


def drive() -> int:
    """A run's driver: evaluate or recommend as ``run.json`` (in the working directory) says.

    Reports SUCCEEDED, or FAILED with the exception (the run's ``ErrorString``), and returns the exit status.
    """
    directory = Path.cwd()
    info = json.loads((directory / RUN_FILE).read_text())
    try:
        if info["Kind"] == RunKind.EVALUATION.value:
            evaluate_run(info)
        else:
            from glueball.dataquality.recommend import recommend_run

            (directory / RECOMMENDATION_FILE).write_text(recommend_run(info))
    except Exception as exc:
        traceback.print_exc()
        outcome.report(RunState.FAILED.value, f"{type(exc).__name__}: {exc}", directory)
        return 1
    outcome.report(RunState.SUCCEEDED.value, None, directory)
    return 0


def evaluate_run(info: Mapping[str, Any]) -> list[str]:
    """Evaluate each ruleset of an evaluation run on its table and publish one result each; the ResultIds."""
    from glueball.dataquality.outcomes import data_quality_result
    from glueball.dataquality.publish import history, publish

    spec = info["Spec"]
    options = spec.get("AdditionalRunOptions") or {}
    glue = glue_context()
    frame = read_source(glue, spec["DataSource"])
    additional = {alias: read_source(glue, source) for alias, source in (spec.get("AdditionalDataSources") or {})
                  .items()}
    if len(spec["RulesetNames"]) > 1:
        frame = frame.cache()
    result_ids = []
    for name in spec["RulesetNames"]:
        evaluation = _evaluate(frame, info["Rulesets"][name], additional, history(name), options)
        result = data_quality_result(evaluation, evaluation_context=name, ruleset_name=name,
                                     data_source=spec["DataSource"], ruleset_evaluation_run_id=info["RunId"])
        result_id = publish(result)
        result_ids.append(result_id)
        print(f"ruleset {name}: result {result_id}, score {result.get('Score')}", flush=True)
        if options.get("ResultsS3Prefix"):
            _write_result(options["ResultsS3Prefix"], info["RunId"], result_id, result)
    return result_ids


def _evaluate(frame: Any, text: str, additional: dict[str, Any], metric_history: Any,
              options: Mapping[str, Any]) -> Any:
    from glueball.dataquality.evaluator import evaluate

    return evaluate(frame, text, additional=additional or None, history=metric_history,
                    composite_method=options.get("CompositeRuleEvaluationMethod", "COLUMN"),
                    observations=options.get("ObservationScope", "ALL") != "NONE")


def _write_result(prefix: str, run_id: str, result_id: str, result: Mapping[str, Any]) -> None:
    """ResultsS3Prefix: the result as JSON at ``<prefix>/<run id>/<result id>.json`` in the object store."""
    home = driverenv.current().home
    target = locations.local_path(prefix.rstrip("/") + f"/{run_id}/{result_id}.json",
                                  locations.object_store_root(home))
    target.parent.mkdir(parents=True, exist_ok=True)
    body = {"ResultId": result_id, **{k: v for k, v in result.items() if k != "Metrics"}}
    target.write_text(json.dumps(body, indent=2))

"""Rows and queries of data quality rulesets, results, metric history and runs.

Run status changes are compare-and-swap: ``UPDATE ... WHERE run_id = :id AND
status = :expected``; zero rows means another thread, process or server moved
the run first, so a cancel and a natural end can never both be recorded.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from glueball.dataquality.models import (
    ACTIVE_STATES,
    DataQualityResult,
    DataQualityRun,
    RunKind,
    RunState,
    StoredRuleset,
    TargetTable,
    can_transition,
)
from glueball.errors import EntityNotFoundException
from glueball.store.schema import DataQualityMetricRow, DataQualityResultRow, DataQualityRulesetRow, DataQualityRunRow
from glueball.store.scoped import Scope

# ---------------------------------------------------------------- rulesets


def ruleset_query(scope: Scope) -> Any:
    return select(DataQualityRulesetRow).where(DataQualityRulesetRow.account_id == scope.account_id,
                                               DataQualityRulesetRow.region == scope.region)


def find_ruleset_row(session: Session, scope: Scope, name: str,
                     for_update: bool = False) -> DataQualityRulesetRow | None:
    query = ruleset_query(scope).where(DataQualityRulesetRow.name == name)
    if for_update:
        query = query.with_for_update()
    row: DataQualityRulesetRow | None = session.scalars(query).one_or_none()
    return row


def ruleset_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> DataQualityRulesetRow:
    """The ruleset called ``name``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row = find_ruleset_row(session, scope, name, for_update)
    if row is None:
        raise EntityNotFoundException(f"Cannot find Data Quality Ruleset in account {scope.account_id} with "
                                      f"name {name}")
    return row


def ruleset_exists(session: Session, scope: Scope, name: str) -> bool:
    return find_ruleset_row(session, scope, name) is not None


def to_ruleset(row: DataQualityRulesetRow) -> StoredRuleset:
    target = None
    if row.target_database is not None and row.target_table is not None:
        target = TargetTable(row.target_database, row.target_table, row.target_catalog)
    return StoredRuleset(name=row.name, ruleset=row.ruleset, rule_count=row.rule_count, description=row.description,
                         target_table=target, recommendation_run_id=row.recommendation_run_id,
                         client_token=row.client_token, created_on=row.create_time, last_modified_on=row.update_time)


# ---------------------------------------------------------------- results and metric history


def context_key(evaluation_context: str) -> str:
    """The bounded index key of an EvaluationContext."""
    return hashlib.sha256(evaluation_context.encode()).hexdigest()


def result_query(scope: Scope) -> Any:
    return select(DataQualityResultRow).where(DataQualityResultRow.account_id == scope.account_id,
                                              DataQualityResultRow.region == scope.region)


def to_result(row: DataQualityResultRow) -> DataQualityResult:
    return DataQualityResult(result_id=row.result_id, spec=dict(row.spec))


def result_metrics(spec: Mapping[str, Any], extra: Mapping[str, float] | None = None) -> dict[str, float]:
    """Every metric value a result carries: its rules' and analyzers' EvaluatedMetrics, then ``extra``.

    Values that are not finite numbers have no place in a history and are left out.
    """
    found: dict[str, float] = {}
    for member in ("RuleResults", "AnalyzerResults"):
        for entry in spec.get(member) or []:
            found.update(entry.get("EvaluatedMetrics") or {})
    found.update(extra or {})
    return {name: float(value) for name, value in found.items()
            if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)}


def add_metrics(session: Session, scope: Scope, result: DataQualityResultRow, evaluation_context: str,
                metrics: Mapping[str, float]) -> None:
    key = context_key(evaluation_context)
    for name, value in metrics.items():
        session.add(DataQualityMetricRow(result_id=result.id, account_id=scope.account_id, region=scope.region,
                                         context_key=key, metric=name, value=value, started_on=result.started_on))


def metric_history(session: Session, scope: Scope, evaluation_context: str, metrics: Iterable[str],
                   limit: int) -> dict[str, list[float]]:
    """The last ``limit`` values of each metric in results of ``evaluation_context``, newest first."""
    key = context_key(evaluation_context)
    history: dict[str, list[float]] = {}
    for metric in dict.fromkeys(metrics):
        query = (select(DataQualityMetricRow.value)
                 .where(DataQualityMetricRow.account_id == scope.account_id,
                        DataQualityMetricRow.region == scope.region, DataQualityMetricRow.context_key == key,
                        DataQualityMetricRow.metric == metric)
                 .order_by(DataQualityMetricRow.started_on.desc(), DataQualityMetricRow.id.desc())
                 .limit(limit))
        history[metric] = [float(v) for v in session.scalars(query)]
    return history


def result_ids_of_run(session: Session, run_id: str) -> list[str]:
    """The results an evaluation run published, in the order it published them."""
    query = (select(DataQualityResultRow.result_id).where(DataQualityResultRow.evaluation_run_id == run_id)
             .order_by(DataQualityResultRow.id))
    return list(session.scalars(query))


# ---------------------------------------------------------------- runs


def run_query(scope: Scope, kind: RunKind) -> Any:
    return select(DataQualityRunRow).where(DataQualityRunRow.account_id == scope.account_id,
                                           DataQualityRunRow.region == scope.region,
                                           DataQualityRunRow.kind == kind.value)


def run_row(session: Session, run_id: str) -> DataQualityRunRow | None:
    row: DataQualityRunRow | None = session.scalars(
        select(DataQualityRunRow).where(DataQualityRunRow.run_id == run_id)).one_or_none()
    return row


def scoped_run_row(session: Session, scope: Scope, kind: RunKind, run_id: str) -> DataQualityRunRow:
    """The run ``run_id`` of this kind in ``scope``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row: DataQualityRunRow | None = session.scalars(
        run_query(scope, kind).where(DataQualityRunRow.run_id == run_id)).one_or_none()
    if row is None:
        raise EntityNotFoundException(f"Cannot find {kind.noun} with id {run_id}")
    return row


def to_run(row: DataQualityRunRow, result_ids: list[str] | None = None) -> DataQualityRun:
    return DataQualityRun(
        run_id=row.run_id,
        kind=RunKind(row.kind),
        state=RunState(row.status),
        spec=dict(row.spec),
        started_on=row.started_on,
        last_modified_on=row.last_modified_on,
        completed_on=row.completed_on,
        error_string=row.error_string,
        execution_time=row.execution_time or 0,
        recommended_ruleset=row.recommended_ruleset,
        result_ids=list(result_ids or []),
        log_dir=row.log_dir,
        driver_pid=row.driver_pid,
    )


def load_run(session: Session, row: DataQualityRunRow) -> DataQualityRun:
    """The run of ``row`` with its ResultIds (an evaluation run's published results)."""
    ids = result_ids_of_run(session, row.run_id) if row.kind == RunKind.EVALUATION.value else []
    return to_run(row, ids)


def active_runs(session: Session) -> list[DataQualityRunRow]:
    return list(session.scalars(select(DataQualityRunRow).where(
        DataQualityRunRow.status.in_([s.value for s in ACTIVE_STATES]))))


def compare_and_swap(session: Session, run_id: str, expected: RunState, target: RunState, **values: Any) -> bool:
    """Move a run from ``expected`` to ``target`` if it is still in ``expected``; True if it moved.

    Raises:
        ValueError: the transition is not in the run state machine (a bug, never a client error).
    """
    if not can_transition(expected, target):
        raise ValueError(f"data quality run state {expected} cannot become {target}")
    statement = (
        update(DataQualityRunRow)
        .where(DataQualityRunRow.run_id == run_id, DataQualityRunRow.status == expected.value)
        .values(status=target.value, **values)
        .execution_options(synchronize_session=False)
    )
    moved: int = session.execute(statement).rowcount  # type: ignore[attr-defined]
    return moved == 1

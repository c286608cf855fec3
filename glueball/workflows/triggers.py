"""Triggers: CreateTrigger ... DeleteTrigger, StartTrigger and StopTrigger, with Glue's rules.

What a trigger may hold depends on its type, as in Glue:

- ``SCHEDULED`` needs a ``Schedule`` (AWS cron, :mod:`glueball.cron`); no other type takes one.
- ``CONDITIONAL`` needs a ``Predicate``: ``Logical`` AND (default) or ANY over ``Conditions``, each
  ``JobName`` + ``State`` (SUCCEEDED, STOPPED, FAILED, TIMEOUT) or ``CrawlerName`` + ``CrawlState``
  (SUCCEEDED, FAILED, CANCELLED) with ``LogicalOperator`` EQUALS (required, as in Glue).
- ``EVENT`` belongs to a workflow and may hold an ``EventBatchingCondition`` (BatchSize 1-100,
  BatchWindow 1-900 seconds, default 900).
- ``ON_DEMAND`` fires only when asked (StartTrigger, or StartWorkflowRun for its workflow).

Every action names exactly one existing job (with optional ``Arguments``, ``Timeout``,
``NotificationProperty``) or crawler. A workflow has at most one starting trigger (ON_DEMAND,
SCHEDULED or EVENT). ``StartOnCreation`` activates SCHEDULED, CONDITIONAL and EVENT triggers at
creation and is refused for ON_DEMAND ones.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.crawlers.store import crawler_exists
from glueball.cron import CronError, check_glue_schedule
from glueball.errors import (
    ConcurrentModificationException,
    EntityNotFoundException,
    IdempotentParameterMismatchException,
    InvalidInputException,
)
from glueball.jobs.service import check_arguments, check_timeout
from glueball.jobs.store import job_exists
from glueball.store.documents import require_security_configuration
from glueball.store.engine import Store
from glueball.store.schema import TagRow, TriggerRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, register_resource_type, write_tags
from glueball.workflows.models import (
    DEFAULT_BATCH_WINDOW,
    START_TYPES,
    Spec,
    Trigger,
    TriggerState,
    TriggerType,
)
from glueball.workflows.store import (
    bump_trigger,
    find_trigger_row,
    find_workflow_row,
    to_trigger,
    trigger_exists,
    trigger_query,
    trigger_row,
    workflow_triggers,
)

register_resource_type("trigger", trigger_exists)

JOB_CONDITION_STATES = ("SUCCEEDED", "STOPPED", "FAILED", "TIMEOUT")
CRAWL_CONDITION_STATES = ("SUCCEEDED", "FAILED", "CANCELLED")
_SPEC_MEMBERS = ("Description", "Schedule", "Actions", "Predicate", "EventBatchingCondition")


def _check_schedule(expression: str) -> str:
    try:
        return check_glue_schedule(expression).text
    except CronError as exc:
        raise InvalidInputException(f"Invalid schedule expression {expression!r}: {exc}") from exc


def _check_actions(actions: list[Spec]) -> list[Spec]:
    """The actions' own rules (what exists is checked after every member's form: :func:`_check_existence`)."""
    if not actions:
        raise InvalidInputException("Actions must name at least one job or crawler")
    checked: list[Spec] = []
    for index, action in enumerate(actions):
        where = f"Actions[{index}]"
        job, crawler = action.get("JobName"), action.get("CrawlerName")
        if job and crawler:
            raise InvalidInputException("Both JobName and CrawlerName cannot be set together in an action")
        if not job and not crawler:
            raise InvalidInputException("JobName or CrawlerName in action cannot be null or empty")
        if crawler:
            extra = [m for m in ("Arguments", "Timeout", "NotificationProperty") if action.get(m) is not None]
            if extra:
                raise InvalidInputException(f"{where}: a crawler action takes no {', '.join(extra)}")
        else:
            check_arguments(action.get("Arguments"), f"{where}.Arguments")
            check_timeout(action.get("Timeout"), f"{where}.Timeout")
        checked.append({k: v for k, v in action.items() if v is not None})
    return checked


def _check_predicate(predicate: Spec) -> Spec:
    """The predicate's own rules, in Glue's words where Glue's are known (``Logical operator cannot be null or
    empty``, ``State cannot be null or empty, choose from ...``)."""
    conditions = predicate.get("Conditions") or []
    if not conditions:
        raise InvalidInputException("Predicate.Conditions must hold at least one condition")
    checked: list[Spec] = []
    for index, condition in enumerate(conditions):
        where = f"Predicate.Conditions[{index}]"
        job, crawler = condition.get("JobName"), condition.get("CrawlerName")
        if not job and not crawler:
            raise InvalidInputException("JobName or CrawlerName in condition cannot be null or empty")
        if job and crawler:
            raise InvalidInputException(f"{where} must name exactly one of JobName and CrawlerName")
        operator = condition.get("LogicalOperator")
        if not operator:
            raise InvalidInputException("Logical operator cannot be null or empty")
        if job:
            state = condition.get("State")
            if condition.get("CrawlState") is not None:
                raise InvalidInputException(f"{where}: a job condition takes State, not CrawlState")
            if state not in JOB_CONDITION_STATES:
                raise InvalidInputException("State cannot be null or empty, choose from one of the following job "
                                            f"state: [{', '.join(JOB_CONDITION_STATES)}]")
            checked.append({"LogicalOperator": operator, "JobName": job, "State": state})
        else:
            state = condition.get("CrawlState")
            if condition.get("State") is not None:
                raise InvalidInputException(f"{where}: a crawler condition takes CrawlState, not State")
            if state not in CRAWL_CONDITION_STATES:
                raise InvalidInputException("State cannot be null or empty, choose from one of the following "
                                            f"crawler state: [{', '.join(CRAWL_CONDITION_STATES)}]")
            checked.append({"LogicalOperator": operator, "CrawlerName": crawler, "CrawlState": state})
    return {"Logical": predicate.get("Logical") or "AND", "Conditions": checked}


def _check_existence(session: Any, scope: Scope, spec: Spec) -> None:
    """Every job and crawler the predicate and the actions name exists (checked after their form, as Glue does:
    a CONDITIONAL trigger without a Predicate is refused for that even when its action's job is missing)."""
    named = [(f"Predicate.Conditions[{i}]", c) for i, c in enumerate((spec.get("Predicate") or {}).get("Conditions")
                                                                      or [])]
    named += [(f"Actions[{i}]", a) for i, a in enumerate(spec.get("Actions") or [])]
    for where, entry in named:
        job, crawler = entry.get("JobName"), entry.get("CrawlerName")
        if crawler and not crawler_exists(session, scope, crawler):
            raise EntityNotFoundException(f"{where}: crawler {crawler} not found")
        if job and not job_exists(session, scope, str(job)):
            raise EntityNotFoundException(f"{where}: job {job} not found")


def checked_spec(session: Any, scope: Scope, trigger_type: TriggerType, request: Spec) -> Spec:
    """The trigger's stored members from a CreateTrigger request or a TriggerUpdate merged onto a spec.

    Raises:
        InvalidInputException: a member the type does not take, or one that is wrong, named.
        EntityNotFoundException: an action or condition names a job or crawler that does not exist.
    """
    spec: Spec = {}
    if request.get("Description") is not None:
        spec["Description"] = request["Description"]
    schedule = request.get("Schedule")
    if trigger_type is TriggerType.SCHEDULED:
        if not schedule:
            raise InvalidInputException("A SCHEDULED trigger needs a Schedule, e.g. cron(0 3 * * ? *)")
        spec["Schedule"] = _check_schedule(schedule)
    elif schedule:
        raise InvalidInputException(f"Schedule is only for SCHEDULED triggers, not {trigger_type.value}")
    predicate = request.get("Predicate")
    if trigger_type is TriggerType.CONDITIONAL:
        if not predicate:
            raise InvalidInputException("Predicate cannot be null or empty")
        spec["Predicate"] = _check_predicate(predicate)
    elif predicate and predicate.get("Conditions"):
        raise InvalidInputException(f"Predicate is only for CONDITIONAL triggers, not {trigger_type.value}")
    batching = request.get("EventBatchingCondition")
    if trigger_type is TriggerType.EVENT:
        batching = dict(batching or {"BatchSize": 1})
        batching.setdefault("BatchWindow", DEFAULT_BATCH_WINDOW)
        spec["EventBatchingCondition"] = batching
    elif batching:
        raise InvalidInputException(f"EventBatchingCondition is only for EVENT triggers, not {trigger_type.value}")
    spec["Actions"] = _check_actions(list(request.get("Actions") or []))
    for index, action in enumerate(spec["Actions"]):
        require_security_configuration(session, scope, action.get("SecurityConfiguration"), f"Actions[{index}]: ")
    _check_existence(session, scope, spec)
    return spec


def _check_workflow(session: Any, scope: Scope, name: str, trigger_type: TriggerType,
                    workflow: str | None) -> None:
    if workflow is None:
        if trigger_type is TriggerType.EVENT:
            raise InvalidInputException("An EVENT trigger must belong to a workflow (WorkflowName)")
        return
    if find_workflow_row(session, scope, workflow) is None:
        raise EntityNotFoundException(f"Workflow with name {workflow} not found")
    if trigger_type in START_TYPES:
        for other in workflow_triggers(session, scope, workflow):
            if other.name != name and TriggerType(other.type) in START_TYPES:
                raise InvalidInputException(f"Workflow {workflow} already has a starting trigger ({other.name}, "
                                            f"{other.type}); a workflow has one starting trigger")


def activation_values(trigger_type: TriggerType, spec: Spec, clock_now: float) -> Spec:
    """The columns of a trigger becoming ACTIVATED: the first fire time of a schedule, a fresh watermark."""
    values: Spec = {"state": TriggerState.ACTIVATED.value, "next_fire": None, "watermark": None,
                    "event_batch": None}
    if trigger_type is TriggerType.SCHEDULED:
        values["next_fire"] = check_glue_schedule(spec["Schedule"]).next_fire_epoch(clock_now)
    elif trigger_type is TriggerType.CONDITIONAL:
        values["watermark"] = now()
    return values


def _depends_on(row: TriggerRow, job_name: str) -> bool:
    return any(action.get("JobName") == job_name for action in row.spec.get("Actions") or [])


class TriggerService:
    """CreateTrigger ... StopTrigger for one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"trigger/{name}")

    def create(self, request: Spec, access_key: str | None, clock_now: float) -> Trigger:
        """Mirror CreateTrigger; the same definition again is accepted (Glue's idempotent create).

        Raises:
            InvalidInputException: a member the type does not take, a bad schedule or predicate, a second
                starting trigger for the workflow, StartOnCreation for an ON_DEMAND trigger.
            EntityNotFoundException: the workflow, or an action's or condition's job or crawler.
            IdempotentParameterMismatchException: a different trigger of this name exists.
        """
        name, trigger_type = request["Name"], TriggerType(request["Type"])
        workflow = request.get("WorkflowName")
        start = bool(request.get("StartOnCreation"))
        if start and trigger_type is TriggerType.ON_DEMAND:
            raise InvalidInputException("StartOnCreation is not supported for ON_DEMAND triggers")
        stamp = now()
        try:
            with self.store.write() as session:
                spec = checked_spec(session, self.scope, trigger_type, request)
                existing = find_trigger_row(session, self.scope, name)
                if existing is not None:
                    same = (existing.type == trigger_type.value and existing.workflow_name == workflow
                            and json.dumps(existing.spec, sort_keys=True) == json.dumps(spec, sort_keys=True))
                    if not same:
                        raise IdempotentParameterMismatchException(
                            f"Trigger with name {name} already submitted with different configuration")
                    return to_trigger(existing)
                _check_workflow(session, self.scope, name, trigger_type, workflow)
                values: Spec = {"state": TriggerState.CREATED.value}
                if start:
                    values = activation_values(trigger_type, spec, clock_now)
                row = TriggerRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                 trigger_id="t_" + hashlib.sha256(uuid.uuid4().bytes).hexdigest()[:32],
                                 workflow_name=workflow, type=trigger_type.value, spec=spec, version=0,
                                 access_key=access_key, create_time=stamp, update_time=stamp, **values)
                session.add(row)
                session.flush()
                write_tags(session, self.arn(name), request.get("Tags"))
                return to_trigger(row)
        except IntegrityError as exc:
            raise IdempotentParameterMismatchException(
                f"Trigger with name {name} already submitted with different configuration") from exc

    def get(self, name: str) -> Trigger:
        """Mirror GetTrigger.

        Raises:
            EntityNotFoundException: no trigger of this name.
        """
        with self.store.read() as session:
            return to_trigger(trigger_row(session, self.scope, name))

    def get_many(self, names: list[str]) -> tuple[list[Trigger], list[str]]:
        """Mirror BatchGetTriggers: the triggers found, and the names not found."""
        with self.store.read() as session:
            rows = {r.name: r for r in session.scalars(trigger_query(self.scope).where(TriggerRow.name.in_(names)))}
        found, missing = [], []
        for name in dict.fromkeys(names):
            if name in rows:
                found.append(to_trigger(rows[name]))
            else:
                missing.append(name)
        return found, missing

    def page(self, max_results: int, token: str | None, dependent_job: str | None,
             tags: dict[str, str] | None = None) -> tuple[list[Trigger], str | None]:
        """Mirror GetTriggers / ListTriggers: triggers in name order, a page at a time.

        With ``dependent_job``, only the triggers that can start that job (an action names it); with
        ``tags``, only the triggers carrying every tag.

        Raises:
            EntityNotFoundException: ``dependent_job`` names no job.
        """
        after = decode_token(token, str)
        query = trigger_query(self.scope).order_by(TriggerRow.name)
        if after is not None:
            query = query.where(TriggerRow.name > str(after))
        found: list[Trigger] = []
        more = False
        with self.store.read() as session:
            if dependent_job is not None and not job_exists(session, self.scope, dependent_job):
                raise EntityNotFoundException(f"Job with name: {dependent_job} not found")
            for row in session.scalars(query):
                if dependent_job is not None and not _depends_on(row, dependent_job):
                    continue
                if tags:
                    present = {t.key: t.value for t in session.scalars(
                        select(TagRow).where(TagRow.resource_arn == self.arn(row.name)))}
                    if any(present.get(k) != v for k, v in tags.items()):
                        continue
                if len(found) == max_results:
                    more = True
                    break
                found.append(to_trigger(row))
        return found, encode_token(found[-1].name) if more else None

    def update(self, name: str, update: Spec, clock_now: float) -> Trigger:
        """Mirror UpdateTrigger: the given members replace the trigger's; its type and state stay.

        A SCHEDULED trigger that is ACTIVATED is rescheduled from now with its new Schedule.

        Raises:
            EntityNotFoundException: no trigger of this name (or a job/crawler an action names).
            InvalidInputException: a member the trigger's type does not take, or a bad value; a rename.
        """
        if update.get("Name") not in (None, name):
            raise InvalidInputException(f"TriggerUpdate.Name {update['Name']!r} differs from {name!r}; "
                                        "triggers cannot be renamed")
        with self.store.write() as session:
            row = trigger_row(session, self.scope, name, for_update=True)
            trigger_type = TriggerType(row.type)
            merged = dict(row.spec)
            for member in _SPEC_MEMBERS:
                if update.get(member) is not None:
                    merged[member] = update[member]
            spec = checked_spec(session, self.scope, trigger_type, merged)
            values: Spec = {"spec": spec, "update_time": now()}
            if row.state == TriggerState.ACTIVATED.value and trigger_type is TriggerType.SCHEDULED:
                values["next_fire"] = check_glue_schedule(spec["Schedule"]).next_fire_epoch(clock_now)
            if not bump_trigger(session, row.id, row.version, **values):
                raise ConcurrentModificationException(f"Trigger {name} was modified concurrently; retry")
            session.expire(row)
            return to_trigger(trigger_row(session, self.scope, name))

    def delete(self, name: str) -> None:
        """Mirror DeleteTrigger: a missing trigger is no error (Glue answers with the name)."""
        with self.store.write() as session:
            row = find_trigger_row(session, self.scope, name, for_update=True)
            if row is not None:
                delete_tags(session, self.arn(name))
                session.delete(row)

    def activate(self, name: str, clock_now: float) -> Trigger:
        """StartTrigger for SCHEDULED, CONDITIONAL and EVENT triggers: ACTIVATED (again a no-op).

        Raises:
            EntityNotFoundException: no trigger of this name.
        """
        with self.store.write() as session:
            row = trigger_row(session, self.scope, name, for_update=True)
            if row.state != TriggerState.ACTIVATED.value:
                values = activation_values(TriggerType(row.type), row.spec, clock_now)
                if not bump_trigger(session, row.id, row.version, update_time=now(), **values):
                    raise ConcurrentModificationException(f"Trigger {name} was modified concurrently; retry")
                session.expire(row)
                row = trigger_row(session, self.scope, name)
            return to_trigger(row)

    def deactivate(self, name: str) -> Trigger:
        """Mirror StopTrigger: DEACTIVATED; its schedule and any gathered events are dropped.

        Raises:
            EntityNotFoundException: no trigger of this name.
            InvalidInputException: an ON_DEMAND trigger (it is never activated).
        """
        with self.store.write() as session:
            row = trigger_row(session, self.scope, name, for_update=True)
            if row.type == TriggerType.ON_DEMAND.value:
                raise InvalidInputException(f"Trigger {name} is ON_DEMAND; only SCHEDULED, CONDITIONAL and EVENT "
                                            "triggers can be stopped")
            if row.state == TriggerState.ACTIVATED.value:
                if not bump_trigger(session, row.id, row.version, state=TriggerState.DEACTIVATED.value,
                                    next_fire=None, event_batch=None, update_time=now()):
                    raise ConcurrentModificationException(f"Trigger {name} was modified concurrently; retry")
                session.expire(row)
                row = trigger_row(session, self.scope, name)
            return to_trigger(row)

"""Wire handlers of triggers, workflows and workflow runs.

Besides Glue's operations, glueball serves one of its own for EVENT triggers, in place of the
Amazon EventBridge rule that targets a workflow in AWS:
``X-Amz-Target: Glueball.NotifyEvent`` with ``{"WorkflowName": ..., "EventId": ...}`` (EventId
optional; one is made up when absent) answers ``{"EventId", "Accepted", "BatchCount"}`` and, when
the event completed a batch, the ``RunId`` of the workflow run it started. The run's properties
hold ``aws:eventIds`` (a JSON list of the batch's event ids), as Glue's do.
"""

from __future__ import annotations

from typing import Any

from glueball.api.dispatch import Request, Response, internal_operation, operation
from glueball.api.identity import Caller
from glueball.api.pagination import page_size, paged
from glueball.app import Glueball
from glueball.catalog.models import Scope
from glueball.crawlers.models import LOG_GROUP as CRAWLER_LOG_GROUP
from glueball.errors import InvalidInputException
from glueball.jobs.handlers import run_wire as job_run_wire
from glueball.workflows.engine import Engine
from glueball.workflows.graph import CRAWLER, JOB, TRIGGER, Graph
from glueball.workflows.models import Trigger, TriggerType, Workflow
from glueball.workflows.service import RunView, WorkflowService, workflow_spec
from glueball.workflows.triggers import TriggerService


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def triggers(app: Glueball, caller: Caller) -> TriggerService:
    return TriggerService(app.store, _scope(caller))


def workflows(app: Glueball, caller: Caller) -> WorkflowService:
    return WorkflowService(app.store, _scope(caller))


def trigger_wire(trigger: Trigger) -> dict[str, Any]:
    """The model's Trigger structure."""
    wire: dict[str, Any] = {"Name": trigger.name}
    if trigger.workflow_name:
        wire["WorkflowName"] = trigger.workflow_name
    wire.update({"Id": trigger.trigger_id, "Type": trigger.type.value, "State": trigger.state.value})
    for member in ("Description", "Schedule", "Actions", "Predicate", "EventBatchingCondition"):
        if trigger.spec.get(member) is not None:
            wire[member] = trigger.spec[member]
    return wire


def graph_wire(graph: Graph, view: RunView | None) -> dict[str, Any]:
    """The model's WorkflowGraph: nodes (with a run's job runs and crawls when given) and edges."""
    nodes: list[dict[str, Any]] = []
    for node in graph.topological():
        wire: dict[str, Any] = {"Type": node.type, "Name": node.name, "UniqueId": node.unique_id}
        if node.type == TRIGGER:
            wire["TriggerDetails"] = {"Trigger": trigger_wire(graph.triggers[node.name])}
        elif node.type == JOB:
            runs = view.actions.job_runs.get(node.name, []) if view else []
            wire["JobDetails"] = {"JobRuns": [job_run_wire(r) for r in reversed(runs)]} if view else {}
        elif node.type == CRAWLER:
            crawls = view.actions.crawls.get(node.name, []) if view else []
            wire["CrawlerDetails"] = {"Crawls": [_crawl_wire(c) for c in reversed(crawls)]} if view else {}
        nodes.append(wire)
    edges = [{"SourceId": source, "DestinationId": destination} for source, destination in graph.edges]
    return {"Nodes": nodes, "Edges": edges}


def _crawl_wire(crawl: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {"State": crawl.state, "StartedOn": crawl.started_on}
    if crawl.completed_on is not None:
        wire["CompletedOn"] = crawl.completed_on
    if crawl.error_message:
        wire["ErrorMessage"] = crawl.error_message
    wire.update({"LogGroup": CRAWLER_LOG_GROUP, "LogStream": crawl.crawler_name})
    return wire


def run_wire(view: RunView, include_graph: bool) -> dict[str, Any]:
    """The model's WorkflowRun structure."""
    run = view.run
    wire: dict[str, Any] = {"Name": run.workflow_name, "WorkflowRunId": run.run_id}
    if run.previous_run_id:
        wire["PreviousRunId"] = run.previous_run_id
    wire["WorkflowRunProperties"] = dict(run.properties)
    wire["StartedOn"] = run.started_on
    if run.completed_on is not None:
        wire["CompletedOn"] = run.completed_on
    wire["Status"] = run.status.value
    if run.error_message:
        wire["ErrorMessage"] = run.error_message
    wire["Statistics"] = view.actions.statistics()
    if include_graph:
        wire["Graph"] = graph_wire(view.graph, view)
    if run.starting_batch:
        wire["StartingEventBatchCondition"] = dict(run.starting_batch)
    return wire


def workflow_wire(workflow: Workflow, trigger_list: list[Trigger], last: RunView | None,
                  include_graph: bool) -> dict[str, Any]:
    """The model's Workflow structure."""
    wire: dict[str, Any] = {"Name": workflow.name}
    if workflow.spec.get("Description") is not None:
        wire["Description"] = workflow.spec["Description"]
    wire["DefaultRunProperties"] = workflow.default_run_properties
    wire["CreatedOn"] = workflow.create_time
    wire["LastModifiedOn"] = workflow.update_time
    if last is not None:
        wire["LastRun"] = run_wire(last, include_graph)
    if include_graph:
        wire["Graph"] = graph_wire(Graph.build(workflow.name, trigger_list), None)
    if workflow.max_concurrent_runs is not None:
        wire["MaxConcurrentRuns"] = workflow.max_concurrent_runs
    return wire


# ---------------------------------------------------------------- triggers

@operation("CreateTrigger")
def create_trigger(app: Glueball, caller: Caller, request: Request) -> Response:
    triggers(app, caller).create(request, caller.access_key, app.clock.now())
    return {"Name": request["Name"]}


@operation("GetTrigger")
def get_trigger(app: Glueball, caller: Caller, request: Request) -> Response:
    return {"Trigger": trigger_wire(triggers(app, caller).get(request["Name"]))}


@operation("GetTriggers")
def get_triggers(app: Glueball, caller: Caller, request: Request) -> Response:
    found, token = triggers(app, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"),
                                              request.get("DependentJobName"))
    return paged("Triggers", [trigger_wire(t) for t in found], token)


@operation("ListTriggers")
def list_triggers(app: Glueball, caller: Caller, request: Request) -> Response:
    found, token = triggers(app, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"),
                                              request.get("DependentJobName"), request.get("Tags"))
    return paged("TriggerNames", [t.name for t in found], token)


@operation("BatchGetTriggers")
def batch_get_triggers(app: Glueball, caller: Caller, request: Request) -> Response:
    found, missing = triggers(app, caller).get_many(request["TriggerNames"])
    return {"Triggers": [trigger_wire(t) for t in found], "TriggersNotFound": missing}


@operation("UpdateTrigger")
def update_trigger(app: Glueball, caller: Caller, request: Request) -> Response:
    updated = triggers(app, caller).update(request["Name"], request["TriggerUpdate"], app.clock.now())
    return {"Trigger": trigger_wire(updated)}


@operation("DeleteTrigger")
def delete_trigger(app: Glueball, caller: Caller, request: Request) -> Response:
    triggers(app, caller).delete(request["Name"])
    return {"Name": request["Name"]}


@operation("StartTrigger")
def start_trigger(app: Glueball, caller: Caller, request: Request) -> Response:
    service = triggers(app, caller)
    trigger = service.get(request["Name"])
    if trigger.type is TriggerType.ON_DEMAND:
        Engine(app).fire_on_demand(_scope(caller), caller.access_key, trigger)
    else:
        service.activate(request["Name"], app.clock.now())
        app.action_ended()
    return {"Name": request["Name"]}


@operation("StopTrigger")
def stop_trigger(app: Glueball, caller: Caller, request: Request) -> Response:
    triggers(app, caller).deactivate(request["Name"])
    return {"Name": request["Name"]}


# ---------------------------------------------------------------- workflows

@operation("CreateWorkflow")
def create_workflow(app: Glueball, caller: Caller, request: Request) -> Response:
    workflows(app, caller).create(request["Name"], workflow_spec(request), request.get("Tags"))
    return {"Name": request["Name"]}


@operation("GetWorkflow")
def get_workflow(app: Glueball, caller: Caller, request: Request) -> Response:
    workflow, trigger_list, last = workflows(app, caller).get(request["Name"])
    return {"Workflow": workflow_wire(workflow, trigger_list, last, bool(request.get("IncludeGraph")))}


@operation("BatchGetWorkflows")
def batch_get_workflows(app: Glueball, caller: Caller, request: Request) -> Response:
    found, missing = workflows(app, caller).get_many(request["Names"])
    include = bool(request.get("IncludeGraph"))
    return {"Workflows": [workflow_wire(w, t, last, include) for w, t, last in found], "MissingWorkflows": missing}


@operation("ListWorkflows")
def list_workflows(app: Glueball, caller: Caller, request: Request) -> Response:
    names, token = workflows(app, caller).names(page_size(request.get("MaxResults"), 25), request.get("NextToken"))
    return paged("Workflows", names, token)


@operation("UpdateWorkflow")
def update_workflow(app: Glueball, caller: Caller, request: Request) -> Response:
    workflows(app, caller).update(request["Name"], request)
    return {"Name": request["Name"]}


@operation("DeleteWorkflow")
def delete_workflow(app: Glueball, caller: Caller, request: Request) -> Response:
    workflows(app, caller).delete(request["Name"])
    return {"Name": request["Name"]}


# ---------------------------------------------------------------- workflow runs

@operation("StartWorkflowRun")
def start_workflow_run(app: Glueball, caller: Caller, request: Request) -> Response:
    run_id = Engine(app).start_run(_scope(caller), caller.access_key, request["Name"], request.get("RunProperties"))
    return {"RunId": run_id}


@operation("StopWorkflowRun")
def stop_workflow_run(app: Glueball, caller: Caller, request: Request) -> Response:
    Engine(app).stop_run(_scope(caller), request["Name"], request["RunId"])
    return {}


@operation("ResumeWorkflowRun")
def resume_workflow_run(app: Glueball, caller: Caller, request: Request) -> Response:
    run_id, node_ids = Engine(app).resume_run(_scope(caller), caller.access_key, request["Name"], request["RunId"],
                                              request["NodeIds"])
    return {"RunId": run_id, "NodeIds": node_ids}


@operation("GetWorkflowRun")
def get_workflow_run(app: Glueball, caller: Caller, request: Request) -> Response:
    view = workflows(app, caller).run(request["Name"], request["RunId"])
    return {"Run": run_wire(view, bool(request.get("IncludeGraph")))}


@operation("GetWorkflowRuns")
def get_workflow_runs(app: Glueball, caller: Caller, request: Request) -> Response:
    views, token = workflows(app, caller).runs(request["Name"], page_size(request.get("MaxResults"), 100),
                                               request.get("NextToken"))
    include = request.get("IncludeGraph")
    return paged("Runs", [run_wire(v, bool(include)) for v in views], token)


@operation("GetWorkflowRunProperties")
def get_workflow_run_properties(app: Glueball, caller: Caller, request: Request) -> Response:
    return {"RunProperties": workflows(app, caller).properties(request["Name"], request["RunId"])}


@operation("PutWorkflowRunProperties")
def put_workflow_run_properties(app: Glueball, caller: Caller, request: Request) -> Response:
    workflows(app, caller).put_properties(request["Name"], request["RunId"], request["RunProperties"])
    return {}


@internal_operation("NotifyEvent")
def notify_event(app: Glueball, caller: Caller, request: Request) -> Response:
    name = request.get("WorkflowName")
    if not isinstance(name, str) or not name:
        raise InvalidInputException("Glueball.NotifyEvent needs WorkflowName (a non-empty string)")
    event_id = request.get("EventId")
    if event_id is not None and (not isinstance(event_id, str) or not event_id):
        raise InvalidInputException("Glueball.NotifyEvent: EventId must be a non-empty string")
    unknown = set(request) - {"WorkflowName", "EventId"}
    if unknown:
        raise InvalidInputException(f"Unknown parameter(s) {', '.join(sorted(unknown))}; expected WorkflowName, "
                                    "EventId")
    return Engine(app).notify_event(_scope(caller), name, event_id, app.clock.now())

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

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.crawlers.models import LOG_GROUP as CRAWLER_LOG_GROUP
from glueball.errors import InvalidInputException
from glueball.jobs.handlers import run_wire as job_run_wire
from glueball.store.scoped import Scope
from glueball.workflows.area import INTERNAL_OPERATIONS, OPERATIONS, WorkflowNeeds
from glueball.workflows.graph import CRAWLER, JOB, TRIGGER, Graph
from glueball.workflows.models import Trigger, TriggerType, Workflow
from glueball.workflows.orchestrator import Engine
from glueball.workflows.service import RunView, WorkflowService, workflow_spec
from glueball.workflows.triggers import TriggerService


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def triggers(needs: WorkflowNeeds, caller: Caller) -> TriggerService:
    return TriggerService(needs.store, _scope(caller))


def workflows(needs: WorkflowNeeds, caller: Caller) -> WorkflowService:
    return WorkflowService(needs.store, _scope(caller))


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

@OPERATIONS.operation("CreateTrigger")
def create_trigger(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    triggers(needs, caller).create(request, caller.access_key, needs.clock.now())
    return {"Name": request["Name"]}


@OPERATIONS.operation("GetTrigger")
def get_trigger(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    return {"Trigger": trigger_wire(triggers(needs, caller).get(request["Name"]))}


@OPERATIONS.operation("GetTriggers")
def get_triggers(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    found, token = triggers(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"),
                                              request.get("DependentJobName"))
    return paged("Triggers", [trigger_wire(t) for t in found], token)


@OPERATIONS.operation("ListTriggers")
def list_triggers(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    found, token = triggers(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"),
                                              request.get("DependentJobName"), request.get("Tags"))
    return paged("TriggerNames", [t.name for t in found], token)


@OPERATIONS.operation("BatchGetTriggers")
def batch_get_triggers(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    found, missing = triggers(needs, caller).get_many(request["TriggerNames"])
    return {"Triggers": [trigger_wire(t) for t in found], "TriggersNotFound": missing}


@OPERATIONS.operation("UpdateTrigger")
def update_trigger(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    updated = triggers(needs, caller).update(request["Name"], request["TriggerUpdate"], needs.clock.now())
    return {"Trigger": trigger_wire(updated)}


@OPERATIONS.operation("DeleteTrigger")
def delete_trigger(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    triggers(needs, caller).delete(request["Name"])
    return {"Name": request["Name"]}


@OPERATIONS.operation("StartTrigger")
def start_trigger(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    service = triggers(needs, caller)
    trigger = service.get(request["Name"])
    if trigger.type is TriggerType.ON_DEMAND:
        Engine(needs).fire_on_demand(_scope(caller), caller.access_key, trigger)
    else:
        service.activate(request["Name"], needs.clock.now())
        needs.action_ended()
    return {"Name": request["Name"]}


@OPERATIONS.operation("StopTrigger")
def stop_trigger(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    triggers(needs, caller).deactivate(request["Name"])
    return {"Name": request["Name"]}


# ---------------------------------------------------------------- workflows

@OPERATIONS.operation("CreateWorkflow")
def create_workflow(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    workflows(needs, caller).create(request["Name"], workflow_spec(request), request.get("Tags"))
    return {"Name": request["Name"]}


@OPERATIONS.operation("GetWorkflow")
def get_workflow(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    workflow, trigger_list, last = workflows(needs, caller).get(request["Name"])
    return {"Workflow": workflow_wire(workflow, trigger_list, last, bool(request.get("IncludeGraph")))}


@OPERATIONS.operation("BatchGetWorkflows")
def batch_get_workflows(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    found, missing = workflows(needs, caller).get_many(request["Names"])
    include = bool(request.get("IncludeGraph"))
    return {"Workflows": [workflow_wire(w, t, last, include) for w, t, last in found], "MissingWorkflows": missing}


@OPERATIONS.operation("ListWorkflows")
def list_workflows(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    names, token = workflows(needs, caller).names(page_size(request.get("MaxResults"), 25), request.get("NextToken"))
    return paged("Workflows", names, token)


@OPERATIONS.operation("UpdateWorkflow")
def update_workflow(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    workflows(needs, caller).update(request["Name"], request)
    return {"Name": request["Name"]}


@OPERATIONS.operation("DeleteWorkflow")
def delete_workflow(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    workflows(needs, caller).delete(request["Name"])
    return {"Name": request["Name"]}


# ---------------------------------------------------------------- workflow runs

@OPERATIONS.operation("StartWorkflowRun")
def start_workflow_run(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    run_id = Engine(needs).start_run(_scope(caller), caller.access_key, request["Name"], request.get("RunProperties"))
    return {"RunId": run_id}


@OPERATIONS.operation("StopWorkflowRun")
def stop_workflow_run(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    Engine(needs).stop_run(_scope(caller), request["Name"], request["RunId"])
    return {}


@OPERATIONS.operation("ResumeWorkflowRun")
def resume_workflow_run(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    run_id, node_ids = Engine(needs).resume_run(_scope(caller), caller.access_key, request["Name"], request["RunId"],
                                              request["NodeIds"])
    return {"RunId": run_id, "NodeIds": node_ids}


@OPERATIONS.operation("GetWorkflowRun")
def get_workflow_run(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    view = workflows(needs, caller).run(request["Name"], request["RunId"])
    return {"Run": run_wire(view, bool(request.get("IncludeGraph")))}


@OPERATIONS.operation("GetWorkflowRuns")
def get_workflow_runs(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    views, token = workflows(needs, caller).runs(request["Name"], page_size(request.get("MaxResults"), 100),
                                               request.get("NextToken"))
    include = request.get("IncludeGraph")
    return paged("Runs", [run_wire(v, bool(include)) for v in views], token)


@OPERATIONS.operation("GetWorkflowRunProperties")
def get_workflow_run_properties(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    return {"RunProperties": workflows(needs, caller).properties(request["Name"], request["RunId"])}


@OPERATIONS.operation("PutWorkflowRunProperties")
def put_workflow_run_properties(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
    workflows(needs, caller).put_properties(request["Name"], request["RunId"], request["RunProperties"])
    return {}


@INTERNAL_OPERATIONS.operation("NotifyEvent")
def notify_event(needs: WorkflowNeeds, caller: Caller, request: Request) -> Response:
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
    return Engine(needs).notify_event(_scope(caller), name, event_id, needs.clock.now())

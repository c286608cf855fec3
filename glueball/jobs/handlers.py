"""Wire handlers of jobs, job runs and job bookmarks.

Besides Glue's operations, glueball serves one of its own for job runs:
``X-Amz-Target: Glueball.GetJobRunMetrics`` with ``{"JobName": ..., "RunId": ...}`` answers
``{"JobRunId", "JobRunState", "Metrics": {"records_read", "bytes_read", "records_written",
"bytes_written", "executor_seconds"}, "ExecutionTime", "DPUSeconds", "LogDirectory",
"OutputLog", "ErrorLog", "StreamingMetrics"}`` — what Glue's ``JobRun`` shape has no members for (Glue shows them
in CloudWatch metrics and log streams). ``glueball jobs runs`` shows them. ``StreamingMetrics``
(streaming runs whose ``forEachBatch`` processed batches): ``{"Batches", "InputRows", "LastBatch",
"RecentBatches"}``, each batch ``{"batchId", "timestamp", "numInputRows", "inputRowsPerSecond",
"processedRowsPerSecond", "batchDurationMs", "consumerLag"}`` (``glueball.runtime.streaming.metrics``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.clock import now
from glueball.errors import InvalidInputException
from glueball.jobs.area import INTERNAL_OPERATIONS, OPERATIONS, JobNeeds
from glueball.jobs.launcher import merged_arguments
from glueball.jobs.models import LOG_GROUP, Job, JobRun, is_ended
from glueball.jobs.service import JobRunService, JobService, job_spec, refuse_local_files
from glueball.logs.models import job_log_groups
from glueball.objects.access import installation_objects
from glueball.runtime.streaming.metrics import read_stream_metrics, stream_summary
from glueball.store.scoped import Scope
from glueball.studio.service import StagedScript, stage_script

GET_JOB_RUNS_DEFAULT, GET_JOB_RUNS_MAX = 100, 200
_RUN_MEMBERS = ("Timeout", "MaxCapacity", "AllocatedCapacity", "WorkerType", "NumberOfWorkers", "GlueVersion",
                "ExecutionClass", "NotificationProperty", "JobMode", "ExecutionRoleSessionPolicy")


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def jobs(needs: JobNeeds, caller: Caller) -> JobService:
    return JobService(needs.store, _scope(caller))


def runs(needs: JobNeeds, caller: Caller) -> JobRunService:
    return JobRunService(needs.store, _scope(caller))


def job_wire(job: Job) -> dict[str, Any]:
    """The model's Job structure."""
    wire: dict[str, Any] = {"Name": job.name}
    wire.update(job.spec)
    wire["CreatedOn"] = job.create_time
    wire["LastModifiedOn"] = job.update_time
    return wire


def execution_seconds(run: JobRun) -> int:
    """ExecutionTime: seconds the run has consumed so far, or in all once it ended."""
    if is_ended(run.state):
        return run.execution_time
    return max(0, math.ceil(now() - run.started_on))


def run_wire(run: JobRun) -> dict[str, Any]:
    """The model's JobRun structure."""
    wire: dict[str, Any] = {"Id": run.run_id, "Attempt": run.attempt}
    if run.previous_run_id:
        wire["PreviousRunId"] = run.previous_run_id
    if run.trigger_name:
        wire["TriggerName"] = run.trigger_name
    wire.update({"JobName": run.job_name, "StartedOn": run.started_on, "LastModifiedOn": run.last_modified_on})
    if run.completed_on is not None:
        wire["CompletedOn"] = run.completed_on
    wire["JobRunState"] = run.state.value
    wire["Arguments"] = dict(run.arguments)
    if run.error_message:
        wire["ErrorMessage"] = run.error_message
    wire["PredecessorRuns"] = []
    wire["ExecutionTime"] = execution_seconds(run)
    # Glue's --custom-logGroup-prefix replaces /aws-glue/jobs: the run's logs are in <prefix>/output and /error
    arguments = {**(run.spec.get("DefaultArguments") or {}), **run.arguments,
                 **(run.spec.get("NonOverridableArguments") or {})}
    wire["LogGroupName"] = str(arguments.get("--custom-logGroup-prefix") or LOG_GROUP).rstrip("/")
    for member in _RUN_MEMBERS:
        if run.spec.get(member) is not None:
            wire[member] = run.spec[member]
    if run.dpu_seconds is not None:
        wire["DPUSeconds"] = run.dpu_seconds
    return wire


# ---------------------------------------------------------------- jobs

def _visual(needs: JobNeeds, caller: Caller, spec: dict[str, Any], name: str) -> tuple[dict[str, Any],
                                                                                      StagedScript | None]:
    """A job with a graph (``CodeGenConfigurationNodes``): its checked graph's script, to write once stored."""
    settings = needs.jobs.settings
    return stage_script(spec, name, caller.account_id, caller.region,
                        installation_objects(settings.home, settings.object_store_url))


@OPERATIONS.operation("CreateJob")
def create_job(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    spec, script = _visual(needs, caller, job_spec(request), request["Name"])
    if not needs.jobs.settings.allow_local_scripts:
        refuse_local_files(spec)
    jobs(needs, caller).create(request["Name"], spec, request.get("Tags"))
    if script is not None:
        script.write()
    return {"Name": request["Name"]}


@OPERATIONS.operation("UpdateJob")
def update_job(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    spec, script = _visual(needs, caller, job_spec(request["JobUpdate"]), request["JobName"])
    if not needs.jobs.settings.allow_local_scripts:
        refuse_local_files(spec)
    jobs(needs, caller).update(request["JobName"], spec)
    if script is not None:
        script.write()
    return {"JobName": request["JobName"]}


@OPERATIONS.operation("GetJob")
def get_job(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    return {"Job": job_wire(jobs(needs, caller).get(request["JobName"]))}


@OPERATIONS.operation("GetJobs")
def get_jobs(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    found, token = jobs(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("Jobs", [job_wire(j) for j in found], token)


@OPERATIONS.operation("BatchGetJobs")
def batch_get_jobs(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    found, missing = jobs(needs, caller).get_many(request["JobNames"])
    return {"Jobs": [job_wire(j) for j in found], "JobsNotFound": missing}


@OPERATIONS.operation("ListJobs")
def list_jobs(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    names, token = jobs(needs, caller).names(page_size(request.get("MaxResults")), request.get("NextToken"),
                                           request.get("Tags"))
    return paged("JobNames", names, token)


@OPERATIONS.operation("DeleteJob")
def delete_job(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    drivers = jobs(needs, caller).delete(request["JobName"])
    if drivers:
        needs.jobs.signal_stop(drivers)
    return {"JobName": request["JobName"]}


# ---------------------------------------------------------------- job runs

@OPERATIONS.operation("StartJobRun")
def start_job_run(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    run_id = needs.jobs.start(_scope(caller), caller.access_key, request["JobName"], request)
    return {"JobRunId": run_id}


@OPERATIONS.operation("GetJobRun")
def get_job_run(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    return {"JobRun": run_wire(runs(needs, caller).get(request["JobName"], request["RunId"]))}


@OPERATIONS.operation("GetJobRuns")
def get_job_runs(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    size = page_size(request.get("MaxResults"), default=GET_JOB_RUNS_DEFAULT, limit=GET_JOB_RUNS_MAX)
    found, token = runs(needs, caller).page(request["JobName"], size, request.get("NextToken"))
    return paged("JobRuns", [run_wire(r) for r in found], token)


@OPERATIONS.operation("BatchStopJobRun")
def batch_stop_job_run(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    name = request["JobName"]
    submitted, errors, drivers = runs(needs, caller).request_stop(name, request["JobRunIds"])
    needs.jobs.signal_stop(drivers)
    return {
        "SuccessfulSubmissions": [{"JobName": name, "JobRunId": run_id} for run_id in submitted],
        "Errors": [{"JobName": name, "JobRunId": run_id, "ErrorDetail": {"ErrorCode": code, "ErrorMessage": message}}
                   for run_id, code, message in errors],
    }


# ---------------------------------------------------------------- glueball's own

def metrics_wire(run: JobRun) -> dict[str, Any]:
    """What ``Glueball.GetJobRunMetrics`` answers for ``run``."""
    directory = Path(run.log_dir) if run.log_dir else None
    wire: dict[str, Any] = {"JobName": run.job_name, "JobRunId": run.run_id, "JobRunState": run.state.value,
                            "ExecutionTime": execution_seconds(run), "Metrics": run.metrics.to_json()}
    if run.dpu_seconds is not None:
        wire["DPUSeconds"] = run.dpu_seconds
    output, error, _ = job_log_groups(merged_arguments(run.spec, run.arguments))
    wire["LogGroups"] = {"Output": output, "Error": error}  # stream: the run id, in CloudWatch Logs
    if directory is not None:
        wire.update({"LogDirectory": str(directory), "OutputLog": str(directory / "output.log"),
                     "ErrorLog": str(directory / "error.log")})
    # kept on the run by the server watching it; a run of an older server (none kept): its folder, if here
    streaming = run.streaming or (stream_summary(read_stream_metrics(directory)) if directory else None)
    if streaming is not None:
        wire["StreamingMetrics"] = streaming
    return wire


@INTERNAL_OPERATIONS.operation("GetJobRunMetrics")
def get_job_run_metrics(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    for member in ("JobName", "RunId"):
        if not isinstance(request.get(member), str) or not request[member]:
            raise InvalidInputException(f"Glueball.GetJobRunMetrics needs {member} (a non-empty string)")
    unknown = set(request) - {"JobName", "RunId"}
    if unknown:
        raise InvalidInputException(f"Unknown parameter(s) {', '.join(sorted(unknown))}; expected JobName, RunId")
    return metrics_wire(runs(needs, caller).get(request["JobName"], request["RunId"]))


import glueball.jobs.bookmark_handlers  # noqa: E402,F401

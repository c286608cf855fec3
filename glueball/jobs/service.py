"""Jobs: definitions (per account and region), validated with Glue's rules.

Glue's rules mirrored here: ``Command.Name`` is required and any name is stored, as in Glue (a run
needs ``glueetl``, ``gluestreaming`` or ``pythonshell``, and fails saying so otherwise; ``glueray``
jobs are stored with their ``Runtime`` and Z.2X workers); a Python shell job has 0.0625
(default) or 1 DPU; a Spark job has either ``MaxCapacity`` (2-100 whole DPUs, default 10) or ``WorkerType`` with
``NumberOfWorkers``, never both; ``Timeout`` is below 7 days (default 2,880 minutes,
480 for Glue 5.0 and later); ``ExecutionProperty.MaxConcurrentRuns`` defaults to 1;
UpdateJob's ``JobUpdate`` replaces the whole definition (unspecified members return
to their defaults); DeleteJob of a missing job succeeds.

Job runs (:class:`JobRunService`): StartJobRun refuses a run over
``MaxConcurrentRuns`` (``ConcurrentRunsExceededException``) inside the write
transaction that creates it, with the job's row locked, so concurrent starts on
any number of servers cannot overshoot; every state change after that is a
compare-and-swap on the run's state (:mod:`glueball.jobs.store`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.errors import (
    AlreadyExistsException,
    ConcurrentRunsExceededException,
    EntityNotFoundException,
    InvalidInputException,
)
from glueball.jobs.models import (
    ACTIVE_STATES,
    PYTHON_SHELL,
    RAY,
    SPARK_COMMANDS,
    WORKER_DPU,
    Driver,
    Job,
    JobRun,
    JobRunState,
    is_ended,
)
from glueball.jobs.store import (
    active_run_count,
    compare_and_swap,
    find_job_row,
    job_exists,
    job_query,
    job_row,
    run_row,
    to_job,
    to_run,
)
from glueball.objects import locations
from glueball.store.documents import require_security_configuration
from glueball.store.engine import Store
from glueball.store.schema import JobRow, JobRunRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, list_tagged_names, register_resource_type, write_tags

Spec = dict[str, Any]

SPEC_MEMBERS = ("JobMode", "JobRunQueuingEnabled", "Description", "LogUri", "Role", "ExecutionProperty", "Command",
                "DefaultArguments", "NonOverridableArguments", "Connections", "MaxRetries", "AllocatedCapacity",
                "Timeout", "MaxCapacity", "SecurityConfiguration", "NotificationProperty", "GlueVersion",
                "NumberOfWorkers", "WorkerType", "CodeGenConfigurationNodes", "ExecutionClass",
                "SourceControlDetails", "MaintenanceWindow")
MAX_TIMEOUT_MINUTES = 10080
PYTHON_SHELL_DPUS = (0.0625, 1.0)
DEFAULT_SPARK_DPUS = 10.0
DEFAULT_GLUE_VERSION = {"glueetl": "6.0", "gluestreaming": "6.0", PYTHON_SHELL: "3.0", RAY: "4.0"}
BOOKMARK_OPTIONS = ("job-bookmark-enable", "job-bookmark-disable", "job-bookmark-pause")

register_resource_type("job", job_exists)


def _version_number(glue_version: str | None) -> float:
    try:
        return float(glue_version or "0")
    except ValueError:  # "auto": the newest
        return 99.0


def default_timeout(command: str, glue_version: str | None) -> int:
    """Glue's default Timeout: 2,880 minutes, or 480 for Spark jobs of Glue 5.0 and later."""
    if command in SPARK_COMMANDS and _version_number(glue_version) >= 5.0:
        return 480
    return 2880


def check_timeout(timeout: int | None, where: str = "Timeout") -> None:
    if timeout is not None and not 1 <= timeout <= MAX_TIMEOUT_MINUTES:
        raise InvalidInputException(f"{where} must be between 1 and {MAX_TIMEOUT_MINUTES} minutes (less than "
                                    f"7 days), got {timeout}")


def check_arguments(arguments: dict[str, str] | None, where: str) -> None:
    """Refuse the special arguments glueball cannot honour, with the reason."""
    for key, value in (arguments or {}).items():
        if key == "--job-language" and value.lower() != "python":
            raise InvalidInputException(f"{where}: --job-language {value} is not supported by glueball; "
                                        "glueball runs Python scripts (--job-language python)")
        if key == "--job-bookmark-option" and value not in BOOKMARK_OPTIONS:
            raise InvalidInputException(f"{where}: --job-bookmark-option must be one of "
                                        f"{', '.join(BOOKMARK_OPTIONS)}, got {value!r}")


def check_capacity(command: str, max_capacity: float | None, worker_type: str | None,
                   workers: int | None) -> None:
    """Glue's capacity rules of a job (or a run's overrides, applied on the job's).

    Raises:
        InvalidInputException: a combination or value Glue refuses.
    """
    if (worker_type is None) != (workers is None):
        raise InvalidInputException("Please set both Worker Type and Number of Workers.")
    if worker_type is not None and max_capacity is not None:
        raise InvalidInputException("Please do not set Max Capacity if using Worker Type and Number of Workers.")
    if command == PYTHON_SHELL:
        if worker_type is not None:
            raise InvalidInputException("Worker Type and Number of Workers are not supported for Python shell jobs; "
                                        "set MaxCapacity to 0.0625 or 1")
        if max_capacity is not None and max_capacity not in PYTHON_SHELL_DPUS:
            raise InvalidInputException(f"Python shell jobs accept MaxCapacity 0.0625 or 1 DPU, got {max_capacity}")
        return
    if command == RAY:
        if worker_type is not None and worker_type != "Z.2X":
            raise InvalidInputException(f"Ray jobs (glueray) use WorkerType Z.2X, got {worker_type}")
        return
    if worker_type is not None and workers is not None:
        if worker_type == "Z.2X":
            raise InvalidInputException("WorkerType Z.2X is for Ray jobs (glueray); use G.1X, G.2X, ... for Spark")
        if workers < 2:
            raise InvalidInputException(f"NumberOfWorkers must be at least 2, got {workers}")
        return
    if max_capacity is not None and (max_capacity != int(max_capacity) or not 2 <= max_capacity <= 100):
        raise InvalidInputException(f"Spark jobs ({command}) accept MaxCapacity of 2 to 100 whole DPUs, "
                                    f"got {max_capacity}")


def refuse_local_files(spec: Spec) -> None:
    """A server that runs only object-store code (no ``--allow-local-scripts``) refuses local paths.

    Raises:
        InvalidInputException: ``Command.ScriptLocation`` or an ``--extra-py-files`` entry is a local path.
    """
    location = (spec.get("Command") or {}).get("ScriptLocation")
    extra = [p.strip() for key in ("DefaultArguments", "NonOverridableArguments")
             for p in ((spec.get(key) or {}).get("--extra-py-files") or "").split(",") if p.strip()]
    for member, value in [("Command.ScriptLocation", location), *(("--extra-py-files", e) for e in extra)]:
        if value is not None and not locations.is_s3(value):
            raise InvalidInputException(f"{member} {value!r} is a file of the server's machine: this server runs "
                                        f"only code from the object store (s3://); start it with "
                                        f"--allow-local-scripts to allow local paths")


def check_script_location(location: str | None) -> None:
    if location is None:
        return
    if locations.is_s3(location):
        try:
            parsed = locations.parse_s3(location)
        except locations.LocationError as exc:
            raise InvalidInputException(f"Command.ScriptLocation: {exc}") from exc
        if not parsed.key or parsed.folder:
            raise InvalidInputException(f"Command.ScriptLocation must name a script, s3://bucket/key.py, "
                                        f"got {location!r}")
        return
    path = location[len("file://"):] if location.startswith("file://") else location
    if not path.startswith("/"):
        raise InvalidInputException(f"Command.ScriptLocation must be an s3:// path or an absolute local path, "
                                    f"got {location!r}")


def _capacity_of(spec: Spec) -> tuple[float | None, str | None, int | None]:
    max_capacity = spec.get("MaxCapacity")
    allocated = spec.get("AllocatedCapacity")
    if allocated is not None:
        if max_capacity is not None:
            # AWS's text (a live UpdateJob answer quoted in public tooling; moto's suite agrees)
            raise InvalidInputException("Please set only Allocated Capacity or Max Capacity")
        max_capacity = float(allocated)
    return (None if max_capacity is None else float(max_capacity)), spec.get("WorkerType"), \
        spec.get("NumberOfWorkers")


def filled_capacity(command: str, max_capacity: float | None, worker_type: str | None,
                    workers: int | None) -> Spec:
    """The capacity members Glue reports: MaxCapacity always; AllocatedCapacity for DPU-sized Spark jobs."""
    if worker_type is not None and workers is not None:
        return {"WorkerType": worker_type, "NumberOfWorkers": workers,
                "MaxCapacity": WORKER_DPU.get(worker_type, 1.0) * workers}
    if command == PYTHON_SHELL:
        return {"MaxCapacity": max_capacity if max_capacity is not None else PYTHON_SHELL_DPUS[0],
                "AllocatedCapacity": 0}
    capacity = max_capacity if max_capacity is not None else DEFAULT_SPARK_DPUS
    return {"MaxCapacity": capacity, "AllocatedCapacity": int(capacity)}


def job_spec(request: Spec) -> Spec:
    """The stored definition of CreateJob's members (or UpdateJob's JobUpdate), Glue's defaults filled.

    Raises:
        InvalidInputException: naming the member and the value Glue (or glueball) refuses.
    """
    given: Spec = {m: json.loads(json.dumps(request[m])) for m in SPEC_MEMBERS if request.get(m) is not None}
    if not given.get("Role"):
        raise InvalidInputException("Role is required")
    if "Command" not in given:
        raise InvalidInputException("Command is required")
    command: Spec = given["Command"]
    name = command.get("Name")
    if not name:
        raise InvalidInputException("Command name should not be null or empty")  # AWS's text
    # AWS Glue stores any command name (glueetl, gluestreaming, pythonshell, glueray and others); glueball
    # does too, and a run of a command it cannot run fails then, saying so (docs/fidelity.md)
    # a visual job's script is generated, by default under the account's Glue assets bucket (glueball.studio)
    if name in (*SPARK_COMMANDS, PYTHON_SHELL, RAY) and not command.get("ScriptLocation") and \
            not given.get("CodeGenConfigurationNodes"):
        raise InvalidInputException(f"Script location cannot be null or empty for {name} command")  # AWS's text
    if command.get("Runtime") is not None and name != RAY:
        raise InvalidInputException("Command.Runtime applies to Ray jobs (glueray) only")
    check_script_location(command.get("ScriptLocation"))
    python = command.setdefault("PythonVersion", "3")
    if python == "2":
        raise InvalidInputException("PythonVersion 2 is not supported by glueball; use 3")
    if python == "3.9" and name in SPARK_COMMANDS:
        raise InvalidInputException("PythonVersion 3.9 applies to Python shell and Ray jobs; Spark jobs use 3")
    if given.get("JobRunQueuingEnabled"):
        raise InvalidInputException("Job run queuing (JobRunQueuingEnabled) is not supported by glueball; "
                                    "runs over MaxConcurrentRuns are refused")
    if given.get("MaintenanceWindow") and name != "gluestreaming":
        raise InvalidInputException("MaintenanceWindow applies to streaming jobs (gluestreaming) only")
    glue_version = given.setdefault("GlueVersion", DEFAULT_GLUE_VERSION.get(name, DEFAULT_GLUE_VERSION["glueetl"]))
    if name == PYTHON_SHELL and glue_version not in ("1.0", "3.0"):
        raise InvalidInputException(f"Python shell jobs use GlueVersion 1.0 or 3.0, got {glue_version}")
    execution_class = given.setdefault("ExecutionClass", "STANDARD")
    if execution_class == "FLEX" and (name != "glueetl" or _version_number(glue_version) < 3.0):
        raise InvalidInputException("Only jobs with Glue version 3.0 and above and command type glueetl can use "
                                    "ExecutionClass FLEX")
    check_timeout(given.get("Timeout"))
    given.setdefault("Timeout", default_timeout(name, glue_version))
    if given.setdefault("MaxRetries", 0) < 0:
        raise InvalidInputException(f"MaxRetries must be 0 or more, got {given['MaxRetries']}")
    execution = given.setdefault("ExecutionProperty", {})
    if execution.setdefault("MaxConcurrentRuns", 1) < 1:
        raise InvalidInputException(f"ExecutionProperty.MaxConcurrentRuns must be at least 1, "
                                    f"got {execution['MaxConcurrentRuns']}")
    check_arguments(given.get("DefaultArguments"), "DefaultArguments")
    check_arguments(given.get("NonOverridableArguments"), "NonOverridableArguments")
    max_capacity, worker_type, workers = _capacity_of(given)
    check_capacity(name, max_capacity, worker_type, workers)
    for member in ("MaxCapacity", "AllocatedCapacity", "WorkerType", "NumberOfWorkers"):
        given.pop(member, None)
    given.update(filled_capacity(name, max_capacity, worker_type, workers))
    return given


def new_job_id(name: str) -> str:
    return "j_" + hashlib.sha256(f"{name}:{uuid.uuid4()}".encode()).hexdigest()


class JobService:
    """CreateJob ... ListJobs for one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"job/{name}")

    def create(self, name: str, spec: Spec, tags: dict[str, str] | None) -> None:
        """Mirror CreateJob.

        Raises:
            AlreadyExistsException: a job of this name exists.
            InvalidInputException: a tag is invalid.
        """
        stamp = now()
        try:
            with self.store.write() as session:
                require_security_configuration(session, self.scope, spec.get("SecurityConfiguration"))
                session.add(JobRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                   job_id=new_job_id(name), spec=spec, create_time=stamp, update_time=stamp))
                session.flush()
                write_tags(session, self.arn(name), tags)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Job with name: {name} already exists") from exc

    def get(self, name: str) -> Job:
        """Mirror GetJob.

        Raises:
            EntityNotFoundException: no job of this name.
        """
        with self.store.read() as session:
            return to_job(job_row(session, self.scope, name))

    def page(self, max_results: int, token: str | None) -> tuple[list[Job], str | None]:
        """Mirror GetJobs: jobs in name order, a page at a time."""
        after = decode_token(token, str)
        query = job_query(self.scope).order_by(JobRow.name).limit(max_results + 1)
        if after is not None:
            query = query.where(JobRow.name > str(after))
        with self.store.read() as session:
            rows = list(session.scalars(query))
        found = [to_job(row) for row in rows[:max_results]]
        return found, encode_token(found[-1].name) if len(rows) > max_results else None

    def get_many(self, names: list[str]) -> tuple[list[Job], list[str]]:
        """Mirror BatchGetJobs: the jobs found, and the names not found (JobsNotFound)."""
        with self.store.read() as session:
            rows = {r.name: r for r in session.scalars(job_query(self.scope).where(JobRow.name.in_(names)))}
        found, missing = [], []
        for name in dict.fromkeys(names):
            if name in rows:
                found.append(to_job(rows[name]))
            else:
                missing.append(name)
        return found, missing

    def names(self, max_results: int, token: str | None, tags: dict[str, str] | None) -> tuple[list[str], str | None]:
        """Mirror ListJobs: names in order; with ``tags``, only those carrying all of them."""
        return list_tagged_names(self.store, JobRow, self.scope, self.arn, max_results, token, tags)

    def update(self, name: str, spec: Spec) -> None:
        """Mirror UpdateJob: the new definition replaces the old one; runs in progress keep theirs.

        Raises:
            EntityNotFoundException: no job of this name.
        """
        with self.store.write() as session:
            row = job_row(session, self.scope, name, for_update=True)
            require_security_configuration(session, self.scope, spec.get("SecurityConfiguration"))
            row.spec = spec
            row.update_time = now()

    def delete(self, name: str) -> list[Driver]:
        """Mirror DeleteJob: the job, its run history and tags go; a missing job is no error.

        Returns:
            the drivers of the job's runs that were still active (the caller stops them).
        """
        with self.store.write() as session:
            row = find_job_row(session, self.scope, name, for_update=True)
            if row is None:
                return []
            active = [Driver.of(r) for r in session.scalars(select(JobRunRow).where(
                JobRunRow.job_id == row.id, JobRunRow.state.in_([s.value for s in ACTIVE_STATES])))]
            delete_tags(session, self.arn(row.name))
            from glueball.jobs.bookmarks import delete_job_bookmarks

            delete_job_bookmarks(session, self.scope, row.name)
            for run in session.scalars(select(JobRunRow).where(JobRunRow.job_id == row.id)):
                session.delete(run)
            session.delete(row)
            return active


# ---------------------------------------------------------------- job runs

RUN_OVERRIDES = ("Timeout", "MaxCapacity", "AllocatedCapacity", "WorkerType", "NumberOfWorkers", "ExecutionClass",
                 "NotificationProperty", "SecurityConfiguration", "JobRunQueuingEnabled", "ExecutionRoleSessionPolicy")
_SNAPSHOT = ("Command", "DefaultArguments", "NonOverridableArguments", "Connections", "GlueVersion", "ExecutionClass",
             "MaxRetries", "NotificationProperty", "JobMode", "Timeout", "Role")


def new_run_id() -> str:
    return "jr_" + hashlib.sha256(uuid.uuid4().bytes).hexdigest()


def attempt_run_id(previous: JobRun) -> str:
    """Glue names a retry after the first attempt: ``<first run id>_attempt_<n>``."""
    root = previous.run_id.split("_attempt_")[0]
    return f"{root}_attempt_{previous.attempt + 1}"


def run_spec(job: Job, overrides: Spec) -> Spec:
    """What a run runs with: the job's definition with the StartJobRun overrides applied and checked.

    Raises:
        InvalidInputException: an override Glue (or glueball) refuses.
    """
    spec: Spec = {m: json.loads(json.dumps(job.spec[m])) for m in _SNAPSHOT if job.spec.get(m) is not None}
    spec["JobId"] = job.job_id
    command = job.command_name
    if overrides.get("JobRunQueuingEnabled"):
        raise InvalidInputException("Job run queuing (JobRunQueuingEnabled) is not supported by glueball; "
                                    "runs over MaxConcurrentRuns are refused")
    check_timeout(overrides.get("Timeout"))
    if overrides.get("Timeout") is not None:
        spec["Timeout"] = overrides["Timeout"]
    max_capacity, worker_type, workers = _capacity_of(overrides)
    if max_capacity is not None and worker_type is None:
        check_capacity(command, max_capacity, None, None)
        capacity = filled_capacity(command, max_capacity, None, None)
    elif worker_type is not None or workers is not None:
        worker_type = worker_type or job.spec.get("WorkerType")
        workers = workers or job.spec.get("NumberOfWorkers")
        check_capacity(command, max_capacity, worker_type, workers)
        capacity = filled_capacity(command, None, worker_type, workers)
    else:
        capacity = {m: job.spec[m] for m in ("MaxCapacity", "AllocatedCapacity", "WorkerType", "NumberOfWorkers")
                    if job.spec.get(m) is not None}
    spec.update(capacity)
    for member in ("ExecutionClass", "NotificationProperty", "ExecutionRoleSessionPolicy"):
        if overrides.get(member) is not None:
            spec[member] = overrides[member]
    if spec.get("ExecutionClass") == "FLEX" and command != "glueetl":
        raise InvalidInputException("Only jobs with Glue version 3.0 and above and command type glueetl can use "
                                    "ExecutionClass FLEX")
    return spec


class JobRunService:
    """StartJobRun's bookkeeping, GetJobRun(s), BatchStopJobRun and the run state machine's transitions."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def begin(self, name: str, request: Spec, runner: str, access_key: str | None, log_root: Path,
              trigger_name: str | None = None, retry_of: JobRun | None = None,
              workflow_run_id: str | None = None, fire_id: int | None = None) -> tuple[Job, JobRun]:
        """Mirror StartJobRun's checks and record a STARTING run; the runner launches its driver.

        ``retry_of`` is a run that ended FAILED or TIMEOUT and is retried under MaxRetries (attempt + 1);
        the retry belongs to the same workflow run and trigger fire. ``workflow_run_id`` and ``fire_id``
        record which workflow run and trigger fire started the run.

        Raises:
            EntityNotFoundException: no job of this name, or no run ``JobRunId`` of it.
            InvalidInputException: an override glueball refuses; a JobRunId that is still running.
            ConcurrentRunsExceededException: MaxConcurrentRuns runs of the job are active.
        """
        arguments: dict[str, str] = dict(request.get("Arguments") or {})
        check_arguments(arguments, "Arguments")
        stamp = now()
        with self.store.write() as session:
            row = find_job_row(session, self.scope, name, for_update=True)
            if row is None:
                raise EntityNotFoundException(f"Failed to start job run due to missing metadata: job {name} "
                                              "does not exist")
            job = to_job(row)
            previous = retry_of
            if previous is None and request.get("JobRunId"):
                previous = self._run_of(session, row, request["JobRunId"])
                if not is_ended(previous.state):
                    raise InvalidInputException(f"Job run {previous.run_id} is {previous.state.value}; only a "
                                                "finished run can be retried")
                if request.get("Arguments") is None:
                    arguments = dict(previous.arguments)
            if retry_of is not None:  # MaxRetries: the same run again, as it was started
                spec, arguments = dict(retry_of.spec), dict(retry_of.arguments)
                workflow_run_id, fire_id = retry_of.workflow_run_id, retry_of.fire_id
            else:
                spec = run_spec(job, {m: request.get(m) for m in RUN_OVERRIDES})
                require_security_configuration(session, self.scope, request.get("SecurityConfiguration"))
            if active_run_count(session, row.id) >= job.max_concurrent_runs:
                raise ConcurrentRunsExceededException(f"Concurrent runs exceeded for {name}")
            run_id = attempt_run_id(previous) if retry_of is not None and previous is not None else new_run_id()
            log_dir = log_root / "jobs" / quote(name, safe="") / run_id
            session.add(JobRunRow(
                job_id=row.id, run_id=run_id, attempt=previous.attempt + 1 if previous is not None else 0,
                previous_run_id=previous.run_id if previous is not None else None, trigger_name=trigger_name,
                state=JobRunState.STARTING.value, started_on=stamp, last_modified_on=stamp, arguments=arguments,
                spec=spec, execution_time=0, runner=runner, heartbeat=stamp, log_dir=str(log_dir),
                access_key=access_key, workflow_run_id=workflow_run_id, fire_id=fire_id))
            session.flush()
            created = run_row(session, run_id)
            assert created is not None
            return job, to_run(created, name)

    def _run_of(self, session: Session, job: JobRow, run_id: str) -> JobRun:
        found = run_row(session, run_id)
        if found is None or found.job_id != job.id:
            raise EntityNotFoundException(f"Job run {run_id} of job {job.name} not found")
        return to_run(found, job.name)

    def get(self, name: str, run_id: str) -> JobRun:
        """Mirror GetJobRun.

        Raises:
            EntityNotFoundException: no such job, or no such run of it.
        """
        with self.store.read() as session:
            return self._run_of(session, job_row(session, self.scope, name), run_id)

    def page(self, name: str, max_results: int, token: str | None) -> tuple[list[JobRun], str | None]:
        """Mirror GetJobRuns: the job's runs, newest first, a page at a time."""
        offset = decode_token(token, int) or 0
        with self.store.read() as session:
            row = job_row(session, self.scope, name)
            query = (select(JobRunRow).where(JobRunRow.job_id == row.id)
                     .order_by(JobRunRow.started_on.desc(), JobRunRow.id.desc())
                     .offset(offset).limit(max_results + 1))
            rows = list(session.scalars(query))
        more = len(rows) > max_results
        return [to_run(r, name) for r in rows[:max_results]], encode_token(offset + max_results) if more else None

    def request_stop(self, name: str, run_ids: list[str]) -> tuple[list[str], list[tuple[str, str, str]],
                                                                   list[Driver]]:
        """Mirror BatchStopJobRun: active runs become STOPPING (compare-and-swap).

        Returns:
            the run ids submitted, the (run id, error code, message) of the others, and the drivers
            of the runs now STOPPING (the caller signals them).
        """
        submitted: list[str] = []
        errors: list[tuple[str, str, str]] = []
        drivers: list[Driver] = []
        stamp = now()
        with self.store.write() as session:
            job = find_job_row(session, self.scope, name)
            for run_id in dict.fromkeys(run_ids):
                row = run_row(session, run_id) if job is not None else None
                if job is None or row is None or row.job_id != job.id:
                    errors.append((run_id, "EntityNotFoundException", f"Job run {run_id} of job {name} not found"))
                    continue
                state = JobRunState(row.state)
                if state is JobRunState.STOPPING:
                    submitted.append(run_id)
                    drivers.append(Driver.of(row))
                elif state in (JobRunState.STARTING, JobRunState.RUNNING, JobRunState.WAITING) and compare_and_swap(
                        session, run_id, state, JobRunState.STOPPING, last_modified_on=stamp):
                    submitted.append(run_id)
                    drivers.append(Driver.of(row))
                else:
                    session.expire(row)
                    current = run_row(session, run_id)
                    shown = current.state if current is not None else state.value
                    errors.append((run_id, "InvalidInputException",
                                   f"Job run {run_id} cannot be stopped in its current state {shown}"))
        return submitted, errors, drivers

    def mark_running(self, run_id: str, host: str, pid: int, start: int | None) -> JobRunState | None:
        """STARTING -> RUNNING with the driver's identity; the run's state now (None: the run is gone)."""
        with self.store.write() as session:
            values: Spec = {"driver_host": host, "driver_pid": pid, "driver_start": start, "last_modified_on": now()}
            if compare_and_swap(session, run_id, JobRunState.STARTING, JobRunState.RUNNING, **values):
                return JobRunState.RUNNING
            session.execute(update(JobRunRow).where(JobRunRow.run_id == run_id).values(**values)
                            .execution_options(synchronize_session=False))
            row = run_row(session, run_id)
            return JobRunState(row.state) if row is not None else None

    def keep_streaming(self, run_id: str, summary: dict[str, Any]) -> None:
        """Keep a streaming run's batch summary on the run (every server then shows the same)."""
        with self.store.write() as session:
            session.execute(update(JobRunRow).where(JobRunRow.run_id == run_id).values(streaming=summary)
                            .execution_options(synchronize_session=False))

    def state(self, run_id: str) -> JobRunState | None:
        with self.store.read() as session:
            row = run_row(session, run_id)
            return JobRunState(row.state) if row is not None else None

    def finish(self, run_id: str, outcome: JobRunState, error: str | None, execution_time: int,
               dpu_seconds: float | None, metrics: Spec | None, ended_at: float | None = None) -> JobRunState | None:
        """Record how a run ended (``CompletedOn``: ``ended_at``, when its driver's end was recorded, else now); a
        run asked to stop ends STOPPED whatever its driver did.

        Returns:
            the state recorded, or None if the run had already ended (or was deleted with its job).
        """
        for _ in range(5):
            with self.store.write() as session:
                row = run_row(session, run_id)
                if row is None or is_ended(JobRunState(row.state)):
                    return None
                current = JobRunState(row.state)
                target = JobRunState.STOPPED if current is JobRunState.STOPPING else outcome
                stamp = now()
                message = None if target in (JobRunState.STOPPED, JobRunState.SUCCEEDED) else error
                if compare_and_swap(session, run_id, current, target, completed_on=round(ended_at, 3) if ended_at
                                    else stamp, last_modified_on=stamp,
                                    error_message=message, execution_time=execution_time, dpu_seconds=dpu_seconds,
                                    metrics=metrics, runner=None, heartbeat=None):
                    return target
        return None


def find_run(store: Store, run_id: str) -> tuple[Scope, JobRun] | None:
    """The run ``run_id`` of any account and region (run ids are unique), for ``glueball logs``."""
    with store.read() as session:
        row = run_row(session, run_id)
        if row is None:
            return None
        job = session.get(JobRow, row.job_id)
        assert job is not None
        return Scope(job.account_id, job.region), to_run(row, job.name)


def beat(store: Store, run_ids: list[str]) -> None:
    """Refresh the heartbeat of the runs this process watches (so other servers leave them alone)."""
    if run_ids:
        with store.write() as session:
            session.execute(update(JobRunRow).where(JobRunRow.run_id.in_(run_ids)).values(heartbeat=now())
                            .execution_options(synchronize_session=False))

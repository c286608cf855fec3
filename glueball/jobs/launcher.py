"""A job run's driver process: its command line, environment, logs, and signals.

Spark jobs (``glueetl``, ``gluestreaming``) run as::

    python -m glueball run <script> --JOB_NAME <job> --JOB_ID <job id> --JOB_RUN_ID <run id>
        --job-bookmark-option <option> [merged arguments...] [--spark-master M --conf k=v ...]

and Python shell jobs as ``python <script> --JOB_NAME ... [merged arguments...]`` with the
server's interpreter (or the per-job environment of ``--additional-python-modules``). The
merged arguments are the job's ``DefaultArguments``, overridden by the run's ``Arguments``,
overridden by the job's ``NonOverridableArguments``.

The script comes from ``Command.ScriptLocation``: ``s3://bucket/key`` is an object of the installation's
store (:mod:`glueball.objects.access`), downloaded into the run's directory at start as Glue
downloads it; a local path runs in place. The driver's stdout goes to
``$GLUEBALL_HOME/logs/jobs/<job>/<run id>/output.log``, its stderr to ``error.log`` (Glue's
``/aws-glue/jobs/output`` and ``/aws-glue/jobs/error`` log streams), Spark's event log to
``events/`` (for the run's metrics). Each driver leads its own process group, so stopping a
run ends the JVM and any other child with it.

Environment of the driver: ``GLUEBALL_HOME``; ``GLUEBALL_ENDPOINT`` (and ``AWS_ENDPOINT_URL_S3``,
``_GLUE``, ``_STS``, ``_IAM``, so plain ``boto3.client("s3")`` reaches the same server) when a server
launched it (embedded, a Python shell script's boto3 clients are answered in-process:
:mod:`glueball.runtime.lake`); ``GLUEBALL_JOB_NAME``, ``GLUEBALL_JOB_RUN_ID``, ``GLUEBALL_JOB_ATTEMPT``,
``GLUEBALL_PREVIOUS_RUN_ID``; ``GLUEBALL_JOB_LOG_DIR`` (the run's log directory, where a streaming job's
``forEachBatch`` records its per-batch metrics); ``AWS_REGION``/``AWS_DEFAULT_REGION`` and the caller's access key;
``GLUEBALL_S3_FILESYSTEM`` from the job argument ``--s3-filesystem`` (``glueball``, the default: s3:// read and
written in the object store's folder; ``s3a``: Hadoop's S3AFileSystem through this server's S3 API with the run's
credentials, as executors that share no disk with the server need; such a run starts a driver of its own).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glueball.errors import InvalidInputException
from glueball.jobs.models import PYTHON_SHELL, RAY, SPARK_COMMANDS, JobRun
from glueball.jobs.service import refuse_local_files
from glueball.objects import locations
from glueball.objects.access import LocalObjects, Objects, download_location, installation_objects
from glueball.objects.reach import OBJECT_STORE_ENV
from glueball.runtime import capacity as resources
from glueball.runtime import hadoop, jvmshare
from glueball.runtime.lake import endpoint_variables
from glueball.runtime.pyenv import PythonModulesError, job_python
from glueball.runtime.spark import driver_jars
from glueball.supervise import driverenv, launch
from glueball.supervise.driverenv import DriverEnv
from glueball.supervise.warm import Shape, WarmPool, shape_of

RUNNER_OPTIONS = ("--spark-master", "--conf", "--extra-py-files")
MASTER_URL = re.compile(r"local(\[(\d+|\*)(,\d+)?\])?|spark://[^\s/]+(,[^\s/]+)*|k8s://\S+|yarn|mesos://\S+")
_DROPPED_ENV = (driverenv.ENDPOINT, *endpoint_variables(""), "PYSPARK_SUBMIT_ARGS", "GLUEBALL_SPARK_CONF",
                *driverenv.RUN_VARIABLES)


class LaunchError(Exception):
    """The run cannot start (missing script, bad special argument, failed module install): it ends FAILED."""


def merged_arguments(spec: dict[str, Any], run_arguments: dict[str, str]) -> dict[str, str]:
    """DefaultArguments, then the run's Arguments, then NonOverridableArguments (each wins over the former)."""
    merged: dict[str, str] = dict(spec.get("DefaultArguments") or {})
    merged.update(run_arguments)
    merged.update(spec.get("NonOverridableArguments") or {})
    return merged


def fetch(location: str, objects: Objects, folder: Path, what: str) -> Path:
    """A script or Python file as the driver runs it: an ``s3://`` object downloaded into ``folder`` (as Glue
    downloads it), a ``file://`` URI or a path in place.

    Raises:
        LaunchError: no such object or file, or an s3 location that would leave the object store.
    """
    try:
        return download_location(location, folder, objects)
    except locations.LocationError as exc:
        raise LaunchError(str(exc)) from exc
    except FileNotFoundError:
        raise LaunchError(f"{what} {location} does not exist") from None


def event_folder(location: str, home: Path, object_store_url: str = "") -> Path | None:
    """The local folder of a user's Spark event log path (``--spark-event-logs-path``), or None: it is in a store
    reached through an S3 API, where the run's metrics read it (:mod:`glueball.jobs.eventlog`).

    Raises:
        LaunchError: an s3 location that would leave the object store.
    """
    try:
        if locations.is_s3(location):
            objects = installation_objects(home, object_store_url)
            return objects.path(location) if isinstance(objects, LocalObjects) else None
        return Path(location.removeprefix("file://"))
    except locations.LocationError as exc:
        raise LaunchError(str(exc)) from exc


def spark_master(arguments: dict[str, str]) -> str:
    """The Spark master of a run: the job's ``--spark-master`` argument, else the server's
    (``GLUEBALL_SPARK_MASTER``), else ``local[*]``.

    Raises:
        LaunchError: ``--spark-master`` is not a Spark master URL.
    """
    master = arguments.get("--spark-master", "").strip()
    if master and not MASTER_URL.fullmatch(master):
        raise LaunchError(f"--spark-master: {master!r} is not a Spark master URL (local[N], spark://host:port, "
                          "k8s://https://host:port, yarn)")
    return master or os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"


def run_dir(run: JobRun) -> Path:
    if run.log_dir is None:
        raise LaunchError(f"job run {run.run_id} has no log directory")
    return Path(run.log_dir)


@dataclass
class LaunchPlan:
    """How to start one run's driver."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    output_log: Path
    error_log: Path
    event_dirs: list[Path]
    warm_shape: Shape | None = None  # a warm driver of this shape may run it (glueball.supervise.warm)


def _conf_keys(value: str) -> set[str]:
    return {part.strip().partition("=")[0] for part in value.split(" --conf ") if "=" in part}


def _spark_options(run: JobRun, arguments: dict[str, str], home: Path, events: Path,
                   object_store_url: str) -> tuple[list[str], list[Path]]:
    """``glueball run`` options of the run's capacity, master and event log; and where event logs go."""
    spec = run.spec
    master = spark_master(arguments)
    try:
        settings = resources.spark_settings(spec.get("WorkerType"), spec.get("NumberOfWorkers"),
                                            spec.get("MaxCapacity"), spec.get("GlueVersion"), master,
                                            spec["Command"]["Name"], arguments=arguments, home=home)
    except ValueError as exc:
        raise LaunchError(str(exc)) from exc
    event_settings = resources.event_log_settings(events, home)
    event_dirs = [events]
    if "spark.eventLog.dir" in settings:  # --enable-spark-ui with --spark-event-logs-path: the user's place
        folder = event_folder(settings["spark.eventLog.dir"], home, object_store_url)
        event_dirs = [folder] if folder is not None else []  # in a remote store: fetched for the metrics
    else:
        settings.update(event_settings)
    user_conf = _conf_keys(arguments.get("--conf", ""))
    options: list[str] = []
    for key, value in settings.items():
        if key == "spark.master":
            options += ["--spark-master", value]
        elif key not in user_conf:
            options += ["--conf", f"{key}={value}"]
    return options, event_dirs


def _python(arguments: dict[str, str], home: Path) -> str:
    modules = arguments.get("--additional-python-modules")
    if not modules:
        return sys.executable
    try:
        return str(job_python(modules, home, arguments.get("--python-modules-installer-option", "")))
    except PythonModulesError as exc:
        raise LaunchError(str(exc)) from exc


def plan_launch(run: JobRun, home: Path, endpoint: str | None, region: str, access_key: str | None,
                store_url: str = "", credentials: tuple[str, str, str] | None = None,
                local_files: bool = True, object_store_url: str = "") -> LaunchPlan:
    """The driver's command line and environment for ``run``.

    With a remote object store (``object_store_url``), the script and ``--extra-py-files`` are downloaded from
    it, and the driver reaches ``s3://`` through an S3 API (:mod:`glueball.objects.reach`): its server's (S3A
    with the run's credentials) or, embedded, the store itself.

    Raises:
        LaunchError: the script is missing, a special argument is invalid, or modules cannot be installed.
    """
    spec = run.spec
    command = spec["Command"]
    name = command.get("Name")
    if name == RAY:
        raise LaunchError("Ray jobs (Command.Name glueray) cannot run on glueball: it runs Spark (glueetl, "
                          "gluestreaming) and Python shell (pythonshell) jobs")
    if name not in (*SPARK_COMMANDS, PYTHON_SHELL):
        raise LaunchError(f"Command.Name {name!r} is not a job type glueball can run (glueetl, gluestreaming, "
                          "pythonshell); the job was accepted as AWS Glue accepts it, but a run needs one of those")
    location = command.get("ScriptLocation")
    if not location:
        raise LaunchError(f"Job {run.job_name} has no Command.ScriptLocation")
    if not local_files:  # a job defined before the server stopped allowing local paths
        try:
            refuse_local_files(spec)
        except InvalidInputException as exc:
            raise LaunchError(exc.message) from exc
    objects = installation_objects(home, object_store_url)
    directory = run_dir(run)
    directory.mkdir(parents=True, exist_ok=True)
    script = fetch(location, objects, directory / "script", "Script")
    arguments = merged_arguments(spec, run.arguments)
    bookmark = arguments.pop("--job-bookmark-option", "job-bookmark-disable")
    identity = ["--JOB_NAME", run.job_name, "--JOB_ID", str(spec.get("JobId", "")), "--JOB_RUN_ID", run.run_id,
                "--job-bookmark-option", bookmark]
    extra_files = [str(fetch(p.strip(), objects, directory / "py-files", "--extra-py-files:"))
                   for p in arguments.get("--extra-py-files", "").split(",") if p.strip()]
    passed: list[str] = []
    for key, value in arguments.items():
        if key == "--spark-master":  # the run's Spark options carry it (spark_master)
            continue
        if key == "--extra-py-files" and extra_files:
            value = ",".join(extra_files)
        passed += [key, value]
    filesystem = arguments.get("--s3-filesystem")
    if filesystem is not None and filesystem not in hadoop.S3_FILESYSTEMS:
        raise LaunchError(f"--s3-filesystem: {filesystem!r} is not one of {', '.join(hadoop.S3_FILESYSTEMS)}")
    if filesystem == "s3a" and not endpoint and not object_store_url:
        raise LaunchError("--s3-filesystem s3a reads and writes s3:// through a server's S3 API: an embedded run "
                          "has none")
    if object_store_url and filesystem == "glueball":
        raise LaunchError("--s3-filesystem glueball reads s3:// as the server's folder, but this installation keeps "
                          "its objects in a remote store (--object-store): leave it out, or use s3a")
    if object_store_url:
        filesystem = "s3a"
    python = _python(arguments, home)
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env.pop(hadoop.S3_FILESYSTEM_ENV, None)
    env.pop(OBJECT_STORE_ENV, None)
    if filesystem is not None:
        env[hadoop.S3_FILESYSTEM_ENV] = filesystem
    if object_store_url and not endpoint:  # embedded: the driver reaches the store itself
        env[OBJECT_STORE_ENV] = object_store_url
    event_dirs: list[Path] = []
    warm_shape: Shape | None = None
    if command["Name"] == PYTHON_SHELL:
        argv = [python, "-m", "glueball.runtime.pyshell", str(script), *identity, *passed]
        paths = [str(Path(p).parent) if p.endswith(".py") else p for p in extra_files]
        if paths:
            env["PYTHONPATH"] = os.pathsep.join([*dict.fromkeys(paths), *filter(None, [env.get("PYTHONPATH")])])
    else:
        jvmshare.build_in_background(driver_jars())  # the first Spark launch without an archive starts one
        options, event_dirs = _spark_options(run, arguments, home, directory / "events", object_store_url)
        argv = [python, "-m", "glueball", "run", str(script), *identity, *passed, *options]
        # a user's own event log path, or S3A's jars and the run's credentials, need a driver started for them
        if event_dirs == [directory / "events"] and filesystem != "s3a" and not object_store_url:
            warm_shape = shape_of(python, argv[4:])
    DriverEnv(home=home, endpoint=endpoint or "", store_url="" if endpoint else store_url,
              job_name=run.job_name, run_id=run.run_id, attempt=run.attempt,
              previous_run_id=run.previous_run_id, log_dir=directory).apply(env)
    env.update({"AWS_REGION": region, "AWS_DEFAULT_REGION": region, "PYTHONUNBUFFERED": "1"})
    if endpoint:
        env.update(endpoint_variables(endpoint))  # a script's own boto3 clients reach this server (S3, Glue ...)
        if credentials is not None:  # the run acts as its role (--auth iam): temporary credentials of that role
            env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_SESSION_TOKEN"] = credentials
        else:
            env["AWS_ACCESS_KEY_ID"] = access_key or env.get("AWS_ACCESS_KEY_ID") or "glueball"
            env.setdefault("AWS_SECRET_ACCESS_KEY", "glueball")
            env.pop("AWS_SESSION_TOKEN", None)
    return LaunchPlan(argv, env, directory, directory / "output.log", directory / "error.log", event_dirs, warm_shape)


def spawn(plan: LaunchPlan, warm: WarmPool | None = None, generation: int | None = None) -> subprocess.Popen[bytes]:
    """Start the driver under its keeper in its own session (process group), its output into the run's logs: a warm
    driver of the plan's shape when the pool has one ready (its event logs are then where that driver writes them).
    Either way the keeper records how it ended in the run's folder (:mod:`glueball.supervise.outcome`); a cold
    one claims launch ``generation`` of the folder first (:mod:`glueball.supervise.fence`)."""
    launch.pass_gate()
    if warm is not None and plan.warm_shape is not None:
        driver = warm.take(plan.warm_shape)
        if driver is not None:
            plan.event_dirs = [driver.events]
            return warm.assign(driver, plan.argv[1:], plan.env, plan.cwd, plan.output_log, plan.error_log)
    return launch.spawn(plan.argv, plan.env, plan.cwd, plan.output_log, plan.error_log, generation=generation)


def job_shape(spec: dict[str, Any], home: Path) -> Shape | None:
    """The warm-driver shape of a job's runs (as :func:`plan_launch` would give them), or None: not a Spark job,
    modules of its own to install, its own Spark event log path, or s3:// through S3A."""
    arguments = dict(spec.get("DefaultArguments") or {})
    arguments.update(spec.get("NonOverridableArguments") or {})
    if spec.get("Command", {}).get("Name") == PYTHON_SHELL or arguments.get("--additional-python-modules") or \
            arguments.get("--enable-spark-ui", "").lower() == "true" or arguments.get("--s3-filesystem") == "s3a":
        return None
    try:
        master = spark_master(arguments)
        options = resources.driver_options(spec.get("WorkerType"), spec.get("NumberOfWorkers"),
                                           spec.get("MaxCapacity"), spec.get("GlueVersion"), master, arguments, home)
    except (ValueError, LaunchError):
        return None
    return shape_of(sys.executable, options)


def default_shape(home: Path, arguments: dict[str, str] | None = None) -> Shape:
    """The shape of a Glue job's driver with no capacity or Spark settings of its own (what the pool warms first),
    or with only the job ``arguments`` given (``--datalake-formats``)."""
    master = os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"
    return shape_of(sys.executable, resources.driver_options(None, None, None, None, master, arguments, home=home))

"""A job run's driver process: its command line, environment, logs, and signals.

Spark jobs (``glueetl``, ``gluestreaming``) run as::

    python -m glueball run <script> --JOB_NAME <job> --JOB_ID <job id> --JOB_RUN_ID <run id>
        --job-bookmark-option <option> [merged arguments...] [--spark-master M --conf k=v ...]

and Python shell jobs as ``python <script> --JOB_NAME ... [merged arguments...]`` with the
server's interpreter (or the per-job environment of ``--additional-python-modules``). The
merged arguments are the job's ``DefaultArguments``, overridden by the run's ``Arguments``,
overridden by the job's ``NonOverridableArguments``.

The script comes from ``Command.ScriptLocation``: ``s3://bucket/key`` is the object store
(``$GLUEBALL_HOME/s3/bucket/key``), copied into the run's directory at start as Glue
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
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glueball.errors import InvalidInputException
from glueball.jobs.models import PYTHON_SHELL, RAY, SPARK_COMMANDS, JobRun
from glueball.jobs.service import refuse_local_files
from glueball.objects import locations
from glueball.runtime import capacity as resources
from glueball.runtime import hadoop, jvmshare
from glueball.runtime.lake import endpoint_variables
from glueball.runtime.pyenv import PythonModulesError, job_python
from glueball.runtime.spark import driver_jars
from glueball.supervise import driverenv, launch
from glueball.supervise.driverenv import DriverEnv
from glueball.supervise.warm import Shape, WarmPool, shape_of

RUNNER_OPTIONS = ("--spark-master", "--conf", "--extra-py-files")
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


def local_path(location: str, home: Path) -> Path:
    """An ``s3://bucket/key`` of ``home``'s object store, a ``file://`` URI or a path, as a local path.

    Raises:
        LaunchError: an s3 location that would leave the object store.
    """
    try:
        return locations.local_path(location, locations.object_store_root(home))
    except locations.LocationError as exc:
        raise LaunchError(str(exc)) from exc


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


def _spark_options(run: JobRun, arguments: dict[str, str], home: Path, events: Path) -> tuple[list[str], list[Path]]:
    """``glueball run`` options of the run's capacity, master and event log; and where event logs go."""
    spec = run.spec
    master = os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"
    try:
        settings = resources.spark_settings(spec.get("WorkerType"), spec.get("NumberOfWorkers"),
                                            spec.get("MaxCapacity"), spec.get("GlueVersion"), master,
                                            spec["Command"]["Name"], arguments=arguments, home=home)
    except ValueError as exc:
        raise LaunchError(str(exc)) from exc
    event_settings = resources.event_log_settings(events, home)
    event_dirs = [events]
    if "spark.eventLog.dir" in settings:  # --enable-spark-ui with --spark-event-logs-path: the user's place
        event_dirs = [local_path(settings["spark.eventLog.dir"], home)]
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
                local_files: bool = True) -> LaunchPlan:
    """The driver's command line and environment for ``run``.

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
    source = local_path(location, home)
    if not source.is_file():
        raise LaunchError(f"Script {location} does not exist" + (f" ({source})" if location.startswith("s3://")
                                                                  else ""))
    directory = run_dir(run)
    directory.mkdir(parents=True, exist_ok=True)
    script = source
    if location.startswith("s3://"):
        script = directory / "script" / source.name
        script.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, script)
    arguments = merged_arguments(spec, run.arguments)
    bookmark = arguments.pop("--job-bookmark-option", "job-bookmark-disable")
    identity = ["--JOB_NAME", run.job_name, "--JOB_ID", str(spec.get("JobId", "")), "--JOB_RUN_ID", run.run_id,
                "--job-bookmark-option", bookmark]
    extra_files = [str(local_path(p.strip(), home)) for p in arguments.get("--extra-py-files", "").split(",")
                   if p.strip()]
    for extra in extra_files:
        if not Path(extra).exists():
            raise LaunchError(f"--extra-py-files: {extra} does not exist")
    passed: list[str] = []
    for key, value in arguments.items():
        if key == "--extra-py-files" and extra_files:
            value = ",".join(extra_files)
        passed += [key, value]
    filesystem = arguments.get("--s3-filesystem")
    if filesystem is not None and filesystem not in hadoop.S3_FILESYSTEMS:
        raise LaunchError(f"--s3-filesystem: {filesystem!r} is not one of {', '.join(hadoop.S3_FILESYSTEMS)}")
    if filesystem == "s3a" and not endpoint:
        raise LaunchError("--s3-filesystem s3a reads and writes s3:// through a server's S3 API: an embedded run "
                          "has none")
    python = _python(arguments, home)
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env.pop(hadoop.S3_FILESYSTEM_ENV, None)
    if filesystem is not None:
        env[hadoop.S3_FILESYSTEM_ENV] = filesystem
    event_dirs: list[Path] = []
    warm_shape: Shape | None = None
    if command["Name"] == PYTHON_SHELL:
        argv = [python, "-m", "glueball.runtime.pyshell", str(script), *identity, *passed]
        paths = [str(Path(p).parent) if p.endswith(".py") else p for p in extra_files]
        if paths:
            env["PYTHONPATH"] = os.pathsep.join([*dict.fromkeys(paths), *filter(None, [env.get("PYTHONPATH")])])
    else:
        jvmshare.build_in_background(driver_jars())  # the first Spark launch without an archive starts one
        options, event_dirs = _spark_options(run, arguments, home, directory / "events")
        argv = [python, "-m", "glueball", "run", str(script), *identity, *passed, *options]
        # a user's own event log path, or S3A's jars and the run's credentials, need a driver started for them
        if event_dirs == [directory / "events"] and filesystem != "s3a":
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


def spawn(plan: LaunchPlan, warm: WarmPool | None = None) -> subprocess.Popen[bytes]:
    """Start the driver under its keeper in its own session (process group), its output into the run's logs: a warm
    driver of the plan's shape when the pool has one ready (its event logs are then where that driver writes them).
    Either way the keeper records how it ended in the run's folder (:mod:`glueball.supervise.outcome`)."""
    launch.pass_gate()
    if warm is not None and plan.warm_shape is not None:
        driver = warm.take(plan.warm_shape)
        if driver is not None:
            plan.event_dirs = [driver.events]
            return warm.assign(driver, plan.argv[1:], plan.env, plan.cwd, plan.output_log, plan.error_log)
    return launch.spawn(plan.argv, plan.env, plan.cwd, plan.output_log, plan.error_log)


def job_shape(spec: dict[str, Any], home: Path) -> Shape | None:
    """The warm-driver shape of a job's runs (as :func:`plan_launch` would give them), or None: not a Spark job,
    modules of its own to install, its own Spark event log path, or s3:// through S3A."""
    arguments = dict(spec.get("DefaultArguments") or {})
    arguments.update(spec.get("NonOverridableArguments") or {})
    if spec.get("Command", {}).get("Name") == PYTHON_SHELL or arguments.get("--additional-python-modules") or \
            arguments.get("--enable-spark-ui", "").lower() == "true" or arguments.get("--s3-filesystem") == "s3a":
        return None
    master = os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"
    try:
        options = resources.driver_options(spec.get("WorkerType"), spec.get("NumberOfWorkers"),
                                           spec.get("MaxCapacity"), spec.get("GlueVersion"), master, arguments, home)
    except ValueError:
        return None
    return shape_of(sys.executable, options)


def default_shape(home: Path) -> Shape:
    """The shape of a Glue job's driver with no capacity or Spark settings of its own (what the pool warms first)."""
    master = os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"
    return shape_of(sys.executable, resources.driver_options(None, None, None, None, master, home=home))

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

Environment of the driver: ``GLUEBALL_HOME``; ``GLUEBALL_ENDPOINT`` (and
``AWS_ENDPOINT_URL_GLUE``, so plain ``boto3.client("glue")`` reaches the same server) when
a server launched it; ``GLUEBALL_JOB_NAME``, ``GLUEBALL_JOB_RUN_ID``, ``GLUEBALL_JOB_ATTEMPT``,
``GLUEBALL_PREVIOUS_RUN_ID``; ``GLUEBALL_JOB_LOG_DIR`` (the run's log directory, where a streaming job's
``forEachBatch`` records its per-batch metrics); ``AWS_REGION``/``AWS_DEFAULT_REGION`` and the caller's access key.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glueball.jobs.models import PYTHON_SHELL, JobRun

TIMEOUT_UNIT_ENV = "GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS"
RUNNER_OPTIONS = ("--spark-master", "--conf", "--extra-py-files")
_DROPPED_ENV = ("GLUEBALL_ENDPOINT", "AWS_ENDPOINT_URL_GLUE", "PYSPARK_SUBMIT_ARGS", "GLUEBALL_SPARK_CONF",
                "GLUEBALL_JOB_NAME", "GLUEBALL_JOB_RUN_ID", "GLUEBALL_JOB_ATTEMPT", "GLUEBALL_PREVIOUS_RUN_ID",
                "GLUEBALL_JOB_LOG_DIR")


class LaunchError(Exception):
    """The run cannot start (missing script, bad special argument, failed module install): it ends FAILED."""


def timeout_unit_seconds() -> float:
    """Seconds per ``Timeout`` unit: 60 (minutes, as Glue). A testing knob: ``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS=1``
    makes ``Timeout`` count seconds, so tests can watch a run time out."""
    try:
        return float(os.environ.get(TIMEOUT_UNIT_ENV, "60"))
    except ValueError:
        return 60.0


def merged_arguments(spec: dict[str, Any], run_arguments: dict[str, str]) -> dict[str, str]:
    """DefaultArguments, then the run's Arguments, then NonOverridableArguments (each wins over the former)."""
    merged: dict[str, str] = dict(spec.get("DefaultArguments") or {})
    merged.update(run_arguments)
    merged.update(spec.get("NonOverridableArguments") or {})
    return merged


def local_path(location: str, home: Path) -> Path:
    """An ``s3://bucket/key`` of the object store, a ``file://`` URI or a path, as a local path."""
    if location.startswith("s3://"):
        return home / "s3" / location[len("s3://"):]
    if location.startswith("file://"):
        return Path(location[len("file://"):])
    return Path(location)


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


def _conf_keys(value: str) -> set[str]:
    return {part.strip().partition("=")[0] for part in value.split(" --conf ") if "=" in part}


def _spark_options(run: JobRun, arguments: dict[str, str], home: Path, events: Path) -> tuple[list[str], list[Path]]:
    """``glueball run`` options of the run's capacity, master and event log; and where event logs go."""
    spec = run.spec
    master = os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"
    try:
        from glueball.jobs import resources
    except ImportError:  # resources not available: the whole capacity on this host
        cores = max(1, min(os.cpu_count() or 1, int(spec.get("NumberOfWorkers") or spec.get("MaxCapacity") or 2)))
        settings = {"spark.master": master if not master.startswith("local") else f"local[{cores}]"}
        event_settings: dict[str, str] = {"spark.eventLog.enabled": "true", "spark.eventLog.dir": events.as_uri(),
                                          "spark.eventLog.compress": "false"}
        events.mkdir(parents=True, exist_ok=True)
    else:
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
        from glueball.jobs.pyenv import PythonModulesError, job_python
    except ImportError as exc:
        raise LaunchError("--additional-python-modules is not supported by this glueball") from exc
    try:
        return str(job_python(modules, home, arguments.get("--python-modules-installer-option", "")))
    except PythonModulesError as exc:
        raise LaunchError(str(exc)) from exc


def plan_launch(run: JobRun, home: Path, endpoint: str | None, region: str, access_key: str | None,
                store_url: str = "") -> LaunchPlan:
    """The driver's command line and environment for ``run``.

    Raises:
        LaunchError: the script is missing, a special argument is invalid, or modules cannot be installed.
    """
    spec = run.spec
    command = spec["Command"]
    location = command.get("ScriptLocation")
    if not location:
        raise LaunchError(f"Job {run.job_name} has no Command.ScriptLocation")
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
    python = _python(arguments, home)
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    event_dirs: list[Path] = []
    if command["Name"] == PYTHON_SHELL:
        argv = [python, str(script), *identity, *passed]
        paths = [str(Path(p).parent) if p.endswith(".py") else p for p in extra_files]
        if paths:
            env["PYTHONPATH"] = os.pathsep.join([*dict.fromkeys(paths), *filter(None, [env.get("PYTHONPATH")])])
    else:
        options, event_dirs = _spark_options(run, arguments, home, directory / "events")
        argv = [python, "-m", "glueball", "run", str(script), *identity, *passed, *options]
    env.update({
        "GLUEBALL_HOME": str(home),
        "GLUEBALL_JOB_NAME": run.job_name,
        "GLUEBALL_JOB_RUN_ID": run.run_id,
        "GLUEBALL_JOB_ATTEMPT": str(run.attempt),
        "GLUEBALL_JOB_LOG_DIR": str(directory),
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        "PYTHONUNBUFFERED": "1",
    })
    if run.previous_run_id:
        env["GLUEBALL_PREVIOUS_RUN_ID"] = run.previous_run_id
    if endpoint:
        env["GLUEBALL_ENDPOINT"] = endpoint
        env["AWS_ENDPOINT_URL_GLUE"] = endpoint
        env["AWS_ACCESS_KEY_ID"] = access_key or env.get("AWS_ACCESS_KEY_ID") or "glueball"
        env.setdefault("AWS_SECRET_ACCESS_KEY", "glueball")
    elif store_url:
        env["GLUEBALL_STORE"] = store_url
    return LaunchPlan(argv, env, directory, directory / "output.log", directory / "error.log", event_dirs)


def spawn(plan: LaunchPlan) -> subprocess.Popen[bytes]:
    """Start the driver in its own session (process group), its output into the run's logs."""
    with plan.output_log.open("ab") as out, plan.error_log.open("ab") as err:
        return subprocess.Popen(plan.argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=plan.env,
                                cwd=plan.cwd, start_new_session=True)


def host_name() -> str:
    return socket.gethostname()


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks after boot (Linux), to tell a reused pid apart."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()
    try:
        return int(fields[19])  # field 22 of stat; fields[0] is field 3 (state)
    except (IndexError, ValueError):
        return None


def driver_alive(host: str | None, pid: int | None, start: int | None) -> bool:
    """Whether the recorded driver still runs: same host, its pid alive and started when recorded."""
    if host != host_name() or pid is None:
        return False
    current = process_start(pid)
    if current is None:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[:1]
    if state == ["Z"]:
        return False
    return start is None or current == start


def signal_group(pid: int, sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to the driver's process group (the driver, its JVM, its children)."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def error_message(error_log: Path, limit: int = 4096) -> str | None:
    """The script's exception as Glue reports it: the last traceback's final line (``ValueError: ...``)."""
    try:
        with error_log.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 256 * 1024))
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    if starts:
        for line in lines[starts[-1] + 1:]:
            if line.strip() and not line[0].isspace():
                return line.strip()[:limit]
    return None

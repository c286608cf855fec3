"""``glueball run SCRIPT [--key value ...]``: run a Glue script unchanged, in this process.

The script sees ``sys.argv == [SCRIPT, --key, value, ...]`` as on Glue. Spark is
configured before the script creates it, through ``PYSPARK_SUBMIT_ARGS`` (for
scripts that call ``SparkContext()`` themselves) and through the settings
``glueball.runtime.spark.spark_session`` reads (for ``GlueContext()`` without a
SparkContext): the master (``--spark-master``, default ``local[*]``), JDBC driver
jars, glueball's Hadoop FileSystem for ``s3://``/``s3a://``/``s3n://`` (``glueball.runtime.hadoop``),
Glue's SQL semantics, and every ``--conf k=v``. ``--extra-py-files`` (comma
separated ``.py``/``.zip`` files) are importable, on the driver and executors.
"""

from __future__ import annotations

import json
import os
import runpy
import shlex
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from glueball import jvm
from glueball.runtime import hadoop, lakeformats
from glueball.runtime.capacity import local_cores
from glueball.runtime.jvmshare import with_share
from glueball.runtime.spark import base_settings, driver_jars, prepare_event_log

RUNNER_OPTIONS = ("--extra-py-files", "--conf", "--spark-master")


@dataclass
class RunPlan:
    """What ``glueball run`` will do: the script, its argv, and the Spark setup."""

    script: Path
    script_args: list[str] = field(default_factory=list)
    extra_py_files: list[str] = field(default_factory=list)
    conf: dict[str, str] = field(default_factory=dict)
    master: str = "local[*]"


def parse_run_args(script: str, args: list[str]) -> RunPlan:
    """Split runner options (anywhere in ``args``) from the script's own arguments.

    ``--conf`` takes ``k=v``, repeated or Glue-style in one value (``"k=v --conf k2=v2"``).

    Raises:
        ValueError: a runner option without a value, a malformed ``--conf``, or a missing script.
    """
    path = Path(script)
    if not path.is_file():
        raise ValueError(f"Script {script} does not exist")
    plan = RunPlan(script=path.resolve(), master=os.environ.get("GLUEBALL_SPARK_MASTER", "local[*]"))
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, inline = arg.partition("=")
        if name in RUNNER_OPTIONS:
            if eq:
                value = inline
                i += 1
            elif i + 1 < len(args):
                value = args[i + 1]
                i += 2
            else:
                raise ValueError(f"{name} needs a value")
            if name == "--extra-py-files":
                plan.extra_py_files += [str(Path(p).resolve()) for p in value.split(",") if p]
            elif name == "--spark-master":
                plan.master = value
            else:
                for setting in value.split(" --conf "):
                    key, sep, val = setting.strip().partition("=")
                    if not sep or not key:
                        raise ValueError(f"--conf expects key=value, got {setting!r}")
                    plan.conf[key] = val
            continue
        plan.script_args.append(arg)
        i += 1
    for extra in plan.extra_py_files:
        if not Path(extra).exists():
            raise ValueError(f"--extra-py-files: {extra} does not exist")
    # --datalake-formats is the script's argument (as on Glue) and says what its Spark needs
    formats = dict(zip(plan.script_args, plan.script_args[1:], strict=False)).get(lakeformats.ARGUMENT)
    for key, value in lakeformats.driver_settings({lakeformats.ARGUMENT: formats or ""},
                                                  local_cores(plan.master)).items():
        plan.conf.setdefault(key, value)
    return plan


def spark_submit_args(plan: RunPlan, for_run: bool = True) -> str:
    """``PYSPARK_SUBMIT_ARGS`` for ``plan``: what any SparkContext or SparkSession the script makes starts with
    (``for_run`` False: a warm driver's, whose run is not known yet)."""
    jars = driver_jars(lakeformats.formats_of(plan.conf))
    settings = base_settings(jars, plan.master)
    settings.update(plan.conf)
    if for_run:
        settings.update(lakeformats.catalog_settings(settings))
    prepare_event_log(settings)
    options = with_share(settings.get("spark.driver.extraJavaOptions"), jars)
    if options:  # the driver's JVM starts from the class-data-sharing archive (glueball.runtime.jvmshare)
        settings["spark.driver.extraJavaOptions"] = options
    parts = ["--master", plan.master, "--driver-memory", settings.pop("spark.driver.memory", "2g")]
    for key, value in settings.items():
        parts += ["--conf", f"{key}={value}"]
    if jars:
        parts += ["--jars", ",".join(jars), "--driver-class-path", os.pathsep.join(jars)]
    if plan.extra_py_files:
        parts += ["--py-files", ",".join(plan.extra_py_files)]
    return " ".join(shlex.quote(p) for p in parts) + " pyspark-shell"


def run(plan: RunPlan) -> int:
    """Run the script as ``__main__`` in a Spark configured by ``plan``; its exit status (see :func:`execute`)."""
    os.environ["PYSPARK_SUBMIT_ARGS"] = spark_submit_args(plan)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["GLUEBALL_SPARK_MASTER"] = plan.master
    os.environ["GLUEBALL_SPARK_CONF"] = json.dumps(plan.conf)
    importable = [str(Path(p).parent) if p.endswith(".py") else p for p in plan.extra_py_files]
    sys.path[:0] = list(dict.fromkeys(importable))
    from glueball.runtime.lake import expose

    expose()  # the script's own boto3 clients (S3, Glue, STS, IAM) reach glueball
    try:
        return execute(plan.script, plan.script_args)
    finally:
        _stop_spark()


def execute(script: Path, script_args: list[str]) -> int:
    """Run ``script`` as ``__main__`` with ``sys.argv == [script, *script_args]``, in this process and
    its Spark session if one runs; the exit status (1 and a traceback on an exception).

    ``sys.argv`` and ``sys.path`` are restored afterwards, so a process (the test suite) can run many
    scripts in one Spark session.
    """
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.path.insert(0, str(script.parent))
    sys.argv = [str(script), *script_args]
    status = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
    except BaseException as exc:
        _print_failure(exc)
        status = 1
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
    return status


def _print_failure(exc: BaseException) -> None:
    """The script's traceback; when it failed on an s3:// path for want of glueball's Hadoop FileSystem, or on
    Spark's "Failed to find data source: kafka" for want of a JVM feature's jars, followed by a
    :class:`~glueball.runtime.hadoop.HadoopJarError` or :class:`~glueball.jvm.JarsUnavailable` saying why (the
    run's error message, as the last one)."""
    explained: Exception | None = hadoop.explain(exc) or jvm.explain(exc)
    if explained is None:
        traceback.print_exc()
        return
    try:
        raise explained from exc
    except (hadoop.HadoopJarError, jvm.JarsUnavailable):
        traceback.print_exc()


def _stop_spark() -> None:
    if "pyspark" not in sys.modules:
        return
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()

"""A warm driver: ``python -m glueball.runtime.warm_driver [--spark-master M] [--conf k=v ...]``.

It does ahead of time what every Spark driver does first — starts Python with glueball and
``awsglue`` imported, the JVM and the SparkContext (with exactly the Spark settings given, as
``glueball run`` would set them), runs a tiny job so the JIT has warmed up and starts Spark's catalog client
(:func:`glueball.runtime.hivecatalog.start_catalog_client`) — then writes its
ready file (``GLUEBALL_WARM_READY``) and waits on stdin for one assignment, a JSON line::

    {"argv": ["-m", "glueball", "run", SCRIPT, ...] | ["-m", "glueball.sessions.session_driver", ID],
     "env": {...}, "cwd": "...", "stdout": "...", "stderr": "..."}

It then becomes that driver: the run's environment replaces its own, stdout and stderr (its file
descriptors, so the JVM's output too) go to the run's logs, and it runs the job's script (``glueball
run``'s way, in the SparkContext it already has) or the session's statement loop; its exit status
is the script's. One assignment, then it exits: no state leaks from one run to the next.

With ``PYSPARK_GATEWAY_PORT`` and ``PYSPARK_GATEWAY_SECRET`` set (by the pool) it starts no JVM: it
attaches to a warm JVM (:mod:`glueball.runtime.warm_jvm`) as pyspark attaches to a gateway it did
not launch, and creates its own SparkContext there, with its own settings and event log. Stdin
closing without an assignment ends it too (and its keeper ends it when its server goes away).

Taking a run, it names the run's folder for its keeper (``GLUEBALL_WARM_ASSIGNED``), which records there
how it ends, and serves the run's installation: its SparkContext's ``s3://`` file systems are pointed at
the run's object store and Spark's Python workers get the run's environment (:func:`serve_the_run`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

READY_ENV = "GLUEBALL_WARM_READY"
EXTRA_PY_FILES_ENV = "GLUEBALL_EXTRA_PY_FILES"  # a session's --extra-py-files, as local files


def warm_up(options: list[str]) -> None:
    """Start Spark as ``glueball run`` with ``options`` would, and exercise it once."""
    from glueball.runtime import scriptrunner

    plan = scriptrunner.parse_run_args(sys.executable, options)  # any existing file stands for the script
    os.environ["PYSPARK_SUBMIT_ARGS"] = scriptrunner.spark_submit_args(plan, for_run=False)
    os.environ["GLUEBALL_SPARK_MASTER"] = plan.master
    os.environ["GLUEBALL_SPARK_CONF"] = json.dumps(plan.conf)
    import awsglue.context  # noqa: F401 - what every Glue script imports first
    import awsglue.dynamicframe  # noqa: F401
    import awsglue.transforms  # noqa: F401
    from glueball.runtime.spark import spark_session

    spark = spark_session(app_name="glueball-warm", for_run=False)
    spark.range(1000).selectExpr("sum(id) AS total").collect()
    spark.createDataFrame([(1, "a")], "id INT, name STRING").groupBy("name").count().collect()
    from glueball.runtime import hivecatalog

    hivecatalog.start_catalog_client(spark)


def become(assignment: dict[str, Any]) -> int:
    """Take on the run described by ``assignment``; its exit status. First of all, tell the driver's keeper the
    folder of the run, where it records how this process ends (:mod:`glueball.supervise.keeper`)."""
    from glueball.supervise.keeper import ASSIGNED_ENV
    from glueball.supervise.outcome import note_assignment

    if os.environ.get(ASSIGNED_ENV):
        note_assignment(Path(os.environ[ASSIGNED_ENV]), Path(assignment["cwd"]))
    for name, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
        stream.flush()
        with open(assignment[name], "ab") as target:
            os.dup2(target.fileno(), stream.fileno())
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(assignment["env"])
    os.chdir(assignment["cwd"])
    from glueball.runtime.client import reset_client

    reset_client()
    serve_the_run(before)
    argv = list(assignment["argv"])
    if argv[:3] == ["-m", "glueball", "run"]:
        from glueball.runtime import scriptrunner
        from glueball.runtime.lake import expose

        plan = scriptrunner.parse_run_args(argv[3], argv[4:])
        for extra in plan.extra_py_files:  # on the driver's path and shipped to its Python workers
            sys.path.insert(0, str(Path(extra).parent) if extra.endswith(".py") else extra)
            from pyspark import SparkContext

            SparkContext.getOrCreate().addPyFile(extra)
        expose()
        return scriptrunner.execute(plan.script, plan.script_args)
    if argv[:1] == ["-m"] and len(argv) >= 2:  # another driver module (a session's statement loop)
        import runpy

        from pyspark import SparkContext

        for extra in filter(None, os.environ.get(EXTRA_PY_FILES_ENV, "").split(",")):
            sys.path.insert(0, str(Path(extra).parent) if extra.endswith(".py") else extra)
            SparkContext.getOrCreate().addPyFile(extra)
        sys.argv = [argv[1], *argv[2:]]
        try:
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        except SystemExit as exit_:
            return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        return 0
    print(f"glueball warm driver: cannot become {argv!r}", file=sys.stderr)
    return 2


def serve_the_run(before: dict[str, str]) -> None:
    """Give the SparkContext made ahead what belongs to the run this process now serves, not to the process that
    started the pool: the run's object store behind ``s3://`` (its home), its AWS identity for the JVM's AWS
    clients (:func:`glueball.runtime.lakeformats.share_run_identity`), and its environment for the Python
    workers Spark starts from now on (UDFs, Python data sources) - they inherit the JVM's environment, the
    server's, and get every variable the run's differs in (a run variable it lacks as empty)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    from glueball.runtime import lakeformats
    from glueball.runtime.spark import serve_this_home
    from glueball.supervise.driverenv import ENDPOINT, HOME, RUN_VARIABLES, STORE

    session = SparkSession.builder.getOrCreate()
    serve_this_home(session)
    context = SparkContext._active_spark_context
    if context is None:
        return
    # the JVM's AWS clients (the MSK IAM login, S3A's and Iceberg's SDK) act as the run: the JVM's environment is
    # the server's, and the AWS SDK reads its system properties first
    lakeformats.share_run_identity(context._jvm)
    lakeformats.serve_run(session)  # its Iceberg catalogs reach the run's glueball, as the run
    changed = {key: value for key, value in os.environ.items() if before.get(key) != value}
    lacking = {key: "" for key in (HOME, ENDPOINT, STORE, *RUN_VARIABLES) if key not in os.environ}
    context.environment.update({**lacking, **changed})


def _assignment(parent: int) -> str:
    """The assignment line from stdin; empty when the pool lets the driver go, or its server is gone (it was
    reparented: the pipe may live on in a process that inherited it)."""
    import select

    while True:
        readable, _, _ = select.select([sys.stdin], [], [], 1.0)
        if readable:
            return sys.stdin.readline()
        if os.getppid() != parent:
            return ""


def main(options: list[str]) -> int:
    parent = os.getppid()
    warm_up(options)
    ready = os.environ.get(READY_ENV)
    if ready:  # names its process group: its keeper's pid, what a run it takes records as its driver
        Path(ready).write_text(str(os.getpgid(0)))
    line = _assignment(parent)
    if not line.strip():
        return 0  # the pool let it go (or its server stopped): nothing to do
    status = become(json.loads(line))
    sys.stdout.flush()
    sys.stderr.flush()
    return status


if __name__ == "__main__":
    code = main(sys.argv[1:])
    from glueball.runtime.scriptrunner import _stop_spark

    _stop_spark()
    sys.exit(code)

"""A warm JVM: ``python -m glueball.runtime.warm_jvm [--spark-master M] [--conf k=v ...]``.

Starting a Spark driver costs its JVM's start and, worse, a cold JVM: the first queries of a fresh
JVM spend seconds loading and compiling Spark's classes. A warm JVM is started once, the way
``glueball run`` with the same options would start its driver's (same class path, memory and
settings), runs a small workload so its classes are loaded and compiled, stops its SparkContext and
stays up as a Py4J gateway. Warm drivers (:mod:`glueball.runtime.warm_driver`) then attach to it one
after another: each is a new Python process that creates its own SparkContext in that JVM (in half
a second, where a cold start takes many), so each run keeps its own Python, its own SparkContext,
Spark session, settings and event log, and nothing of a run's Python outlives it.

It writes the gateway's port and secret, and the JVM's process id, to ``$GLUEBALL_WARM_GATEWAY``
(readable by its owner alone), then reads commands on stdin, one a line:

``reset N``
    between two drivers: stop the SparkContext a driver left (one killed mid-run leaves its context
    and jobs running), failing when a task of it still computes 5 s after (a loop Spark cannot interrupt,
    :mod:`glueball.runtime.lingering`) so that the pool retires this JVM; close Hadoop's cached file systems
    (they keep the settings and credentials of the run that opened them), clear the run's AWS identity from the
    JVM's system properties, then write ``N`` to ``$GLUEBALL_WARM_GATEWAY.reset`` (``N failed: why`` when it
    could not).

``attach PID``
    a warm driver (its keeper's pid) was attached to it.

End of input, or its server going away (it is reparented), ends it and with it the JVM (a Py4J
gateway JVM exits when the pipe from its launcher closes) - once the driver attached last has ended:
a run on it outlives its server as a cold driver does, and a restarted server adopts it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from glueball.runtime.lingering import lingering_tasks

GATEWAY_ENV = "GLUEBALL_WARM_GATEWAY"


def reset(gateway: Any) -> None:
    """Stop any SparkContext left in the JVM and close Hadoop's file system cache."""
    jvm = gateway.jvm
    # SparkContext.getActive lives on the Scala companion object, which Py4J reaches through its MODULE$ field
    companion = jvm.java.lang.Class.forName("org.apache.spark.SparkContext$").getField("MODULE$").get(None)
    active = companion.getActive()
    if active.isDefined():
        context = active.get()
        context.cancelAllJobs()
        context.stop()
    lingering = lingering_tasks(jvm)
    if lingering:  # a run's task that no cancellation stops would compute on beside every later run
        raise RuntimeError(f"tasks of the last run still run after its SparkContext stopped: {', '.join(lingering)}")
    jvm.org.apache.hadoop.fs.FileSystem.closeAll()
    from glueball.runtime.lakeformats import share_run_identity

    share_run_identity(jvm, {})  # the AWS SDK's system properties of the run that ended: none for the next


def _commands(parent: int) -> Any:
    """The commands on stdin, until it ends or the server goes away (this process is reparented) - and then,
    while a driver attached to this JVM still runs its run, until that driver ends: the run outlives its
    server, as a cold driver's does, for the next server to adopt."""
    import select

    from glueball.supervise.process import driver_alive, host_name

    attached: int | None = None
    while True:
        readable, _, _ = select.select([sys.stdin], [], [], 1.0)
        if readable:
            line = sys.stdin.readline()
            if not line:
                break
            name, _, value = line.strip().partition(" ")
            if name == "attach":
                attached = int(value)
                continue
            yield line.strip()
        elif os.getppid() != parent:
            break
    while attached is not None and driver_alive(host_name(), attached, None):
        time.sleep(1.0)


def main(options: list[str]) -> int:
    parent = os.getppid()
    published = Path(os.environ[GATEWAY_ENV])
    from glueball.runtime.warm_driver import warm_up

    warm_up(options)
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    gateway = SparkContext._gateway
    assert gateway is not None
    jvm_pid = int(gateway.jvm.java.lang.ProcessHandle.current().pid())
    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()
    parameters = gateway.gateway_parameters
    partial = published.with_suffix(".partial")
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
        json.dump({"port": parameters.port, "secret": parameters.auth_token, "jvm_pid": jvm_pid}, out)
    partial.replace(published)
    answers = Path(f"{published}.reset")
    for command in _commands(parent):
        name, _, number = command.partition(" ")
        if name != "reset":
            print(f"glueball warm JVM: unknown command {name!r}", file=sys.stderr, flush=True)
            continue
        try:
            reset(gateway)
            answer = number
        except Exception as exc:  # noqa: BLE001 - said to the pool, which retires this JVM
            answer = f"{number} failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        written = Path(f"{answers}.tmp")
        written.write_text(answer)
        written.replace(answers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

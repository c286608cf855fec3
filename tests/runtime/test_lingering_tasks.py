"""A task Spark's cancellation cannot stop is found, and a warm JVM that holds one is not reset for the next run.

In a JVM of its own (a subprocess, ended with it): a cross join of two ``explode``d sequences, cancelled, keeps its
task thread computing (Spark forgets it at once: no active job); :func:`lingering_tasks` names it after its grace,
and the warm JVM's reset fails (so the pool retires the JVM). A query that ended leaves no busy task thread."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.spark

SCRIPT = textwrap.dedent("""
    import json, threading, time
    from pyspark.sql import SparkSession
    from glueball.runtime.lingering import lingering_tasks
    from glueball.runtime.warm_jvm import reset

    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    context = spark.sparkContext
    jvm = context._jvm
    spark.range(1000).repartition(4).count()
    after_a_query = lingering_tasks(jvm, 1.0)

    def runaway():
        context.setJobGroup("runaway", "runaway", interruptOnCancel=True)
        try:
            spark.sql("SELECT count(*) FROM (SELECT explode(sequence(1, 100000)) x) a CROSS JOIN "
                      "(SELECT explode(sequence(1, 100000)) y) b WHERE x + y = 7").collect()
        except Exception:
            pass

    thread = threading.Thread(target=runaway)
    thread.start()
    deadline = time.monotonic() + 60
    while not lingering_tasks(jvm, 2.0) and time.monotonic() < deadline:  # the join's task, past the broadcast
        time.sleep(0.1)
    context.cancelJobGroup("runaway")
    thread.join(60)
    active_jobs = list(context.statusTracker().getActiveJobsIds())
    lingering = lingering_tasks(jvm, 2.0)
    try:
        reset(context._gateway)
        reset_error = None
    except RuntimeError as exc:
        reset_error = str(exc)
    print(json.dumps({"after_a_query": after_a_query, "active_jobs": active_jobs, "lingering": lingering,
                      "reset_error": reset_error}))
""")


def test_a_cancelled_task_that_computes_on_is_found_and_its_jvm_is_not_reset_for_another_run() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["after_a_query"] == []  # the pool's idle threads keep their last task's name, but wait
    assert found["active_jobs"] == []  # Spark's bookkeeping: nothing runs
    assert len(found["lingering"]) == 1 and found["lingering"][0].startswith("Executor task launch worker for task")
    assert found["reset_error"] is not None and "still run after its SparkContext stopped" in found["reset_error"]

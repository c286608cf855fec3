"""Tasks a cancelled or stopped Spark job left running in this JVM.

Cancelling a job (``cancelJobGroup``, ``SparkContext.stop``) marks its tasks killed and interrupts their threads,
and Spark's own bookkeeping forgets them at once (no active job, no running task in the status tracker); but a task
only ends where its code checks for the kill: a whole-stage-generated loop over a generator (``explode`` of a large
``sequence``, a cross join of two) checks nowhere, and its thread computes on for as long as the query would have
taken, a core of the machine with it. Spark's task reaper (``spark.task.reaper.killTimeout``) kills the executor's
JVM for that, except in local mode, where the executor is the driver and it only logs.

So the processes that reuse a JVM after a cancellation look for such threads themselves: an Athena engine after a
stopped query (:mod:`glueball.athena.engine_driver`, which ends so that its JVM ends), and a warm JVM between two
runs (:mod:`glueball.runtime.warm_jvm`, whose reset then fails and the pool retires it). A task thread is one of
the executor's (``Executor task launch worker for task ...``; the pool's idle threads keep their last task's name
but wait); one still runnable (or blocked on a lock) at every look over a grace period is lingering.
"""

from __future__ import annotations

import time
from typing import Any

TASK_THREAD = "Executor task launch worker for task"
_BUSY = ("RUNNABLE", "BLOCKED")
# how long a cancelled job's tasks may go on before the JVM that holds them is given up (an engine ends, a warm JVM
# is retired)
GRACE_SECONDS = 5.0


def busy_task_threads(jvm: Any) -> set[str]:
    """The names of the JVM's executor task threads that are running now (not waiting in the pool)."""
    busy: set[str] = set()
    for thread in jvm.java.lang.Thread.getAllStackTraces().keySet().toArray():
        name = str(thread.getName())  # one call into the JVM a thread; the state only of task threads
        if name.startswith(TASK_THREAD) and thread.isAlive() and str(thread.getState().name()) in _BUSY:
            busy.add(name)
    return busy


def lingering_tasks(jvm: Any, grace_seconds: float = GRACE_SECONDS, every: float = 0.25,
                    cancel: Any = None) -> list[str]:
    """The task threads busy at every look over ``grace_seconds`` (empty as soon as a look finds none);
    ``cancel``, when given, is called before each look (cancelling again what may have started meanwhile)."""
    deadline = time.monotonic() + grace_seconds
    still: set[str] | None = None
    while True:
        if cancel is not None:
            cancel()
        busy = busy_task_threads(jvm)
        still = busy if still is None else still & busy
        if not still:
            return []
        if time.monotonic() >= deadline:
            return sorted(still)
        time.sleep(every)

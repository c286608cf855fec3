"""An Athena engine: ``python -m glueball.athena.engine_driver ENGINE_ID``, launched by the server (on a warm
driver when there is one).

It starts Spark once (the Data Catalog as its metastore, as every driver's), then asks the server for queries
(``Glueball.TakeQuery``, a long poll) and runs each in its main thread (:mod:`glueball.athena.query_runs`) as the
caller that started it (:func:`glueball.runtime.client.act_as`). While one runs, a thread waits on the server
(a long poll) for it to be stopped and, if it is, cancels its Spark jobs. Each query's outcome is written as a
durable record in the query's folder (:func:`glueball.supervise.outcome.record`) *before* the server is told
(``Glueball.FinishQuery``): a server that dies in between finds the record when it settles the query.

It ends when the server says the engine has ended, when idle for ``GLUEBALL_ATHENA_ENGINE_IDLE_SECONDS`` (600),
when no server has answered for ``GLUEBALL_SESSION_ORPHAN_SECONDS`` (600), or when signalled. It also ends after a
stopped query whose tasks go on computing (:mod:`glueball.runtime.lingering`: a generated loop Spark cannot
interrupt) for ``lingering.GRACE_SECONDS`` (5): the query is CANCELLED already, and the engine's end ends its JVM and
frees the cores those tasks held; the next query gets another engine.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from glueball.supervise import outcome

POLL_SECONDS = 10.0
CANCEL_SECONDS = 0.2  # a stopped query's Spark jobs are cancelled again this often until its statement returns
# a query's watch asks the server this long after the query began: a short query ends before (one request fewer),
# and a longer one's is sent while Spark runs rather than while this process plans it (a stop is heard as late)
WATCH_AFTER_SECONDS = 0.05
IDLE_SECONDS = float(os.environ.get("GLUEBALL_ATHENA_ENGINE_IDLE_SECONDS", "600"))
ORPHAN_SECONDS = float(os.environ.get("GLUEBALL_SESSION_ORPHAN_SECONDS", "600"))
# Athena's SQL reaches data through the catalog only: no `parquet.`/path`` queries of the driver's files, and
# CREATE TABLE without a format is Hive's text table (Athena's default), not a data source table; and ANSI
# semantics, as Trino's: a division by zero or a bad cast fails the query instead of answering NULL. No cache of
# partitions' file listings across queries: each query lists the files there are (query_runs.forget_listings)
# Iceberg's catalog (an engine with Iceberg, glueball.athena.iceberg) keeps no table it loaded: a table another
# writer committed to since is read as it is now, and each query's caller loads it anew (the Glue authorization);
# it takes the names Glue takes (a database named my-db), not only Iceberg's own [a-z0-9_]
ENGINE_CONF = {"spark.sql.runSQLOnFiles": "false", "spark.sql.legacy.createHiveTableByDefault": "true",
               "spark.sql.ansi.enabled": "true", "spark.sql.hive.filesourcePartitionFileCacheSize": "0",
               "spark.sql.catalog.glue_catalog.cache-enabled": "false",
               "spark.sql.catalog.glue_catalog.glue.skip-name-validation": "true",
               # Trino's time type: Spark 4.1 parses a TIME literal without it but refuses a cast to TIME
               # (UNSUPPORTED_TIME_TYPE)
               "spark.sql.timeType.enabled": "true"}


class Engine:
    def __init__(self, engine_id: str, client: Any, spark: Any, iceberg: bool = False) -> None:
        self.engine_id = engine_id
        self.client = client
        self.spark = spark
        self.stopping = False
        self.iceberg = iceberg  # its Iceberg catalog's AWS clients (Glue, S3) act as each query's caller

    def serve(self) -> int:
        idle_since = time.monotonic()
        unanswered: float | None = None
        while not self.stopping:
            try:
                answer = self.client.take_query(EngineId=self.engine_id, WaitSeconds=POLL_SECONDS)
                unanswered = None
            except Exception as exc:  # noqa: BLE001 - the server restarts or is gone: ask again a little later
                unanswered = unanswered or time.monotonic()
                if time.monotonic() - unanswered > ORPHAN_SECONDS:
                    outcome.report(outcome.FAILED, f"no server answered for {ORPHAN_SECONDS:.0f} s")
                    return 1
                print(f"glueball athena engine {self.engine_id}: asking for work failed: {exc}", file=sys.stderr,
                      flush=True)
                time.sleep(1.0)
                continue
            if answer.get("EngineEnded"):
                break
            query = answer.get("Query")
            if not query:
                if time.monotonic() - idle_since > IDLE_SECONDS:
                    outcome.report(outcome.SUCCEEDED, f"the engine was idle for {IDLE_SECONDS:.0f} s")
                    return 0
                continue
            lingering = self.run(query)
            if lingering:
                message = (f"a stopped query's tasks did not stop ({', '.join(lingering)}): the engine ends so "
                           f"that its JVM does not go on computing them")
                print(f"glueball athena engine {self.engine_id}: {message}", file=sys.stderr, flush=True)
                outcome.report(outcome.FAILED, message)
                return 1
            idle_since = time.monotonic()
        outcome.report(outcome.SUCCEEDED, "the engine was stopped")
        return 0

    def run(self, query: dict[str, Any]) -> list[str]:
        """Run one query to its outcome record and tell the server; the task threads a stopped query left running
        (none for any other)."""
        from glueball.athena.models import QueryState
        from glueball.athena.query_runs import run
        from glueball.runtime.client import act_as
        from glueball.runtime.lingering import lingering_tasks

        query_id = query["QueryExecutionId"]
        cancelled = threading.Event()
        done = threading.Event()
        watcher = threading.Thread(target=self._watch, args=(query_id, cancelled, done), daemon=True)
        credentials = query.get("Credentials") or {}
        acting = (credentials.get("AccessKeyId", "glueball"), credentials.get("SecretAccessKey", "glueball"),
                  credentials.get("SessionToken"), query.get("Region") or os.environ.get("AWS_REGION", "us-east-1"))
        act_as(acting)
        self._share_identity(acting)
        watcher.start()
        try:
            status, message, details = run(self.spark, query, cancelled.is_set)
        finally:
            done.set()
            act_as(None)
            self._share_identity(None)
        outcome.record(Path(query["Folder"]), status, message, **details)
        self._tell(query_id)
        if status != QueryState.CANCELLED:
            return []
        context = self.spark.sparkContext
        return lingering_tasks(context._jvm, cancel=lambda: context.cancelJobGroup(f"athena-{query_id}"))

    def _share_identity(self, acting: tuple[str, str, str | None, str] | None) -> None:
        """Sign the JVM's AWS clients (Iceberg's Glue and S3 clients read the SDK's system properties on each
        request) as the query's caller, or as the engine itself again (None)."""
        if not self.iceberg:
            return
        from glueball.runtime.lakeformats import share_run_identity

        environ: dict[str, str] | None = None
        if acting is not None:
            key, secret, token, region = acting
            environ = {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": region,
                       **({"AWS_SESSION_TOKEN": token} if token else {})}
        share_run_identity(self.spark.sparkContext._jvm, environ)

    def _watch(self, query_id: str, cancelled: threading.Event, done: threading.Event) -> None:
        """Wait for the query to be stopped (the server answers when it is, or when the query has ended), then
        cancel its Spark jobs, and again each turn until it has ended: cancelJobGroup cancels the jobs running
        now, not one its statement submits later (a stop that comes while Spark still plans). One request per
        query while it runs, where a poll would take the server's and this driver's time from the query; none for a
        query that ends within WATCH_AFTER_SECONDS."""
        if done.wait(WATCH_AFTER_SECONDS):
            return
        while not done.is_set() and not cancelled.is_set():
            try:
                if self.client.take_query(EngineId=self.engine_id, RunningId=query_id,
                                          WaitSeconds=POLL_SECONDS).get("Cancel"):
                    cancelled.set()
            except Exception:  # noqa: BLE001 - the server is away: the query goes on; ask again a little later
                done.wait(CANCEL_SECONDS)
        while cancelled.is_set() and not done.is_set():
            try:
                self.spark.sparkContext.cancelJobGroup(f"athena-{query_id}")
            except Exception:  # noqa: BLE001 - Spark is stopping: nothing left to cancel
                pass
            done.wait(CANCEL_SECONDS)

    def _tell(self, query_id: str) -> None:
        since = time.monotonic()
        while time.monotonic() - since < ORPHAN_SECONDS:
            try:
                self.client.finish_query(EngineId=self.engine_id, QueryExecutionId=query_id)
                return
            except Exception as exc:  # noqa: BLE001 - the record is written: a restarted server settles from it
                print(f"glueball athena engine {self.engine_id}: the server did not answer: {exc}", file=sys.stderr,
                      flush=True)
                time.sleep(1.0)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m glueball.athena.engine_driver ENGINE_ID", file=sys.stderr)
        return 2
    from glueball.runtime.client import internal_client
    from glueball.runtime.lake import expose
    from glueball.runtime.spark import spark_session

    expose()
    spark = spark_session(app_name="glueball-athena")
    for key, value in ENGINE_CONF.items():
        spark.conf.set(key, value)
    from glueball.runtime.lakeformats import iceberg_catalogs

    conf = {str(key): str(value) for key, value in spark.conf.getAll.items()}
    engine = Engine(argv[0], internal_client(), spark, iceberg=bool(iceberg_catalogs(conf)))

    def stop(*_: Any) -> None:
        engine.stopping = True

    signal.signal(signal.SIGTERM, stop)
    return engine.serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

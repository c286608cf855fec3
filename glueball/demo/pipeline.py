"""`make demo`: the daily orders pipeline as a Glue workflow, on the embedded default.

What it does, all through the Glue API (the in-process client; boto3 against `glueball server`
makes the same calls):

1. writes customers and a day of raw orders (CSV, one ``day=`` folder per day) into
   ``s3://demo-lake/raw/`` of ``GLUEBALL_HOME``'s object store;
2. defines two crawlers, two Spark jobs and the workflow ``demo-daily-orders``::

       nightly (SCHEDULED cron(0 3 * * ? *)) -> demo-raw-crawler
       demo-raw-crawler SUCCEEDED  -> demo-transform   (join, ApplyMapping, Filter, quarantine,
                                                         partitioned Parquet + catalog, bookmarks)
       demo-transform SUCCEEDED    -> demo-curated-crawler (re-crawls the curated table)
       demo-curated-crawler SUCCEEDED -> demo-aggregate (daily revenue per segment and country)

3. runs the scheduler in this process on a rehearsal clock: it sets the clock to 03:00 of the
   next day, the SCHEDULED trigger fires, and the run is followed node by node;
4. writes a second day and sets the clock to the following 03:00: the second run's transform reads
   only the new day (job bookmarks);
5. prints each run's graph, the row counts, and a sample of the curated tables through Spark SQL
   over the catalog;
6. serves the API and the web console over the same installation and prints the console's URL, until
   Ctrl-C (``DEMO_SERVE=0``: exits instead; ``DEMO_PORT`` chooses the port, 9400 by default).

Everything the demo created (names starting ``demo``) is removed first, so it can run again.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError

from glueball.app import Glueball, embedded_client
from glueball.clock import SchedulerClock
from glueball.config import Settings
from glueball.demo import data
from glueball.demo.jobs import JOBS_DIR
from glueball.objects.access import Objects
from glueball.server import serve
from glueball.workflows.report import render_graph, render_table

WORKFLOW = "demo-daily-orders"
RAW_DB, CURATED_DB = "demo_raw", "demo_curated"
RAW_CRAWLER, CURATED_CRAWLER = "demo-raw-crawler", "demo-curated-crawler"
TRANSFORM, AGGREGATE = "demo-transform", "demo-aggregate"
TRIGGERS = ("demo-nightly", "demo-after-raw-crawl", "demo-after-transform", "demo-after-curated-crawl")
DAYS = (dt.date(2026, 11, 19), dt.date(2026, 11, 20))
ORDERS_PER_DAY = 2000
_COUNTS = re.compile(r"orders read (\d+), curated (\d+), quarantined (\d+), cancelled (\d+)")


def _say(text: str = "") -> None:
    print(text, flush=True)


def _ignore_missing(call: Any, **params: Any) -> None:
    try:
        call(**params)
    except ClientError as err:
        if err.response["Error"]["Code"] != "EntityNotFoundException":
            raise


def reset(glue: Any, objects: Objects) -> None:
    """Remove what an earlier demo left: its workflow, triggers, jobs, crawlers, databases and files."""
    glue.delete_workflow(Name=WORKFLOW)
    for trigger in TRIGGERS:
        glue.delete_trigger(Name=trigger)
    for job in (TRANSFORM, AGGREGATE):
        glue.delete_job(JobName=job)
    for crawler in (RAW_CRAWLER, CURATED_CRAWLER):
        _ignore_missing(glue.delete_crawler, Name=crawler)
    for database in (RAW_DB, CURATED_DB):
        _ignore_missing(glue.delete_database, Name=database)
    objects.delete_tree(f"s3://{data.BUCKET}/")  # bookmarks went with the job


def define(glue: Any, objects: Objects) -> None:
    """The databases, crawlers, jobs, workflow and triggers of the pipeline."""
    for script in ("transform.py", "aggregate.py"):
        objects.upload(f"s3://{data.BUCKET}/scripts/{script}", JOBS_DIR / script)
    glue.create_database(DatabaseInput={"Name": RAW_DB, "Description": "raw orders and customers, as crawled"})
    glue.create_database(DatabaseInput={"Name": CURATED_DB, "Description": "validated, enriched orders"})
    glue.create_crawler(Name=RAW_CRAWLER, Role="demo", DatabaseName=RAW_DB,
                        Targets={"S3Targets": [{"Path": data.RAW_PATH}]})
    glue.create_crawler(Name=CURATED_CRAWLER, Role="demo",
                        Targets={"CatalogTargets": [{"DatabaseName": CURATED_DB, "Tables": ["orders"]}]},
                        SchemaChangePolicy={"UpdateBehavior": "UPDATE_IN_DATABASE", "DeleteBehavior": "LOG"})
    common = {"Role": "demo", "GlueVersion": "5.0", "WorkerType": "G.1X", "NumberOfWorkers": 2, "Timeout": 30}
    glue.create_job(Name=TRANSFORM, Command={"Name": "glueetl", "ScriptLocation": f"s3://{data.BUCKET}/scripts/"
                                             "transform.py"}, **common,
                    DefaultArguments={"--job-bookmark-option": "job-bookmark-enable", "--raw_database": RAW_DB,
                                      "--curated_database": CURATED_DB, "--curated_path": data.CURATED_ORDERS_PATH,
                                      "--quarantine_path": data.QUARANTINE_PATH})
    glue.create_job(Name=AGGREGATE, Command={"Name": "glueetl", "ScriptLocation": f"s3://{data.BUCKET}/scripts/"
                                             "aggregate.py"}, **common,
                    DefaultArguments={"--curated_database": CURATED_DB, "--output_path": data.DAILY_REVENUE_PATH})
    glue.create_workflow(Name=WORKFLOW, Description="crawl raw -> transform -> crawl curated -> aggregate",
                         DefaultRunProperties={"pipeline": "daily-orders"}, MaxConcurrentRuns=1)
    glue.create_trigger(Name=TRIGGERS[0], WorkflowName=WORKFLOW, Type="SCHEDULED", Schedule="cron(0 3 * * ? *)",
                        Actions=[{"CrawlerName": RAW_CRAWLER}], StartOnCreation=True)
    chain = ((TRIGGERS[1], {"CrawlerName": RAW_CRAWLER, "CrawlState": "SUCCEEDED"}, {"JobName": TRANSFORM}),
             (TRIGGERS[2], {"JobName": TRANSFORM, "State": "SUCCEEDED"}, {"CrawlerName": CURATED_CRAWLER}),
             (TRIGGERS[3], {"CrawlerName": CURATED_CRAWLER, "CrawlState": "SUCCEEDED"}, {"JobName": AGGREGATE}))
    for name, condition, action in chain:
        glue.create_trigger(Name=name, WorkflowName=WORKFLOW, Type="CONDITIONAL", StartOnCreation=True,
                            Predicate={"Conditions": [{"LogicalOperator": "EQUALS", **condition}]}, Actions=[action])


def _await_run(glue: Any, after: set[str], timeout: float = 60.0) -> str:
    """The id of a new run of the workflow (the scheduler starts it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for run in glue.get_workflow_runs(Name=WORKFLOW)["Runs"]:
            if run["WorkflowRunId"] not in after:
                return str(run["WorkflowRunId"])
        time.sleep(0.2)
    raise RuntimeError(f"the scheduler started no run of {WORKFLOW} in {timeout:.0f} s")


def _follow(glue: Any, run_id: str, timeout: float = 900.0) -> dict[str, Any]:
    seen: dict[str, str] = {}
    started = time.monotonic()
    while True:
        run: dict[str, Any] = glue.get_workflow_run(Name=WORKFLOW, RunId=run_id, IncludeGraph=True)["Run"]
        for node in run["Graph"]["Nodes"]:
            details = (node.get("JobDetails") or {}).get("JobRuns") or (node.get("CrawlerDetails") or {}).get("Crawls")
            if details:
                state = details[0].get("JobRunState") or details[0].get("State")
                if seen.get(node["Name"]) != state:
                    seen[node["Name"]] = state
                    _say(f"   {time.monotonic() - started:6.1f} s  {node['Type'].lower():8} {node['Name']:22} {state}")
        if run["Status"] in ("COMPLETED", "STOPPED", "ERROR"):
            return run
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"workflow run {run_id} did not end in {timeout:.0f} s")
        time.sleep(0.3)


def _transform_counts(app: Glueball, run: dict[str, Any]) -> tuple[int, ...] | None:
    """What the transform run printed: orders read, curated, quarantined, cancelled."""
    node = next(n for n in run["Graph"]["Nodes"] if n["Name"] == TRANSFORM)
    runs = (node.get("JobDetails") or {}).get("JobRuns") or []
    if not runs:
        return None
    output = app.settings.logs / "jobs" / TRANSFORM / runs[0]["Id"] / "output.log"
    match = _COUNTS.search(output.read_text()) if output.exists() else None
    return tuple(int(g) for g in match.groups()) if match else None


def _sql_sample(settings: Settings) -> None:
    """Spark SQL over the Data Catalog: per-day counts of the curated orders and a revenue sample."""
    from pyspark.context import SparkContext

    from awsglue.context import GlueContext

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    _say("   (starting Spark for the report)")
    with report_spark() as spark:
        glue_context = GlueContext(SparkContext.getOrCreate())  # Spark SQL's catalog is the Data Catalog
        _report(spark)
        del glue_context


@contextmanager
def report_spark() -> Iterator[Any]:
    """A Spark session for the report, stopped after it; Ctrl-C is Python's again then. PySpark's context answers
    Ctrl-C with a handler of its own that outlives it: the console served next would end on Ctrl-C by cancelling the
    jobs of a stopped context (an AttributeError and exit status 1)."""
    from glueball.runtime.spark import spark_session

    interrupt = signal.getsignal(signal.SIGINT)
    spark = spark_session(app_name="glueball-demo-report")
    try:
        yield spark
    finally:
        spark.stop()
        signal.signal(signal.SIGINT, interrupt)


def _report(spark: Any) -> None:
    """The report's queries and their tables."""
    for title, query in (
            ("curated orders per day", f"SELECT day, count(*) AS orders, sum(amount) AS revenue "
                                       f"FROM {CURATED_DB}.orders GROUP BY day ORDER BY day"),
            ("a sample of the curated orders", f"SELECT order_id, customer_name, segment, country, amount, "
                                               f"currency, day FROM {CURATED_DB}.orders ORDER BY order_id LIMIT 5"),
            ("daily revenue (top 6)", f"SELECT * FROM {CURATED_DB}.daily_revenue ORDER BY revenue DESC LIMIT 6")):
        frame = spark.sql(query)
        _say(f"\n   {title}: spark.sql(\"{query}\")")
        _say(render_table(frame.columns, [tuple(r) for r in frame.collect()]))


def serve_console(app: Glueball) -> bool:
    """Unless ``DEMO_SERVE=0``: serve the API and the console over the demo's installation until Ctrl-C.

    Returns whether it served (the server then closed the installation).
    """
    if os.environ.get("DEMO_SERVE", "1") == "0":
        return False
    port = int(os.environ.get("DEMO_PORT", "9400"))
    _say(f"\nThe console: http://127.0.0.1:{port}/console/ (the workflow's runs: "
         f"http://127.0.0.1:{port}/console/#/workflows/{WORKFLOW}); Ctrl-C stops it (DEMO_SERVE=0 skips this)")
    serve(app, "127.0.0.1", port, scheduler=False)  # the scheduler of the demo's rehearsal clock keeps running
    return True


def main() -> int:
    # one warm driver, as glueball server keeps by default: the pipeline's jobs have a default Glue job's shape, so
    # each attaches to the same warm JVM (GLUEBALL_WARM_DRIVERS=0: every job run starts its own; docs/sessions.md)
    settings = Settings(warm_drivers=int(os.environ.get("GLUEBALL_WARM_DRIVERS", "1")))
    clock_file = settings.home / "demo-clock"
    app = Glueball(settings, clock=SchedulerClock(str(clock_file)))  # schedules follow the rehearsal clock
    app.reconcile()
    glue = embedded_client(app)
    served = False
    _say(f"glueball daily orders pipeline on the embedded default ({settings.home}, store {settings.database_url})")
    try:
        app.start_warm_drivers()  # the JVM starts while the demo writes its data and defines the pipeline
        reset(glue, app.object_access)
        # the rehearsal clock starts on the evening of the first day, so the schedule's first fire is 03:00 after it
        clock_file.write_text(str(dt.datetime.combine(DAYS[0], dt.time(22, 0), dt.UTC).timestamp()))
        data.write_customers(app.object_access)
        define(glue, app.object_access)
        if settings.warm_drivers > 0:  # as on a server that has been up a while: its warm driver is ready
            waited = time.monotonic()
            ready = app.await_warm_driver()
            _say(f"   warm Spark driver {'ready' if ready else 'not ready'} "
                 f"(waited {time.monotonic() - waited:.1f} s after defining the pipeline)")
        _say(f"\nworkflow {WORKFLOW}: {RAW_CRAWLER} -> {TRANSFORM} -> {CURATED_CRAWLER} -> {AGGREGATE}, "
             "started by the SCHEDULED trigger demo-nightly, cron(0 3 * * ? *)")
        app.start_scheduler(interval=0.3)
        seen: set[str] = set()
        expected_total = 0
        for day in DAYS:
            stats = data.write_orders_day(app.object_access, day, ORDERS_PER_DAY)
            expected_total += stats.good
            fire_at = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(3, 0, 5), dt.UTC)
            _say(f"\n== day {day}: {stats.rows} raw orders ({stats.cancelled} cancelled, {stats.bad} bad) written "
                 f"to {data.RAW_PATH}orders/day={day}/")
            _say(f"   rehearsal clock set to {fire_at:%Y-%m-%d %H:%M:%S} UTC; the schedule fires")
            clock_file.write_text(str(fire_at.timestamp()))
            run_id = _await_run(glue, seen)
            seen.add(run_id)
            run = _follow(glue, run_id)
            _say("\n" + render_graph(run))
            counts = _transform_counts(app, run)
            if counts:
                _say(f"   transform: read {counts[0]} new orders, curated {counts[1]} (expected {stats.good}), "
                     f"quarantined {counts[2]} (expected {stats.bad}), dropped {counts[3]} cancelled")
            if run["Status"] != "COMPLETED" or run["Statistics"].get("FailedActions"):
                _say(f"\nthe run did not complete cleanly; logs under {settings.logs}")
                return 1
        _say(f"\n== the curated table through Spark SQL over the catalog (expected {expected_total} orders)")
        _sql_sample(settings)
        _say(f"\nDone. The same pipeline, served to boto3 and the AWS CLI: glueball server --home {settings.home}; "
             f"glueball workflows show {WORKFLOW}")
        served = serve_console(app)
        return 0
    finally:
        if not served:
            app.close()


if __name__ == "__main__":
    sys.exit(main())

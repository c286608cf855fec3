"""Which runs wrote which logs: the log groups and streams Glue uses for each kind of run.

Read from the runs' own tables (as ``glueball.usage`` reads them), never from their areas' modules:

- a **job run** writes its driver's stdout to ``/aws-glue/jobs/output`` and stderr to ``/aws-glue/jobs/error``,
  stream = the run id (``--custom-logGroup-prefix P``: ``P/output`` and ``P/error``); with
  ``--enable-continuous-cloudwatch-log true`` its driver log (stderr) also goes to ``/aws-glue/jobs/logs-v2``
  (``--continuous-log-logGroup``), stream = the run id; its Spark event log and streaming batch metrics
  are the sources of its metrics;
- a **crawl** appends to ``/aws-glue/crawlers``, stream = the crawler's name (every crawl of a crawler);
- an **interactive session** writes to ``/aws-glue/sessions/output`` and ``/aws-glue/sessions/error``,
  stream = the session id;
- a **data quality run** writes to ``/aws-glue/data-quality/output`` and ``/aws-glue/data-quality/error``
  (``AdditionalRunOptions.CustomLogGroupPrefix`` replaces the prefix), stream = the run id.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import or_, select

from glueball.logs.models import (
    CRAWLER_GROUP,
    DATA_QUALITY_GROUP_PREFIX,
    SESSION_GROUP_PREFIX,
    LogFile,
    RunLogs,
    job_arguments,
    job_log_groups,
)
from glueball.store.engine import Store
from glueball.store.schema import CrawlerRow, CrawlRow, DataQualityRunRow, JobRow, JobRunRow
from glueball.store.session_tables import GlueSessionRow

OUTPUT_LOG, ERROR_LOG, EVENTS_DIR = "output.log", "error.log", "events"
CrawlLogPath = Callable[[str, str], Path]


def _pair(prefix: str, stream: str, directory: Path) -> tuple[LogFile, LogFile]:
    return (LogFile(f"{prefix}/output", stream, directory / OUTPUT_LOG),
            LogFile(f"{prefix}/error", stream, directory / ERROR_LOG))


def files_host(driver_host: str | None, runner: str | None) -> str | None:
    """The host whose disk a run's files are on: its driver's; before its driver started, its watcher's (the
    server that created the run, which launches the driver on its own host)."""
    return driver_host or (runner.partition(":")[0] if runner else None) or None


def run_logs(store: Store, crawl_log: CrawlLogPath, batch_file: str, since: float) -> list[RunLogs]:
    """Every run started at or after ``since`` (epoch seconds), and every run not over yet."""
    found: list[RunLogs] = []
    with store.read() as session:
        jobs = session.execute(select(JobRunRow, JobRow).join(JobRow, JobRow.id == JobRunRow.job_id).where(
            or_(JobRunRow.started_on >= since, JobRunRow.completed_on.is_(None))))
        for run, job in jobs:
            if not run.log_dir:
                continue
            directory = Path(run.log_dir)
            output, error, continuous = job_log_groups(job_arguments(run.spec or {}, run.arguments))
            files = [LogFile(output, run.run_id, directory / OUTPUT_LOG), LogFile(error, run.run_id,
                                                                                   directory / ERROR_LOG)]
            if continuous:
                files.append(LogFile(continuous, run.run_id, directory / ERROR_LOG))
            found.append(RunLogs(job.account_id, job.region, tuple(files), run.completed_on is not None, job.name,
                                 run.run_id, (directory / EVENTS_DIR,), directory / batch_file,
                                 files_host(run.driver_host, run.runner)))
        crawls = session.execute(select(CrawlRow, CrawlerRow).join(CrawlerRow, CrawlerRow.id == CrawlRow.crawler_id)
                                 .where(or_(CrawlRow.start_time >= since, CrawlRow.end_time.is_(None))))
        for crawl, crawler in crawls:
            path = crawl_log(crawler.name, crawl.crawl_id)
            found.append(RunLogs(crawler.account_id, crawler.region, (LogFile(CRAWLER_GROUP, crawler.name, path),),
                                 crawl.end_time is not None, host=crawl.host))
        sessions = session.scalars(select(GlueSessionRow).where(
            or_(GlueSessionRow.created_on >= since, GlueSessionRow.completed_on.is_(None))))
        for glue_session in sessions:
            if glue_session.log_dir:
                found.append(RunLogs(glue_session.account_id, glue_session.region,
                                     _pair(SESSION_GROUP_PREFIX, glue_session.session_id, Path(glue_session.log_dir)),
                                     glue_session.completed_on is not None,
                                     host=files_host(glue_session.driver_host, glue_session.runner)))
        quality = session.scalars(select(DataQualityRunRow).where(
            or_(DataQualityRunRow.started_on >= since, DataQualityRunRow.completed_on.is_(None))))
        for run_row in quality:
            if run_row.log_dir:
                options = (run_row.spec or {}).get("AdditionalRunOptions") or {}
                prefix = (options.get("CustomLogGroupPrefix") or DATA_QUALITY_GROUP_PREFIX).rstrip("/")
                found.append(RunLogs(run_row.account_id, run_row.region,
                                     _pair(prefix, run_row.run_id, Path(run_row.log_dir)),
                                     run_row.completed_on is not None,
                                     host=files_host(run_row.driver_host, run_row.runner)))
    return found

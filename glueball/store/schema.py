"""The catalog store's tables (SQLAlchemy 2, typed declarative).

Glue objects are kept as the validated wire structure minus what is a column
here (``spec``), so every member a client sent round-trips exactly; the
columns are what the store must query, join or compare-and-swap on.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

Json = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: Json, list[Any]: Json}


class DatabaseRow(Base):
    __tablename__ = "catalog_database"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)


class TableRow(Base):
    __tablename__ = "catalog_table"
    __table_args__ = (UniqueConstraint("database_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    database_id: Mapped[int] = mapped_column(ForeignKey("catalog_database.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    version: Mapped[int] = mapped_column(Integer)
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class TableVersionRow(Base):
    __tablename__ = "catalog_table_version"
    __table_args__ = (UniqueConstraint("table_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("catalog_table.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    spec: Mapped[dict[str, Any]]
    update_time: Mapped[float] = mapped_column(Float)


class PartitionRow(Base):
    __tablename__ = "catalog_partition"
    __table_args__ = (
        UniqueConstraint("table_id", "values_key"),
        # GetPartitions pages through a table's partitions in id order
        Index("ix_partition_table_id", "table_id", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("catalog_table.id", ondelete="CASCADE"))
    # sha256 of the JSON-encoded values: a bounded key for the uniqueness index
    values_key: Mapped[str] = mapped_column(String(64))
    values: Mapped[list[Any]]
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)


class PartitionValueRow(Base):
    """One partition key value, typed, so that indexed predicates run in the database."""

    __tablename__ = "catalog_partition_value"
    __table_args__ = (
        Index("ix_partition_value_text", "table_id", "position", "text_value"),
        Index("ix_partition_value_int", "table_id", "position", "int_value"),
    )

    partition_id: Mapped[int] = mapped_column(
        ForeignKey("catalog_partition.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(Integer)
    # byte order on PostgreSQL too, so that indexed range predicates order text as Python does
    text_value: Mapped[str] = mapped_column(
        String(1024).with_variant(String(1024, collation="C"), "postgresql")
    )
    int_value: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class PartitionIndexRow(Base):
    __tablename__ = "catalog_partition_index"
    __table_args__ = (UniqueConstraint("table_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("catalog_table.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    keys: Mapped[list[Any]]
    status: Mapped[str] = mapped_column(String(32))


class ColumnStatisticsRow(Base):
    __tablename__ = "catalog_column_statistics"
    __table_args__ = (UniqueConstraint("table_id", "partition_key", "column_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("catalog_table.id", ondelete="CASCADE"))
    partition_id: Mapped[int | None] = mapped_column(
        ForeignKey("catalog_partition.id", ondelete="CASCADE"), nullable=True
    )
    # "" for table-level statistics, else the partition's values_key (NULLs are never equal)
    partition_key: Mapped[str] = mapped_column(String(64))
    column_name: Mapped[str] = mapped_column(String(255))
    spec: Mapped[dict[str, Any]]


class FunctionRow(Base):
    __tablename__ = "catalog_function"
    __table_args__ = (UniqueConstraint("database_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    database_id: Mapped[int] = mapped_column(ForeignKey("catalog_database.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)


class ConnectionRow(Base):
    __tablename__ = "glue_connection"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class TagRow(Base):
    __tablename__ = "resource_tag"

    resource_arn: Mapped[str] = mapped_column(String(1024), primary_key=True)
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class CrawlerRow(Base):
    """A crawler; ``state`` changes only by compare-and-swap (glueball.crawlers.store)."""

    __tablename__ = "glue_crawler"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    spec: Mapped[dict[str, Any]]
    version: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16))
    schedule: Mapped[str | None] = mapped_column(Text, nullable=True)
    schedule_state: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # when the SCHEDULED schedule fires next (scheduler clock, epoch seconds); moved by compare-and-swap
    next_fire: Mapped[float | None] = mapped_column(Float, nullable=True)
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)
    # the crawl in progress, and which process runs it (host:pid:boot id) with its heartbeat
    current_crawl: Mapped[str | None] = mapped_column(String(64), nullable=True)
    crawl_start: Mapped[float | None] = mapped_column(Float, nullable=True)
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_crawl: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    # the engine's state after the last successful crawl (incremental crawls)
    crawl_state: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)


class CrawlRow(Base):
    """One crawl of a crawler (ListCrawls, GetCrawlerMetrics)."""

    __tablename__ = "glue_crawl"
    __table_args__ = (
        UniqueConstraint("crawl_id"),
        Index("ix_crawl_crawler_start", "crawler_id", "start_time"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    crawler_id: Mapped[int] = mapped_column(ForeignKey("glue_crawler.id", ondelete="CASCADE"))
    crawl_id: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    start_time: Mapped[float] = mapped_column(Float)
    end_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    # tables/partitions created, updated and deleted, as the engine reported them
    stats: Mapped[dict[str, Any]]
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    # the workflow run and the trigger fire that started the crawl (None when started otherwise)
    workflow_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True, index=True)
    fire_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    # the host of the server that ran the crawl, whose disk holds its log (several servers on several machines)
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)


class ClassifierRow(Base):
    __tablename__ = "glue_classifier"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(32))
    spec: Mapped[dict[str, Any]]
    version: Mapped[int] = mapped_column(Integer)
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class JobBookmarkRow(Base):
    """A job's current bookmark (glueball.jobs.bookmarks): the state of each ``transformation_ctx``.

    ``version`` grows by one on every change (commit, reset, withdrawal); each
    version is also kept in ``glue_job_bookmark_version``.
    """

    __tablename__ = "glue_job_bookmark"
    __table_args__ = (UniqueConstraint("account_id", "region", "job_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    job_name: Mapped[str] = mapped_column(String(255))
    version: Mapped[int] = mapped_column(Integer)
    run: Mapped[int] = mapped_column(Integer)
    attempt: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    previous_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    states: Mapped[dict[str, Any]]
    update_time: Mapped[float] = mapped_column(Float)


class JobBookmarkVersionRow(Base):
    """One version of a job's bookmark, as the entry was after it: a run's commit, a reset or a withdrawal."""

    __tablename__ = "glue_job_bookmark_version"
    __table_args__ = (
        UniqueConstraint("bookmark_id", "version"),
        # a run commits once; NULL for resets and withdrawals (NULLs never collide)
        UniqueConstraint("bookmark_id", "commit_run_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bookmark_id: Mapped[int] = mapped_column(ForeignKey("glue_job_bookmark.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    commit_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    run: Mapped[int] = mapped_column(Integer)
    attempt: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    previous_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    states: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)


class JobRow(Base):
    """A job definition (glueball.jobs)."""

    __tablename__ = "glue_job"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    # the JOB_ID a driver sees (--JOB_ID), fixed for the job's life
    job_id: Mapped[str] = mapped_column(String(80))
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class JobRunRow(Base):
    """One job run; ``state`` changes only by compare-and-swap (glueball.jobs.store)."""

    __tablename__ = "glue_job_run"
    __table_args__ = (
        UniqueConstraint("run_id"),
        Index("ix_job_run_job_started", "job_id", "started_on"),
        Index("ix_job_run_state", "state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("glue_job.id", ondelete="CASCADE"))
    run_id: Mapped[str] = mapped_column(String(255))
    attempt: Mapped[int] = mapped_column(Integer)
    previous_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    trigger_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    state: Mapped[str] = mapped_column(String(16))
    started_on: Mapped[float] = mapped_column(Float)
    last_modified_on: Mapped[float] = mapped_column(Float)
    completed_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    # the run's Arguments as StartJobRun gave them
    arguments: Mapped[dict[str, Any]]
    # what the run runs with: the job's command and arguments, capacity, timeout, retries (a snapshot)
    spec: Mapped[dict[str, Any]]
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    execution_time: Mapped[int] = mapped_column(Integer, default=0)
    dpu_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # rows/bytes read and written, from the run's Spark event log (glueball extension, not a Glue member)
    metrics: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    streaming: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)  # a streaming run's batches
    # who watches the run (host:pid:boot id) with its heartbeat, and its driver process (pid, start ticks)
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat: Mapped[float | None] = mapped_column(Float, nullable=True)
    driver_host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    driver_pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    driver_start: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_dir: Mapped[str | None] = mapped_column(Text, nullable=True)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    # the workflow run and the trigger fire that started the run (None when started otherwise)
    workflow_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True, index=True)
    fire_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)


class WorkflowRow(Base):
    """A workflow (glueball.workflows): its triggers name it; jobs and crawlers join through them."""

    __tablename__ = "glue_workflow"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    # Description, DefaultRunProperties, MaxConcurrentRuns
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class TriggerRow(Base):
    """A trigger; ``state`` and the scheduler's columns change by compare-and-swap on ``version``."""

    __tablename__ = "glue_trigger"
    __table_args__ = (
        UniqueConstraint("account_id", "region", "name"),
        Index("ix_trigger_type_state", "type", "state"),
        Index("ix_trigger_workflow", "account_id", "region", "workflow_name"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    trigger_id: Mapped[str] = mapped_column(String(80))
    workflow_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    type: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16))
    # Description, Schedule, Actions, Predicate, EventBatchingCondition
    spec: Mapped[dict[str, Any]]
    version: Mapped[int] = mapped_column(Integer)
    # SCHEDULED + ACTIVATED: when it fires next (scheduler clock, epoch seconds)
    next_fire: Mapped[float | None] = mapped_column(Float, nullable=True)
    # CONDITIONAL outside a workflow: only runs and crawls completed after this count
    watermark: Mapped[float | None] = mapped_column(Float, nullable=True)
    # EVENT: the events of the batch being gathered {"first": epoch, "ids": [...]}
    event_batch: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    # the caller that created the trigger: its actions run with this access key
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class WorkflowRunRow(Base):
    """One workflow run; ``status`` changes by compare-and-swap (glueball.workflows.store)."""

    __tablename__ = "glue_workflow_run"
    __table_args__ = (
        UniqueConstraint("run_id"),
        Index("ix_workflow_run_workflow_started", "workflow_id", "started_on"),
        Index("ix_workflow_run_status", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workflow_id: Mapped[int] = mapped_column(ForeignKey("glue_workflow.id", ondelete="CASCADE"))
    run_id: Mapped[str] = mapped_column(String(255))
    previous_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    started_on: Mapped[float] = mapped_column(Float)
    completed_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    properties: Mapped[dict[str, Any]]
    # StartingEventBatchCondition of a run an EVENT trigger started
    starting_batch: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    # a resumed run: the job runs and crawls of the previous run it keeps {"jobs": {name: [run id]}, ...}
    inherited: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)


class TriggerFireRow(Base):
    """One firing of a trigger (or of a crawler's schedule): its actions and what starting them gave.

    Written in the same transaction that decides the fire (the schedule's compare-and-swap, the
    workflow run's creation), so a fire is never lost or doubled; ``done`` once every action was
    started. Within a workflow run a trigger fires at most once (the unique constraint).
    """

    __tablename__ = "glue_trigger_fire"
    __table_args__ = (
        UniqueConstraint("workflow_run_id", "trigger_name"),
        Index("ix_trigger_fire_done", "done"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    # a trigger's name, or "crawler-schedule:<crawler>" for a crawler's own schedule
    trigger_name: Mapped[str] = mapped_column(String(300))
    workflow_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    fired_on: Mapped[float] = mapped_column(Float)
    # the actions to start (Action structures, with workflow arguments added) and, per action, the
    # outcome {"JobRunId"} | {"CrawlId"} | {"ErrorCode", "ErrorMessage"}
    actions: Mapped[list[Any]]
    outcomes: Mapped[list[Any]]
    done: Mapped[bool] = mapped_column(Boolean)
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)


class DataQualityRulesetRow(Base):
    """A data quality ruleset (glueball.dataquality): its DQDL text as the client sent it."""

    __tablename__ = "glue_dq_ruleset"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    ruleset: Mapped[str] = mapped_column(Text)
    # the number of top-level rules of the parsed ruleset (RuleCount)
    rule_count: Mapped[int] = mapped_column(Integer)
    # TargetTable, as columns for ListDataQualityRulesets' filter
    target_database: Mapped[str | None] = mapped_column(String(255), nullable=True)
    target_table: Mapped[str | None] = mapped_column(String(255), nullable=True)
    target_catalog: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # the recommendation run that created the ruleset (CreatedRulesetName)
    recommendation_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    client_token: Mapped[str | None] = mapped_column(String(255), nullable=True)
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class DataQualityResultRow(Base):
    """One published data quality result: the DataQualityResult structure minus ResultId in ``spec``."""

    __tablename__ = "glue_dq_result"
    __table_args__ = (
        UniqueConstraint("result_id"),
        Index("ix_dq_result_scope_started", "account_id", "region", "started_on"),
        Index("ix_dq_result_evaluation_run", "evaluation_run_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    result_id: Mapped[str] = mapped_column(String(255))
    evaluation_context: Mapped[str | None] = mapped_column(Text, nullable=True)
    ruleset_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # DataSource.GlueTable (or DataQualityGlueTable), for ListDataQualityResults' filter
    database_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    table_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    job_name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    job_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    evaluation_run_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    started_on: Mapped[float] = mapped_column(Float)
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)


class DataQualityMetricRow(Base):
    """One metric value of a published result, for ``last(k)`` and anomaly detection.

    ``context_key`` is the sha256 of the result's EvaluationContext (a bounded index key).
    """

    __tablename__ = "glue_dq_metric"
    __table_args__ = (
        Index("ix_dq_metric_history", "account_id", "region", "context_key", "metric", "started_on"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("glue_dq_result.id", ondelete="CASCADE"))
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    context_key: Mapped[str] = mapped_column(String(64))
    metric: Mapped[str] = mapped_column(String(512))
    value: Mapped[float] = mapped_column(Float)
    started_on: Mapped[float] = mapped_column(Float)


class DataQualityRunRow(Base):
    """A ruleset evaluation run or a rule recommendation run; ``status`` changes by compare-and-swap."""

    __tablename__ = "glue_dq_run"
    __table_args__ = (
        UniqueConstraint("run_id"),
        # StartDataQuality*Run's ClientToken: one run per token (NULLs never collide)
        UniqueConstraint("account_id", "region", "kind", "client_token"),
        Index("ix_dq_run_scope_started", "account_id", "region", "kind", "started_on"),
        Index("ix_dq_run_status", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    run_id: Mapped[str] = mapped_column(String(255))
    # "evaluation" or "recommendation"
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    database_name: Mapped[str] = mapped_column(String(255))
    table_name: Mapped[str] = mapped_column(String(255))
    # the Start request's members (DataSource, Role, NumberOfWorkers, Timeout, RulesetNames, ...), defaults filled
    spec: Mapped[dict[str, Any]]
    client_token: Mapped[str | None] = mapped_column(String(255), nullable=True)
    started_on: Mapped[float] = mapped_column(Float)
    last_modified_on: Mapped[float] = mapped_column(Float)
    completed_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    error_string: Mapped[str | None] = mapped_column(Text, nullable=True)
    execution_time: Mapped[int] = mapped_column(Integer, default=0)
    # a recommendation run's RecommendedRuleset (DQDL)
    recommended_ruleset: Mapped[str | None] = mapped_column(Text, nullable=True)
    # who watches the run (host:pid:boot id) with its heartbeat, and its driver process (pid, start ticks)
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat: Mapped[float | None] = mapped_column(Float, nullable=True)
    driver_host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    driver_pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    driver_start: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_dir: Mapped[str | None] = mapped_column(Text, nullable=True)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)

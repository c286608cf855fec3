"""The demo's two Glue scripts end to end, without a workflow: crawl, transform, aggregate, for two days.

In a temporary GLUEBALL_HOME: customers and day 1 are written, an S3 crawler catalogs
``s3://demo-lake/raw/`` into ``demo_raw``, and ``glueball run`` runs the transform and the
aggregate (each its own driver process, job bookmarks on, kept in the embedded store under
the ``--JOB_NAME``). Then day 2 arrives, is crawled, and both run again: the transform must
read only day 2, the curated table must hold both days without duplicates, and the
aggregate must have recomputed both days. Expected numbers come from ``DayStats``.
"""

from __future__ import annotations

import collections
import datetime as dt
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from glueball.app import Glueball, embedded_client
from glueball.catalog.models import Scope
from glueball.config import Settings
from glueball.crawlers.models import LastCrawlStatus
from glueball.demo import data
from glueball.demo.jobs import AGGREGATE_SCRIPT, TRANSFORM_SCRIPT
from tests.helpers import run_script_in_process

pytestmark = pytest.mark.spark

RAW_DB, CURATED_DB = "demo_raw", "demo_curated"
DAY_1, DAY_2 = dt.date(2026, 6, 1), dt.date(2026, 6, 2)
COUNTS = re.compile(r"^orders read (\d+), curated (\d+), quarantined (\d+), cancelled (\d+)$", re.MULTILINE)
REASONS = re.compile(r"^quarantined by reason: (.*)$", re.MULTILINE)
AGGREGATE = re.compile(r"^curated orders (\d+), daily revenue rows (\d+), days (\d+)$", re.MULTILINE)
HIVE_DAY = ds.partitioning(pa.schema([("day", pa.string())]), flavor="hive")


@dataclass
class Pipeline:
    """The temporary installation, its in-process catalog, and how long each script run took."""

    home: Path
    app: Glueball
    glue: Any
    timings: list[tuple[str, float]] = field(default_factory=list)

    @property
    def object_store(self) -> Path:
        return self.app.settings.object_store

    def crawl_raw(self) -> None:
        result = self.app.crawls.run(Scope(self.app.accounts.default_account, "us-east-1"), None, "demo-raw")
        assert result.status is LastCrawlStatus.SUCCEEDED, result.error

    def run(self, label: str, script: Path, *args: str) -> str:
        """The demo script over the home, in this process's Spark session: what the scripts compute. How
        a job run's driver is launched and watched is tested in tests/jobs; ``make demo`` runs these
        scripts as job runs of a workflow."""
        started = time.monotonic()
        status, out, err = run_script_in_process(self.home, script, *args, "--job-bookmark-option",
                                                 "job-bookmark-enable")
        self.timings.append((label, time.monotonic() - started))
        assert status == 0, f"{script.name} failed:\n{out[-2000:]}\n{err[-4000:]}"
        return out

    def transform(self, label: str) -> str:
        return self.run(label, TRANSFORM_SCRIPT, "--JOB_NAME", "demo-transform", "--raw_database", RAW_DB,
                        "--curated_path", data.CURATED_ORDERS_PATH, "--quarantine_path", data.QUARANTINE_PATH,
                        "--curated_database", CURATED_DB)

    def aggregate(self, label: str) -> str:
        return self.run(label, AGGREGATE_SCRIPT, "--JOB_NAME", "demo-aggregate", "--curated_database", CURATED_DB,
                        "--output_path", data.DAILY_REVENUE_PATH)

    def uri(self, path: Path) -> str:
        """The s3:// URI of a file of the object store (``<home>/s3/bucket/key``)."""
        return "s3://" + path.relative_to(self.object_store).as_posix()

    def local(self, uri: str) -> Path:
        return self.object_store / uri.removeprefix("s3://")

    def curated(self) -> list[dict[str, Any]]:
        return ds.dataset(self.local(data.CURATED_ORDERS_PATH), format="parquet",
                          partitioning=HIVE_DAY).to_table().to_pylist()

    def quarantine(self) -> list[dict[str, Any]]:
        return ds.dataset(self.local(data.QUARANTINE_PATH), format="json",
                          partitioning=HIVE_DAY).to_table().to_pylist()

    def daily_revenue(self) -> dict[tuple[str, str, str, str], tuple[int, Decimal]]:
        rows = ds.dataset(self.local(data.DAILY_REVENUE_PATH), format="parquet",
                          partitioning=HIVE_DAY).to_table().to_pylist()
        out = {(r["day"], r["segment"], r["country"], r["currency"]): (r["orders"], r["revenue"]) for r in rows}
        assert len(out) == len(rows), "one row per day, segment, country and currency"
        return out

    def bookmarked_files(self, job: str) -> dict[str, list[str]]:
        """Per transformation_ctx, the files the job's bookmark holds (glueball's own GetJobBookmarkState).

        The public GetJobBookmark needs a defined job; ``glueball run`` keeps bookmarks under its
        ``--JOB_NAME`` without one.
        """
        states = self.app.client("glueball").get_job_bookmark_state(JobName=job)["States"]
        return {ctx: sorted(state["files"]) for ctx, state in states.items()}

    def partitions(self, table: str) -> list[list[str]]:
        parts = self.glue.get_partitions(DatabaseName=CURATED_DB, TableName=table)["Partitions"]
        return sorted(p["Values"] for p in parts)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pipeline]:
    home = tmp_path_factory.mktemp("demo-home")
    patcher = pytest.MonkeyPatch()
    patcher.setenv("GLUEBALL_HOME", str(home))
    patcher.delenv("GLUEBALL_ENDPOINT", raising=False)
    settings = Settings(home=home)
    settings.ensure_dirs()
    app = Glueball(settings)
    glue = embedded_client(app)
    for name in (RAW_DB, CURATED_DB):
        glue.create_database(DatabaseInput={"Name": name})
    glue.create_crawler(Name="demo-raw", Role="AWSGlueServiceRole-demo", DatabaseName=RAW_DB,
                        Targets={"S3Targets": [{"Path": data.RAW_PATH}]})
    made = Pipeline(home, app, glue)
    try:
        yield made
    finally:
        print("\n" + "\n".join(f"{label}: {seconds:.1f} s" for label, seconds in made.timings))
        app.close()
        patcher.undo()


def counts(stdout: str) -> tuple[int, int, int, int]:
    found = COUNTS.search(stdout)
    assert found, stdout
    read, curated, quarantined, cancelled = (int(g) for g in found.groups())
    return read, curated, quarantined, cancelled


def reasons(stdout: str) -> dict[str, int]:
    found = REASONS.search(stdout)
    assert found, stdout
    return {text: int(n) for text, _, n in (part.rpartition(" ") for part in found.group(1).split(", "))}


def expected_revenue(*days: data.DayStats) -> dict[tuple[str, str, str, str], tuple[int, Decimal]]:
    return {(stats.day.isoformat(), *key): value for stats in days for key, value in stats.groups.items()}


def by_day(rows: list[dict[str, Any]]) -> dict[str, int]:
    return dict(collections.Counter(r["day"] for r in rows))


def test_two_days_through_crawler_transform_and_aggregate(pipeline: Pipeline) -> None:
    data.write_customers(pipeline.object_store)
    day_1 = data.write_orders_day(pipeline.object_store, DAY_1)
    pipeline.crawl_raw()
    raw = pipeline.glue.get_table(DatabaseName=RAW_DB, Name="orders")["Table"]
    assert [k["Name"] for k in raw["PartitionKeys"]] == ["day"]

    # day 1: everything is new
    out = pipeline.transform("transform, day 1")
    assert counts(out) == (day_1.rows, day_1.good, day_1.bad, day_1.cancelled)
    assert reasons(out) == {reason: n for reason, n in day_1.rejected.items() if n}
    # only the orders source is bookmarked: customers, read without a transformation_ctx, are read in full
    assert pipeline.bookmarked_files("demo-transform") == {"raw_orders": [pipeline.uri(p) for p in day_1.files]}
    curated = pipeline.curated()
    assert len(curated) == day_1.good
    assert len({r["order_id"] for r in curated}) == day_1.good
    assert sum(r["amount"] for r in curated) == day_1.revenue
    assert all(r["status"] != data.CANCELLED and r["segment"] and r["customer_name"] for r in curated)
    quarantined = pipeline.quarantine()
    assert collections.Counter(r["reject_reason"] for r in quarantined) == {
        reason: n for reason, n in day_1.rejected.items() if n}
    # the quarantine keeps the amount as it was received
    assert {r["amount_text"] for r in quarantined if r["reject_reason"] == data.REASON_AMOUNT} <= set(
        data.NOT_A_NUMBER)
    assert pipeline.partitions("orders") == [[DAY_1.isoformat()]]
    table = pipeline.glue.get_table(DatabaseName=CURATED_DB, Name="orders")["Table"]
    assert table["Parameters"]["classification"] == "parquet"
    assert [k["Name"] for k in table["PartitionKeys"]] == ["day"]
    assert {(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]} >= {
        ("order_id", "bigint"), ("ordered_at", "timestamp"), ("amount", "decimal(12,2)"), ("segment", "string")}

    out = pipeline.aggregate("aggregate, day 1")
    found = AGGREGATE.search(out)
    assert found and found.groups() == (str(day_1.good), str(len(day_1.groups)), "1"), out
    assert pipeline.daily_revenue() == expected_revenue(day_1)
    assert pipeline.partitions("daily_revenue") == [[DAY_1.isoformat()]]

    # day 2: the bookmark leaves day 1's files out; the aggregate recomputes both days
    day_2 = data.write_orders_day(pipeline.object_store, DAY_2)
    pipeline.crawl_raw()
    out = pipeline.transform("transform, day 2")
    assert counts(out) == (day_2.rows, day_2.good, day_2.bad, day_2.cancelled)
    assert pipeline.bookmarked_files("demo-transform") == {
        "raw_orders": [pipeline.uri(p) for p in day_1.files + day_2.files]}
    curated = pipeline.curated()
    assert by_day(curated) == {DAY_1.isoformat(): day_1.good, DAY_2.isoformat(): day_2.good}
    assert len({r["order_id"] for r in curated}) == len(curated) == day_1.good + day_2.good
    assert by_day(pipeline.quarantine()) == {DAY_1.isoformat(): day_1.bad, DAY_2.isoformat(): day_2.bad}
    assert pipeline.partitions("orders") == [[DAY_1.isoformat()], [DAY_2.isoformat()]]

    out = pipeline.aggregate("aggregate, day 2")
    found = AGGREGATE.search(out)
    assert found and found.groups() == (str(day_1.good + day_2.good),
                                        str(len(day_1.groups) + len(day_2.groups)), "2"), out
    assert pipeline.daily_revenue() == expected_revenue(day_1, day_2)
    assert pipeline.partitions("daily_revenue") == [[DAY_1.isoformat()], [DAY_2.isoformat()]]

"""The crawler flow through the AWS CLI against a running server, as a Glue user runs it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.api.test_awscli import aws, aws_json
from tests.helpers import ServerProcess, unique


def write_day(root: Path, year: str, month: str, day: str, rows: int) -> None:
    folder = root / f"year={year}" / f"month={month}" / f"day={day}"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"order_id": i, "amount": i * 1.5, "status": "shipped" if i % 2 else "new"})
             for i in range(rows)]
    (folder / "part-0000.json").write_text("\n".join(lines) + "\n")


def wait_ready(server: ServerProcess, name: str, deadline_s: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        crawler = aws_json(server, "get-crawler", "--name", name)["Crawler"]
        if crawler["State"] == "READY" and crawler.get("LastCrawl"):
            return dict(crawler)
        time.sleep(0.3)
    raise AssertionError(f"crawler {name} did not finish in {deadline_s} s")


def partition_values(server: ServerProcess, database: str, table: str) -> list[list[str]]:
    found = aws_json(server, "get-partitions", "--database-name", database, "--table-name", table)["Partitions"]
    return sorted(p["Values"] for p in found)


def test_crawler_flow_with_the_aws_cli(server: ServerProcess) -> None:
    db, name, bucket = unique("raw"), unique("orders_crawler"), unique("lake").replace("_", "-")
    root = server.home / "s3" / bucket / "raw" / "orders"
    for day in ("01", "02", "03"):
        write_day(root, "2026", "06", day, 5)
    junk = root / "_temporary" / "attempt_1"
    junk.mkdir(parents=True)
    (junk / "part.json").write_text('{"not": "data"}\n')
    (root / "year=2026" / "month=06" / "day=01" / "notes.tmp").write_text("scratch")

    aws(server, "create-database", "--database-input", json.dumps({"Name": db}))
    targets = {"S3Targets": [{"Path": f"s3://{bucket}/raw/orders/",
                              "Exclusions": ["**/_temporary/**", "**.tmp"]}]}
    aws(server, "create-crawler", "--name", name, "--role", "arn:aws:iam::123456789012:role/glue",
        "--database-name", db, "--targets", json.dumps(targets),
        "--recrawl-policy", json.dumps({"RecrawlBehavior": "CRAWL_EVERYTHING"}),
        "--schema-change-policy", json.dumps({"UpdateBehavior": "UPDATE_IN_DATABASE",
                                              "DeleteBehavior": "DEPRECATE_IN_DATABASE"}),
        "--configuration", json.dumps({"Version": 1.0, "CrawlerOutput": {
            "Partitions": {"AddOrUpdateBehavior": "InheritFromTable"}}}),
        "--schedule", "cron(0 2 * * ? *)")
    crawler = aws_json(server, "get-crawler", "--name", name)["Crawler"]
    assert crawler["Schedule"]["ScheduleExpression"] == "cron(0 2 * * ? *)"
    assert crawler["State"] == "READY"

    aws(server, "start-crawler", "--name", name)
    done = wait_ready(server, name)
    assert done["LastCrawl"]["Status"] == "SUCCEEDED", done["LastCrawl"]

    tables = aws_json(server, "get-tables", "--database-name", db)["TableList"]
    assert [t["Name"] for t in tables] == ["orders"]
    table = tables[0]
    assert {c["Name"] for c in table["StorageDescriptor"]["Columns"]} == {"order_id", "amount", "status"}
    assert [k["Name"] for k in table["PartitionKeys"]] == ["year", "month", "day"]
    assert table["Parameters"]["classification"] == "json"
    assert table["Parameters"]["UPDATED_BY_CRAWLER"] == name
    assert partition_values(server, db, "orders") == [["2026", "06", "01"], ["2026", "06", "02"],
                                                       ["2026", "06", "03"]]

    # new folders arrive; an incremental crawl adds only those
    aws(server, "update-crawler", "--name", name,
        "--recrawl-policy", json.dumps({"RecrawlBehavior": "CRAWL_NEW_FOLDERS_ONLY"}),
        "--schema-change-policy", json.dumps({"UpdateBehavior": "LOG", "DeleteBehavior": "LOG"}))
    for day in ("04", "05"):
        write_day(root, "2026", "06", day, 3)
    aws(server, "start-crawler", "--name", name)
    second = wait_ready(server, name)
    assert second["LastCrawl"]["Status"] == "SUCCEEDED", second["LastCrawl"]
    assert [p[2] for p in partition_values(server, db, "orders")] == ["01", "02", "03", "04", "05"]
    crawls = aws_json(server, "list-crawls", "--crawler-name", name)["Crawls"]
    assert len(crawls) == 2 and all(c["State"] == "COMPLETED" for c in crawls)
    metrics = aws_json(server, "get-crawler-metrics", "--crawler-name-list", name)["CrawlerMetricsList"][0]
    assert metrics["CrawlerName"] == name and metrics["TablesCreated"] == 0

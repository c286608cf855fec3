"""Crawlers through boto3 (SQLite and PostgreSQL): definitions, state rules, schedules, tags, crawls.

Black-box tests drive a `glueball server` and the real crawl engine. The state-machine tests
that need a crawl to stay RUNNING until told otherwise run in-process with a stand-in engine
(``glueball.crawlers.crawl_runs.ENGINE_HOOK``), on both stores too.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.app import Glueball, embedded_client
from glueball.catalog.models import Scope
from glueball.config import DEFAULT_ACCOUNT_ID, Settings
from glueball.crawlers import crawl_runs as runner
from glueball.crawlers.crawl_runs import outcome_path
from glueball.crawlers.models import CrawlStats
from glueball.crawlers.service import CrawlerService
from glueball.store.engine import Store
from glueball.supervise import outcome
from tests.helpers import ServerProcess, create_postgres_database, drop_postgres_database, error_of, unique

ACCOUNT_ARN = f"arn:aws:glue:us-east-1:{DEFAULT_ACCOUNT_ID}"


def s3_targets(*paths: str) -> dict[str, Any]:
    return {"S3Targets": [{"Path": p} for p in paths]}


def create(glue: Any, name: str | None = None, **extra: Any) -> str:
    name = name or unique("crawler")
    params: dict[str, Any] = {"Name": name, "Role": "AWSGlueServiceRole-test", "DatabaseName": "crawled",
                              "Targets": s3_targets("s3://bucket/data/")}
    params.update(extra)
    glue.create_crawler(**params)
    return name


def wait_ready(glue: Any, name: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        crawler: dict[str, Any] = glue.get_crawler(Name=name)["Crawler"]
        if crawler["State"] == "READY":
            return crawler
        time.sleep(0.05)
    raise AssertionError(f"crawler {name} did not become READY in {timeout} s")


def client_error(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call()
    return error_of(excinfo)


# ---------------------------------------------------------------- definitions

def test_create_get_round_trips_with_glue_defaults(glue: Any) -> None:
    name = create(glue, Description="nightly orders", TablePrefix="raw_", Schedule="cron(0 2 * * ? *)",
                  Targets={"S3Targets": [{"Path": "s3://bucket/orders/", "Exclusions": ["**/_temporary/**"],
                                          "SampleSize": 5}],
                           "JdbcTargets": [{"ConnectionName": "pg", "Path": "shop/public/orders%",
                                            "Exclusions": ["shop/public/orders_tmp"]}]},
                  Configuration=json.dumps({"Version": 1.0, "Grouping": {"TableGroupingPolicy":
                                                                         "CombineCompatibleSchemas"}}))
    crawler = glue.get_crawler(Name=name)["Crawler"]
    assert crawler["Name"] == name
    assert crawler["Role"] == "AWSGlueServiceRole-test"
    assert crawler["State"] == "READY"
    assert crawler["Version"] == 1
    assert crawler["Targets"]["S3Targets"] == [{"Path": "s3://bucket/orders/", "Exclusions": ["**/_temporary/**"],
                                                "SampleSize": 5}]
    assert crawler["Targets"]["JdbcTargets"][0]["Path"] == "shop/public/orders%"
    assert crawler["Targets"]["CatalogTargets"] == []
    assert crawler["SchemaChangePolicy"] == {"UpdateBehavior": "UPDATE_IN_DATABASE",
                                             "DeleteBehavior": "DEPRECATE_IN_DATABASE"}
    assert crawler["RecrawlPolicy"] == {"RecrawlBehavior": "CRAWL_EVERYTHING"}
    assert crawler["LineageConfiguration"] == {"CrawlerLineageSettings": "DISABLE"}
    assert crawler["Schedule"] == {"ScheduleExpression": "cron(0 2 * * ? *)", "State": "SCHEDULED"}
    assert crawler["TablePrefix"] == "raw_"
    assert crawler["Description"] == "nightly orders"
    assert crawler["CrawlElapsedTime"] == 0
    assert crawler["CreationTime"] == crawler["LastUpdated"]
    assert "LastCrawl" not in crawler
    assert json.loads(crawler["Configuration"])["Grouping"]["TableGroupingPolicy"] == "CombineCompatibleSchemas"
    assert client_error(lambda: create(glue, name)) == ("AlreadyExistsException",
                                                       f"{DEFAULT_ACCOUNT_ID}:{name} already exists")
    assert client_error(lambda: glue.get_crawler(Name=name + "_x")) == \
        ("EntityNotFoundException", f"Crawler entry with name {name}_x does not exist")


def test_get_crawlers_batch_get_and_list_with_tags(glue: Any) -> None:
    prefix = unique("list")
    names = [create(glue, f"{prefix}_{i}", Tags={"team": "a" if i % 2 else "b", "env": "test"}) for i in range(5)]
    pages = list(glue.get_paginator("get_crawlers").paginate(PaginationConfig={"PageSize": 2}))
    listed = [c["Name"] for p in pages for c in p["Crawlers"]]
    assert [n for n in listed if n.startswith(prefix)] == names
    assert listed == sorted(listed)
    batch = glue.batch_get_crawlers(CrawlerNames=[names[3], "missing_one", names[0]])
    assert [c["Name"] for c in batch["Crawlers"]] == [names[3], names[0]]
    assert batch["CrawlersNotFound"] == ["missing_one"]
    tagged = glue.list_crawlers(Tags={"team": "a", "env": "test"})["CrawlerNames"]
    assert [n for n in tagged if n.startswith(prefix)] == [names[1], names[3]]
    assert glue.list_crawlers(Tags={"team": "a", "env": "prod"})["CrawlerNames"] == []
    first = glue.list_crawlers(MaxResults=1)
    assert len(first["CrawlerNames"]) == 1 and "NextToken" in first
    second = glue.list_crawlers(MaxResults=1, NextToken=first["NextToken"])
    assert second["CrawlerNames"] != first["CrawlerNames"]


@pytest.mark.parametrize(("extra", "message"), [
    ({"Targets": {}}, "A crawler needs at least one target"),
    ({"Targets": {"DynamoDBTargets": [{"Path": "table"}]}}, "DynamoDBTargets (DynamoDB) are not supported"),
    ({"Targets": {"DeltaTargets": [{"DeltaTables": ["/local/d"]}]}}, "DeltaTargets DeltaTables must be s3://"),
    ({"Targets": {"DeltaTargets": [{"WriteManifest": True}]}}, "DeltaTargets need DeltaTables"),
    ({"Targets": {"IcebergTargets": [{"Paths": ["s3://b/i"], "ConnectionName": "c"}]}},
     "IcebergTargets ConnectionName is not supported"),
    ({"Targets": {"HudiTargets": [{"Paths": ["s3://b/h"]}]}}, "HudiTargets (Hudi (no Hudi bundle is built for"),
    ({"Targets": {"MongoDBTargets": [{"ConnectionName": "m", "Path": "db/c"}]}}, "MongoDBTargets (MongoDB)"),
    ({"Targets": s3_targets("/local/path")}, "S3Targets Path must be an s3://bucket/prefix path"),
    ({"Targets": {"S3Targets": [{"Path": "s3://b/p", "SampleSize": 250}]}}, "SampleSize must be between 1 and 249"),
    ({"Targets": {"S3Targets": [{"Path": "s3://b/p", "EventQueueArn": "arn:aws:sqs:us-east-1:1:q"}]}},
     "EventQueueArn is not supported"),
    ({"Targets": {"JdbcTargets": [{"ConnectionName": "pg"}]}}, "JdbcTargets require a Path"),
    ({"Targets": {"S3Targets": [{"Path": "s3://b/p"}], "CatalogTargets": [{"DatabaseName": "d", "Tables": ["t"]}]}},
     "A crawler with CatalogTargets cannot have other kinds of targets"),
    ({"Schedule": "cron(0 12 * * * *)"}, "Invalid schedule expression 'cron(0 12 * * * *)': exactly one of"),
    ({"Schedule": "cron(0/2 * * * ? *)"}, "the minimum precision of a schedule is 5 minutes"),
    ({"Schedule": "rate(1 day)"}, "Invalid schedule expression 'rate(1 day)'"),
    ({"Configuration": "{not json"}, "Crawler configuration is not valid JSON"),
    ({"Configuration": json.dumps({"Grouping": {}})}, "Version is required"),
    ({"Configuration": json.dumps({"Version": 2.0})}, "Version must be 1.0, got 2.0"),
    ({"Configuration": json.dumps({"Version": 1.0, "Extra": 1})}, "unknown key Configuration.Extra"),
    ({"Configuration": json.dumps({"Version": 1.0, "Grouping": {"TableGroupingPolicy": "Merge"}})},
     "Configuration.Grouping.TableGroupingPolicy must be CombineCompatibleSchemas, got 'Merge'"),
    ({"Configuration": json.dumps({"Version": 1.0, "Grouping": {"TableLevelConfiguration": 0}})},
     "Configuration.Grouping.TableLevelConfiguration must be a positive integer, got 0"),
    ({"Configuration": json.dumps({"Version": 1.0, "CrawlerOutput": {"Partitions": {"AddOrUpdateBehavior": "X"}}})},
     "Configuration.CrawlerOutput.Partitions.AddOrUpdateBehavior must be InheritFromTable, got 'X'"),
    ({"Configuration": json.dumps({"Version": 1.0, "CrawlerOutput": {"Tables": {"TableThreshold": -1}}})},
     "Configuration.CrawlerOutput.Tables.TableThreshold must be a positive integer"),
    ({"RecrawlPolicy": {"RecrawlBehavior": "CRAWL_NEW_FOLDERS_ONLY"}},
     "must have UpdateBehavior LOG and DeleteBehavior LOG, got UPDATE_IN_DATABASE and DEPRECATE_IN_DATABASE"),
    ({"RecrawlPolicy": {"RecrawlBehavior": "CRAWL_EVENT_MODE"}}, "CRAWL_EVENT_MODE is not supported"),
    ({"Classifiers": ["no_such_classifier"]}, "Classifier with name no_such_classifier does not exist"),
    ({"CrawlerSecurityConfiguration": "kms-config"}, "Security configuration kms-config does not exist"),
    ({"LakeFormationConfiguration": {"UseLakeFormationCredentials": True}},
     "UseLakeFormationCredentials is not supported"),
    ({"Tags": {"aws:reserved": "x"}}, "the prefix 'aws:' is reserved"),
])
def test_invalid_definitions_are_rejected_with_the_reason(glue: Any, extra: dict[str, Any], message: str) -> None:
    name = unique("bad")
    code, text = client_error(lambda: create(glue, name, **extra))
    assert code == "InvalidInputException"
    assert message in text
    assert client_error(lambda: glue.get_crawler(Name=name))[0] == "EntityNotFoundException"


def test_incremental_crawls_need_log_policies_and_custom_classifiers_are_kept_in_order(glue: Any) -> None:
    first, second = unique("cls"), unique("cls")
    glue.create_classifier(JsonClassifier={"Name": first, "JsonPath": "$[*]"})
    glue.create_classifier(CsvClassifier={"Name": second, "Delimiter": "|"})
    name = create(glue, RecrawlPolicy={"RecrawlBehavior": "CRAWL_NEW_FOLDERS_ONLY"},
                  SchemaChangePolicy={"UpdateBehavior": "LOG", "DeleteBehavior": "LOG"},
                  Classifiers=[second, first])
    crawler = glue.get_crawler(Name=name)["Crawler"]
    assert crawler["RecrawlPolicy"] == {"RecrawlBehavior": "CRAWL_NEW_FOLDERS_ONLY"}
    assert crawler["Classifiers"] == [second, first]
    code, text = client_error(lambda: glue.update_crawler(
        Name=name, SchemaChangePolicy={"UpdateBehavior": "UPDATE_IN_DATABASE", "DeleteBehavior": "LOG"}))
    assert code == "InvalidInputException" and "CRAWL_NEW_FOLDERS_ONLY" in text


def test_update_replaces_given_members_and_bumps_version(glue: Any) -> None:
    name = create(glue, Description="first", Schedule="cron(0 3 * * ? *)", TablePrefix="p_")
    before = glue.get_crawler(Name=name)["Crawler"]
    glue.update_crawler(Name=name, Targets=s3_targets("s3://bucket/other/"), Description="",
                        SchemaChangePolicy={"DeleteBehavior": "LOG"})
    after = glue.get_crawler(Name=name)["Crawler"]
    assert after["Version"] == before["Version"] + 1
    assert after["Targets"]["S3Targets"] == [{"Path": "s3://bucket/other/"}]
    assert "Description" not in after
    assert after["TablePrefix"] == "p_"
    assert after["SchemaChangePolicy"] == {"UpdateBehavior": "UPDATE_IN_DATABASE", "DeleteBehavior": "LOG"}
    assert after["Schedule"] == before["Schedule"]
    assert after["LastUpdated"] >= before["LastUpdated"]
    assert after["CreationTime"] == before["CreationTime"]
    glue.update_crawler(Name=name, Schedule="cron(30 4 ? * MON *)")
    assert glue.get_crawler(Name=name)["Crawler"]["Schedule"] == {"ScheduleExpression": "cron(30 4 ? * MON *)",
                                                                  "State": "SCHEDULED"}
    glue.update_crawler(Name=name, Schedule="")
    final = glue.get_crawler(Name=name)["Crawler"]
    assert "Schedule" not in final
    assert final["Version"] == before["Version"] + 3
    assert client_error(lambda: glue.update_crawler(Name=name, Schedule="cron(99 * * * ? *)"))[0] == \
        "InvalidInputException"
    assert client_error(lambda: glue.update_crawler(Name=unique("gone"), Role="r"))[0] == "EntityNotFoundException"


def test_schedule_state_rules(glue: Any) -> None:
    plain = create(glue)
    assert client_error(lambda: glue.start_crawler_schedule(CrawlerName=plain)) == \
        ("NoScheduleException", f"Crawler with name {plain} has no schedule")
    assert client_error(lambda: glue.stop_crawler_schedule(CrawlerName=plain))[0] == "SchedulerNotRunningException"
    scheduled = create(glue, Schedule="cron(0 12 * * ? *)")
    assert client_error(lambda: glue.start_crawler_schedule(CrawlerName=scheduled))[0] == \
        "SchedulerRunningException"
    glue.stop_crawler_schedule(CrawlerName=scheduled)
    assert glue.get_crawler(Name=scheduled)["Crawler"]["Schedule"]["State"] == "NOT_SCHEDULED"
    assert client_error(lambda: glue.stop_crawler_schedule(CrawlerName=scheduled))[0] == \
        "SchedulerNotRunningException"
    # a new expression keeps the schedule's state
    glue.update_crawler_schedule(CrawlerName=scheduled, Schedule="cron(15 6 1W * ? *)")
    assert glue.get_crawler(Name=scheduled)["Crawler"]["Schedule"] == {"ScheduleExpression": "cron(15 6 1W * ? *)",
                                                                       "State": "NOT_SCHEDULED"}
    glue.start_crawler_schedule(CrawlerName=scheduled)
    assert glue.get_crawler(Name=scheduled)["Crawler"]["Schedule"]["State"] == "SCHEDULED"
    glue.update_crawler_schedule(CrawlerName=plain, Schedule="cron(0 0 L * ? *)")
    assert glue.get_crawler(Name=plain)["Crawler"]["Schedule"]["State"] == "SCHEDULED"
    code, text = client_error(lambda: glue.update_crawler_schedule(CrawlerName=plain, Schedule="cron(0 0 L * L *)"))
    assert code == "InvalidInputException" and "exactly one of the Day-of-month and Day-of-week" in text
    assert client_error(lambda: glue.start_crawler_schedule(CrawlerName=unique("gone")))[0] == \
        "EntityNotFoundException"


def test_tags_follow_the_crawler_arn_and_go_with_it(glue: Any) -> None:
    name = create(glue, Tags={"owner": "data"})
    arn = f"{ACCOUNT_ARN}:crawler/{name}"
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"owner": "data"}
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"tier": "gold"})
    assert glue.list_crawlers(Tags={"tier": "gold"})["CrawlerNames"] == [name]
    glue.delete_crawler(Name=name)
    assert client_error(lambda: glue.get_tags(ResourceArn=arn))[0] == "EntityNotFoundException"
    create(glue, name)
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}
    assert client_error(lambda: glue.delete_crawler(Name=unique("gone")))[0] == "EntityNotFoundException"


def test_stop_and_metrics_of_a_crawler_that_never_ran(glue: Any) -> None:
    name = create(glue)
    assert client_error(lambda: glue.stop_crawler(Name=name)) == \
        ("CrawlerNotRunningException", f"Crawler with name {name} isn't running")
    assert client_error(lambda: glue.start_crawler(Name=unique("gone")))[0] == "EntityNotFoundException"
    metrics = glue.get_crawler_metrics(CrawlerNameList=[name, "no_such"])["CrawlerMetricsList"]
    assert metrics == [{"CrawlerName": name, "TimeLeftSeconds": 0.0, "StillEstimating": False,
                        "LastRuntimeSeconds": 0.0, "MedianRuntimeSeconds": 0.0, "TablesCreated": 0,
                        "TablesUpdated": 0, "TablesDeleted": 0}]
    assert glue.list_crawls(CrawlerName=name)["Crawls"] == []
    assert client_error(lambda: glue.list_crawls(CrawlerName=unique("gone")))[0] == "EntityNotFoundException"


# ---------------------------------------------------------------- real crawls through the server

def write_object(server: ServerProcess, key: str, text: str) -> None:
    path = server.home / "s3" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_server_crawl_creates_tables_and_records_history_metrics_and_log(glue: Any, server: ServerProcess) -> None:
    database, prefix = unique("crawldb"), unique("landing")
    glue.create_database(DatabaseInput={"Name": database})
    for year in ("2024", "2025"):
        write_object(server, f"bucket/{prefix}/events/year={year}/part-0.json",
                     '{"id": 1, "kind": "click"}\n{"id": 2, "kind": "view"}\n')
    write_object(server, f"bucket/{prefix}/events/_temporary/junk.json", "not json at all\n")
    name = create(glue, DatabaseName=database, Targets={"S3Targets": [{"Path": f"s3://bucket/{prefix}/events/",
                                                                       "Exclusions": ["**/_temporary/**"]}]})
    glue.start_crawler(Name=name)
    crawler = wait_ready(glue, name)
    last = crawler["LastCrawl"]
    assert last["Status"] == "SUCCEEDED", last
    assert (last["LogGroup"], last["LogStream"]) == ("/aws-glue/crawlers", name)
    tables = glue.get_tables(DatabaseName=database)["TableList"]
    assert [t["Name"] for t in tables] == ["events"]
    assert [k["Name"] for k in tables[0]["PartitionKeys"]] == ["year"]
    partitions = glue.get_partitions(DatabaseName=database, TableName="events")["Partitions"]
    assert sorted(p["Values"] for p in partitions) == [["2024"], ["2025"]]
    crawls = glue.list_crawls(CrawlerName=name)["Crawls"]
    assert len(crawls) == 1
    crawl = crawls[0]
    assert crawl["State"] == "COMPLETED"
    assert crawl["CrawlId"] == last["MessagePrefix"]
    assert crawl["EndTime"] >= crawl["StartTime"]
    assert json.loads(crawl["Summary"])["TABLE"]["ADD"] == 1
    assert json.loads(crawl["Summary"])["PARTITION"]["ADD"] == 2
    log_file = server.home / "logs" / "crawlers" / name / f"{crawl['CrawlId']}.log"
    assert f"[{crawl['CrawlId']}]" in log_file.read_text()
    metrics = glue.get_crawler_metrics(CrawlerNameList=[name])["CrawlerMetricsList"][0]
    assert metrics["TablesCreated"] == 1
    assert metrics["LastRuntimeSeconds"] == pytest.approx(
        (crawl["EndTime"] - crawl["StartTime"]).total_seconds(), abs=0.01)
    assert metrics["StillEstimating"] is False
    # the second crawl finds nothing new: the table is not created again
    glue.start_crawler(Name=name)
    wait_ready(glue, name)
    crawls = glue.list_crawls(CrawlerName=name)["Crawls"]
    assert [c["State"] for c in crawls] == ["COMPLETED", "COMPLETED"]
    assert crawls[0]["StartTime"] >= crawls[1]["StartTime"]
    assert glue.get_crawler_metrics(CrawlerNameList=[name])["CrawlerMetricsList"][0]["TablesCreated"] == 0
    started_ms = int(crawls[0]["StartTime"].timestamp() * 1000)
    newest = glue.list_crawls(CrawlerName=name, Filters=[
        {"FieldName": "START_TIME", "FilterOperator": "GE", "FieldValue": str(started_ms)},
        {"FieldName": "STATE", "FilterOperator": "EQ", "FieldValue": "COMPLETED"}])["Crawls"]
    assert [c["CrawlId"] for c in newest] == [crawls[0]["CrawlId"]]
    by_id = glue.list_crawls(CrawlerName=name, Filters=[
        {"FieldName": "CRAWL_ID", "FilterOperator": "NE", "FieldValue": crawls[0]["CrawlId"]}])["Crawls"]
    assert [c["CrawlId"] for c in by_id] == [crawls[1]["CrawlId"]]
    assert glue.list_crawls(CrawlerName=name, MaxResults=1)["Crawls"][0]["CrawlId"] == crawls[0]["CrawlId"]
    for bad, message in (({"FieldName": "STATE", "FilterOperator": "EQ", "FieldValue": "DONE"}, "Invalid STATE"),
                         ({"FieldName": "STATE", "FilterOperator": "GT", "FieldValue": "FAILED"}, "use EQ or NE"),
                         ({"FieldName": "END_TIME", "FilterOperator": "LT", "FieldValue": "yesterday"},
                          "epoch timestamp in milliseconds")):
        code, text = client_error(lambda bad=bad: glue.list_crawls(CrawlerName=name, Filters=[bad]))
        assert code == "InvalidInputException" and message in text


def test_server_crawl_that_fails_leaves_the_crawler_ready_with_the_error(glue: Any, server: ServerProcess) -> None:
    prefix = unique("landing")
    write_object(server, f"bucket/{prefix}/t/part-0.json", '{"id": 1}\n')
    missing = unique("nodb")
    # a crawler creates a missing output database; a catalog target in a missing database cannot be crawled
    name = create(glue, DatabaseName=missing, Targets={"CatalogTargets": [{"DatabaseName": missing, "Tables": ["t"]}]})
    glue.start_crawler(Name=name)
    crawler = wait_ready(glue, name)
    assert crawler["LastCrawl"]["Status"] == "FAILED"
    assert missing in crawler["LastCrawl"]["ErrorMessage"]
    crawl = glue.list_crawls(CrawlerName=name)["Crawls"][0]
    assert crawl["State"] == "FAILED"
    assert crawl["ErrorMessage"] == crawler["LastCrawl"]["ErrorMessage"]
    failed = glue.list_crawls(CrawlerName=name, Filters=[{"FieldName": "STATE", "FilterOperator": "EQ",
                                                          "FieldValue": "FAILED"}])["Crawls"]
    assert len(failed) == 1


# ---------------------------------------------------------------- state machine, in-process

class Stopped(Exception):
    pass


class FakeEngine:
    """A crawl engine that runs until released (or stopped), then reports one table created."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.stop_noticed = threading.Event()
        self.may_stop = threading.Event()
        self.may_stop.set()
        self.failure: Exception | None = None
        self.previous_states: list[Any] = []
        self.crawlers: list[dict[str, Any]] = []
        self.classifiers: list[list[dict[str, Any]]] = []

    def run_crawl(self, *, crawler: dict[str, Any], classifiers: list[dict[str, Any]], glue: Any,
                  previous_state: dict[str, Any] | None, progress: Callable[[str, int, int], None],
                  should_stop: Callable[[], bool], log: Callable[[str], None], objects: Any = None) -> Any:
        self.crawlers.append(crawler)
        self.classifiers.append(classifiers)
        self.previous_states.append(previous_state)
        log("fake crawl running")
        progress("classifying", 0, 1)
        self.started.set()
        while not self.release.wait(0.01):
            if should_stop():
                self.stop_noticed.set()
                self.may_stop.wait(30)
                raise Stopped("stopped on request")
        if self.failure is not None:
            raise self.failure
        return SimpleNamespace(tables_created=1, tables_updated=2, tables_deleted=0, partitions_created=3,
                               partitions_updated=0, partitions_deleted=0,
                               state={"crawl": len(self.previous_states)}, messages=[])


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def embedded_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Glueball]:
    store_url = create_postgres_database() if request.param == "postgres" else ""
    app = Glueball(Settings(home=tmp_path_factory.mktemp(f"crawl-{request.param}"), store_url=store_url))
    yield app
    app.close()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def engine(monkeypatch: pytest.MonkeyPatch) -> FakeEngine:
    fake = FakeEngine()
    monkeypatch.setattr(runner, "ENGINE_HOOK", runner.EngineHook(fake.run_crawl, Stopped))
    yield fake
    fake.release.set()


@pytest.fixture()
def local(embedded_app: Glueball) -> Any:
    return embedded_client(embedded_app)


def test_stop_moves_running_to_stopping_then_ready_cancelled(local: Any, engine: FakeEngine) -> None:
    name = create(local)
    engine.may_stop.clear()
    local.start_crawler(Name=name)
    assert engine.started.wait(10)
    running = local.get_crawler(Name=name)["Crawler"]
    assert running["State"] == "RUNNING"
    started = local.list_crawls(CrawlerName=name)["Crawls"][0]["StartTime"].timestamp()
    assert abs(running["CrawlElapsedTime"] / 1000 - (time.time() - started)) < 5
    for call in (lambda: local.start_crawler(Name=name), lambda: local.delete_crawler(Name=name),
                 lambda: local.update_crawler(Name=name, Description="x")):
        assert client_error(call)[0] == "CrawlerRunningException"
    metrics = local.get_crawler_metrics(CrawlerNameList=[name])["CrawlerMetricsList"][0]
    assert metrics["StillEstimating"] is True
    crawl = local.list_crawls(CrawlerName=name)["Crawls"][0]
    assert crawl["State"] == "RUNNING" and "EndTime" not in crawl
    local.stop_crawler(Name=name)
    assert engine.stop_noticed.wait(10)
    assert local.get_crawler(Name=name)["Crawler"]["State"] == "STOPPING"
    assert client_error(lambda: local.stop_crawler(Name=name)) == \
        ("CrawlerStoppingException", f"Crawler with name {name} is already stopping")
    engine.may_stop.set()
    crawler = wait_ready(local, name)
    assert crawler["LastCrawl"]["Status"] == "CANCELLED"
    assert local.list_crawls(CrawlerName=name)["Crawls"][0]["State"] == "STOPPED"
    assert client_error(lambda: local.stop_crawler(Name=name))[0] == "CrawlerNotRunningException"
    # a cancelled crawl does not hand its state to the next one
    engine.release.set()
    local.start_crawler(Name=name)
    wait_ready(local, name)
    assert engine.previous_states == [None, None]


def test_engine_gets_the_wire_crawler_classifiers_and_previous_state(local: Any, engine: FakeEngine) -> None:
    classifier = unique("cls")
    local.create_classifier(GrokClassifier={"Name": classifier, "Classification": "app",
                                            "GrokPattern": "%{WORD:level} %{GREEDYDATA:message}"})
    name = create(local, Classifiers=[classifier])
    engine.release.set()
    for _ in range(3):
        local.start_crawler(Name=name)
        crawler = wait_ready(local, name)
        assert crawler["LastCrawl"]["Status"] == "SUCCEEDED"
    assert engine.previous_states == [None, {"crawl": 1}, {"crawl": 2}]
    assert engine.crawlers[0]["Name"] == name
    assert engine.crawlers[0]["State"] == "RUNNING"
    assert engine.classifiers[0][0]["GrokClassifier"]["Name"] == classifier
    metrics = local.get_crawler_metrics(CrawlerNameList=[name])["CrawlerMetricsList"][0]
    runtimes = sorted((c["EndTime"] - c["StartTime"]).total_seconds()
                      for c in local.list_crawls(CrawlerName=name)["Crawls"])
    assert metrics["MedianRuntimeSeconds"] == pytest.approx(runtimes[1], abs=0.01)
    assert (metrics["TablesCreated"], metrics["TablesUpdated"], metrics["TablesDeleted"]) == (1, 2, 0)


def test_failed_crawl_records_the_error_and_keeps_the_last_good_state(local: Any, engine: FakeEngine) -> None:
    name = create(local)
    engine.release.set()
    local.start_crawler(Name=name)
    wait_ready(local, name)
    engine.failure = RuntimeError("disk on fire")
    local.start_crawler(Name=name)
    crawler = wait_ready(local, name)
    assert crawler["LastCrawl"]["Status"] == "FAILED"
    assert crawler["LastCrawl"]["ErrorMessage"] == "disk on fire"
    engine.failure = None
    local.start_crawler(Name=name)
    wait_ready(local, name)
    assert engine.previous_states == [None, {"crawl": 1}, {"crawl": 1}]


def test_concurrent_starts_exactly_one_wins(local: Any, engine: FakeEngine) -> None:
    name = create(local)
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def start() -> None:
        barrier.wait()
        try:
            local.start_crawler(Name=name)
            outcomes.append("started")
        except ClientError as err:
            outcomes.append(err.response["Error"]["Code"])

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["CrawlerRunningException"] * 7 + ["started"]
    engine.release.set()
    wait_ready(local, name)
    assert len(local.list_crawls(CrawlerName=name)["Crawls"]) == 1


# ---------------------------------------------------------------- restart and CLI

def test_restart_reconciles_crawls_of_a_dead_server(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)
    server.start()
    try:
        glue = server.client()
        orphaned, alive, recorded = create(glue), create(glue), create(glue)
    finally:
        server.stop()
    store = Store(f"sqlite:///{tmp_path / 'glueball.db'}", migrate=False)
    crawlers = CrawlerService(store, Scope(DEFAULT_ACCOUNT_ID, "us-east-1"))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    begun = crawlers.begin_crawl(orphaned, f"{socket.gethostname()}:{dead}:gone", None)
    # a crawl whose process recorded its end, then died before the store heard it
    finished = crawlers.begin_crawl(recorded, f"{socket.gethostname()}:{dead}:gone", None)
    record = outcome_path(tmp_path, recorded, finished.crawl_id)
    outcome.record(record.parent, "SUCCEEDED", None, record.name, stats=CrawlStats(tables_created=2).to_json(),
                   state={"tables": {}})
    # a crawl another live process runs (this test process, fresh heartbeat) must be left alone
    crawlers.begin_crawl(alive, f"{socket.gethostname()}:{os.getpid()}:test", None)
    store.dispose()
    server.start()
    try:
        glue = server.client()
        crawler = glue.get_crawler(Name=orphaned)["Crawler"]
        assert crawler["State"] == "READY"
        assert crawler["LastCrawl"]["Status"] == "FAILED"
        assert crawler["LastCrawl"]["ErrorMessage"] == "server restarted during the crawl"
        assert crawler["LastCrawl"]["MessagePrefix"] == begun.crawl_id
        crawl = glue.list_crawls(CrawlerName=orphaned)["Crawls"][0]
        assert (crawl["CrawlId"], crawl["State"]) == (begun.crawl_id, "FAILED")
        assert glue.get_crawler(Name=alive)["Crawler"]["State"] == "RUNNING"
        settled = glue.get_crawler(Name=recorded)["Crawler"]
        assert (settled["State"], settled["LastCrawl"]["Status"]) == ("READY", "SUCCEEDED")
        crawl = glue.list_crawls(CrawlerName=recorded)["Crawls"][0]
        assert (crawl["CrawlId"], crawl["State"]) == (finished.crawl_id, "COMPLETED")
        assert json.loads(crawl["Summary"])["TABLE"]["ADD"] == 2
    finally:
        server.stop()


def test_glueball_crawl_cli_runs_synchronously_with_progress_and_summary(tmp_path: Path) -> None:
    data = tmp_path / "s3" / "bucket" / "cli" / "sales" / "dt=2026-01-01"
    data.mkdir(parents=True)
    (data / "part-0.csv").write_text("id,amount\n1,2.5\n2,3.5\n")
    app = Glueball(Settings(home=tmp_path))
    glue = embedded_client(app)
    glue.create_database(DatabaseInput={"Name": "cli_db"})
    good = create(glue, DatabaseName="cli_db", Targets=s3_targets("s3://bucket/cli/sales/"))
    bad = create(glue, DatabaseName="no_such_db",
                 Targets={"CatalogTargets": [{"DatabaseName": "no_such_db", "Tables": ["sales"]}]})
    app.close()
    env = {k: v for k, v in os.environ.items() if k != "GLUEBALL_HOME"}

    def crawl(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "glueball", "crawl", name, "--home", str(tmp_path)],
                              capture_output=True, text=True, env=env, timeout=120)

    done = crawl(good)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^\w+: 1/1$", done.stderr, re.MULTILINE), done.stderr  # the progress line: stage done/total
    assert "SUCCEEDED" in done.stderr
    assert "tables: 1 created, 0 updated, 0 deleted" in done.stderr
    assert "partitions: 1 created" in done.stderr
    failed = crawl(bad)
    assert failed.returncode == 1
    assert "FAILED" in failed.stderr and "no_such_db" in failed.stderr
    missing = crawl("no_such_crawler")
    assert missing.returncode == 1
    assert "EntityNotFoundException" in missing.stderr
    app = Glueball(Settings(home=tmp_path))
    try:
        glue = embedded_client(app)
        assert [t["Name"] for t in glue.get_tables(DatabaseName="cli_db")["TableList"]] == ["sales"]
        crawler = glue.get_crawler(Name=good)["Crawler"]
        assert (crawler["State"], crawler["LastCrawl"]["Status"]) == ("READY", "SUCCEEDED")
        assert glue.list_crawls(CrawlerName=good)["Crawls"][0]["State"] == "COMPLETED"
        log_dir = tmp_path / "logs" / "crawlers" / good
        assert [p.stem for p in log_dir.iterdir()] == [crawler["LastCrawl"]["MessagePrefix"]]
        assert glue.get_crawler(Name=bad)["Crawler"]["LastCrawl"]["Status"] == "FAILED"
    finally:
        app.close()

"""CloudWatch Logs' API through boto3 against a server (SQLite and PostgreSQL): groups, streams, events,
filters, retention, tags, and every refusal with CloudWatch Logs' own code."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import ServerProcess, unique
from tests.logs.helpers import client, messages, now_ms, raw_logs, refused

DAY = 86_400_000


@pytest.fixture()
def logs(server: ServerProcess) -> Any:
    return client(server, "logs")


def group_with_stream(logs: Any, stream: str = "s") -> str:
    group = f"/test/{unique('g')}"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    return group


def test_groups_are_created_described_by_prefix_and_pattern_paged_and_deleted(logs: Any) -> None:
    base = f"/app/{unique('groups')}"
    for name in ("b", "a", "c/x"):
        logs.create_log_group(logGroupName=f"{base}/{name}", tags={"team": name}, logGroupClass="STANDARD")
    logs.create_log_group(logGroupName=f"{base}-other", kmsKeyId="alias/mine")
    assert refused(logs.create_log_group, logGroupName=f"{base}/a") == (
        "ResourceAlreadyExistsException", "The specified log group already exists")
    first = logs.describe_log_groups(logGroupNamePrefix=f"{base}/", limit=2)
    assert [g["logGroupName"] for g in first["logGroups"]] == [f"{base}/a", f"{base}/b"]
    group = first["logGroups"][0]
    assert group["arn"] == f"arn:aws:logs:us-east-1:123456789012:log-group:{base}/a:*"
    assert group["logGroupArn"] == group["arn"][:-2] and group["storedBytes"] == 0
    assert "retentionInDays" not in group and group["creationTime"] > 0
    second = logs.describe_log_groups(logGroupNamePrefix=f"{base}/", limit=2, nextToken=first["nextToken"])
    assert [g["logGroupName"] for g in second["logGroups"]] == [f"{base}/c/x"] and "nextToken" not in second
    paged = [g["logGroupName"] for page in logs.get_paginator("describe_log_groups").paginate(
        logGroupNamePrefix=base, PaginationConfig={"PageSize": 1}) for g in page["logGroups"]]
    assert paged == [f"{base}-other", f"{base}/a", f"{base}/b", f"{base}/c/x"]
    by_pattern = logs.describe_log_groups(logGroupNamePattern=base.split("/")[-1].upper() + "-OTH")["logGroups"]
    assert [(g["logGroupName"], g["kmsKeyId"]) for g in by_pattern] == [(f"{base}-other", "alias/mine")]
    assert refused(logs.describe_log_groups, logGroupNamePrefix=base, logGroupNamePattern="x")[0] == \
        "InvalidParameterException"
    assert refused(logs.describe_log_groups, nextToken="not-a-token")[0] == "InvalidParameterException"
    assert refused(logs.describe_log_groups, accountIdentifiers=["999999999999"])[0] == "InvalidParameterException"
    logs.delete_log_group(logGroupName=f"{base}/b")
    assert refused(logs.delete_log_group, logGroupName=f"{base}/b") == (
        "ResourceNotFoundException", "The specified log group does not exist.")
    logs.create_log_group(logGroupName=f"{base}/kept", deletionProtectionEnabled=True)
    code, message = refused(logs.delete_log_group, logGroupName=f"{base}/kept")
    assert code == "ValidationException" and "deletion protection" in message


def test_streams_are_listed_by_name_or_last_event_time_both_ways(logs: Any) -> None:
    group = group_with_stream(logs, "b")
    for name in ("a", "c"):
        logs.create_log_stream(logGroupName=group, logStreamName=name)
    assert refused(logs.create_log_stream, logGroupName=group, logStreamName="a") == (
        "ResourceAlreadyExistsException", "The specified log stream already exists")
    assert refused(logs.create_log_stream, logGroupName=group + "-none", logStreamName="a")[0] == \
        "ResourceNotFoundException"
    now = now_ms()
    for name, at in (("a", now - 3000), ("c", now - 2000), ("b", now - 1000)):
        logs.put_log_events(logGroupName=group, logStreamName=name, logEvents=[{"timestamp": at, "message": name}])

    def names(**kwargs: Any) -> list[str]:
        return [s["logStreamName"] for page in logs.get_paginator("describe_log_streams").paginate(
            logGroupName=group, PaginationConfig={"PageSize": 2}, **kwargs) for s in page["logStreams"]]

    assert names() == ["a", "b", "c"]
    assert names(descending=True) == ["c", "b", "a"]
    assert names(orderBy="LastEventTime") == ["a", "c", "b"]
    assert names(orderBy="LastEventTime", descending=True) == ["b", "c", "a"]
    assert names(logStreamNamePrefix="b") == ["b"]
    stream = logs.describe_log_streams(logGroupName=group, logStreamNamePrefix="c")["logStreams"][0]
    assert stream["firstEventTimestamp"] == stream["lastEventTimestamp"] == now - 2000
    assert stream["arn"].endswith(f"log-group:{group}:log-stream:c") and stream["lastIngestionTime"] >= now
    assert refused(logs.describe_log_streams, logGroupName=group, orderBy="LastEventTime",
                   logStreamNamePrefix="a") == ("InvalidParameterException",
                                                "Cannot order by LastEventTime with a logStreamNamePrefix.")
    assert refused(logs.describe_log_streams, logGroupName=group + "-none")[0] == "ResourceNotFoundException"
    assert refused(logs.describe_log_streams)[0] == "InvalidParameterException"
    arn = f"arn:aws:logs:us-east-1:123456789012:log-group:{group}"
    assert len(logs.describe_log_streams(logGroupIdentifier=arn)["logStreams"]) == 3
    logs.delete_log_stream(logGroupName=group, logStreamName="b")
    assert names() == ["a", "c"]
    assert refused(logs.delete_log_stream, logGroupName=group, logStreamName="b") == (
        "ResourceNotFoundException", "The specified log stream does not exist.")


def test_put_log_events_keeps_aws_rules(logs: Any) -> None:
    group = group_with_stream(logs)
    now = now_ms()
    first = logs.put_log_events(logGroupName=group, logStreamName="s",
                                logEvents=[{"timestamp": now, "message": "one"}])
    # sequence tokens are accepted and ignored, as CloudWatch Logs does since 2023: a stale one is fine
    second = logs.put_log_events(logGroupName=group, logStreamName="s", sequenceToken="12345",
                                 logEvents=[{"timestamp": now + 1, "message": "two"}])
    assert first["nextSequenceToken"] != second["nextSequenceToken"]
    old = logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
        {"timestamp": now - 15 * DAY, "message": "too old"}, {"timestamp": now - 15 * DAY + 1, "message": "also"}])
    assert old["rejectedLogEventsInfo"] == {"tooOldLogEventEndIndex": 1}
    new = logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
        {"timestamp": now + 2, "message": "three"}, {"timestamp": now + 3 * 3_600_000, "message": "too new"}])
    assert new["rejectedLogEventsInfo"] == {"tooNewLogEventStartIndex": 1}
    assert messages(logs, group, "s") == ["one", "two", "three"]
    for events, why in (
            ([{"timestamp": now, "message": "b"}, {"timestamp": now - 1, "message": "a"}], "chronological order"),
            ([{"timestamp": now - DAY - 1, "message": "a"}, {"timestamp": now, "message": "b"}], "24 hours"),
            ([{"timestamp": now, "message": "x" * 600_000}] * 2, "Upload too large")):
        code, message = refused(logs.put_log_events, logGroupName=group, logStreamName="s", logEvents=events)
        assert code == "InvalidParameterException" and why in message
    assert messages(logs, group, "s") == ["one", "two", "three"]  # nothing of a refused batch is kept
    assert refused(logs.put_log_events, logGroupName=group, logStreamName="none",
                   logEvents=[{"timestamp": now, "message": "x"}]) == (
        "ResourceNotFoundException", "The specified log stream does not exist.")
    assert refused(logs.put_log_events, logGroupName=group + "-none", logStreamName="s",
                   logEvents=[{"timestamp": now, "message": "x"}]) == (
        "ResourceNotFoundException", "The specified log group does not exist.")


def test_get_log_events_reads_head_tail_and_both_tokens(logs: Any) -> None:
    group = group_with_stream(logs)
    now = now_ms()
    logs.put_log_events(logGroupName=group, logStreamName="s",
                        logEvents=[{"timestamp": now + i, "message": f"m{i}"} for i in range(10)])
    tail = logs.get_log_events(logGroupName=group, logStreamName="s", limit=3)
    assert [e["message"] for e in tail["events"]] == ["m7", "m8", "m9"]
    head = logs.get_log_events(logGroupName=group, logStreamName="s", limit=3, startFromHead=True)
    assert [e["message"] for e in head["events"]] == ["m0", "m1", "m2"]
    assert head["nextForwardToken"].startswith("f/") and head["nextBackwardToken"].startswith("b/")
    ahead = logs.get_log_events(logGroupName=group, logStreamName="s", limit=3, nextToken=head["nextForwardToken"])
    assert [e["message"] for e in ahead["events"]] == ["m3", "m4", "m5"]
    back = logs.get_log_events(logGroupName=group, logStreamName="s", limit=2, nextToken=tail["nextBackwardToken"])
    assert [e["message"] for e in back["events"]] == ["m5", "m6"]
    end = logs.get_log_events(logGroupName=group, logStreamName="s", nextToken=tail["nextForwardToken"])
    assert end["events"] == [] and end["nextForwardToken"] == tail["nextForwardToken"]
    logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[{"timestamp": now + 20, "message": "new"}])
    follow = logs.get_log_events(logGroupName=group, logStreamName="s", nextToken=end["nextForwardToken"])
    assert [e["message"] for e in follow["events"]] == ["new"]
    window = logs.get_log_events(logGroupName=group, logStreamName="s", startTime=now + 2, endTime=now + 4,
                                 startFromHead=True)
    assert [e["message"] for e in window["events"]] == ["m2", "m3"]  # endTime is exclusive
    assert refused(logs.get_log_events, logGroupName=group, logStreamName="s", nextToken="f/1/s")[0] == \
        "InvalidParameterException"
    assert refused(logs.get_log_events, logGroupName=group, logStreamName="none") == (
        "ResourceNotFoundException", "The specified log stream does not exist.")


def test_filter_log_events_interleaves_streams_and_pages(logs: Any) -> None:
    group = group_with_stream(logs, "api")
    logs.create_log_stream(logGroupName=group, logStreamName="worker")
    now = now_ms()
    logs.put_log_events(logGroupName=group, logStreamName="api", logEvents=[
        {"timestamp": now, "message": "ERROR api down"}, {"timestamp": now + 2, "message": '{"level": "WARN"}'}])
    logs.put_log_events(logGroupName=group, logStreamName="worker", logEvents=[
        {"timestamp": now + 1, "message": "INFO worker up"}, {"timestamp": now + 3, "message": "ERROR worker"}])
    every = logs.filter_log_events(logGroupName=group)["events"]
    assert [(e["logStreamName"], e["message"]) for e in every] == [
        ("api", "ERROR api down"), ("worker", "INFO worker up"), ("api", '{"level": "WARN"}'),
        ("worker", "ERROR worker")]
    assert len({e["eventId"] for e in every}) == 4
    assert [e["message"] for e in logs.filter_log_events(logGroupName=group, filterPattern="ERROR")["events"]] == [
        "ERROR api down", "ERROR worker"]
    assert [e["message"] for e in logs.filter_log_events(logGroupName=group, filterPattern="ERROR",
                                                         logStreamNames=["worker", "none"])["events"]] == \
        ["ERROR worker"]
    assert [e["message"] for e in logs.filter_log_events(
        logGroupName=group, filterPattern='{ $.level = "WARN" }', logStreamNamePrefix="ap")["events"]] == \
        ['{"level": "WARN"}']
    assert [e["message"] for e in logs.filter_log_events(logGroupName=group, startTime=now + 1,
                                                         endTime=now + 2)["events"]] == \
        ["INFO worker up", '{"level": "WARN"}']  # endTime is inclusive here
    pages = list(logs.get_paginator("filter_log_events").paginate(logGroupName=group,
                                                                   PaginationConfig={"PageSize": 3}))
    assert [len(page["events"]) for page in pages] == [3, 1]
    assert [e["eventId"] for page in pages for e in page["events"]] == [e["eventId"] for e in every]
    for kwargs, code in (({"filterPattern": "ERROR:"}, "InvalidParameterException"),
                         ({"logStreamNames": ["api"], "logStreamNamePrefix": "a"}, "InvalidParameterException"),
                         ({"startTime": now + 5, "endTime": now}, "InvalidParameterException"),
                         ({"nextToken": "bogus"}, "InvalidParameterException")):
        assert refused(logs.filter_log_events, logGroupName=group, **kwargs)[0] == code
    assert refused(logs.filter_log_events, logGroupName=group + "-none") == (
        "ResourceNotFoundException", "The specified log group does not exist.")


def test_retention_deletes_older_events_and_refuses_them_afterwards(logs: Any) -> None:
    group = group_with_stream(logs)
    now = now_ms()
    for at, message in ((now - 10 * DAY, "ten days ago"), (now - 2 * DAY, "recent"), (now, "now")):
        logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[{"timestamp": at, "message": message}])
    logs.put_retention_policy(logGroupName=group, retentionInDays=7)
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["retentionInDays"] == 7
    assert messages(logs, group, "s") == ["recent", "now"]
    assert [e["message"] for e in logs.filter_log_events(logGroupName=group)["events"]] == ["recent", "now"]
    logs.put_retention_policy(logGroupName=group, retentionInDays=1)
    rejected = logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
        {"timestamp": now - DAY - 60_000, "message": "expired"}, {"timestamp": now - 120_000, "message": "kept"}])
    assert rejected["rejectedLogEventsInfo"] == {"expiredLogEventEndIndex": 0}
    assert messages(logs, group, "s") == ["kept", "now"]
    logs.delete_retention_policy(logGroupName=group)
    assert "retentionInDays" not in logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]
    code, message = refused(logs.put_retention_policy, logGroupName=group, retentionInDays=4)
    assert code == "InvalidParameterException" and "Member must satisfy enum value set: [1, 3, 5, 7" in message
    assert refused(logs.put_retention_policy, logGroupName=group + "-none", retentionInDays=1)[0] == \
        "ResourceNotFoundException"


def test_tags_by_name_and_by_arn(logs: Any) -> None:
    group = group_with_stream(logs)
    arn = f"arn:aws:logs:us-east-1:123456789012:log-group:{group}"
    logs.tag_log_group(logGroupName=group, tags={"team": "data", "env": "dev"})
    logs.untag_log_group(logGroupName=group, tags=["env"])
    assert logs.list_tags_log_group(logGroupName=group)["tags"] == {"team": "data"}
    logs.tag_resource(resourceArn=arn, tags={"cost": "1"})
    assert refused(logs.tag_resource, resourceArn=arn + ":*", tags={"x": "y"})[0] == "InvalidParameterException"
    logs.untag_resource(resourceArn=arn, tagKeys=["team"])
    assert logs.list_tags_for_resource(resourceArn=arn)["tags"] == {"cost": "1"}
    assert refused(logs.tag_resource, resourceArn=arn, tags={f"k{i}": "v" for i in range(50)})[0] == \
        "TooManyTagsException"
    assert refused(logs.tag_log_group, logGroupName=group, tags={f"k{i}": "v" for i in range(50)})[0] == \
        "InvalidParameterException"
    assert refused(logs.list_tags_for_resource, resourceArn=arn.replace("123456789012", "999999999999"))[0] == \
        "ResourceNotFoundException"
    assert refused(logs.list_tags_for_resource, resourceArn="arn:aws:glue:us-east-1:123456789012:job/x")[0] == \
        "InvalidParameterException"
    assert refused(logs.list_tags_log_group, logGroupName=group + "-none")[0] == "ResourceNotFoundException"


def test_the_model_refuses_input_with_invalid_parameter_exception(server: ServerProcess) -> None:
    status, body = raw_logs(server, "CreateLogGroup", {"logGroupName": "bad name!"})
    assert status == 400 and body["__type"] == "InvalidParameterException"
    assert "Member must satisfy regular expression pattern" in body["message"]
    status, body = raw_logs(server, "GetLogEvents", {"logGroupName": "/x", "logStreamName": "s", "limit": 0})
    assert status == 400 and body["__type"] == "InvalidParameterException"
    status, body = raw_logs(server, "PutLogEvents", {"logGroupName": "/x", "logStreamName": "s", "logEvents": [
        {"timestamp": now_ms(), "message": "x"}], "entity": {"keyAttributes": {"Type": "Service"}}})
    assert status == 400 and body["__type"] == "InvalidParameterException" and "entity" in body["message"]
    status, body = raw_logs(server, "StartQuery", {"logGroupName": "/x", "startTime": 0, "endTime": 1,
                                                   "queryString": "fields @message"})
    assert body["__type"] == "UnknownOperationException" and "not implemented by glueball" in body["message"]

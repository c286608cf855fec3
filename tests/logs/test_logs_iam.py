"""``--auth iam``: ``logs:*`` actions on log-group and log-stream ARNs and ``cloudwatch:*`` actions (with
``cloudwatch:namespace``) evaluated like every other service's, refused with each service's code."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.helpers import ServerProcess
from tests.helpers import iam_server as started_iam_server
from tests.logs.helpers import client, now_ms, refused

ACCOUNT = "123456789012"


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    with started_iam_server(tmp_path_factory.mktemp("logs-iam")) as started:
        yield started


def test_logs_and_metrics_actions_are_authorized_by_policies(iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    server, root_key = iam_server
    root = client(server, "logs", *root_key)
    for group in ("/aws-glue/jobs/output", "/secret/app"):
        root.create_log_group(logGroupName=group)
        root.create_log_stream(logGroupName=group, logStreamName="jr_1")
        root.put_log_events(logGroupName=group, logStreamName="jr_1", logEvents=[{"timestamp": now_ms(),
                                                                                  "message": f"hello {group}"}])
    iam = client(server, "iam", *root_key)
    iam.create_user(UserName="ops")
    iam.put_user_policy(UserName="ops", PolicyName="glue-logs", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": ["logs:FilterLogEvents", "logs:GetLogEvents"],
             "Resource": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/aws-glue/jobs/*"},
            {"Effect": "Allow", "Action": "logs:DescribeLogGroups", "Resource": "*"},
            {"Effect": "Allow", "Action": "cloudwatch:PutMetricData", "Resource": "*",
             "Condition": {"StringEquals": {"cloudwatch:namespace": "Allowed"}}},
            {"Effect": "Allow", "Action": "cloudwatch:ListMetrics", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="ops")["AccessKey"]
    ops = client(server, "logs", key["AccessKeyId"], key["SecretAccessKey"])
    assert [e["message"] for e in ops.filter_log_events(logGroupName="/aws-glue/jobs/output")["events"]] == [
        "hello /aws-glue/jobs/output"]
    assert [e["message"] for e in ops.get_log_events(logGroupName="/aws-glue/jobs/output", logStreamName="jr_1",
                                                     startFromHead=True)["events"]] == ["hello /aws-glue/jobs/output"]
    assert len(ops.describe_log_groups()["logGroups"]) == 2
    code, message = refused(ops.filter_log_events, logGroupName="/secret/app")
    assert code == "AccessDeniedException" and message == (
        f"User: arn:aws:iam::{ACCOUNT}:user/ops is not authorized to perform: logs:FilterLogEvents on resource: "
        f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/secret/app because no identity-based policy allows the "
        "logs:FilterLogEvents action")
    code, message = refused(ops.get_log_events, logGroupName="/secret/app", logStreamName="jr_1")
    assert code == "AccessDeniedException" and "log-group:/secret/app:log-stream:jr_1" in message
    assert refused(ops.create_log_group, logGroupName="/aws-glue/jobs/mine")[0] == "AccessDeniedException"
    metrics = client(server, "cloudwatch", key["AccessKeyId"], key["SecretAccessKey"])
    metrics.put_metric_data(Namespace="Allowed", MetricData=[{"MetricName": "m", "Value": 1}])
    assert [m["Namespace"] for m in metrics.list_metrics()["Metrics"]] == ["Allowed"]
    code, message = refused(metrics.put_metric_data, Namespace="Other", MetricData=[{"MetricName": "m", "Value": 1}])
    assert code == "AccessDenied" and "cloudwatch:PutMetricData" in message
    unsigned = client(server, "logs", "AKIDUNKNOWN", "nope")
    assert refused(unsigned.describe_log_groups)[0] == "UnrecognizedClientException"

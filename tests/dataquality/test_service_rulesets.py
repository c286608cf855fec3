"""Data quality rulesets and results through boto3 against a real server (SQLite and PostgreSQL).

Results are published the way a job's ``EvaluateDataQuality`` publishes them: glueball's own
``Glueball.PublishDataQualityResult``, and the metric history is read back with
``Glueball.GetDataQualityMetricHistory`` (and through ``glueball.dataquality.publish``).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, send, table_input, unique

PREFIX = "arn:aws:glue:us-east-1:123456789012"
RULES = 'Rules = [\n    RowCount > 0,\n    IsComplete "id"\n]'


@pytest.fixture()
def table(glue: Any) -> tuple[str, str]:
    database = unique("dqdb")
    glue.create_database(DatabaseInput={"Name": database})
    glue.create_table(DatabaseName=database, TableInput=table_input("orders"))
    return database, "orders"


def create(glue: Any, **extra: Any) -> str:
    name = extra.pop("Name", None) or unique("ruleset")
    glue.create_data_quality_ruleset(Name=name, Ruleset=extra.pop("Ruleset", RULES), **extra)
    return name


def client_error(call: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**kwargs)
    return error_of(excinfo)


# ---------------------------------------------------------------- rulesets


def test_create_get_update_delete(glue: Any, table: tuple[str, str]) -> None:
    database, name_of_table = table
    before = dt.datetime.now(dt.UTC)
    name = create(glue, Description="orders checks",
                  TargetTable={"DatabaseName": database, "TableName": name_of_table, "CatalogId": "123456789012"})
    got = glue.get_data_quality_ruleset(Name=name)
    assert got["Name"] == name and got["Description"] == "orders checks"
    assert got["Ruleset"] == RULES  # the text as sent, not re-printed
    assert got["TargetTable"] == {"DatabaseName": database, "TableName": name_of_table, "CatalogId": "123456789012"}
    assert before - dt.timedelta(seconds=2) <= got["CreatedOn"] == got["LastModifiedOn"]
    assert "RecommendationRunId" not in got

    time.sleep(0.01)
    updated = glue.update_data_quality_ruleset(Name=name, Description="new words")
    assert (updated["Name"], updated["Description"], updated["Ruleset"]) == (name, "new words", RULES)
    changed = 'Rules = [ ColumnExists "id" ]'
    updated = glue.update_data_quality_ruleset(Name=name, Ruleset=changed)
    assert (updated["Description"], updated["Ruleset"]) == ("new words", changed)
    got = glue.get_data_quality_ruleset(Name=name)
    assert got["Ruleset"] == changed and got["LastModifiedOn"] > got["CreatedOn"]

    glue.delete_data_quality_ruleset(Name=name)
    for call in (glue.get_data_quality_ruleset, glue.delete_data_quality_ruleset):
        assert client_error(call, Name=name) == (
            "EntityNotFoundException", f"Cannot find Data Quality Ruleset in account 123456789012 with name {name}")
    assert client_error(glue.update_data_quality_ruleset, Name=name, Description="x")[0] == "EntityNotFoundException"


def test_dqdl_errors_name_line_and_column(glue: Any) -> None:
    text = 'Rules = [\n    RowCount > 0,\n    Completenes "id" > 0.5\n]'
    code, message = client_error(glue.create_data_quality_ruleset, Name=unique("bad"), Ruleset=text)
    assert code == "InvalidInputException"
    assert message == ("Invalid DQDL ruleset: line 3, column 5: unknown rule type 'Completenes'; did you mean "
                       "Completeness? (rule types are case-sensitive)")
    code, message = client_error(glue.create_data_quality_ruleset, Name=unique("bad"),
                                 Ruleset='Rules = [\n    IsComplete "id" >\n]')
    assert code == "InvalidInputException"
    assert message.startswith("Invalid DQDL ruleset: line 3, column 1: expected a value such as 10")
    name = create(glue)
    code, message = client_error(glue.update_data_quality_ruleset, Name=name, Ruleset="Rules = [ RowCount ]")
    assert code == "InvalidInputException" and message.startswith("Invalid DQDL ruleset: line 1, column ")
    assert glue.get_data_quality_ruleset(Name=name)["Ruleset"] == RULES


def test_names_are_unique_and_client_token_repeats_a_create(glue: Any) -> None:
    name = create(glue, ClientToken="token-1")
    create(glue, Name=name, ClientToken="token-1")  # the same request again: no error, nothing new
    assert client_error(glue.create_data_quality_ruleset, Name=name, Ruleset=RULES) == (
        "AlreadyExistsException", f"Data Quality Ruleset with name {name} already exists")
    assert client_error(glue.create_data_quality_ruleset, Name=name, Ruleset=RULES, ClientToken="other")[0] == \
        "AlreadyExistsException"


def test_target_table_and_security_configuration_are_checked(glue: Any, table: tuple[str, str]) -> None:
    database, _ = table
    assert client_error(glue.create_data_quality_ruleset, Name=unique("r"), Ruleset=RULES,
                        TargetTable={"DatabaseName": database, "TableName": "missing"}) == (
        "InvalidInputException", "TargetTable: Table missing not found.")
    assert client_error(glue.create_data_quality_ruleset, Name=unique("r"), Ruleset=RULES,
                        TargetTable={"DatabaseName": database, "TableName": "orders", "CatalogId": "999999999999"}
                        )[0] == "AccessDeniedException"
    assert client_error(glue.create_data_quality_ruleset, Name=unique("r"), Ruleset=RULES,
                        DataQualitySecurityConfiguration="sec") == (
        "InvalidInputException", "Data quality security configuration sec does not exist (glueball has no security "
                                 "configurations)")


def test_model_validation_applies(server: ServerProcess) -> None:
    status, body = server.raw("CreateDataQualityRuleset", {"Name": "x"})
    assert status == 400 and body["__type"] == "ValidationException"
    assert "Value null at 'ruleset' failed to satisfy constraint: Member must not be null" in body["message"]
    status, body = server.raw("CreateDataQualityRuleset", {"Name": "x", "Ruleset": RULES, "Rules": "?"})
    assert status == 400 and body["__type"] == "ValidationException" and "Unknown parameter 'Rules'" in body["message"]


def test_list_with_every_filter_and_pages(glue: Any, table: tuple[str, str]) -> None:
    database, name_of_table = table
    marker = unique("listed")
    first = create(glue, Name=f"{marker}_a", Description=marker,
                   TargetTable={"DatabaseName": database, "TableName": name_of_table}, Tags={"team": "core"})
    time.sleep(0.05)
    middle = dt.datetime.now(dt.UTC)
    time.sleep(0.05)
    second = create(glue, Name=f"{marker}_b", Description=marker, Ruleset='Rules = [ RowCount > 1 ]')
    third = create(glue, Name=f"{marker}_c", Description=marker, Tags={"team": "core", "tier": "gold"})

    def names(**kwargs: Any) -> list[str]:
        found: list[str] = []
        token = None
        while True:
            page = glue.list_data_quality_rulesets(**kwargs, **({"NextToken": token} if token else {}))
            found += [r["Name"] for r in page["Rulesets"]]
            token = page.get("NextToken")
            if not token:
                return found

    assert names(Filter={"Description": marker}) == [first, second, third]
    assert names(Filter={"Description": marker}, MaxResults=1) == [first, second, third]
    assert names(Filter={"Name": second}) == [second]
    assert names(Filter={"Description": marker, "CreatedBefore": middle}) == [first]
    assert names(Filter={"Description": marker, "CreatedAfter": middle}) == [second, third]
    assert names(Filter={"Description": marker, "LastModifiedAfter": middle}) == [second, third]
    assert names(Filter={"TargetTable": {"DatabaseName": database, "TableName": name_of_table}}) == [first]
    assert names(Filter={"Description": marker}, Tags={"team": "core"}) == [first, third]
    assert names(Filter={"Description": marker}, Tags={"team": "core", "tier": "gold"}) == [third]
    details = glue.list_data_quality_rulesets(Filter={"Name": first})["Rulesets"][0]
    assert details["RuleCount"] == 2 and details["Description"] == marker
    assert details["TargetTable"] == {"DatabaseName": database, "TableName": name_of_table}
    assert set(details) == {"Name", "Description", "CreatedOn", "LastModifiedOn", "TargetTable", "RuleCount"}
    assert glue.list_data_quality_rulesets(Filter={"Name": second})["Rulesets"][0]["RuleCount"] == 1


def test_ruleset_arns_are_taggable(glue: Any) -> None:
    name = create(glue, Tags={"owner": "dq"})
    arn = f"{PREFIX}:dataQualityRuleset/{name}"
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"owner": "dq"}
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"tier": "gold"})
    glue.untag_resource(ResourceArn=arn, TagsToRemove=["owner"])
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"tier": "gold"}
    glue.delete_data_quality_ruleset(Name=name)
    assert client_error(glue.get_tags, ResourceArn=arn) == ("EntityNotFoundException", f"Resource {arn} not found.")
    create(glue, Name=name)
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}  # a new ruleset of the name starts untagged


# ---------------------------------------------------------------- results


def rule(name: str, result: str, metrics: dict[str, float]) -> dict[str, Any]:
    return {"Name": name, "Description": f"the rule {name}", "Result": result, "EvaluatedMetrics": metrics,
            "EvaluatedRule": f"the rule {name}"}


def publish(server: ServerProcess, result: dict[str, Any], metrics: dict[str, float] | None = None) -> str:
    body: dict[str, Any] = {"Result": result}
    if metrics is not None:
        body["Metrics"] = metrics
    status, answer = send(server, "Glueball.PublishDataQualityResult", body)
    assert status == 200, answer
    return str(answer["ResultId"])


def test_published_results_get_batch_get_and_score(glue: Any, server: ServerProcess, table: tuple[str, str]) -> None:
    database, name_of_table = table
    source = {"GlueTable": {"DatabaseName": database, "TableName": name_of_table}}
    result_id = publish(server, {
        "Score": 0.9,  # recomputed: passed / all rules
        "DataSource": source, "RulesetName": "rs", "EvaluationContext": unique("ctx"), "StartedOn": 1_700_000_000,
        "CompletedOn": "2023-11-14T22:13:25Z", "JobName": "nightly", "JobRunId": "jr_1",
        "RuleResults": [rule("Rule_1", "PASS", {"Dataset.*.RowCount": 5.0}),
                        rule("Rule_2", "FAIL", {"Column.id.Completeness": 0.8}),
                        rule("Rule_3", "ERROR", {})],
        "AnalyzerResults": [{"Name": "Analyzer_1", "Description": 'Mean "amount"',
                             "EvaluatedMetrics": {"Column.amount.Mean": 2.5}}],
        "Observations": [{"Description": "RowCount is lower than usual",
                          "MetricBasedObservation": {"MetricName": "Dataset.*.RowCount",
                                                     "MetricValues": {"ActualValue": 5.0, "LowerLimit": 9.0}}}]})
    assert result_id.startswith("dqresult-")
    got = glue.get_data_quality_result(ResultId=result_id)
    assert got["ResultId"] == result_id and got["Score"] == pytest.approx(1 / 3)
    assert got["DataSource"] == source and got["RulesetName"] == "rs" and got["JobName"] == "nightly"
    assert got["StartedOn"] == dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.UTC)
    assert got["CompletedOn"] == dt.datetime(2023, 11, 14, 22, 13, 25, tzinfo=dt.UTC)
    assert [(r["Name"], r["Result"]) for r in got["RuleResults"]] == [("Rule_1", "PASS"), ("Rule_2", "FAIL"),
                                                                      ("Rule_3", "ERROR")]
    assert got["RuleResults"][1]["EvaluatedMetrics"] == {"Column.id.Completeness": 0.8}
    assert got["AnalyzerResults"][0]["EvaluatedMetrics"] == {"Column.amount.Mean": 2.5}
    assert got["Observations"][0]["MetricBasedObservation"]["MetricValues"]["LowerLimit"] == 9.0
    assert got["AggregatedMetrics"] == {"TotalRulesProcessed": 3.0, "TotalRulesPassed": 1.0, "TotalRulesFailed": 1.0}
    assert got["EvaluationRunMode"] == "ON_DEMAND"

    batch = glue.batch_get_data_quality_result(ResultIds=[result_id, "dqresult-missing", result_id])
    assert [r["ResultId"] for r in batch["Results"]] == [result_id]
    assert batch["ResultsNotFound"] == ["dqresult-missing"]
    assert client_error(glue.get_data_quality_result, ResultId="dqresult-missing") == (
        "EntityNotFoundException", "Cannot find Data Quality Result with id dqresult-missing")


def test_list_results_filters_newest_first(glue: Any, server: ServerProcess, table: tuple[str, str]) -> None:
    database, name_of_table = table
    job = unique("job")
    source = {"GlueTable": {"DatabaseName": database, "TableName": name_of_table}}
    base = 1_800_000_000.0
    ids = [publish(server, {"DataSource": source, "JobName": job, "JobRunId": f"jr_{i}", "StartedOn": base + i,
                            "RuleResults": [rule("Rule_1", "PASS", {})]}) for i in range(3)]
    other = publish(server, {"JobName": job, "StartedOn": base + 10, "RuleResults": [rule("Rule_1", "PASS", {})]})

    def listed(**criteria: Any) -> list[str]:
        return [r["ResultId"] for r in glue.list_data_quality_results(Filter=criteria)["Results"]]

    assert listed(JobName=job) == [other, ids[2], ids[1], ids[0]]
    assert listed(DataSource={"GlueTable": {"DatabaseName": database.upper(), "TableName": name_of_table}}) == \
        [ids[2], ids[1], ids[0]]
    assert listed(JobName=job, JobRunId="jr_1") == [ids[1]]
    assert listed(JobName=job, StartedAfter=base + 0.5, StartedBefore=base + 5) == [ids[2], ids[1]]
    assert listed(JobName=job, EvaluationRunMode="EVALUATION_CONFIG") == []
    first = glue.list_data_quality_results(Filter={"JobName": job}, MaxResults=3)
    assert len(first["Results"]) == 3
    rest = glue.list_data_quality_results(Filter={"JobName": job}, MaxResults=3, NextToken=first["NextToken"])
    assert [r["ResultId"] for r in rest["Results"]] == [ids[0]] and "NextToken" not in rest
    description = first["Results"][1]
    assert set(description) == {"ResultId", "EvaluationRunMode", "DataSource", "JobName", "JobRunId", "StartedOn"}


@pytest.mark.parametrize(("body", "code", "message"), [
    ({"Result": {"ResultId": "dqresult-x"}}, "InvalidInputException",
     "A published result must not carry a ResultId; the service assigns it"),
    ({"Result": {"RuleResults": [{"Name": "r", "Result": "MAYBE"}]}}, "ValidationException",
     "1 validation error detected: Value 'MAYBE' at 'ruleResults.1.member.result' failed to satisfy constraint: "
     "Member must satisfy enum value set: [PASS, FAIL, ERROR]"),
    ({"Result": {"RulesetEvaluationRunId": "dqrun-none"}}, "InvalidInputException",
     "RulesetEvaluationRunId dqrun-none is no ruleset evaluation run of account 123456789012"),
    ({"Result": {}, "Metrics": {"m": "high"}}, "InvalidInputException",
     "Metrics: the value of 'm' must be a number, got 'high'"),
    ({"Result": {}, "Extra": 1}, "InvalidInputException",
     "Glueball.PublishDataQualityResult does not take Extra; members are Result, Metrics"),
    ({}, "InvalidInputException", "Result is required: an object of Glue's DataQualityResult shape"),
])
def test_publishing_refuses_bad_results(server: ServerProcess, body: dict[str, Any], code: str, message: str) -> None:
    status, answer = send(server, "Glueball.PublishDataQualityResult", body)
    assert status == 400 and (answer["__type"], answer["message"]) == (code, message)


def test_metric_history_per_context_newest_first(server: ServerProcess) -> None:
    context, other = unique("ctx"), unique("ctx")
    for i, count in enumerate((10.0, 20.0, 30.0)):
        publish(server, {"EvaluationContext": context, "StartedOn": 1_900_000_000 + i,
                         "RuleResults": [rule("Rule_1", "PASS", {"Dataset.*.RowCount": count})]},
                metrics={"Column.amount.Mean": count / 10})
    publish(server, {"EvaluationContext": other, "RuleResults": [rule("Rule_1", "PASS", {"Dataset.*.RowCount": 1})]})
    status, answer = send(server, "Glueball.GetDataQualityMetricHistory", {
        "EvaluationContext": context, "MetricNames": ["Dataset.*.RowCount", "Column.amount.Mean", "nothing"],
        "Limit": 2})
    assert status == 200
    assert answer == {"History": {"Dataset.*.RowCount": [30.0, 20.0], "Column.amount.Mean": [3.0, 2.0],
                                  "nothing": []}}
    status, answer = send(server, "Glueball.GetDataQualityMetricHistory",
                          {"EvaluationContext": context, "MetricNames": [], "Limit": 2})
    assert status == 400 and answer["message"] == "MetricNames must be a list of 1 to 1000 metric names"


class _Endpoint:
    """The runtime's Glue client pointed at ``server`` (GLUEBALL_ENDPOINT) inside a ``with`` block."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> None:
        from glueball.runtime.client import reset_client

        env = {"GLUEBALL_ENDPOINT": self.server.endpoint, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
               "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1", "GLUEBALL_JOB_NAME": "nightly",
               "GLUEBALL_JOB_RUN_ID": "jr_abc"}
        self.saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)
        reset_client()

    def __exit__(self, *exc: object) -> None:
        from glueball.runtime.client import reset_client

        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reset_client()


@pytest.fixture()
def endpoint(server: ServerProcess) -> Iterator[None]:
    with _Endpoint(server):
        yield


@pytest.mark.usefixtures("endpoint")
def test_the_publish_module_against_a_server(glue: Any) -> None:
    from glueball.dataquality.publish import PublishError, history, publish

    context = unique("ctx")
    earlier = history(context)
    assert earlier.values("Dataset.*.RowCount", 3) == []
    for count in (4.0, 6.0):
        result_id = publish({"EvaluationContext": context, "StartedOn": dt.datetime.now(dt.UTC),
                             "RuleResults": [rule("Rule_1", "PASS", {"Dataset.*.RowCount": count})],
                             "Metrics": {"Column.amount.Sum": count * 2}})
    got = glue.get_data_quality_result(ResultId=result_id)
    assert (got["JobName"], got["JobRunId"]) == ("nightly", "jr_abc")  # the job run that published it
    now = history(context)
    now.prefetch(["Dataset.*.RowCount", "Column.amount.Sum"], 10)
    assert now.values("Dataset.*.RowCount", 3) == [6.0, 4.0]
    assert now.values("Column.amount.Sum", 1) == [12.0]
    with pytest.raises(PublishError) as excinfo:
        publish({"RuleResults": [{"Name": "", "Result": "PASS"}]})
    assert excinfo.value.code == "ValidationException"

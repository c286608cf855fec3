"""``awsgluedq.transforms.EvaluateDataQuality``: apply, process_rows, options, publishing and results files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from awsglue.dynamicframe import DynamicFrame
from awsglue.transforms import SelectFromCollection
from awsgluedq.transforms import EvaluateDataQuality
from tests.helpers import unique

pytestmark = pytest.mark.spark

RULESET = """Rules = [
    RowCount = 6,
    IsComplete "age",
    ColumnValues "city" in ["paris","rome","oslo"] with threshold > 0.8 labels=["owner"="geo"]
]"""
QUIET = {"enableDataQualityResultsPublishing": False}


@pytest.fixture()
def frame(people: Any, glue_context: Any) -> DynamicFrame:
    return DynamicFrame.fromDF(people, glue_context, "people")


def test_apply_returns_glue_rule_outcomes(frame: DynamicFrame) -> None:
    outcomes = EvaluateDataQuality.apply(frame=frame, ruleset=RULESET, publishing_options=QUIET)
    df = outcomes.toDF()
    assert df.columns == ["Rule", "Outcome", "FailureReason", "EvaluatedMetrics", "EvaluatedRule", "Labels"]
    assert dict(df.dtypes)["EvaluatedMetrics"] == "map<string,double>"
    rows = df.collect()
    assert [(r.Rule, r.Outcome) for r in rows] == [
        ("RowCount = 6", "Passed"), ('IsComplete "age"', "Failed"),
        ('ColumnValues "city" in ["paris","rome","oslo"] with threshold > 0.8 labels=["owner"="geo"]',
         "Passed")]
    assert rows[1].FailureReason == "Value: 0.8333333333333334 does not meet the constraint requirement!"
    assert rows[0].EvaluatedMetrics == {"Dataset.*.RowCount": 6.0}
    assert rows[2].Labels == {"owner": "geo"}
    plain = EvaluateDataQuality.apply(frame, "Rules = [RowCount > 0]", QUIET).toDF()
    assert plain.columns == ["Rule", "Outcome", "FailureReason", "EvaluatedMetrics", "EvaluatedRule"]


def test_process_rows_returns_both_frames(frame: DynamicFrame) -> None:
    results = EvaluateDataQuality().process_rows(frame=frame, ruleset=RULESET, publishing_options=QUIET,
                                                 additional_options={"performanceTuning.caching": "CACHE_INPUT",
                                                                     "observations.scope": "ALL"})
    assert sorted(results.keys()) == ["rowLevelOutcomes", "ruleOutcomes"]
    rows = SelectFromCollection.apply(dfc=results, key="rowLevelOutcomes").toDF()
    assert rows.columns[-4:] == ["DataQualityRulesPass", "DataQualityRulesFail", "DataQualityRulesSkip",
                                 "DataQualityEvaluationResult"]
    failed = {r.id: r.DataQualityRulesFail for r in rows.filter("DataQualityEvaluationResult = 'Failed'").collect()}
    assert failed == {3: ['IsComplete "age"'],
                      6: ['ColumnValues "city" in ["paris","rome","oslo"] with threshold > 0.8 '
                          'labels=["owner"="geo"]']}
    assert results["ruleOutcomes"].count() == 3


def test_composite_method_option(frame: DynamicFrame) -> None:
    ruleset = 'Rules = [(ColumnValues "age" > 40 where "age is not null") or (ColumnValues "age" <= 40 where ' \
              '"age is not null")]'
    column = EvaluateDataQuality.apply(frame, ruleset, QUIET).toDF().first()
    row = EvaluateDataQuality.apply(frame, ruleset, QUIET, {"compositeRuleEvaluation.method": "ROW"}).toDF().first()
    assert (column.Outcome, row.Outcome) == ("Failed", "Passed")


def test_options_are_checked(frame: DynamicFrame) -> None:
    with pytest.raises(ValueError, match="Unknown publishing_options resultsPrefix"):
        EvaluateDataQuality.apply(frame, RULESET, {"resultsPrefix": "s3://x"})
    with pytest.raises(ValueError, match="Unknown additional_options caching"):
        EvaluateDataQuality.apply(frame, RULESET, QUIET, {"caching": "yes"})
    with pytest.raises(ValueError, match="compositeRuleEvaluation.method must be one of COLUMN, ROW"):
        EvaluateDataQuality.apply(frame, RULESET, QUIET, {"compositeRuleEvaluation.method": "CELL"})
    with pytest.raises(ValueError, match="enableDataQualityResultsPublishing must be true or false"):
        EvaluateDataQuality.apply(frame, RULESET, {"enableDataQualityResultsPublishing": "maybe"})


def test_results_file_and_publishing_with_history(frame: DynamicFrame, glue_home: Path) -> None:
    from glueball.runtime.client import glue_client

    context = unique("people-dq")
    options = {"dataQualityEvaluationContext": context, "enableDataQualityResultsPublishing": True,
               "enableDataQualityCloudWatchMetrics": True, "resultsS3Prefix": "s3://dq-results/people/"}
    EvaluateDataQuality.apply(frame, RULESET, options)
    written = list((glue_home / "s3" / "dq-results" / "people" / context).glob("*.json"))
    assert len(written) == 1
    result = json.loads(written[0].read_text())
    assert result["EvaluationContext"] == context
    assert [r["Result"] for r in result["RuleResults"]] == ["PASS", "FAIL", "PASS"]
    assert result["RuleResults"][1] == {
        "Name": "Rule_2", "Description": 'IsComplete "age"', "Result": "FAIL",
        "EvaluationMessage": "Value: 0.8333333333333334 does not meet the constraint requirement!",
        "EvaluatedMetrics": {"Column.age.Completeness": 0.8333333333333334}, "EvaluatedRule": 'IsComplete "age"'}
    published = glue_client().get_data_quality_result(ResultId=result["ResultId"])
    assert published["Score"] == pytest.approx(2 / 3)
    # the second run of the context compares with the first one's metrics
    dynamic = "Rules = [RowCount >= avg(last(3)), Completeness \"age\" > max(last(2))]"
    second = EvaluateDataQuality.apply(frame, dynamic, {"dataQualityEvaluationContext": context}).toDF().collect()
    assert [(r.Outcome, r.EvaluatedRule) for r in second] == [
        ("Passed", "RowCount >= 6"), ("Failed", 'Completeness "age" > 0.8333333333333334')]


def test_best_effort_publishing_survives_a_refused_result(frame: DynamicFrame, monkeypatch: Any) -> None:
    import glueball.dataquality.publish as publish

    def refuse(result: Any) -> str:
        raise publish.PublishError("InternalServiceException", "down")

    monkeypatch.setattr(publish, "publish", refuse)
    outcomes = EvaluateDataQuality.apply(frame, RULESET, {}, {"dataQualityResultsPublishing.strategy": "BEST_EFFORT"})
    assert outcomes.count() == 3
    with pytest.raises(publish.PublishError, match="down"):
        EvaluateDataQuality.apply(frame, RULESET, {})

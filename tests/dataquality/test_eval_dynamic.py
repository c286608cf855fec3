"""Dynamic rules (last(k)), DetectAnomalies and observations, against a metric history."""

from __future__ import annotations

from typing import Any

import pytest

from glueball.dataquality import anomaly, parse
from glueball.dataquality.evaluator import evaluate


class History:
    """Earlier runs' metric values, newest first; records what was asked."""

    def __init__(self, values: dict[str, list[float]], fail: bool = False) -> None:
        self.data = values
        self.fail = fail
        self.prefetched: list[tuple[list[str], int]] = []

    def prefetch(self, metrics: list[str], limit: int) -> None:
        self.prefetched.append((metrics, limit))

    def values(self, metric: str, limit: int) -> list[float]:
        if self.fail:
            raise ConnectionError("service unreachable")
        return self.data.get(metric, [])[:limit]


# ---------------------------------------------------------------- the statistics (no Spark)


def test_bounds_from_history() -> None:
    assert anomaly.bounds("Dataset.*.RowCount", [100, 101]) is None  # fewer than MIN_HISTORY values
    flat = anomaly.bounds("Dataset.*.RowCount", [1000, 1000, 1000, 1000])
    assert flat is not None and (flat.expected, flat.lower, flat.upper) == (1000, 970, 1030)  # ±3 x 1%
    spread = anomaly.bounds("Column.a.Mean", [10.0, 12.0, 11.0, 9.0, 50.0])  # the outlier barely widens it
    assert spread is not None and spread.expected == 11.0
    assert spread.lower == pytest.approx(11 - 3 * 1.4826) and spread.upper == pytest.approx(11 + 3 * 1.4826)
    ratio = anomaly.bounds("Column.a.Completeness", [1.0, 0.99, 1.0, 0.98])
    assert ratio is not None and ratio.upper == 1.0


def test_observation_shape_and_suggested_rules_parse() -> None:
    assert anomaly.observation("Dataset.*.RowCount", 1010, [1000] * 5) is None
    seen = anomaly.observation("Dataset.*.RowCount", 10, [1000] * 5)
    assert seen is not None
    metric = seen["MetricBasedObservation"]
    assert metric["MetricName"] == "Dataset.*.RowCount"
    assert metric["MetricValues"] == {"ActualValue": 10.0, "ExpectedValue": 1000.0, "LowerLimit": 970.0,
                                      "UpperLimit": 1030.0}
    assert metric["NewRules"] == ["RowCount between 969 and 1031"]
    assert "outside the expected range [970, 1030]" in seen["Description"]
    rules = [anomaly.suggested_rule("Column.price.Mean", 9.5, 10.25),
             anomaly.suggested_rule("Column.id.Completeness", 0.95, 1.0),
             anomaly.suggested_rule("Column.city.DistinctValuesCount", 3, 5)]
    assert rules[0] == 'Mean "price" between 9.4999 and 10.2501'
    parse("Rules = [" + ", ".join(r for r in rules if r) + "]")
    assert anomaly.suggested_rule("Dataset.*.CustomSQL", 1, 2) is None


# ---------------------------------------------------------------- evaluation




@pytest.mark.spark
def test_dynamic_rules_read_the_history(people: Any) -> None:
    history = History({"Dataset.*.RowCount": [4, 5, 6, 100], "Column.age.Completeness": [0.9],
                       "Column.age.Mean": [30.0, 40.0, 35.0]})
    text = """Rules = [
        RowCount > avg(last(3)),
        RowCount <= max(last(2)) * 0.9,
        Completeness "age" >= index(last(3), 0) - 0.1,
        Mean "age" between min(last(5)) and max(last(5)),
        RowCount = sum(last(3)) - 9,
        RowCount > median(last(4)) + std(last(3)),
        Completeness "age" > index(last(3),2),
        Sum "age" > avg(last(3))
    ]"""
    evaluation = evaluate(people, text, history=history)
    outcomes = [r.outcome for r in evaluation.rules]
    # avg(4,5,6)=5 < 6; max(4,5)*0.9=4.5; 0.9-0.1=0.8 <= 0.83; 30 < 36.6 < 40; 15-9=6;
    # median(4,5,6,100)=5.5, std(4,5,6)=0.816 -> 6.32 > 6 fails
    assert outcomes[:6] == ["Passed", "Failed", "Passed", "Passed", "Passed", "Failed"]
    assert evaluation.rules[1].failure_reason == "Value: 6.0 does not meet the constraint requirement!"
    assert [r.evaluated_rule for r in evaluation.rules[:4]] == [
        "RowCount > 5", "RowCount <= 4.5", 'Completeness "age" >= 0.8', 'Mean "age" between 30 and 40']
    assert evaluation.rules[6].evaluated_rule == evaluation.rules[6].rule
    assert evaluation.rules[6].outcome == "Error"  # one earlier value only
    assert "index(last(3),2): only 1 earlier value(s) of Column.age.Completeness" in (
        evaluation.rules[6].failure_reason or "")
    assert evaluation.rules[7].outcome == "Error"
    assert evaluation.rules[7].failure_reason == ("no earlier values of Column.age.Sum in this evaluation context: "
                                                  "last(3) needs at least one earlier run")
    assert evaluation.rules[7].evaluated_metrics == {"Column.age.Sum": 183.0}
    assert len(history.prefetched) == 1
    metrics, limit = history.prefetched[0]
    assert set(metrics) == {"Dataset.*.RowCount", "Column.age.Completeness", "Column.age.Mean", "Column.age.Sum"}
    assert limit == 5


@pytest.mark.spark
def test_a_failing_history_fails_only_dynamic_rules(people: Any) -> None:
    evaluation = evaluate(people, "Rules = [RowCount > avg(last(3)), RowCount = 6]", history=History({}, fail=True))
    assert [r.outcome for r in evaluation.rules] == ["Error", "Passed"]
    assert "The metric history could not be read: service unreachable" in (evaluation.rules[0].failure_reason or "")


@pytest.mark.spark
def test_detect_anomalies_and_observations(people: Any) -> None:
    history = History({
        "Dataset.*.RowCount": [100, 102, 98, 101, 99],
        "Column.age.Completeness": [0.8, 0.85, 0.82, 0.84],
        "Column.city.Completeness": [1.0, 1.0, 1.0, 1.0],
        "Column.score.Mean": [3.8, 3.8],
    })
    text = """Rules = [DetectAnomalies "RowCount", DetectAnomalies "Completeness" "age", DetectAnomalies "Mean" "score"]
    Analyzers = [Completeness "city", Mean "score"]"""
    evaluation = evaluate(people, text, history=history)
    rowcount, completeness, mean = evaluation.rules
    assert rowcount.outcome == "Failed"
    assert rowcount.failure_reason == ("Anomaly detected: Dataset.*.RowCount: 6.0 is outside the expected range "
                                       "[95.0, 105.0]")
    assert rowcount.evaluated_metrics == {"Dataset.*.RowCount": 6.0}
    assert completeness.outcome == "Passed"  # 0.83 is within the learned range
    assert mean.outcome == "Passed"  # two earlier values: too few to call anything anomalous
    names = [o["MetricBasedObservation"]["MetricName"] for o in evaluation.observations]
    assert names == ["Dataset.*.RowCount", "Column.city.Completeness"]
    city = evaluation.observations[1]["MetricBasedObservation"]
    assert city["MetricValues"]["ActualValue"] == pytest.approx(5 / 6)
    assert city["NewRules"] == ['Completeness "city" between 0.9699 and 1.0001']
    quiet = evaluate(people, text, history=history, observations=False)
    assert [o["MetricBasedObservation"]["MetricName"] for o in quiet.observations] == ["Dataset.*.RowCount"]


@pytest.mark.spark
def test_without_history_anomaly_rules_pass(people: Any) -> None:
    evaluation = evaluate(people, 'Rules = [DetectAnomalies "RowCount"] Analyzers = [RowCount]')
    assert evaluation.rules[0].outcome == "Passed"
    assert evaluation.observations == []

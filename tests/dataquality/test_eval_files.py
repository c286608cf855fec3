"""FileFreshness, FileSize, FileMatch and FileUniqueness over real files (paths) and given file lists."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.outcomes import FileInfo, data_quality_result

pytestmark = pytest.mark.spark

NOW = dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC)


def _write(path: Path, content: bytes, modified: dt.datetime) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    os.utime(path, (modified.timestamp(), modified.timestamp()))
    return path


@pytest.fixture()
def landing(glue_home: Path) -> str:
    """s3://landing/<unique>/: a.csv (3 KB, 1 h old), b.csv (1 KB, 3 days old), c.json (same bytes as b)."""
    folder = glue_home / "s3" / "landing" / os.urandom(4).hex()
    _write(folder / "a.csv", b"a" * 3072, NOW - dt.timedelta(hours=1))
    _write(folder / "b.csv", b"b" * 1024, NOW - dt.timedelta(days=3))
    _write(folder / "c.json", b"b" * 1024, NOW - dt.timedelta(days=3))
    _write(folder / "_SUCCESS", b"", NOW)
    return f"s3://landing/{folder.name}"


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()  # noqa: S324 - the checksum FileMatch compares


def test_file_rules_on_a_path(people: Any, landing: str, glue_home: Path) -> None:
    copy = glue_home / "s3" / "landing" / (landing.rsplit("/", 1)[1] + "-copy")
    _write(copy / "a.csv", b"a" * 3072, NOW)
    _write(copy / "b.csv", b"b" * 1024, NOW)
    rules = [
        f'FileFreshness "{landing}" > (now() - 2 days)',
        f'FileFreshness "{landing}" > (now() - 2 days) with threshold > 0.3',
        f'FileFreshness "{landing}" > (now() - 4 days)',
        f'FileSize "{landing}" < 2 KB',
        f'FileSize "{landing}" <= 3 KB',
        f'FileSize "{landing}" > 2000 with uriRegex = "\\\\.csv$"',
        f'FileMatch "{landing}" in ["{md5(b"a" * 3072)}", "{md5(b"b" * 1024)}"]',
        f'FileMatch "{landing}" in ["{md5(b"a" * 3072)}"]',
        f'FileMatch "s3://landing/{copy.name}" "{landing}"',
        f'FileMatch "s3://landing/{copy.name}" "{landing}" with matchFileName = "true"',
        f'FileMatch "{landing}" "s3://landing/{copy.name}" with matchFileName = "true"',
        f'FileUniqueness "{landing}" > 0.3',
        f'FileUniqueness "{landing}" = 1.0 with recentFiles = 1',
        'FileSize "s3://landing/nothing-here" > 1 B',
        'FileMatch in ["00"] with hashAlgorithm = "SHA-256"',
    ]
    evaluation = evaluate(people, "Rules = [" + ",\n".join(rules) + "]", now=NOW)
    outcomes = evaluation.rules
    assert outcomes[0].outcome == "Failed"
    assert outcomes[0].evaluated_metrics == {"Dataset.*.FileFreshness.Compliance": 1 / 3, "Dataset.*.FileCount": 3}
    assert outcomes[1].outcome == "Passed"
    assert outcomes[2].outcome == "Passed"
    assert outcomes[3].outcome == "Failed"
    assert outcomes[3].evaluated_metrics["Dataset.*.MaximumFileSize"] == 3072
    assert outcomes[3].evaluated_metrics["Dataset.*.MinimumFileSize"] == 1024
    assert outcomes[4].outcome == "Passed"  # 3 KB is 3072 bytes
    assert outcomes[5].outcome == "Failed"  # b.csv is 1024 bytes; c.json is not a .csv
    assert outcomes[5].evaluated_metrics["Dataset.*.FileCount"] == 2
    assert outcomes[6].outcome == "Passed"
    assert outcomes[7].outcome == "Failed"
    assert "checksum does not match" in (outcomes[7].failure_reason or "")
    assert outcomes[8].outcome == "Passed"
    assert outcomes[9].outcome == "Passed"
    assert outcomes[10].outcome == "Failed"  # c.json has no same-named twin in the copy
    assert outcomes[10].failure_reason == f"Files without a match in s3://landing/{copy.name}: {landing}/c.json"
    assert outcomes[11].outcome == "Passed"
    assert outcomes[11].evaluated_metrics["Dataset.*.FileUniquenessRatio"] == pytest.approx(1 / 3)
    assert outcomes[12].outcome == "Passed"  # the newest file alone is unique
    assert outcomes[13].outcome == "Error"
    assert outcomes[13].failure_reason == "No files found at s3://landing/nothing-here"
    assert outcomes[14].outcome == "Error"  # no path and no files of the data given


def test_file_rules_on_the_data_files(people: Any) -> None:
    files = [FileInfo("s3://lake/x/part-0.parquet", 5 * 1024 * 1024, NOW - dt.timedelta(minutes=30), "aa"),
             FileInfo("s3://lake/x/part-1.parquet", 1024, dt.datetime(2024, 7, 1, 8, 0), "bb")]
    evaluation = evaluate(people, """Rules = [
        FileSize > 2 MB with threshold = 0.5,
        FileFreshness >= "09:00",
        FileFreshness > "2024-06-30",
        FileMatch in ["aa", "bb"],
        FileUniqueness = 1.0
    ]""", files=files, now=NOW)
    assert [r.outcome for r in evaluation.rules] == ["Passed", "Failed", "Passed", "Passed", "Passed"]
    assert evaluation.rules[1].evaluated_metrics["Dataset.*.FileFreshness.Compliance"] == 0.5


def test_file_analyzers_report_the_metrics_that_need_no_condition(spark: Any, landing: str) -> None:
    frame = spark.createDataFrame([(1,)], "n int")
    text = (f'Analyzers = [ FileFreshness "{landing}", FileSize "{landing}", FileMatch "{landing}", '
            f'FileUniqueness "{landing}", FileSize, DataFreshness "n", ColumnDataType "n" ]')
    evaluation = evaluate(frame, text, now=NOW)
    results = evaluation.analyzer_results
    assert results[f'FileFreshness "{landing}"'] == {"Dataset.*.FileCount": 3.0}
    assert results[f'FileSize "{landing}"'] == {"Dataset.*.FileCount": 3.0, "Dataset.*.MaximumFileSize": 3072.0,
                                                "Dataset.*.MinimumFileSize": 1024.0}
    assert results[f'FileMatch "{landing}"'] == {"Dataset.*.FileCount": 3.0}
    # b.csv and c.json hold the same bytes: only a.csv is unique
    assert results[f'FileUniqueness "{landing}"'] == {"Dataset.*.FileUniquenessRatio": pytest.approx(1 / 3),
                                                      "Dataset.*.FileCount": 3.0}
    # no path and no files given; no metric without a condition: each says why, in EvaluationMessage
    assert results["FileSize"] == {}
    assert "needs the data's files" in evaluation.analyzer_messages["FileSize"]
    assert evaluation.analyzer_messages['DataFreshness "n"'] == (
        "DataFreshness has no metric without a condition: as an analyzer it reports none")
    assert results['ColumnDataType "n"'] == {}
    given = evaluate(frame, "Analyzers = [ FileSize ]", now=NOW, files=[FileInfo("s3://x/a", 10, NOW)])
    assert given.analyzer_results["FileSize"] == {"Dataset.*.FileCount": 1.0, "Dataset.*.MaximumFileSize": 10.0,
                                                   "Dataset.*.MinimumFileSize": 10.0}
    wire = data_quality_result(evaluation, evaluation_context="ctx")["AnalyzerResults"]
    assert [r["Description"] for r in wire if "EvaluationMessage" in r] == [
        "FileSize", 'DataFreshness "n"', 'ColumnDataType "n"']
    assert "EvaluationMessage" not in wire[0] and wire[0]["EvaluatedMetrics"] == {"Dataset.*.FileCount": 3.0}

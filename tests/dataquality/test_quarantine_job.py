"""The quarantine pattern as a real Glue script run by ``glueball run``.

The script evaluates a ruleset row by row (``process_rows``), writes the rows that passed to the
curated prefix and the rows that failed — with the names of the rules they failed — to a quarantine
prefix, and fails the job (raises, so the run exits non-zero) when a dataset-level rule fails.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_script_in_process

pytestmark = pytest.mark.spark

SCRIPT = '''
import sys

from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.job import Job
from awsglue.transforms import SelectFromCollection
from awsglue.utils import getResolvedOptions
from awsgluedq.transforms import EvaluateDataQuality
from pyspark.context import SparkContext
from pyspark.sql import functions as F

args = getResolvedOptions(sys.argv, ["JOB_NAME", "input", "curated", "quarantine", "max_mean"])
glue = GlueContext(SparkContext.getOrCreate())
job = Job(glue)
job.init(args["JOB_NAME"], args)

orders = glue.create_dynamic_frame.from_options("s3", {"paths": [args["input"]]}, format="json")
DATASET_RULES = ["RowCount > 3", 'Mean "amount" < ' + args["max_mean"]]
ROW_RULES = ['IsComplete "order_id"', 'ColumnValues "amount" > 0', 'ColumnValues "status" in ["new","shipped"]']
ruleset = "Rules = [" + ", ".join(DATASET_RULES + ROW_RULES) + "]"

checked = EvaluateDataQuality().process_rows(
    frame=orders, ruleset=ruleset,
    publishing_options={"dataQualityEvaluationContext": "orders-quarantine",
                        "enableDataQualityResultsPublishing": True},
    additional_options={"performanceTuning.caching": "CACHE_INPUT"})
rows = SelectFromCollection.apply(dfc=checked, key="rowLevelOutcomes").toDF()
outcomes = SelectFromCollection.apply(dfc=checked, key="ruleOutcomes").toDF().collect()

columns = [c for c in orders.toDF().columns]
failed = rows.filter(F.col("DataQualityEvaluationResult") == "Failed") \\
    .select(*columns, F.col("DataQualityRulesFail").alias("failed_rules"))
glue.write_dynamic_frame.from_options(DynamicFrame.fromDF(failed, glue, "quarantine"), "s3",
                                      {"path": args["quarantine"]}, format="json")

broken = [o for o in outcomes if o.Rule in DATASET_RULES and o.Outcome != "Passed"]
if broken:
    raise RuntimeError("data quality: " + "; ".join(f"{o.Rule}: {o.FailureReason}" for o in broken))

passed = rows.filter(F.col("DataQualityEvaluationResult") == "Passed").select(*columns)
glue.write_dynamic_frame.from_options(DynamicFrame.fromDF(passed, glue, "curated"), "s3",
                                      {"path": args["curated"]}, format="json")
job.commit()
'''

ORDERS = [
    {"order_id": 1, "amount": 10.0, "status": "new"},
    {"order_id": 2, "amount": -5.0, "status": "shipped"},
    {"order_id": None, "amount": 20.0, "status": "new"},
    {"order_id": 4, "amount": 30.0, "status": "lost"},
    {"order_id": 5, "amount": 40.0, "status": "shipped"},
    {"order_id": 6, "amount": 50.0, "status": "new"},
]


@pytest.fixture(scope="module")
def job_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("quarantine-home")
    raw = home / "s3" / "lake" / "raw" / "orders"
    raw.mkdir(parents=True)
    (raw / "orders.json").write_text("\n".join(json.dumps(o) for o in ORDERS) + "\n")
    (home / "quarantine_job.py").write_text(SCRIPT)
    return home


def run_job(home: Path, run: str, max_mean: str) -> subprocess.CompletedProcess[str]:
    """The job script over ``home``, in this process's Spark session (what it computes, not how it is launched)."""
    args = ["--JOB_NAME", "orders-dq", "--input", "s3://lake/raw/orders/", "--curated", f"s3://lake/curated/{run}/",
            "--quarantine", f"s3://lake/quarantine/{run}/", "--max_mean", max_mean]
    status, out, err = run_script_in_process(home, home / "quarantine_job.py", *args)
    return subprocess.CompletedProcess(args, status, out, err)


def read_json_lines(folder: Path) -> list[dict[str, Any]]:
    files = sorted(folder.glob("run-*-part-r-*"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines() if line]


def test_passed_rows_are_curated_and_failed_rows_quarantined(job_home: Path) -> None:
    result = run_job(job_home, "good", "1000")
    assert result.returncode == 0, result.stderr[-4000:]
    curated = read_json_lines(job_home / "s3" / "lake" / "curated" / "good")
    assert sorted(o["order_id"] for o in curated) == [1, 5, 6]
    assert all(set(o) == {"order_id", "amount", "status"} for o in curated)
    quarantined = {o.get("order_id"): o["failed_rules"]
                   for o in read_json_lines(job_home / "s3" / "lake" / "quarantine" / "good")}
    assert quarantined == {2: ['ColumnValues "amount" > 0'], None: ['IsComplete "order_id"'],
                           4: ['ColumnValues "status" in ["new","shipped"]']}
    from glueball.app import Glueball, embedded_client
    from glueball.config import Settings

    glue = Glueball(Settings(home=job_home))
    try:
        results = embedded_client(glue).list_data_quality_results()["Results"]
    finally:
        glue.close()
    assert [r["JobName"] for r in results] == ["orders-dq"]


def test_a_failed_dataset_rule_fails_the_job(job_home: Path) -> None:
    result = run_job(job_home, "bad", "10")
    assert result.returncode != 0
    assert 'data quality: Mean "amount" < 10: Value: 24.166666666666668 does not meet the constraint requirement!' \
        in result.stderr
    assert len(read_json_lines(job_home / "s3" / "lake" / "quarantine" / "bad")) == 3
    assert not (job_home / "s3" / "lake" / "curated" / "bad").exists()

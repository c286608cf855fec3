"""What the console's browser tests share: headless Chromium under Selenium, the data they look at, screenshots.

Chromium and its driver are Debian's (``make browser``: ``chromium``, ``chromium-driver``). Screenshots go to
``tests/artifacts/console/`` (ignored by git), or ``$GLUEBALL_TEST_ARTIFACTS`` when set.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers import ServerProcess, send

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("GLUEBALL_TEST_ARTIFACTS") or Path(__file__).parents[1] / "artifacts") / "console"

DATABASE, TABLE = "console_sales", "orders"
DAYS = [f"2026-11-{d:02d}" for d in range(1, 21)]
WORKFLOW, FAILING = "console-daily", "console-failing"
SLEEPER, BROKEN = "console-sleeper", "console-broken"
JOB, RULESET, VISUAL = "console-hello", "console-orders-rules", "console-visual"
# a Studio job's nodes, as GetJob answers them: source -> transform -> target
VISUAL_NODES = {
    "node-1": {"S3CsvSource": {"Name": "raw orders", "Paths": ["s3://console-lake/raw/orders/"],
                               "QuoteChar": "quote", "Separator": "comma"}},
    "node-2": {"DropNullFields": {"Name": "drop nulls", "Inputs": ["node-1"], "NullCheckBoxList": {"IsEmpty": True},
                                  "NullTextList": []}},
    "node-3": {"S3DirectTarget": {"Name": "curated orders", "Inputs": ["node-2"], "Path": "s3://console-lake/out/",
                                  "Format": "parquet"}},
}
CRAWLERS = ("console-raw-crawler", "console-curated-crawler")
JOBS = ("console-transform", "console-aggregate")
DQ_SCORES = (1.0, 0.5, 0.75)
ANOMALOUS_RUN = 2  # the run whose result carries an anomaly observation
ANOMALY = {"Description": "Row count 2 is below the expected range 90-110",
           "MetricBasedObservation": {"MetricName": "Dataset.*.RowCount", "MetricValues": {
               "ActualValue": 2.0, "ExpectedValue": 100.0, "LowerLimit": 90.0, "UpperLimit": 110.0}}}


def browser() -> Any:
    """Headless Chromium with its console log kept (``driver.get_log("browser")``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def screenshot(driver: Any, name: str) -> Path:
    """Save what the browser shows as ``<ARTIFACTS>/<name>.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def console_errors(driver: Any) -> list[str]:
    """The browser's SEVERE console entries since the last call (script errors, failed loads)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def wait(driver: Any, check: Callable[[Any], Any], timeout: float = 20.0, what: str = "the page") -> Any:
    """What ``check(driver)`` returns once truthy."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(check, f"{what} did not show in {timeout} s")


def write_script(folder: Path, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text)
    return str(path)


def demo_data(server: ServerProcess) -> tuple[str, str]:
    """A small picture of what ``make demo`` leaves: a partitioned table with two versions and column
    statistics, a connection, crawlers, python-shell jobs, a four-node workflow (its run started, id returned),
    a data quality ruleset with three published results; a job that sleeps, and a workflow whose one job fails.
    Returns the ids of the two workflows' runs (started)."""
    glue = server.client()
    lake = server.home / "s3" / "console-lake"
    for folder in ("raw", "curated"):
        (lake / folder / "orders").mkdir(parents=True, exist_ok=True)
        (lake / folder / "orders" / "orders.csv").write_text("order_id,amount\n1,9.5\n2,12.0\n")
    glue.create_database(DatabaseInput={"Name": DATABASE, "Description": "the console tests' sales"})
    columns = [{"Name": "order_id", "Type": "bigint"}, {"Name": "amount", "Type": "double"}]
    storage = {"Columns": columns, "Location": "s3://console-lake/curated/orders/",
               "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
               "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"}}
    glue.create_table(DatabaseName=DATABASE, TableInput={
        "Name": TABLE, "TableType": "EXTERNAL_TABLE", "StorageDescriptor": storage,
        "PartitionKeys": [{"Name": "day", "Type": "string"}], "Parameters": {"classification": "csv"}})
    glue.batch_create_partition(DatabaseName=DATABASE, TableName=TABLE, PartitionInputList=[
        {"Values": [day], "StorageDescriptor": {**storage, "Location": f"s3://console-lake/curated/orders/day={day}/"}}
        for day in DAYS])
    glue.update_table(DatabaseName=DATABASE, TableInput={
        "Name": TABLE, "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "csv"},
        "StorageDescriptor": {**storage, "Columns": [*columns, {"Name": "currency", "Type": "string"}]},
        "PartitionKeys": [{"Name": "day", "Type": "string"}]})
    glue.update_column_statistics_for_table(DatabaseName=DATABASE, TableName=TABLE, ColumnStatisticsList=[
        {"ColumnName": "amount", "ColumnType": "double", "AnalyzedTime": time.time(), "StatisticsData": {
            "Type": "DOUBLE", "DoubleColumnStatisticsData": {"MinimumValue": 9.5, "MaximumValue": 12.0,
                                                             "NumberOfNulls": 0, "NumberOfDistinctValues": 2}}}])
    glue.create_connection(ConnectionInput={"Name": "console-warehouse", "ConnectionType": "JDBC",
                                            "ConnectionProperties": {
                                                "JDBC_CONNECTION_URL": "jdbc:postgresql://127.0.0.1:5432/test",
                                                "USERNAME": "etl", "PASSWORD": "hunter2-secret"}})
    scripts = server.home / "scripts"
    hello = write_script(scripts, JOB, "print('hello from the console test')\n")
    glue.create_job(Name=JOB, Role="console", Command={"Name": "pythonshell", "ScriptLocation": hello})
    glue.create_job(Name=VISUAL, Role="console", CodeGenConfigurationNodes=VISUAL_NODES,
                    Command={"Name": "glueetl", "ScriptLocation": "s3://console-lake/scripts/visual.py"})
    sleeper = write_script(scripts, SLEEPER, "import time\nprint('waiting', flush=True)\ntime.sleep(600)\n")
    glue.create_job(Name=SLEEPER, Role="console", Command={"Name": "pythonshell", "ScriptLocation": sleeper})
    glue.create_job(Name=BROKEN, Role="console", Command={
        "Name": "pythonshell", "ScriptLocation": write_script(scripts, BROKEN, "raise SystemExit('broken')\n")})
    glue.create_workflow(Name=FAILING, Description="one job that fails")
    glue.create_trigger(Name="console-failing-start", WorkflowName=FAILING, Type="ON_DEMAND",
                        Actions=[{"JobName": BROKEN}])
    failing_run = glue.start_workflow_run(Name=FAILING)["RunId"]
    for job in JOBS:
        glue.create_job(Name=job, Role="console", Command={
            "Name": "pythonshell", "ScriptLocation": write_script(scripts, job, f"print('{job} ran')\n")})
    for crawler, folder in zip(CRAWLERS, ("raw", "curated"), strict=True):
        glue.create_crawler(Name=crawler, Role="console", DatabaseName=f"console_{folder}",
                            Targets={"S3Targets": [{"Path": f"s3://console-lake/{folder}/"}]})
    glue.create_database(DatabaseInput={"Name": "console_raw"})
    glue.create_database(DatabaseInput={"Name": "console_curated"})
    glue.create_workflow(Name=WORKFLOW, Description="crawl raw -> transform -> crawl curated -> aggregate")
    glue.create_trigger(Name="console-start", WorkflowName=WORKFLOW, Type="ON_DEMAND",
                        Actions=[{"CrawlerName": CRAWLERS[0]}])
    chain = (({"CrawlerName": CRAWLERS[0], "CrawlState": "SUCCEEDED"}, {"JobName": JOBS[0]}),
             ({"JobName": JOBS[0], "State": "SUCCEEDED"}, {"CrawlerName": CRAWLERS[1]}),
             ({"CrawlerName": CRAWLERS[1], "CrawlState": "SUCCEEDED"}, {"JobName": JOBS[1]}))
    for index, (condition, action) in enumerate(chain):
        glue.create_trigger(Name=f"console-after-{index}", WorkflowName=WORKFLOW, Type="CONDITIONAL",
                            StartOnCreation=True, Actions=[action],
                            Predicate={"Conditions": [{"LogicalOperator": "EQUALS", **condition}]})
    glue.create_data_quality_ruleset(Name=RULESET, Ruleset='Rules = [ RowCount > 0, IsComplete "amount" ]',
                                     TargetTable={"DatabaseName": DATABASE, "TableName": TABLE})
    for index, score in enumerate(DQ_SCORES):  # Glue's score: the share of rules that passed
        passed = round(score * 4)
        outcomes = [{"Name": f"Rule_{n + 1}", "Description": f"ColumnCount > {n}", "EvaluatedMetrics": {},
                     "Result": "PASS" if n < passed else "FAIL"} for n in range(4)]
        status, answer = send(server, "Glueball.PublishDataQualityResult", {"Result": {
            "Score": score, "RulesetName": RULESET, "EvaluationContext": "orders-nightly",
            "DataSource": {"GlueTable": {"DatabaseName": DATABASE, "TableName": TABLE}},
            "StartedOn": 1_763_600_000 + index * 86_400, "CompletedOn": 1_763_600_060 + index * 86_400,
            "RuleResults": outcomes, **({"Observations": [ANOMALY]} if index == ANOMALOUS_RUN else {})}})
        assert status == 200, answer
    return str(glue.start_workflow_run(Name=WORKFLOW)["RunId"]), str(failing_run)

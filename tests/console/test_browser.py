"""The console in headless Chromium against a real ``glueball server``: every page over demo-style data, the
workflow run graph, the partition filter, a schema diff, a job started from the page, a data quality chart,
and, with identity enforced, a sign-in and a refusal shown in the page.

One browser and one server for the module (plus an ``--auth iam`` server for the last test). Screenshots of
each page are saved under the folder printed at the start (``tests/artifacts/console/``).
"""

from __future__ import annotations

import configparser
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.console.browser import (
    ANOMALOUS_RUN,
    ARTIFACTS,
    BROKEN,
    CHROMEDRIVER,
    CHROMIUM,
    CRAWLERS,
    DATABASE,
    DAYS,
    DQ_SCORES,
    FAILING,
    JOB,
    JOBS,
    RULESET,
    SLEEPER,
    TABLE,
    VISUAL,
    WORKFLOW,
    browser,
    console_errors,
    demo_data,
    screenshot,
    wait,
)
from tests.helpers import ServerProcess, send, wait_for

pytestmark = pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                                reason="needs Debian's chromium and chromium-driver: make browser")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    home = tmp_path_factory.mktemp("console-home")
    proc = ServerProcess(home).start()
    try:
        daily, failing = demo_data(proc)
        FAILING_RUN.append(failing)
        yield proc, daily
    finally:
        proc.stop()


FAILING_RUN: list[str] = []  # the run of the failing workflow the server fixture started


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    print(f"\nconsole screenshots: {ARTIFACTS}")
    chrome = browser()
    yield chrome
    chrome.quit()


def visit(driver: Any, server: ServerProcess, route: str) -> None:
    driver.get(f"{server.endpoint}/console/#/{route}")


def text_of(driver: Any, css: str) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, css)
    return " ".join(e.text for e in found)


def rows(driver: Any, css: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [row.text for row in driver.find_elements(By.CSS_SELECTOR, f"{css} tbody tr")]


def test_every_page_loads_without_console_errors(server: tuple[ServerProcess, str], driver: Any) -> None:
    proc, _ = server
    glue = proc.client()
    wait_for(lambda: glue.get_workflow_run(Name=WORKFLOW, RunId=server[1])["Run"]["Status"] == "COMPLETED",
             timeout=120, what="the workflow run")
    crawl = glue.list_crawls(CrawlerName=CRAWLERS[0])["Crawls"][0]["CrawlId"]
    job_run = glue.get_job_runs(JobName=JOBS[0])["JobRuns"][0]["Id"]
    pages = {
        "catalog": ("#databases", DATABASE), "catalog-database": ("#tables", TABLE),
        "catalog-table": ("#columns", "currency"), "connections": ("#connections", "console-warehouse"),
        "crawlers": ("#crawlers", CRAWLERS[0]), "crawler": ("#crawls", "COMPLETED"),
        "jobs": ("#jobs", JOB), "job": ("#job-runs", "SUCCEEDED"), "job-run": ("#log-output", f"{JOBS[0]} ran"),
        "workflows": ("#workflows", WORKFLOW), "workflow": ("#workflow-runs", "COMPLETED"),
        "quality": ("#rulesets", RULESET), "quality-ruleset": ("#dq-results", "orders-nightly"),
        "streaming": ("#streaming-runs", "none"), "sessions": ("#sessions", "none"),
        "spend": ("#spend-totals", JOBS[0]),
    }
    routes = {
        "catalog": "catalog", "catalog-database": f"catalog/{DATABASE}", "catalog-table": f"catalog/{DATABASE}/{TABLE}",
        "connections": "connections", "crawlers": "crawlers", "crawler": f"crawlers/{CRAWLERS[0]}",
        "jobs": "jobs", "job": f"jobs/{JOBS[0]}", "job-run": f"jobs/{JOBS[0]}/{job_run}", "workflows": "workflows",
        "workflow": f"workflows/{WORKFLOW}", "quality": "quality", "quality-ruleset": f"quality/{RULESET}",
        "streaming": "streaming", "sessions": "sessions", "spend": "spend",
    }
    console_errors(driver)  # what came before
    for name, (css, expected) in pages.items():
        visit(driver, proc, routes[name])
        wait(driver, lambda d, css=css, expected=expected: expected in text_of(d, css), what=f"{name}: {expected}")
        screenshot(driver, name)
        assert console_errors(driver) == [], name
        assert text_of(driver, ".refusal") == "", name
    visit(driver, proc, "connections")
    wait(driver, lambda d: "console-warehouse" in text_of(d, "#connections"))
    assert "hunter2-secret" not in driver.page_source  # passwords hidden
    visit(driver, proc, f"crawlers/{CRAWLERS[0]}")
    wait(driver, lambda d: crawl in text_of(d, "#crawls"))
    from selenium.webdriver.common.by import By

    driver.find_element(By.XPATH, f"//button[text()='{crawl}']").click()
    wait(driver, lambda d: f"crawl {crawl} started" in text_of(d, "#crawl-log"), what="the crawl log")
    screenshot(driver, "crawl-log")
    visit(driver, proc, f"jobs/{VISUAL}")  # a visual job's graph
    nodes = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#job-graph g.node"), what="the job graph")
    assert sorted(n.get_attribute("data-name") for n in nodes) == ["curated orders", "drop nulls", "raw orders"]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#job-graph polyline.edge")) == 2
    screenshot(driver, "visual-job")
    assert console_errors(driver) == []


def test_streaming_charts_and_the_spend_csv(server: tuple[ServerProcess, str], driver: Any,
                                            tmp_path: Path) -> None:
    """A streaming run's batches charted with the capacity reading (the batches as the streaming runtime records
    them in the run's log directory), and the spend page's CSV download."""
    from selenium.webdriver.common.by import By

    proc, run_id = server
    glue = proc.client()
    wait_for(lambda: glue.get_workflow_run(Name=WORKFLOW, RunId=run_id)["Run"]["Status"] == "COMPLETED",
             timeout=120, what="the workflow run")
    run = glue.get_job_runs(JobName=JOBS[1])["JobRuns"][0]["Id"]
    folder = Path(send(proc, "Glueball.GetJobRunMetrics", {"JobName": JOBS[1], "RunId": run})[1]["LogDirectory"])
    batches = [{"batchId": i, "timestamp": f"2026-11-25T10:00:{i * 10:02d}.000Z", "numInputRows": 1000,
                "inputRowsPerSecond": 100.0, "processedRowsPerSecond": 110.0 + i, "batchDurationMs": 9000 + i,
                "consumerLag": 50 * i} for i in range(5)]
    (folder / "metrics-stream.jsonl").write_text("".join(json.dumps(b) + "\n" for b in batches))
    visit(driver, proc, f"streaming/{JOBS[1]}/{run}")
    charts = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#stream-charts .chart"), what="the charts")
    assert [c.get_attribute("data-points") for c in charts] == ["5", "5", "5"]
    assert "at capacity: the process rate is close to the input rate" in text_of(driver, ".facts")
    wait(driver, lambda d: d.execute_script("return !!document.querySelector('#stream-charts .chart').uplot"))
    assert driver.execute_script("return document.querySelector('#stream-charts .chart').uplot.data[2]") == [
        b["processedRowsPerSecond"] for b in batches]
    screenshot(driver, "streaming-run")
    assert console_errors(driver) == []

    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    visit(driver, proc, "spend")
    wait(driver, lambda d: JOBS[0] in text_of(d, "#spend-totals"), what="the totals")
    driver.find_element(By.ID, "spend-csv").click()
    wait(driver, lambda d: list(tmp_path.glob("*.csv")), what="the CSV")
    lines = next(tmp_path.glob("*.csv")).read_text().splitlines()
    assert lines[0] == "day,resource,runs,dpu_seconds,estimated_cost_USD"
    resources = {line.split(",")[1] for line in lines[1:]}
    assert {JOBS[0], JOBS[1], CRAWLERS[0]} <= {r.split(":")[-1].split("/")[-1] for r in resources}, resources
    assert console_errors(driver) == []


def test_sessions_show_their_tags(server: tuple[ServerProcess, str], driver: Any) -> None:
    """A session listed with its tags (stopped at once: its Spark driver is not what this looks at)."""
    proc, _ = server
    glue = proc.client()
    glue.create_session(Id="console-analysis", Role="arn:aws:iam::123456789012:role/console",
                        Command={"Name": "glueetl", "PythonVersion": "3"}, Tags={"team": "analytics"})
    try:
        visit(driver, proc, "sessions")
        wait(driver, lambda d: "team=analytics" in text_of(d, "#sessions"), what="the session's tags")
        assert "console-analysis" in text_of(driver, "#sessions")
        screenshot(driver, "sessions-tags")
        visit(driver, proc, "sessions/console-analysis")
        wait(driver, lambda d: "none" in text_of(d, "#statements"), what="its statements")
        assert console_errors(driver) == []
    finally:
        glue.stop_session(Id="console-analysis")


def test_the_workflow_graph_shows_its_four_nodes_with_their_states(server: tuple[ServerProcess, str],
                                                                   driver: Any) -> None:
    from selenium.webdriver.common.by import By

    proc, run_id = server
    glue = proc.client()
    wait_for(lambda: glue.get_workflow_run(Name=WORKFLOW, RunId=run_id)["Run"]["Status"] == "COMPLETED",
             timeout=120, what="the workflow run")
    visit(driver, proc, f"workflows/{WORKFLOW}/{run_id}")
    nodes = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#run-graph g.node"), what="the graph")
    drawn = {n.get_attribute("data-name"): n.get_attribute("data-state") for n in nodes}
    assert drawn == {CRAWLERS[0]: "SUCCEEDED", JOBS[0]: "SUCCEEDED", CRAWLERS[1]: "SUCCEEDED", JOBS[1]: "SUCCEEDED"}
    assert len(driver.find_elements(By.CSS_SELECTOR, "#run-graph polyline.edge")) == 3
    assert "Status COMPLETED" in text_of(driver, ".facts").replace("\n", " ")
    screenshot(driver, "workflow-run-graph")
    assert console_errors(driver) == []


def test_the_partition_filter_narrows_and_a_schema_diff_shows_the_added_column(
        server: tuple[ServerProcess, str], driver: Any) -> None:
    from selenium.webdriver.common.by import By

    proc, _ = server
    visit(driver, proc, f"catalog/{DATABASE}/{TABLE}")
    wait(driver, lambda d: len(rows(d, "#partitions")) == 20, what="20 partitions")
    box = driver.find_element(By.ID, "partition-filter")
    box.send_keys("day >= '2026-11-15'")
    driver.find_element(By.CSS_SELECTOR, "#partition-form button").click()
    wait(driver, lambda d: len(rows(d, "#partitions")) == 6, what="6 partitions")
    assert [row.split()[0] for row in rows(driver, "#partitions")] == DAYS[14:]
    screenshot(driver, "partition-filter")
    added = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#schema-diff tr.added"), what="the diff")
    assert [row.text.split()[0] for row in added] == ["currency"]
    assert driver.find_elements(By.CSS_SELECTOR, "#schema-diff tr.removed") == []
    driver.execute_script("document.getElementById('schema-diff').scrollIntoView()")
    screenshot(driver, "schema-diff")
    box.clear()
    box.send_keys("day >>> 1")  # not the expression language: the API's error, in the page
    driver.find_element(By.CSS_SELECTOR, "#partition-form button").click()
    refusal = wait(driver, lambda d: text_of(d, ".refusal"), what="the refusal")
    assert "InvalidInputException" in refusal
    console_errors(driver)  # the 400 is logged by the browser as a failed load, as it should be


def test_a_job_started_from_the_console_succeeds_and_its_log_shows(server: tuple[ServerProcess, str],
                                                                   driver: Any) -> None:
    from selenium.webdriver.common.by import By

    proc, _ = server
    visit(driver, proc, f"jobs/{JOB}")
    wait(driver, lambda d: d.find_elements(By.ID, "start-run")).__getitem__(0).click()
    wait(driver, lambda d: "#/jobs/console-hello/jr_" in d.current_url, what="the run's page")
    wait(driver, lambda d: "SUCCEEDED" in text_of(d, "#run-summary"), timeout=90, what="SUCCEEDED")
    wait(driver, lambda d: "hello from the console test" in text_of(d, "#log-output"), what="the output log")
    run_id = driver.current_url.rsplit("/", 1)[1]
    assert proc.client().get_job_run(JobName=JOB, RunId=run_id)["JobRun"]["JobRunState"] == "SUCCEEDED"
    screenshot(driver, "job-run")
    assert console_errors(driver) == []


def test_a_run_stopped_and_a_failed_workflow_run_resumed_from_the_console(server: tuple[ServerProcess, str],
                                                                          driver: Any) -> None:
    from selenium.webdriver.common.by import By

    proc, _ = server
    glue = proc.client()
    visit(driver, proc, f"jobs/{SLEEPER}")
    wait(driver, lambda d: d.find_elements(By.ID, "start-run"))[0].click()
    wait(driver, lambda d: f"#/jobs/{SLEEPER}/jr_" in d.current_url, what="the run's page")
    run_id = driver.current_url.rsplit("/", 1)[1]
    wait(driver, lambda d: "RUNNING" in text_of(d, "#run-summary"), timeout=60, what="RUNNING")
    wait(driver, lambda d: "waiting" in text_of(d, "#log-output"), what="the log of the running run")  # tailing
    assert "RUNNING" in text_of(driver, "#run-summary")
    visit(driver, proc, f"jobs/{SLEEPER}")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#job-runs button.stop"), what="Stop")[0].click()
    wait_for(lambda: glue.get_job_run(JobName=SLEEPER, RunId=run_id)["JobRun"]["JobRunState"] == "STOPPED",
             timeout=60, what="the stopped run")
    wait(driver, lambda d: "STOPPED" in text_of(d, "#job-runs"), what="STOPPED in the page")

    failed = FAILING_RUN[0]
    wait_for(lambda: glue.get_workflow_run(Name=FAILING, RunId=failed)["Run"]["Status"] == "COMPLETED",
             timeout=60, what="the failing workflow's run")
    visit(driver, proc, f"workflows/{FAILING}/{failed}")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#run-graph g.node[data-name='{BROKEN}']"
                                           f"[data-state='FAILED']"), what="the failed node")
    screenshot(driver, "workflow-failed")
    wait(driver, lambda d: d.find_elements(By.ID, "resume"), what="Resume")[0].click()
    wait(driver, lambda d: f"#/workflows/{FAILING}/" in d.current_url and failed not in d.current_url,
         what="the resumed run's page")
    resumed = driver.current_url.rsplit("/", 1)[1]
    run = glue.get_workflow_run(Name=FAILING, RunId=resumed, IncludeGraph=True)["Run"]
    assert run["PreviousRunId"] == failed
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#run-graph g.node[data-name='{BROKEN}']"),
         what="the resumed run's graph")
    assert console_errors(driver) == []


def test_the_data_quality_chart_has_one_point_per_run(server: tuple[ServerProcess, str], driver: Any) -> None:
    from selenium.webdriver.common.by import By

    proc, _ = server
    visit(driver, proc, f"quality/{RULESET}")
    chart = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#score-charts .chart"), what="the chart")[0]
    assert chart.get_attribute("data-points") == str(len(DQ_SCORES))
    wait(driver, lambda d: d.execute_script("return !!document.querySelector('#score-charts .chart').uplot"))
    plotted = driver.execute_script("return document.querySelector('#score-charts .chart').uplot.data[1]")
    assert plotted == [score * 100 for score in DQ_SCORES]
    marked = driver.execute_script("return document.querySelector('#score-charts .chart').uplot.data[2]")
    assert marked == [DQ_SCORES[i] * 100 if i == ANOMALOUS_RUN else None for i in range(len(DQ_SCORES))]
    assert len(rows(driver, "#dq-results")) == len(DQ_SCORES)
    screenshot(driver, "quality-chart")
    driver.find_element(By.CSS_SELECTOR, "#dq-results tbody tr:nth-child(2) a").click()  # the 0.5 run: 2 fail
    wait(driver, lambda d: "FAIL" in text_of(d, "#rule-outcomes"), what="the rule outcomes")
    assert console_errors(driver) == []


def test_with_identity_enforced_a_refused_table_shows_the_reason(tmp_path_factory: pytest.TempPathFactory,
                                                                 driver: Any) -> None:
    from selenium.webdriver.common.by import By

    home = tmp_path_factory.mktemp("console-iam")
    proc = ServerProcess(home, extra_args=("--auth", "iam")).start()
    try:
        profile = configparser.ConfigParser()
        profile.read(home / "credentials")
        root = {"aws_access_key_id": profile["glueball"]["aws_access_key_id"],
                "aws_secret_access_key": profile["glueball"]["aws_secret_access_key"]}
        glue = boto3.client("glue", endpoint_url=proc.endpoint, region_name="us-east-1", **root)
        iam = boto3.client("iam", endpoint_url=proc.endpoint, region_name="us-east-1", **root)
        glue.create_database(DatabaseInput={"Name": "hr"})
        glue.create_table(DatabaseName="hr", TableInput={"Name": "salaries", "StorageDescriptor": {
            "Columns": [{"Name": "pay", "Type": "double"}]}})
        iam.create_user(UserName="bob")
        iam.put_user_policy(UserName="bob", PolicyName="list-only", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*", "Action": [
                "glue:GetDatabases", "glue:GetDatabase", "glue:GetTables", "glue:GetTableVersions",
                "glue:GetPartitions", "glue:GetColumnStatisticsForTable"]}]}))
        key = iam.create_access_key(UserName="bob")["AccessKey"]
        account = boto3.client("sts", endpoint_url=proc.endpoint, region_name="us-east-1",
                               **root).get_caller_identity()["Account"]

        visit(driver, proc, "catalog")
        wait(driver, lambda d: d.find_elements(By.ID, "signin"), what="the sign-in form")
        driver.find_element(By.ID, "access-key").send_keys(key["AccessKeyId"])
        driver.find_element(By.ID, "secret-key").send_keys("not-the-secret")
        driver.find_element(By.CSS_SELECTOR, "#signin button").click()
        assert "Sign-in refused" in wait(driver, lambda d: text_of(d, ".signin-message"), what="the refusal")
        screenshot(driver, "signin-refused")
        secret = driver.find_element(By.ID, "secret-key")
        secret.clear()
        secret.send_keys(key["SecretAccessKey"])
        driver.find_element(By.CSS_SELECTOR, "#signin button").click()
        wait(driver, lambda d: "hr" in text_of(d, "#databases"), what="the databases")
        assert f"arn:aws:iam::{account}:user/bob" in text_of(driver, "#who")
        visit(driver, proc, "catalog/hr")
        wait(driver, lambda d: "salaries" in text_of(d, "#tables"), what="the tables")
        visit(driver, proc, "catalog/hr/salaries")
        refusal = wait(driver, lambda d: text_of(d, ".refusal"), what="the refusal")
        assert refusal == (f"table: AccessDeniedException User: arn:aws:iam::{account}:user/bob is not authorized to "
                           f"perform: glue:GetTable on resource: arn:aws:glue:us-east-1:{account}:catalog "
                           f"because no identity-based policy allows the glue:GetTable action")
        screenshot(driver, "refused-table")
        assert (home / "console" / "sessions").is_dir()
        assert not any(key["SecretAccessKey"] in p.read_text() for p in home.glob("*.log"))
        driver.find_element(By.ID, "signout").click()
        wait(driver, lambda d: d.find_elements(By.ID, "signin"), what="the sign-in form again")
        assert list((home / "console" / "sessions").iterdir()) == []
    finally:
        proc.stop()


def test_the_registry_page_shows_two_schema_versions_and_their_diff(server: tuple[ServerProcess, str],
                                                                     driver: Any) -> None:
    """Where the schema registry is served (its area may land after the console): a schema's versions side by
    side with Glue's diff, which names the added field."""
    from botocore.exceptions import ClientError
    from selenium.webdriver.common.by import By

    proc, _ = server
    glue = proc.client()
    console_errors(driver)  # what earlier tests left (their refusals are failed loads, rightly)
    try:
        glue.create_registry(RegistryName="console-registry")
    except ClientError as err:
        assert err.response["Error"]["Code"] == "UnknownOperationException"
        visit(driver, proc, "catalog")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#menu a"), what="the menu")
        assert "Schema registry" not in text_of(driver, "#menu")  # no page for what the server does not answer
        return
    fields = [{"name": "order_id", "type": "long"}]
    definition = {"type": "record", "name": "Order", "fields": fields}
    glue.create_schema(RegistryId={"RegistryName": "console-registry"}, SchemaName="orders", DataFormat="AVRO",
                       Compatibility="BACKWARD", SchemaDefinition=json.dumps(definition))
    added = {**definition, "fields": [*fields, {"name": "currency", "type": "string", "default": "EUR"}]}
    glue.register_schema_version(SchemaId={"RegistryName": "console-registry", "SchemaName": "orders"},
                                 SchemaDefinition=json.dumps(added))
    visit(driver, proc, "registry/console-registry/orders")
    wait(driver, lambda d: len(rows(d, "#schema-versions")) == 2, what="two versions")
    shown = wait(driver, lambda d: text_of(d, "#schema-diff .schema-diff-text"), what="the diff")
    assert "currency" in shown
    sides = driver.find_elements(By.CSS_SELECTOR, "#schema-diff .side pre")
    assert "currency" not in sides[0].text and "currency" in sides[1].text
    screenshot(driver, "registry-diff")
    assert console_errors(driver) == []

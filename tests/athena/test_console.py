"""The console's query editor in headless Chromium against a real server: a query run from the page, the seed's
"Preview table" from the catalog page, and a failed query's reason shown in the page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.athena.helpers import RESULTS, client, succeeded
from tests.console.browser import CHROMEDRIVER, CHROMIUM, browser, console_errors, screenshot, wait
from tests.helpers import ServerProcess, unique

pytestmark = pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                                reason="needs Debian's chromium and chromium-driver: make browser")


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    chrome = browser()
    yield chrome
    chrome.quit()


def text(driver: Any, css: str) -> str:
    from selenium.webdriver.common.by import By

    return " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, css))


def run_in_page(driver: Any, sql: str) -> None:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "query-sql")
    box.clear()
    box.send_keys(sql)
    driver.find_element(By.ID, "query-run").click()


def test_query_editor_runs_queries_and_previews_a_table(athena_server: ServerProcess, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    table = unique("preview_rates")
    succeeded(client(athena_server), f"CREATE TABLE default.{table} WITH (format = 'PARQUET', external_location = "
                                     f"'s3://lake/{table}/') AS SELECT * FROM (VALUES ('EUR', 1.1E0), ('GBP', 1.27E0)"
                                     ", ('JPY', 0.0067E0)) AS t(currency, rate)")
    driver.get(f"{athena_server.endpoint}/console/#/query")
    wait(driver, lambda d: d.find_elements(By.ID, "query-sql"), what="the query editor")
    output = driver.find_element(By.ID, "query-output")
    output.clear()
    output.send_keys(RESULTS)
    run_in_page(driver, "SELECT 40 + 2 AS answer")
    wait(driver, lambda d: "42" in text(d, "#query-results tbody"), 120, "the query's result")
    assert "answer (integer)" in text(driver, "#query-results thead")
    assert text(driver, "#query-results tbody") == "42"  # Athena's header row is not a row of the table
    assert "SUCCEEDED" in text(driver, "#query-state")

    driver.get(f"{athena_server.endpoint}/console/#/catalog/default/{table}")
    wait(driver, lambda d: d.find_elements(By.ID, "preview-table"), what="the catalog's table page")
    driver.find_element(By.ID, "preview-table").click()
    wait(driver, lambda d: "JPY" in text(d, "#query-results tbody"), 60, "the table's preview")
    assert driver.find_element(By.ID, "query-sql").get_attribute("value") == \
        f'SELECT * FROM "default"."{table}" LIMIT 10'
    rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#query-results tbody tr")]
    assert sorted(rows) == ["EUR 1.1", "GBP 1.27", "JPY 0.0067"]
    screenshot(driver, "athena-preview-table")

    run_in_page(driver, "SELECT * FROM default.no_such_table")
    wait(driver, lambda d: d.find_elements(By.ID, "query-error"), 60, "the failed query")
    assert "FAILED" in text(driver, "#query-error") and "TABLE_NOT_FOUND" in text(driver, "#query-error")
    assert console_errors(driver) == []

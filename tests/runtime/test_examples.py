"""The example Glue scripts run unchanged through `glueball run` and produce what Glue would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from tests.helpers import run_script_in_process, unique
from tools import services

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def example_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import seed
    finally:
        sys.path.remove(str(EXAMPLES))
    home = tmp_path_factory.mktemp("examples-home")
    seed.seed(Settings(home=home))
    return home


def run_example(home: Path, script: str, *args: str, driver: bool = False) -> subprocess.CompletedProcess[str]:
    """Run an example script over ``home``: in this process's Spark session, or as a real ``glueball run``
    driver process (``driver``: the command line, exit status and a script that makes its own SparkContext)."""
    if not driver:
        status, out, err = run_script_in_process(home, EXAMPLES / script, *args)
        assert status == 0, f"{script} failed:\n{out[-2000:]}\n{err[-4000:]}"
        return subprocess.CompletedProcess([script, *args], status, out, err)
    env = dict(os.environ, GLUEBALL_HOME=str(home))
    env.pop("GLUEBALL_ENDPOINT", None)
    result = subprocess.run([sys.executable, "-m", "glueball", "run", str(EXAMPLES / script), *args,
                             "--spark-master", "local[2]", "--conf", "spark.sql.shuffle.partitions=4"],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, f"{script} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def catalog(example_home: Path) -> Iterator[Any]:
    glue = Glueball(Settings(home=example_home))
    yield embedded_client(glue)
    glue.close()


def s3(home: Path, uri: str) -> str:
    return str(home / "s3" / uri.removeprefix("s3://"))


@pytest.mark.driver
def test_orders_transform_joins_maps_filters_and_writes_partitioned_parquet_with_catalog(
        example_home: Path, catalog: Any, spark: Any) -> None:
    # a real driver: the script builds its own SparkContext() and needs a process of its own
    run_example(example_home, "orders_transform.py", "--JOB_NAME", "orders-transform",
                "--output", "s3://lake/curated/orders/", driver=True)
    out = spark.read.parquet(s3(example_home, "s3://lake/curated/orders/"))
    rows = out.collect()
    # 63 data rows: one unparseable timestamp and one negative amount are filtered out
    assert len(rows) == 61
    assert {r.region for r in rows} == {"emea", "amer", "apac"}
    assert dict(out.dtypes)["ordered_at"] == "timestamp"
    assert all(r.customer_name for r in rows)
    assert sorted(p.name for p in Path(s3(example_home, "s3://lake/curated/orders/")).iterdir()
                  if p.is_dir()) == ["region=amer", "region=apac", "region=emea"]
    table = catalog.get_table(DatabaseName="sales", Name="orders_enriched")["Table"]
    assert [k["Name"] for k in table["PartitionKeys"]] == ["region"]
    assert {c["Name"] for c in table["StorageDescriptor"]["Columns"]} >= {"order_id", "ordered_at", "amount"}
    partitions = catalog.get_partitions(DatabaseName="sales", TableName="orders_enriched")["Partitions"]
    assert sorted(p["Values"][0] for p in partitions) == ["amer", "apac", "emea"]


def test_orders_analytics_aggregates_running_totals_and_dedup(example_home: Path, spark: Any) -> None:
    run_example(example_home, "orders_analytics.py", "--JOB_NAME", "analytics", "--output", "s3://lake/analytics/")
    totals = spark.read.json(s3(example_home, "s3://lake/analytics/running_totals/"))
    assert totals.count() == 62  # 63 rows, order 7 corrected once
    order7 = totals.filter("order_id = 7").collect()
    assert len(order7) == 1 and order7[0].amount == 999.99
    by_customer: dict[int, list[Any]] = {}
    for row in totals.collect():
        by_customer.setdefault(row.customer_id, []).append(row)
    for rows in by_customer.values():
        # Spark orders NULL timestamps first; the last row's running total is the customer's total
        rows.sort(key=lambda r: (r.ordered_at is not None, r.ordered_at or ""))
        assert rows[-1].running_total == round(sum(r.amount for r in rows), 2)
        assert [r.running_total for r in rows] == [round(sum(x.amount for x in rows[:i + 1]), 2)
                                                   for i in range(len(rows))]
    revenue = spark.read.json(s3(example_home, "s3://lake/analytics/revenue_by_region/"))
    assert sum(r.orders for r in revenue.collect()) == 62


def test_resolve_choice_on_mixed_type_json(example_home: Path, spark: Any) -> None:
    result = run_example(example_home, "resolve_choice.py", "--JOB_NAME", "events",
                         "--output", "s3://lake/curated/events/")
    assert "choice" in result.stdout
    assert "malformed events: 1" in result.stdout
    priced = spark.read.parquet(s3(example_home, "s3://lake/curated/events/"))
    assert dict(priced.dtypes)["price"] == "double"
    prices = {r.event_id: r.price for r in priced.collect()}
    assert prices[1] == 3.0 and prices[3] == 9.5 and prices[5] is None
    assert len(prices) == 20
    by_type = spark.read.json(s3(example_home, "s3://lake/curated/events_by_type/"))
    assert {"price_long", "price_string"} <= set(by_type.columns)


def test_quarantine_splits_good_and_bad_rows_into_two_prefixes(example_home: Path, spark: Any) -> None:
    run_example(example_home, "quarantine.py", "--JOB_NAME", "quarantine", "--good", "s3://lake/clean/orders/",
                "--bad", "s3://lake/quarantine/orders/")
    good = spark.read.json(s3(example_home, "s3://lake/clean/orders/"))
    bad = spark.read.json(s3(example_home, "s3://lake/quarantine/orders/"))
    assert good.count() == 61
    assert sorted(r.order_id for r in bad.collect()) == [61, 62]
    assert "valid" not in good.columns


def test_relationalize_flattens_nested_json(example_home: Path, spark: Any) -> None:
    run_example(example_home, "relationalize_orders.py", "--JOB_NAME", "flatten", "--output", "s3://lake/flat/",
                "--TempDir", "s3://lake/tmp/")
    flat = Path(s3(example_home, "s3://lake/flat/"))
    names = sorted(p.name for p in flat.iterdir())
    assert "orders" in names and "orders_items" in names
    root = spark.read.parquet(str(flat / "orders"))
    items = spark.read.parquet(str(flat / "orders_items"))
    assert root.count() == 5
    assert "customer.address.city" in root.columns
    # every item row joins back to its order through the relationalize id
    assert items.count() == sum(len(range(1, (i % 3) + 2)) for i in range(1, 6))
    joined = root.join(items, root["items"] == items["id"])
    assert joined.count() == items.count()


@pytest.mark.postgres
def test_jdbc_read_from_postgresql_and_write_to_mariadb(example_home: Path, spark: Any) -> None:
    import psycopg

    pg, maria = services.postgres(), services.mariadb()
    glue = Glueball(Settings(home=example_home))
    try:  # the seeded connections name 5432 and 3306: point them at the suite's servers
        client = glue.client("glue")
        for name, server in (("pg_sales", pg), ("mariadb_sales", maria)):
            client.update_connection(Name=name, ConnectionInput={
                "Name": name, "ConnectionType": "JDBC", "ConnectionProperties": server.connection_properties()})
    finally:
        glue.close()
    source, target = unique("payments"), unique("payments_copy")
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE public.{source} (payment_id int PRIMARY KEY, order_id int, method text, "
                     "paid boolean)")
        conn.execute(f"INSERT INTO public.{source} SELECT g, g * 10, CASE WHEN g % 2 = 0 THEN 'card' ELSE "
                     "'cash' END, g % 3 = 0 FROM generate_series(1, 50) g")
    try:
        run_example(example_home, "jdbc_pg_to_mariadb.py", "--JOB_NAME", "replicate",
                    "--source_table", f"public.{source}", "--target_table", target)
        copied = (spark.read.format("jdbc").option("url", maria.jdbc_url + "?permitMysqlScheme")
                  .option("driver", "org.mariadb.jdbc.Driver").option("user", maria.user)
                  .option("password", maria.password).option("dbtable", target).load())
        rows = copied.collect()
        assert len(rows) == 50
        assert sum(r.order_id for r in rows) == 10 * sum(range(1, 51))
        assert sum(1 for r in rows if r.paid) == 16
    finally:
        with psycopg.connect(pg.url, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS public.{source}")
        with maria.connect() as conn, conn.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {target}")

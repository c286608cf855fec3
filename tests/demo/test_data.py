"""The demo's data generator: deterministic files in a Hive-style layout, and DayStats that match them."""

from __future__ import annotations

import csv
import datetime as dt
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest

from glueball.demo import data

DAY = dt.date(2026, 6, 1)


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def classify(row: dict[str, str], customer_count: int) -> str | None:
    """The defect of one raw order row, decided from the text alone (independently of the generator)."""
    try:
        amount = Decimal(row["amount"])
    except InvalidOperation:
        return data.REASON_AMOUNT
    if not row["order_ts"]:
        return data.REASON_TIMESTAMP
    if amount < 0:
        return data.REASON_NEGATIVE
    if not 1 <= int(row["customer_id"]) <= customer_count:
        return data.REASON_CUSTOMER
    return None


def test_customers_file_has_the_header_and_one_row_per_customer(tmp_path: Path) -> None:
    assert data.write_customers(tmp_path, count=50) == 50
    header, rows = read_csv(tmp_path / "demo-lake" / "raw" / "customers" / "customers.csv")
    assert header == ["customer_id", "name", "segment", "country"]
    assert [int(r[0]) for r in rows] == list(range(1, 51))
    assert {r[2] for r in rows} <= {"consumer", "smb", "enterprise"}
    assert {r[3] for r in rows} <= set(data.CURRENCY_OF_COUNTRY)
    assert all(r[1] for r in rows)


def test_orders_go_to_a_hive_partition_folder_split_over_files(tmp_path: Path) -> None:
    stats = data.write_orders_day(tmp_path, DAY, count=301, files=3)
    folder = tmp_path / "demo-lake" / "raw" / "orders" / "day=2026-06-01"
    assert stats.partition == "day=2026-06-01"
    assert stats.files == [folder / "orders-1.csv", folder / "orders-2.csv", folder / "orders-3.csv"]
    assert sorted(p.name for p in folder.iterdir()) == ["orders-1.csv", "orders-2.csv", "orders-3.csv"]
    total = 0
    for path in stats.files:
        header, rows = read_csv(path)
        assert header == ["order_id", "customer_id", "order_ts", "status", "amount", "currency"]
        total += len(rows)
    assert total == stats.rows == 301


def test_same_arguments_write_the_same_bytes_and_other_days_differ(tmp_path: Path) -> None:
    first, second, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for root in (first, second):
        data.write_customers(root)
        data.write_orders_day(root, DAY)
    data.write_customers(other)
    data.write_orders_day(other, DAY + dt.timedelta(days=1))
    assert tree(first) == tree(second)
    day_1 = tree(first)["demo-lake/raw/orders/day=2026-06-01/orders-1.csv"]
    day_2 = tree(other)["demo-lake/raw/orders/day=2026-06-02/orders-1.csv"]
    assert day_1 != day_2
    seeded = [data.write_orders_day(tmp_path / name, DAY, seed=seed) for name, seed in (("d", 7), ("e", 7), ("f", 8))]
    assert tree(tmp_path / "d") == tree(tmp_path / "e") != tree(tmp_path / "f")
    assert (seeded[0].rejected, seeded[0].revenue) == (seeded[1].rejected, seeded[1].revenue)


def test_day_stats_match_what_the_files_hold(tmp_path: Path) -> None:
    customers = {c.customer_id: c for c in data.customers()}
    stats = data.write_orders_day(tmp_path, DAY)
    rows = []
    for path in stats.files:
        header, body = read_csv(path)
        rows += [dict(zip(header, r, strict=True)) for r in body]

    rejected = dict.fromkeys(data.REASONS, 0)
    cancelled = good = 0
    revenue = Decimal("0")
    groups: dict[tuple[str, str, str], tuple[int, Decimal]] = {}
    for row in rows:
        reason = classify(row, len(customers))
        if reason is not None:
            rejected[reason] += 1
        elif row["status"] == data.CANCELLED:
            cancelled += 1
        else:
            good += 1
            amount = Decimal(row["amount"])
            revenue += amount
            customer = customers[int(row["customer_id"])]
            assert row["currency"] == customer.currency
            key = (customer.segment, customer.country, customer.currency)
            count, total = groups.get(key, (0, Decimal("0")))
            groups[key] = (count + 1, total + amount)

    assert stats.rows == len(rows) == 2000
    assert stats.rejected == rejected
    assert stats.bad == sum(rejected.values())
    assert all(n > 0 for n in rejected.values())
    assert stats.cancelled == cancelled
    assert stats.good == good == stats.rows - stats.cancelled - stats.bad
    assert stats.revenue == revenue
    assert stats.groups == groups
    # the rates the brief asks for, give or take sampling noise
    assert 0.01 < stats.bad / stats.rows < 0.06
    assert 0.05 < stats.cancelled / stats.rows < 0.12
    assert {row["status"] for row in rows} >= {"placed", "shipped", "delivered", "cancelled"}
    # every timestamp that is there falls inside the day
    stamps = [dt.datetime.fromisoformat(r["order_ts"]) for r in rows if r["order_ts"]]
    assert all(s.date() == DAY for s in stamps)


def test_order_ids_are_unique_across_days(tmp_path: Path) -> None:
    ids: list[int] = []
    for offset in range(3):
        stats = data.write_orders_day(tmp_path, DAY + dt.timedelta(days=offset), count=500)
        day_ids = [int(r[0]) for path in stats.files for r in read_csv(path)[1]]
        assert (min(day_ids), max(day_ids)) == stats.order_ids
        ids += day_ids
    assert len(ids) == len(set(ids)) == 1500


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="count"):
        data.write_orders_day(tmp_path, DAY, count=0)
    with pytest.raises(ValueError, match="files"):
        data.write_orders_day(tmp_path, DAY, count=3, files=4)

"""Raw data of the daily orders demo, written into the object store as an upstream system would drop it.

Customers are one CSV file, ``s3://demo-lake/raw/customers/customers.csv``; orders arrive
once a day as CSV files in a Hive-style partition folder,
``s3://demo-lake/raw/orders/day=YYYY-MM-DD/orders-<n>.csv``, so that a Glue crawler on
``s3://demo-lake/raw/`` makes two tables, ``customers`` and ``orders`` (partitioned by
``day``), and each new day is a new partition — the layout Glue's crawlers and job
bookmarks are designed around.

A day's orders mix in what real feeds carry: cancelled orders (about 8%) and bad rows
(about 3%), each with exactly one defect — an amount that is not a number, an empty order
timestamp, a customer id no customer has, or a negative amount. ``DayStats`` counts what was
written so that tests and reports can compare it with what the jobs wrote.

Everything is deterministic: ``random.Random(seed)`` drives every choice, and the same
arguments write the same bytes. Standard library only.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from glueball.objects.access import Objects

BUCKET = "demo-lake"
RAW_PATH = f"s3://{BUCKET}/raw/"
CUSTOMERS_KEY = "raw/customers/customers.csv"
ORDERS_PREFIX = "raw/orders/"
# where the demo's jobs write (the jobs take these as arguments; they are the demo's defaults)
CURATED_ORDERS_PATH = f"s3://{BUCKET}/curated/orders/"
DAILY_REVENUE_PATH = f"s3://{BUCKET}/curated/daily_revenue/"
QUARANTINE_PATH = f"s3://{BUCKET}/quarantine/orders/"

CUSTOMER_COLUMNS = ("customer_id", "name", "segment", "country")
ORDER_COLUMNS = ("order_id", "customer_id", "order_ts", "status", "amount", "currency")

CUSTOMER_SEED = 20260601
DEFAULT_CUSTOMERS = 200
CANCELLED_RATE = 0.08
BAD_RATE = 0.03

# the transform job's reject_reason for each defect (jobs/transform.py writes the same texts)
REASON_AMOUNT = "amount is not a number"
REASON_TIMESTAMP = "missing order timestamp"
REASON_NEGATIVE = "negative amount"
REASON_CUSTOMER = "unknown customer"
REASONS = (REASON_AMOUNT, REASON_TIMESTAMP, REASON_NEGATIVE, REASON_CUSTOMER)

CANCELLED = "cancelled"
OPEN_STATUSES = ("placed", "shipped", "delivered")
CURRENCY_OF_COUNTRY = {"DE": "EUR", "FR": "EUR", "NL": "EUR", "ES": "EUR", "US": "USD", "GB": "GBP"}
_SEGMENTS = (("consumer", 6), ("smb", 3), ("enterprise", 1))
_FIRST_NAMES = ("Ada", "Ben", "Chloe", "Dev", "Elif", "Femi", "Greta", "Hugo", "Ines", "Jon", "Kira", "Luca",
                "Mara", "Nils", "Olga", "Pia", "Quinn", "Rosa", "Sami", "Tariq")
_LAST_NAMES = ("Fischer", "Martin", "de Vries", "Garcia", "Smith", "Jones", "Weber", "Dubois", "Jansen",
               "Lopez", "Brown", "Taylor", "Wagner", "Moreau", "Bakker", "Ruiz")
NOT_A_NUMBER = ("n/a", "TBD", "unknown")
_ORDER_IDS_PER_DAY = 1_000_000


@dataclass(frozen=True)
class Customer:
    """One row of ``customers.csv``."""

    customer_id: int
    name: str
    segment: str
    country: str

    @property
    def currency(self) -> str:
        return CURRENCY_OF_COUNTRY[self.country]


@dataclass
class DayStats:
    """What ``write_orders_day`` wrote for one day, and what the transform job should make of it.

    Attributes:
        day: the day (the ``day`` partition value is its ISO text).
        rows: order rows written (all files).
        cancelled: rows without a defect whose status is ``cancelled`` (the transform drops them).
        bad: rows with a defect (the transform quarantines them, whatever their status).
        good: rows the transform writes to the curated table (``rows - cancelled - bad``).
        rejected: per ``reject_reason``, the number of bad rows.
        revenue: the total amount of the good rows.
        groups: per ``(segment, country, currency)``, the good rows' order count and revenue
            (what the aggregate job writes for the day).
        order_ids: the first and last order id of the day (ids are unique across days).
        files: the files written, in order.
    """

    day: dt.date
    rows: int = 0
    cancelled: int = 0
    bad: int = 0
    good: int = 0
    rejected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    revenue: Decimal = Decimal("0.00")
    groups: dict[tuple[str, str, str], tuple[int, Decimal]] = field(default_factory=dict)
    order_ids: tuple[int, int] = (0, 0)
    files: list[Path | str] = field(default_factory=list)  # paths, or URIs of a store's objects

    @property
    def partition(self) -> str:
        """The Hive-style partition folder name, ``day=YYYY-MM-DD``."""
        return f"day={self.day.isoformat()}"


def customers(count: int = DEFAULT_CUSTOMERS, seed: int = CUSTOMER_SEED) -> list[Customer]:
    """The demo's customers, ids ``1..count``; the same ``count`` and ``seed`` give the same customers."""
    rng = random.Random(seed)
    segments = [name for name, _ in _SEGMENTS]
    weights = [weight for _, weight in _SEGMENTS]
    countries = sorted(CURRENCY_OF_COUNTRY)
    out = []
    for customer_id in range(1, count + 1):
        name = f"{rng.choice(_FIRST_NAMES)} {rng.choice(_LAST_NAMES)}"
        out.append(Customer(customer_id, name, rng.choices(segments, weights)[0], rng.choice(countries)))
    return out


def _csv_text(header: tuple[str, ...], rows: list[tuple[object, ...]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _write(object_store: Path | Objects, key: str, text: str) -> Path | str:
    """Write the object ``key`` of the demo's bucket: a file of the folder ``object_store`` (its path), or an
    object of the store (its URI)."""
    if isinstance(object_store, Objects):
        uri = f"s3://{BUCKET}/{key}"
        object_store.write(uri, text.encode("utf-8"))
        return uri
    path = object_store / BUCKET / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_customers(object_store: Path | Objects, count: int = DEFAULT_CUSTOMERS, seed: int = CUSTOMER_SEED) -> int:
    """Write ``<object_store>/demo-lake/raw/customers/customers.csv``; the number of customers written.

    Args:
        object_store: the folder behind ``s3://`` (``Settings().object_store``), or the installation's objects.
        count: how many customers (ids ``1..count``).
        seed: the generator's seed.
    """
    rows: list[tuple[object, ...]] = [(c.customer_id, c.name, c.segment, c.country) for c in customers(count, seed)]
    _write(object_store, CUSTOMERS_KEY, _csv_text(CUSTOMER_COLUMNS, rows))
    return len(rows)


def orders_folder(object_store: Path, day: dt.date) -> Path:
    """The partition folder of a day's orders: ``<object_store>/demo-lake/raw/orders/day=YYYY-MM-DD``."""
    return object_store / BUCKET / ORDERS_PREFIX / f"day={day.isoformat()}"


def _amount(rng: random.Random) -> Decimal:
    return Decimal(rng.randint(500, 50_000)) / 100


def write_orders_day(object_store: Path | Objects, day: dt.date, count: int = 2000, seed: int | None = None, *,
                     files: int = 2, customer_count: int = DEFAULT_CUSTOMERS,
                     customer_seed: int = CUSTOMER_SEED) -> DayStats:
    """Write a day's orders as ``files`` CSV files into the day's partition folder; what was written.

    Args:
        object_store: the folder behind ``s3://`` (``Settings().object_store``), or the installation's objects.
        day: the day; order timestamps fall inside it, order ids are ``YYYYMMDD * 10**6 + n``.
        count: how many order rows (1 to 999,999).
        seed: the generator's seed (default: derived from ``day``, so every day differs and repeats).
        files: how many files the rows are spread over (``orders-1.csv`` ...).
        customer_count: how many customers exist (ids ``1..customer_count``); must match ``write_customers``.
        customer_seed: the customers' seed, for the expected revenue per segment and country.

    Raises:
        ValueError: ``count`` or ``files`` out of range.
    """
    if not 0 < count < _ORDER_IDS_PER_DAY:
        raise ValueError(f"count must be between 1 and {_ORDER_IDS_PER_DAY - 1}, got {count}")
    if not 0 < files <= count:
        raise ValueError(f"files must be between 1 and count ({count}), got {files}")
    rng = random.Random(day.toordinal() if seed is None else seed)
    by_id = {c.customer_id: c for c in customers(customer_count, customer_seed)}
    stats = DayStats(day)
    midnight = dt.datetime.combine(day, dt.time())
    first_id = int(day.strftime("%Y%m%d")) * _ORDER_IDS_PER_DAY + 1
    rows: list[tuple[object, ...]] = []
    for n in range(count):
        order_id = first_id + n
        customer = by_id[rng.randint(1, customer_count)]
        ordered_at = midnight + dt.timedelta(seconds=rng.randrange(86_400))
        amount = _amount(rng)
        row: list[object] = [order_id, customer.customer_id, ordered_at.strftime("%Y-%m-%d %H:%M:%S"),
                             rng.choice(OPEN_STATUSES), f"{amount:.2f}", customer.currency]
        draw = rng.random()
        if draw < BAD_RATE:
            reason = rng.choice(REASONS)
            row[3] = rng.choice((*OPEN_STATUSES, CANCELLED))  # quarantined before the status matters
            if reason == REASON_AMOUNT:
                row[4] = rng.choice(NOT_A_NUMBER)
            elif reason == REASON_TIMESTAMP:
                row[2] = ""
            elif reason == REASON_NEGATIVE:
                row[4] = f"-{amount:.2f}"
            else:
                row[1] = customer_count + 1 + rng.randrange(100_000)
            stats.bad += 1
            stats.rejected[reason] += 1
        elif draw < BAD_RATE + CANCELLED_RATE:
            row[3] = CANCELLED
            stats.cancelled += 1
        else:
            stats.good += 1
            stats.revenue += amount
            key = (customer.segment, customer.country, customer.currency)
            orders, revenue = stats.groups.get(key, (0, Decimal("0.00")))
            stats.groups[key] = (orders + 1, revenue + amount)
        rows.append(tuple(row))
    stats.rows = len(rows)
    stats.order_ids = (first_id, first_id + count - 1)
    folder = f"{ORDERS_PREFIX}day={day.isoformat()}"
    size = -(-count // files)
    for index in range(files):
        chunk = rows[index * size:(index + 1) * size]
        if chunk:
            name = f"{folder}/orders-{index + 1}.csv"
            stats.files.append(_write(object_store, name, _csv_text(ORDER_COLUMNS, chunk)))
    return stats

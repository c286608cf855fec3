"""The runtime tests' Spark session (one per process) for the evaluator tests, and their small frames."""

from __future__ import annotations

from typing import Any

import pytest

from tests.runtime.conftest import glue_context, glue_home, spark  # noqa: F401 - fixtures, re-exported

PEOPLE_SCHEMA = "id long, name string, age int, email string, city string, score double, joined string"
#: six people with nulls, an empty and a blank name, a bad email and a bad date (hand-computed tests use them)
PEOPLE = [
    (1, "alice", 30, "alice@x.com", "paris", 1.5, "2024-01-10"),
    (2, "bob", 25, "bob@x.com", "paris", 2.5, "2024-02-11"),
    (3, "carol", None, "not-an-email", "rome", None, "2024-03-12"),
    (4, "dave", 41, None, "oslo", 4.0, "bad-date"),
    (5, "", 35, "eve@x.com", "rome", 5.0, None),
    (6, "   ", 52, "frank@x.com", None, 6.0, "2024-06-15"),
]


@pytest.fixture(scope="session")
def people(spark: Any) -> Any:  # noqa: F811
    return spark.createDataFrame(PEOPLE, PEOPLE_SCHEMA)

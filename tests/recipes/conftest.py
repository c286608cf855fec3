"""The recipe tests' Spark session: the test process's shared one."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Any:
    from tests.helpers import shared_spark

    return shared_spark()

"""The Alembic migrations build exactly the schema of glueball.store.schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from glueball.store.engine import Store
from glueball.store.schema import Base
from tests.helpers import create_postgres_database, drop_postgres_database


def _diff(store: Store) -> list[object]:
    with store.engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), Base.metadata))


def test_sqlite_migrations_match_schema_and_are_idempotent(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'm.db'}")
    assert _diff(store) == []
    Store(store.url).dispose()  # running the migrations again changes nothing
    assert _diff(store) == []
    store.dispose()


@pytest.mark.postgres
def test_postgres_migrations_match_schema() -> None:
    url = create_postgres_database()
    try:
        store = Store(url)
        assert _diff(store) == []
        store.dispose()
    finally:
        drop_postgres_database(url)

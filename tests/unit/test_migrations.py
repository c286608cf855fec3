"""The Alembic migrations build exactly the schema of glueball.store.schema; a store already at the newest one is
not migrated again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

from glueball.store import migrate
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


def test_head_is_alembic_s_newest_migration() -> None:
    scripts = ScriptDirectory.from_config(migrate.alembic_config())
    assert scripts.get_heads() == [migrate.HEAD]


def test_a_store_at_head_is_read_not_migrated_and_one_behind_is_migrated(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(f"sqlite:///{tmp_path / 'm.db'}")
    assert migrate.schema_current(store.engine) == (True, migrate.HEAD)
    upgrades: list[str] = []
    monkeypatch.setattr(command, "upgrade", lambda config, revision: upgrades.append(revision))
    Store(store.url).dispose()
    assert upgrades == []  # at head: Alembic not asked
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0011'"))
    assert migrate.schema_current(store.engine) == (False, "0011")
    Store(store.url).dispose()
    assert upgrades == ["head"]
    store.dispose()


def test_a_new_store_has_no_revision(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'new.db'}", migrate=False)
    assert migrate.current_revisions(store.engine) == set()
    assert migrate.schema_current(store.engine) == (False, "none")
    store.dispose()


def test_alembic_is_imported_only_by_a_store_with_migrations_to_run(tmp_path: Path) -> None:
    def imports_alembic(url: str) -> bool:
        code = f"import sys; from glueball.store.engine import Store; Store({url!r}); print('alembic' in sys.modules)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
        return done.stdout.strip().splitlines()[-1] == "True"

    url = f"sqlite:///{tmp_path / 'a.db'}"
    assert imports_alembic(url)  # a new store: every migration runs
    assert not imports_alembic(url)  # the same store started again

"""Engine and transactions of the catalog store.

One code path for SQLite (embedded default, WAL) and PostgreSQL. Operations
open one session each: :meth:`Store.read` for queries, :meth:`Store.write`
for changes. On SQLite a write transaction starts with ``BEGIN IMMEDIATE`` so
that two writers queue on the lock instead of failing an upgrade half-way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

_BEGIN_OPTION = "glueball_begin"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # let SQLAlchemy's begin event issue BEGIN itself (pysqlite's own is unreliable)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def create_store_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False}, pool_size=8, max_overflow=8)
        _configure_sqlite(engine)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        url = str(parsed.set(drivername="postgresql+psycopg"))
    return create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)


class Store:
    """The catalog store: an engine plus read and write sessions."""

    def __init__(self, url: str, migrate: bool = True) -> None:
        self.url = url
        self.engine = create_store_engine(url)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        writer = self.engine.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"}) if self.is_sqlite else self.engine
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(writer, expire_on_commit=False)
        if migrate:
            from glueball.store.migrate import upgrade

            upgrade(self.engine)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        with self._write() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()

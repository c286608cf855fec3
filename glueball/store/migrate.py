"""Alembic migrations, run programmatically against the store's engine.

Several servers may share one PostgreSQL store and start at once: each runs :func:`upgrade` at start-up under
a session-level advisory lock, so one migrates while the others wait and then find the schema current
(``docs/deployment.md``). :func:`schema_current` is what ``/ready`` checks.

A store already at :data:`HEAD` (a server started again on its home) is read, not migrated: Alembic, its
templates and their syntax highlighter are a tenth of a server's start, and are imported only when a store has
migrations to run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
# the newest migration's revision (tests/unit/test_migrations.py holds it to Alembic's head of migrations/)
HEAD = "0012"
VERSION_TABLE = "alembic_version"
# pg_advisory_lock's key of glueball's migrations (any constant: it names the lock across processes)
MIGRATION_LOCK = 0x676C7565  # "glue"


def alembic_config(engine: Engine | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
        config.attributes["engine"] = engine
    return config


def current_revisions(engine: Engine) -> set[str]:
    """The revisions the store's schema is at, as Alembic records them (none for a new store)."""
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return set()
        return {str(row[0]) for row in connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))}


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the store's schema to ``revision`` (idempotent); on PostgreSQL one process at a time. A store at
    :data:`HEAD` asked for ``head`` is left as it is without Alembic (a store another process is migrating is
    not at it yet, and waits for the lock below)."""
    if revision in ("head", HEAD) and current_revisions(engine) == {HEAD}:
        return
    from alembic import command

    if engine.dialect.name != "postgresql":
        command.upgrade(alembic_config(engine), revision)
        return
    with engine.connect() as lock:
        lock.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        try:
            command.upgrade(alembic_config(engine), revision)
        finally:
            lock.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
            lock.commit()


def schema_current(engine: Engine) -> tuple[bool, str]:
    """Whether the store's schema is at this code's newest migration; and the revision it is at (or what failed)."""
    current = current_revisions(engine)
    return current == {HEAD}, ",".join(sorted(current)) or "none"

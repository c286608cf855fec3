"""Alembic migrations, run programmatically against the store's engine.

Several servers may share one PostgreSQL store and start at once: each runs :func:`upgrade` at start-up under
a session-level advisory lock, so one migrates while the others wait and then find the schema current
(``docs/deployment.md``). :func:`schema_current` is what ``/ready`` checks.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

MIGRATIONS = Path(__file__).with_name("migrations")
# pg_advisory_lock's key of glueball's migrations (any constant: it names the lock across processes)
MIGRATION_LOCK = 0x676C7565  # "glue"


def alembic_config(engine: Engine | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
        config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the store's schema to ``revision`` (idempotent); on PostgreSQL one process at a time."""
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
    heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
    with engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    return current == heads, ",".join(sorted(current)) or "none"

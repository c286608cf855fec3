"""Alembic environment: migrations run on the engine the store hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from glueball.store import (
    identity_tables,  # noqa: F401 - registers the identity tables on Base
    log_tables,  # noqa: F401 - registers CloudWatch Logs' and metrics' tables on Base
    recipe_tables,  # noqa: F401 - registers the DataBrew recipe tables on Base
    registry_tables,  # noqa: F401 - registers the schema registry's tables on Base
    resource_tables,  # noqa: F401 - registers the stored resources and task runs on Base
    session_tables,  # noqa: F401 - registers the session tables on Base
)
from glueball.store.schema import Base

config = context.config
engine = config.attributes.get("engine") or create_engine(config.get_main_option("sqlalchemy.url") or "")

with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()

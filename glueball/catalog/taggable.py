"""The catalog's taggable resources: databases (``arn:aws:glue:REGION:ACCOUNT:database/NAME``)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.catalog.lookup import fold
from glueball.catalog.models import Scope
from glueball.store.schema import DatabaseRow
from glueball.tagging.service import register_resource_type


def _database_exists(session: Session, scope: Scope, name: str) -> bool:
    query = select(DatabaseRow.id).where(
        DatabaseRow.account_id == scope.account_id,
        DatabaseRow.region == scope.region,
        DatabaseRow.name == fold(name),
    )
    return session.scalar(query) is not None


register_resource_type("database", _database_exists, canonical=fold)

"""Lookups of the resources that live in one account and region and are named there.

Jobs, crawlers, triggers, workflows, ... are rows with ``account_id``, ``region`` and ``name``
columns; these helpers answer "the row called NAME in this scope" for any such table, so each area
keeps only what differs: its table and its not-found message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

Row = TypeVar("Row")


@dataclass(frozen=True)
class Scope:
    """Where state lives: one account in one region (a catalog, and everything else per account and region)."""

    account_id: str
    region: str

    def arn(self, resource: str) -> str:
        return f"arn:aws:glue:{self.region}:{self.account_id}:{resource}"


def scoped_query(model: type[Row], scope: Scope) -> Any:
    """``SELECT`` the rows of ``model`` in ``scope``."""
    table: Any = model
    return select(model).where(table.account_id == scope.account_id, table.region == scope.region)


def find_scoped(session: Session, model: type[Row], scope: Scope, name: str, for_update: bool = False) -> Row | None:
    """The row of ``model`` called ``name`` in ``scope`` (locked with ``for_update``), or None."""
    table: Any = model
    query = scoped_query(model, scope).where(table.name == name)
    if for_update:
        query = query.with_for_update()
    row: Row | None = session.scalars(query).one_or_none()
    return row

"""Queries of the DataBrew recipe tables (:mod:`glueball.store.recipe_tables`)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from glueball.store.recipe_tables import RecipeRow, RecipeVersionRow
from glueball.store.scoped import Scope, find_scoped, scoped_query


def find_recipe(session: Session, scope: Scope, name: str, for_update: bool = False) -> RecipeRow | None:
    """The recipe called ``name`` in ``scope`` (locked with ``for_update``), or None."""
    return find_scoped(session, RecipeRow, scope, name, for_update)


def count_recipes(session: Session, scope: Scope) -> int:
    query = select(func.count()).select_from(RecipeRow).where(
        RecipeRow.account_id == scope.account_id, RecipeRow.region == scope.region)
    return int(session.scalar(query) or 0)


def recipes_after(session: Session, scope: Scope, after: str | None, limit: int) -> list[RecipeRow]:
    """Up to ``limit`` recipes of ``scope`` named after ``after``, by name."""
    query = scoped_query(RecipeRow, scope)
    if after is not None:
        query = query.where(RecipeRow.name > after)
    return list(session.scalars(query.order_by(RecipeRow.name).limit(limit)))


def published(session: Session, recipe: RecipeRow) -> list[RecipeVersionRow]:
    """The published versions of ``recipe``, oldest first."""
    query = select(RecipeVersionRow).where(RecipeVersionRow.recipe_row_id == recipe.id)
    return list(session.scalars(query.order_by(RecipeVersionRow.major)))


def latest_published(session: Session, recipe_ids: list[int]) -> dict[int, RecipeVersionRow]:
    """The newest published version of each recipe that has one, by recipe row id."""
    if not recipe_ids:
        return {}
    rows = session.scalars(select(RecipeVersionRow).where(RecipeVersionRow.recipe_row_id.in_(recipe_ids))
                           .order_by(RecipeVersionRow.major))
    return {row.recipe_row_id: row for row in rows}

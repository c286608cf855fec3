"""The DataBrew recipe tables: a recipe (its LATEST_WORKING version) and its published versions.

A recipe's working version is numbered ``<last published>.1`` (``0.1`` before any publication);
publishing copies the working steps to version ``<n>.0`` and moves the working number to
``<n>.1``. ``next_major`` is the ``n`` the next publication takes (DataBrew never reuses a number,
even after versions are deleted).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base, Json


class RecipeRow(Base):
    """One recipe, with its LATEST_WORKING steps."""

    __tablename__ = "databrew_recipe"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    tags: Mapped[dict[str, Any]] = mapped_column(Json)
    steps: Mapped[list[Any]] = mapped_column(Json)
    next_major: Mapped[int] = mapped_column(Integer)
    created_by: Mapped[str] = mapped_column(String(2048))
    create_date: Mapped[float] = mapped_column(Float)
    last_modified_by: Mapped[str] = mapped_column(String(2048))
    last_modified_date: Mapped[float] = mapped_column(Float)


class RecipeVersionRow(Base):
    """One published version of a recipe (``1.0``, ``2.0`` ...): its steps as they were published."""

    __tablename__ = "databrew_recipe_version"
    __table_args__ = (UniqueConstraint("recipe_row_id", "major"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    recipe_row_id: Mapped[int] = mapped_column(ForeignKey("databrew_recipe.id", ondelete="CASCADE"))
    major: Mapped[int] = mapped_column(Integer)
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    steps: Mapped[list[Any]] = mapped_column(Json)
    published_by: Mapped[str] = mapped_column(String(2048))
    published_date: Mapped[float] = mapped_column(Float)

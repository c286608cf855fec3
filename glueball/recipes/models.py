"""The DataBrew recipe as the service sees it: one version of a recipe (LATEST_WORKING or published)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LATEST_WORKING = "LATEST_WORKING"
LATEST_PUBLISHED = "LATEST_PUBLISHED"


def working_number(next_major: int) -> str:
    """The number of the working version: ``0.1`` before any publication, ``<n>.1`` after version ``n.0``."""
    return f"{next_major - 1}.1"


def published_number(major: int) -> str:
    return f"{major}.0"


@dataclass(frozen=True)
class RecipeVersion:
    """One version of a recipe, with the recipe's own attributes (DataBrew's ``Recipe``)."""

    name: str
    version: str
    steps: list[dict[str, Any]]
    arn: str
    created_by: str
    create_date: float
    last_modified_by: str
    last_modified_date: float
    description: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    published_by: str | None = None
    published_date: float | None = None


@dataclass(frozen=True)
class VersionError:
    """A version BatchDeleteRecipeVersion could not delete, and why."""

    version: str
    code: str
    message: str

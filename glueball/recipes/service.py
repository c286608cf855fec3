"""DataBrew recipes: create, update, describe, list, publish, and delete versions.

Versions follow DataBrew: a recipe is created as its ``LATEST_WORKING`` version, numbered ``0.1``;
:meth:`RecipeService.publish_recipe` freezes the working steps as ``1.0`` (then ``2.0`` ...) and
the working version becomes ``1.1`` (``2.1`` ...). A version is named by its number or by
``LATEST_WORKING`` / ``LATEST_PUBLISHED``. DescribeRecipe without a version answers the latest
published version (the working one while nothing is published); ListRecipes without a version lists
each recipe's latest published version (recipes never published are listed with
``RecipeVersion="LATEST_WORKING"``). ``LATEST_WORKING`` is deleted only with the whole recipe,
once no published version is left.

Steps are checked when written (:func:`glueball.recipes.steps.check_steps`): a recipe glueball
could not run is refused with ``ValidationException`` naming the step and parameter.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.errors import InvalidInputException
from glueball.recipes.errors import (
    ConflictException,
    ResourceNotFoundException,
    ServiceQuotaExceededException,
    ValidationException,
)
from glueball.recipes.models import (
    LATEST_PUBLISHED,
    LATEST_WORKING,
    RecipeVersion,
    VersionError,
    published_number,
    working_number,
)
from glueball.recipes.steps import RecipeStepError, check_steps
from glueball.recipes.store import count_recipes, find_recipe, latest_published, published, recipes_after
from glueball.store.engine import Store
from glueball.store.recipe_tables import RecipeRow, RecipeVersionRow
from glueball.store.scoped import Scope

_NAME = re.compile(r"^[A-Za-z0-9.\- ]+$")
_NUMBER = re.compile(r"^(\d{1,7})\.(\d{1,7})$")


@dataclass(frozen=True)
class Quotas:
    """How many recipes an account may keep in a region, and published versions a recipe."""

    recipes: int = 100
    versions: int = 100


def _check_name(name: str) -> None:
    if not _NAME.match(name):
        raise ValidationException(f"Recipe name {name!r} is invalid: valid characters are alphanumeric (A-Z, a-z, "
                                  "0-9), hyphen (-), period (.), and space")


def _checked_steps(steps: Any) -> list[dict[str, Any]]:
    try:
        check_steps(steps)
    except RecipeStepError as exc:
        raise ValidationException(str(exc)) from None
    return [dict(step) for step in steps]


class RecipeService:
    """The recipes of one account and region."""

    def __init__(self, store: Store, scope: Scope, quotas: Quotas = Quotas(),
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.scope = scope
        self.quotas = quotas
        self.clock = clock

    def arn(self, name: str) -> str:
        return f"arn:aws:databrew:{self.scope.region}:{self.scope.account_id}:recipe/{name}"

    def _recipe(self, session: Session, name: str, for_update: bool = False) -> RecipeRow:
        row = find_recipe(session, self.scope, name, for_update)
        if row is None:
            raise ResourceNotFoundException(f"Recipe {name} wasn't found.")
        return row

    # -- writing

    def create_recipe(self, name: str, steps: Any, who: str, description: str | None = None,
                      tags: Mapping[str, str] | None = None) -> str:
        _check_name(name)
        checked = _checked_steps(steps)
        now = self.clock()
        try:
            with self.store.write() as session:
                if find_recipe(session, self.scope, name) is not None:
                    raise ConflictException(f"Recipe {name} already exists.")
                if count_recipes(session, self.scope) >= self.quotas.recipes:
                    raise ServiceQuotaExceededException(
                        f"The account has {self.quotas.recipes} recipes, the most it may keep; delete one first")
                session.add(RecipeRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                      description=description, tags=dict(tags or {}), steps=checked, next_major=1,
                                      created_by=who, create_date=now, last_modified_by=who,
                                      last_modified_date=now))
        except IntegrityError:  # created by another request meanwhile
            raise ConflictException(f"Recipe {name} already exists.") from None
        return name

    def update_recipe(self, name: str, who: str, steps: Any = None, description: str | None = None) -> str:
        checked = _checked_steps(steps) if steps is not None else None
        with self.store.write() as session:
            row = self._recipe(session, name, for_update=True)
            if checked is not None:
                row.steps = checked
            if description is not None:
                row.description = description
            row.last_modified_by, row.last_modified_date = who, self.clock()
        return name

    def publish_recipe(self, name: str, who: str, description: str | None = None) -> str:
        with self.store.write() as session:
            row = self._recipe(session, name, for_update=True)
            if len(published(session, row)) >= self.quotas.versions:
                raise ServiceQuotaExceededException(
                    f"Recipe {name} has {self.quotas.versions} published versions, the most it may keep; "
                    "delete one first")
            session.add(RecipeVersionRow(recipe_row_id=row.id, major=row.next_major, steps=list(row.steps),
                                         description=description if description is not None else row.description,
                                         published_by=who, published_date=self.clock()))
            row.next_major += 1
        return name

    def delete_recipe_version(self, name: str, version: str) -> tuple[str, str]:
        """Delete one version; ``LATEST_WORKING`` deletes the recipe, once nothing published is left."""
        with self.store.write() as session:
            row = self._recipe(session, name, for_update=True)
            self._delete(session, row, version)
        return name, version

    def batch_delete_recipe_version(self, name: str, versions: list[str]) -> list[VersionError]:
        """Delete several versions, as DataBrew does: the whole request is refused for an unknown recipe, a
        version that is not an identifier, or a repeated one; a version that is not there, or
        ``LATEST_WORKING`` while published versions remain, is a partial failure (with its HTTP status as
        the error code) and the others are deleted. The published versions go first, so
        ``LATEST_WORKING`` in the same batch deletes the recipe when the batch removed the last of them.
        """
        repeated = sorted({v for v in versions if versions.count(v) > 1})
        if repeated:
            raise ValidationException(f"RecipeVersions repeats {', '.join(repeated)}")
        for version in versions:
            if version != LATEST_WORKING and _NUMBER.match(version) is None:
                raise ValidationException(f"Recipe version {version!r} is not a version number (X.Y) or "
                                          "LATEST_WORKING")
        errors: list[VersionError] = []
        with self.store.write() as session:
            row = self._recipe(session, name, for_update=True)
            gone = False
            for version in sorted(versions, key=lambda v: self._is_working(row, v)):
                try:
                    if gone:  # LATEST_WORKING and its number both named: the recipe went with the first
                        raise ResourceNotFoundException(f"Recipe {name} was deleted with its LATEST_WORKING version.")
                    with session.begin_nested():
                        self._delete(session, row, version)
                    gone = self._is_working(row, version)
                except (ResourceNotFoundException, ConflictException) as exc:
                    errors.append(VersionError(version, str(exc.status), exc.message))
        return errors

    def _is_working(self, row: RecipeRow, version: str) -> bool:
        return version in (LATEST_WORKING, working_number(row.next_major))

    def _delete(self, session: Session, row: RecipeRow, version: str) -> None:
        if version == LATEST_PUBLISHED:
            raise ValidationException("LATEST_PUBLISHED is not supported: name the version to delete (X.Y)")
        if self._is_working(row, version):
            left = published(session, row)
            if left:
                raise ConflictException(
                    f"Recipe {row.name} still has published versions "
                    f"({', '.join(published_number(v.major) for v in left)}): delete them before LATEST_WORKING")
            session.delete(row)
            return
        session.delete(self._published(session, row, version))

    def _published(self, session: Session, row: RecipeRow, version: str) -> RecipeVersionRow:
        found = _NUMBER.match(version)
        if found is None:
            raise ValidationException(f"Recipe version {version!r} is not a version number (X.Y), LATEST_WORKING "
                                      "or LATEST_PUBLISHED")
        major, minor = int(found.group(1)), int(found.group(2))
        match = next((v for v in published(session, row) if v.major == major), None) if minor == 0 else None
        if match is None:
            raise ResourceNotFoundException(f"Recipe {row.name} has no version {version}.")
        return match

    # -- reading

    def describe_recipe(self, name: str, version: str | None = None) -> RecipeVersion:
        with self.store.read() as session:
            row = self._recipe(session, name)
            if version is None:
                newest = published(session, row)
                return self._version(row, newest[-1] if newest else None)
            if self._is_working(row, version):
                return self._version(row, None)
            if version == LATEST_PUBLISHED:
                newest = published(session, row)
                if not newest:
                    raise ResourceNotFoundException(f"Recipe {name} has no published version.")
                return self._version(row, newest[-1])
            return self._version(row, self._published(session, row, version))

    def list_recipes(self, version: str | None, limit: int, token: str | None) -> tuple[list[RecipeVersion],
                                                                                         str | None]:
        if version not in (None, LATEST_WORKING, LATEST_PUBLISHED):
            raise ValidationException(f"RecipeVersion {version!r} is not LATEST_WORKING or LATEST_PUBLISHED")
        after = _position(token, str)
        with self.store.read() as session:
            rows = recipes_after(session, self.scope, after, self.quotas.recipes + 1)
            newest = latest_published(session, [row.id for row in rows])
        if version == LATEST_WORKING:
            found = [self._version(row, None) for row in rows]
        else:
            found = [self._version(row, newest[row.id]) for row in rows if row.id in newest]
        page = found[:limit]
        return page, (encode_token(page[-1].name) if len(found) > limit else None)

    def list_recipe_versions(self, name: str, limit: int, token: str | None) -> tuple[list[RecipeVersion],
                                                                                       str | None]:
        offset = _position(token, int) or 0
        with self.store.read() as session:
            row = find_recipe(session, self.scope, name)
            versions = [self._version(row, v) for v in published(session, row)] if row is not None else []
        page = versions[offset:offset + limit]
        return page, (encode_token(offset + limit) if offset + limit < len(versions) else None)

    def _version(self, row: RecipeRow, version: RecipeVersionRow | None) -> RecipeVersion:
        common: dict[str, Any] = {
            "name": row.name, "arn": self.arn(row.name), "created_by": row.created_by,
            "create_date": row.create_date, "last_modified_by": row.last_modified_by,
            "last_modified_date": row.last_modified_date, "tags": dict(row.tags)}
        if version is None:
            return RecipeVersion(version=working_number(row.next_major), steps=list(row.steps),
                                 description=row.description, **common)
        return RecipeVersion(version=published_number(version.major), steps=list(version.steps),
                             description=version.description, published_by=version.published_by,
                             published_date=version.published_date, **common)


def _position(token: str | None, kind: type) -> Any:
    try:
        return decode_token(token, kind)
    except InvalidInputException as exc:  # DataBrew names a bad token as any bad input
        raise ValidationException(exc.message) from None

"""Resource tags (TagResource, UntagResource, GetTags) for every ARN glueball owns.

Areas register their taggable resource types with :func:`register_resource_type`:
the ARN resource kind (``database`` in ``arn:aws:glue:REGION:ACCOUNT:database/NAME``),
how a name is spelled canonically, and how to check that the resource exists.
Tags live in the ``resource_tag`` table, keyed by the canonical ARN; an area that
creates or deletes a resource writes or drops its tags in the same transaction with
:func:`write_tags` and :func:`delete_tags`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from glueball.errors import AccessDeniedException, EntityNotFoundException, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import TagRow
from glueball.store.scoped import Scope

MAX_TAGS_PER_RESOURCE = 50
RESERVED_PREFIX = "aws:"

ExistsCheck = Callable[[Session, Scope, str], bool]

_ARN = re.compile(r"arn:(?P<partition>aws[a-z-]*):glue:(?P<region>[^:]*):(?P<account>[^:]*):(?P<resource>.*)",
                  re.DOTALL)


def _same(name: str) -> str:
    return name


@dataclass(frozen=True)
class ResourceType:
    """A taggable kind of resource.

    Attributes:
        kind: the ARN's resource type, the text before the first ``/``.
        exists: whether a resource of this name exists in a scope (inside a session).
        canonical: how the name is spelled in the ARN glueball stores (e.g. lowercased).
    """

    kind: str
    exists: ExistsCheck
    canonical: Callable[[str], str] = _same


_RESOURCE_TYPES: dict[str, ResourceType] = {}


def register_resource_type(kind: str, exists: ExistsCheck, canonical: Callable[[str], str] = _same) -> None:
    """Make resources of ``kind`` taggable; each area calls this once at import."""
    _RESOURCE_TYPES[kind] = ResourceType(kind, exists, canonical)


def taggable_kinds() -> list[str]:
    return sorted(_RESOURCE_TYPES)


@dataclass(frozen=True)
class ResourceArn:
    """A parsed ARN of a glueball resource, with its name spelled canonically."""

    resource_type: ResourceType
    name: str
    scope: Scope

    def __str__(self) -> str:
        return self.scope.arn(f"{self.resource_type.kind}/{self.name}")


def parse_arn(arn: str, scope: Scope) -> ResourceArn:
    """Parse ``arn`` for a caller in ``scope``.

    Raises:
        InvalidInputException: not a Glue ARN of a taggable resource type.
        AccessDeniedException: the ARN belongs to another account.
        EntityNotFoundException: the ARN names another region (nothing of it lives here).
    """
    match = _ARN.fullmatch(arn)
    if match is None:
        raise InvalidInputException(f"Invalid ResourceArn {arn!r}: expected arn:aws:glue:REGION:ACCOUNT:TYPE/NAME")
    kind, slash, name = match.group("resource").partition("/")
    if not slash or not name:
        raise InvalidInputException(f"Invalid ResourceArn {arn!r}: expected arn:aws:glue:REGION:ACCOUNT:TYPE/NAME")
    resource_type = _RESOURCE_TYPES.get(kind)
    if resource_type is None:
        raise InvalidInputException(
            f"Invalid ResourceArn {arn!r}: resource type {kind!r} cannot be tagged; "
            f"taggable types are: {', '.join(taggable_kinds())}"
        )
    if match.group("partition") != "aws" or match.group("account") != scope.account_id:
        raise AccessDeniedException(
            f"Account {scope.account_id} is not authorized to access resource {arn}"
        )
    if match.group("region") != scope.region:
        raise EntityNotFoundException(f"Resource {arn} not found in region {scope.region}.")
    return ResourceArn(resource_type, resource_type.canonical(name), scope)


def check_tag_keys(keys: list[str] | Mapping[str, str]) -> None:
    for key in keys:
        if key.lower().startswith(RESERVED_PREFIX):
            raise InvalidInputException(f"Tag key {key!r} is invalid: the prefix 'aws:' is reserved for AWS use")


def write_tags(session: Session, arn: str, tags: Mapping[str, str] | None) -> None:
    """Add or overwrite tags of ``arn`` inside an open write session (creators call this).

    Raises:
        InvalidInputException: a key uses the reserved ``aws:`` prefix, or the resource
            would carry more than 50 tags.
    """
    if not tags:
        return
    check_tag_keys(tags)
    current = {row.key: row for row in session.scalars(select(TagRow).where(TagRow.resource_arn == arn))}
    total = len(current.keys() | tags.keys())
    if total > MAX_TAGS_PER_RESOURCE:
        raise InvalidInputException(
            f"Resource {arn} would have {total} tags; a resource can have at most {MAX_TAGS_PER_RESOURCE}"
        )
    for key, value in tags.items():
        row = current.get(key)
        if row is None:
            session.add(TagRow(resource_arn=arn, key=key, value=value))
        else:
            row.value = value
    session.flush()


def delete_tags(session: Session, arn: str) -> None:
    """Drop every tag of ``arn`` inside an open write session (deleters call this)."""
    session.execute(delete(TagRow).where(TagRow.resource_arn == arn))


def move_tags(session: Session, old_arn: str, new_arn: str) -> None:
    """Carry the tags of a renamed resource over to its new ARN."""
    for row in session.scalars(select(TagRow).where(TagRow.resource_arn == old_arn)):
        session.add(TagRow(resource_arn=new_arn, key=row.key, value=row.value))
        session.delete(row)
    session.flush()


def tags_of(store: Store, arns: list[str]) -> dict[str, dict[str, str]]:
    """The tags of each of ``arns`` that has any (one query): ``aws:ResourceTag/*`` of IAM conditions."""
    found: dict[str, dict[str, str]] = {}
    if not arns:
        return found
    with store.read() as session:
        for row in session.scalars(select(TagRow).where(TagRow.resource_arn.in_(arns))):
            found.setdefault(row.resource_arn, {})[row.key] = row.value
    return found


class TagService:
    """TagResource, UntagResource and GetTags for the resources of one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def _existing(self, session: Session, arn: str) -> ResourceArn:
        parsed = parse_arn(arn, self.scope)
        if not parsed.resource_type.exists(session, self.scope, parsed.name):
            raise EntityNotFoundException(f"Resource {arn} not found.")
        return parsed

    def get(self, arn: str) -> dict[str, str]:
        """Mirror GetTags: the tags of an existing resource (possibly none)."""
        with self.store.read() as session:
            key = str(self._existing(session, arn))
            rows = session.scalars(select(TagRow).where(TagRow.resource_arn == key).order_by(TagRow.key))
            return {row.key: row.value for row in rows}

    def tag(self, arn: str, tags: Mapping[str, str]) -> None:
        """Mirror TagResource: add tags, overwriting the values of keys already present."""
        with self.store.write() as session:
            write_tags(session, str(self._existing(session, arn)), tags)

    def untag(self, arn: str, keys: list[str]) -> None:
        """Mirror UntagResource: remove the given keys; keys not present are ignored."""
        with self.store.write() as session:
            key = str(self._existing(session, arn))
            if keys:
                session.execute(delete(TagRow).where(TagRow.resource_arn == key, TagRow.key.in_(keys)))


def list_tagged_names(store: Store, model: Any, scope: Scope, arn_of: Callable[[str], str], max_results: int,
                      token: str | None, tags: Mapping[str, str] | None) -> tuple[list[str], str | None]:
    """Mirror ListCrawlers / ListJobs / ...: resource names in order, paginated; with ``tags``, only the
    resources carrying every given tag.

    Args:
        model: the resource's table (with ``account_id``, ``region`` and ``name`` columns).
        arn_of: the resource's ARN from its name (tags are kept by ARN).
    """
    from glueball.api.pagination import decode_token, encode_token

    after = decode_token(token, str)
    query = select(model.name).where(model.account_id == scope.account_id,
                                     model.region == scope.region).order_by(model.name)
    if after is not None:
        query = query.where(model.name > str(after))
    result: list[str] = []
    more = False
    with store.read() as session:
        for name in session.scalars(query):
            if tags:
                rows = session.scalars(select(TagRow).where(TagRow.resource_arn == arn_of(name)))
                present = {row.key: row.value for row in rows}
                if any(present.get(key) != value for key, value in tags.items()):
                    continue
            if len(result) == max_results:
                more = True
                break
            result.append(name)
    return result, encode_token(result[-1]) if more else None

"""Finding registries, schemas and versions in the store from how a request names them, with Glue's messages."""

from __future__ import annotations

import re

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from glueball.errors import AccessDeniedException, EntityNotFoundException, InvalidInputException
from glueball.registry.models import (
    DEFAULT_REGISTRY,
    Compatibility,
    DataFormat,
    Registry,
    RegistryRef,
    ResourceStatus,
    Schema,
    SchemaRef,
    SchemaVersion,
    VersionRef,
    VersionStatus,
)
from glueball.store.registry_tables import RegistryRow, SchemaRow, SchemaVersionRow
from glueball.store.scoped import Scope

_ARN = re.compile(r"arn:aws[a-z-]*:glue:(?P<region>[^:]*):(?P<account>[^:]*):(?P<kind>registry|schema)/(?P<rest>.+)")


def registry_arn(scope: Scope, name: str) -> str:
    return scope.arn(f"registry/{name}")


def schema_arn(scope: Scope, registry: str, name: str) -> str:
    return scope.arn(f"schema/{registry}/{name}")


def _arn_parts(arn: str, kind: str, scope: Scope, member: str) -> list[str]:
    match = _ARN.fullmatch(arn)
    if match is None or match.group("kind") != kind:
        shape = "registry/REGISTRY" if kind == "registry" else "schema/REGISTRY/SCHEMA"
        raise InvalidInputException(f"{member} {arn!r} is not a Glue {kind} ARN (arn:aws:glue:REGION:ACCOUNT:{shape})")
    if match.group("account") != scope.account_id:
        raise AccessDeniedException(f"Account {scope.account_id} is not authorized to access {arn}")
    parts = match.group("rest").split("/")
    if match.group("region") != scope.region or len(parts) != (1 if kind == "registry" else 2):
        raise EntityNotFoundException(f"{'Registry' if kind == 'registry' else 'Schema'} is not found. {member}: {arn}")
    return parts


def registry_name_of(ref: RegistryRef, scope: Scope) -> str:
    """The registry a ``RegistryId`` names.

    Raises:
        InvalidInputException: both or neither of name and ARN given, or a malformed ARN.
    """
    if ref.name and ref.arn:
        raise InvalidInputException("One of registryName or registryArn has to be provided, both cannot be provided.")
    if ref.arn:
        return _arn_parts(ref.arn, "registry", scope, "RegistryArn")[0]
    if ref.name:
        return ref.name
    raise InvalidInputException("One of registryName or registryArn has to be provided.")


def schema_names_of(ref: SchemaRef, scope: Scope) -> tuple[str, str]:
    """(registry, schema) of a ``SchemaId``; a name without a registry is in ``default-registry``.

    Raises:
        InvalidInputException: both an ARN and names given, neither, or a malformed ARN.
    """
    if ref.arn and (ref.name or ref.registry):
        raise InvalidInputException(
            "One of (registryName and schemaName) or schemaArn has to be provided, both cannot be provided.")
    if ref.arn:
        registry, name = _arn_parts(ref.arn, "schema", scope, "SchemaArn")
        return registry, name
    if ref.name:
        return ref.registry or DEFAULT_REGISTRY, ref.name
    raise InvalidInputException("At least one of (registryName and schemaName) or schemaArn has to be provided.")


def find_registry(session: Session, scope: Scope, name: str, for_update: bool = False) -> RegistryRow:
    query = select(RegistryRow).where(RegistryRow.account_id == scope.account_id, RegistryRow.region == scope.region,
                                      RegistryRow.name == name)
    row = session.scalars(query.with_for_update() if for_update else query).one_or_none()
    if row is None:
        raise EntityNotFoundException(f"Registry is not found. RegistryName: {name}")
    return row


def find_schema(session: Session, scope: Scope, ref: SchemaRef, for_update: bool = False) -> tuple[RegistryRow,
                                                                                                   SchemaRow]:
    registry_name, name = schema_names_of(ref, scope)
    query = (select(RegistryRow, SchemaRow).join(SchemaRow, SchemaRow.registry_id == RegistryRow.id)
             .where(RegistryRow.account_id == scope.account_id, RegistryRow.region == scope.region,
                    RegistryRow.name == registry_name, SchemaRow.name == name))
    found = session.execute(query.with_for_update() if for_update else query).one_or_none()
    if found is None:
        raise EntityNotFoundException(
            f"Schema is not found. RegistryName: {registry_name}, SchemaName: {name}, "
            f"SchemaArn: {schema_arn(scope, registry_name, name)}")
    return found[0], found[1]


def check_version_ref(ref: VersionRef) -> None:
    """A version is named by its id alone, or by its schema and one of number and latest.

    Raises:
        InvalidInputException: naming Glue refuses, in its words.
    """
    if ref.version_id is not None:
        if ref.schema is not None or ref.number is not None or ref.latest:
            raise InvalidInputException("No other input parameters can be specified when fetching by SchemaVersionId.")
        return
    if ref.schema is None:
        raise InvalidInputException("At least one of (registryName and schemaName) or schemaArn has to be provided.")
    if ref.number is not None and ref.latest:
        raise InvalidInputException("Only one of VersionNumber or LatestVersion is required.")
    if ref.number is None and not ref.latest:
        raise InvalidInputException("One of version number (or) latest version is required.")


def find_version(session: Session, scope: Scope, ref: VersionRef, for_update: bool = False
                 ) -> tuple[RegistryRow, SchemaRow, SchemaVersionRow]:
    """The version a ``VersionRef`` names (latest: the newest AVAILABLE one).

    Raises:
        InvalidInputException: the reference is malformed.
        EntityNotFoundException: no such schema or version.
    """
    check_version_ref(ref)
    if ref.version_id is not None:
        query = (select(RegistryRow, SchemaRow, SchemaVersionRow)
                 .join(SchemaRow, SchemaRow.registry_id == RegistryRow.id)
                 .join(SchemaVersionRow, SchemaVersionRow.schema_id == SchemaRow.id)
                 .where(RegistryRow.account_id == scope.account_id, RegistryRow.region == scope.region,
                        SchemaVersionRow.version_id == ref.version_id))
        found = session.execute(query.with_for_update() if for_update else query).one_or_none()
        if found is None:
            raise EntityNotFoundException(f"Schema version is not found. SchemaVersionId: {ref.version_id}")
        return found[0], found[1], found[2]
    assert ref.schema is not None
    registry, schema = find_schema(session, scope, ref.schema, for_update)
    number = schema.latest_version if ref.latest else ref.number
    version = session.scalars(select(SchemaVersionRow).where(SchemaVersionRow.schema_id == schema.id,
                                                             SchemaVersionRow.number == number)).one_or_none()
    if version is None:
        raise EntityNotFoundException(
            f"Schema version is not found. RegistryName: {registry.name}, SchemaName: {schema.name}, "
            f"SchemaArn: {schema_arn(scope, registry.name, schema.name)}, "
            f"VersionNumber: {'null' if ref.latest else number}, isLatestVersion: {str(ref.latest).lower()}")
    return registry, schema, version


def count_registries(session: Session, scope: Scope) -> int:
    return int(session.scalar(select(func.count()).select_from(RegistryRow).where(
        RegistryRow.account_id == scope.account_id, RegistryRow.region == scope.region)) or 0)


def registry_model(scope: Scope, row: RegistryRow) -> Registry:
    return Registry(row.name, registry_arn(scope, row.name), row.description, ResourceStatus(row.status),
                    row.created, row.updated)


def schema_model(scope: Scope, registry: RegistryRow, row: SchemaRow) -> Schema:
    return Schema(registry.name, registry_arn(scope, registry.name), row.name,
                  schema_arn(scope, registry.name, row.name),
                  row.description, DataFormat(row.data_format), Compatibility(row.compatibility), row.checkpoint,
                  row.latest_version, row.next_version, ResourceStatus(row.status), row.created, row.updated)


def version_model(scope: Scope, registry: RegistryRow, schema: SchemaRow, row: SchemaVersionRow) -> SchemaVersion:
    return SchemaVersion(schema_model(scope, registry, schema), row.version_id, row.number, row.definition,
                         VersionStatus(row.status), row.created, row.id, row.failure_reason)

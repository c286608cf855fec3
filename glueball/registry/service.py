"""Registries and schemas of the schema registry (Glue's Create/Get/List/Update/Delete Registry and Schema).

A schema is created with its first version (``CreateSchema`` carries ``SchemaDefinition``), in the
registry ``RegistryId`` names or, without one, in ``default-registry``, which is made on first use as
Glue makes it. Registries and schemas are taggable (``registry/NAME``, ``schema/REGISTRY/NAME``). Versions,
their checks and metadata are :mod:`glueball.registry.versions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.errors import (
    AlreadyExistsException,
    InvalidInputException,
    ResourceNumberLimitExceededException,
)
from glueball.registry.locate import (
    count_registries,
    find_registry,
    find_schema,
    find_version,
    registry_arn,
    registry_model,
    registry_name_of,
    schema_arn,
    schema_model,
    version_model,
)
from glueball.registry.models import (
    DEFAULT_REGISTRY,
    MAX_REGISTRIES,
    MAX_SCHEMAS,
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
from glueball.registry.versions import add_version, checked_definition
from glueball.store.engine import Store
from glueball.store.registry_tables import RegistryRow, SchemaRow, SchemaVersionRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, register_resource_type, write_tags


def _registry_exists(session: Session, scope: Scope, name: str) -> bool:
    return session.scalar(select(RegistryRow.id).where(
        RegistryRow.account_id == scope.account_id, RegistryRow.region == scope.region,
        RegistryRow.name == name)) is not None


def _schema_exists(session: Session, scope: Scope, name: str) -> bool:
    registry, _, schema = name.partition("/")
    return session.scalar(select(SchemaRow.id).join(RegistryRow, SchemaRow.registry_id == RegistryRow.id).where(
        RegistryRow.account_id == scope.account_id, RegistryRow.region == scope.region,
        RegistryRow.name == registry, SchemaRow.name == schema)) is not None


register_resource_type("registry", _registry_exists)
register_resource_type("schema", _schema_exists)


class RegistryService:
    """Registries and schemas of one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    # -- registries -----------------------------------------------------------------------------

    def _new_registry(self, session: Session, name: str, description: str | None) -> RegistryRow:
        if count_registries(session, self.scope) >= MAX_REGISTRIES:
            raise ResourceNumberLimitExceededException(
                f"More registries cannot be created. The maximum limit of {MAX_REGISTRIES} has been reached.")
        stamp = now()
        row = RegistryRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                          description=description, status=ResourceStatus.AVAILABLE.value, created=stamp, updated=stamp)
        session.add(row)
        session.flush()
        return row

    def create_registry(self, name: str, description: str | None, tags: Mapping[str, str] | None) -> Registry:
        """Mirror CreateRegistry.

        Raises:
            AlreadyExistsException: a registry of this name exists.
            ResourceNumberLimitExceededException: the account has Glue's maximum of registries.
        """
        try:
            with self.store.write() as session:
                if _registry_exists(session, self.scope, name):
                    raise AlreadyExistsException(f"Registry already exists. RegistryName: {name}")
                row = self._new_registry(session, name, description)
                write_tags(session, registry_arn(self.scope, name), tags)
                return registry_model(self.scope, row)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Registry already exists. RegistryName: {name}") from exc

    def get_registry(self, ref: RegistryRef) -> Registry:
        """Mirror GetRegistry."""
        with self.store.read() as session:
            return registry_model(self.scope, find_registry(session, self.scope, registry_name_of(ref, self.scope)))

    def list_registries(self, max_results: int, token: str | None) -> tuple[list[Registry], str | None]:
        """Mirror ListRegistries: in name order, paginated."""
        after = decode_token(token, str)
        query = select(RegistryRow).where(RegistryRow.account_id == self.scope.account_id,
                                          RegistryRow.region == self.scope.region).order_by(RegistryRow.name)
        if after is not None:
            query = query.where(RegistryRow.name > after)
        with self.store.read() as session:
            rows = list(session.scalars(query.limit(max_results + 1)))
        found = [registry_model(self.scope, row) for row in rows[:max_results]]
        return found, encode_token(found[-1].name) if len(rows) > max_results else None

    def update_registry(self, ref: RegistryRef, description: str) -> Registry:
        """Mirror UpdateRegistry: the description changes."""
        with self.store.write() as session:
            row = find_registry(session, self.scope, registry_name_of(ref, self.scope), for_update=True)
            row.description = description
            row.updated = now()
            return registry_model(self.scope, row)

    def delete_registry(self, ref: RegistryRef) -> Registry:
        """Mirror DeleteRegistry: the registry, its schemas, versions and tags go; answered as DELETING."""
        with self.store.write() as session:
            row = find_registry(session, self.scope, registry_name_of(ref, self.scope), for_update=True)
            for schema in session.scalars(select(SchemaRow).where(SchemaRow.registry_id == row.id)):
                delete_tags(session, schema_arn(self.scope, row.name, schema.name))
                session.delete(schema)
            delete_tags(session, registry_arn(self.scope, row.name))
            model = registry_model(self.scope, row)
            session.delete(row)
        return replace(model, status=ResourceStatus.DELETING)

    # -- schemas --------------------------------------------------------------------------------

    def create_schema(self, registry: RegistryRef | None, name: str, data_format: DataFormat,
                      compatibility: Compatibility, description: str | None, definition: str | None,
                      tags: Mapping[str, str] | None) -> SchemaVersion:
        """Mirror CreateSchema: the schema with its first version (AVAILABLE: nothing to be compatible with).

        Without ``registry`` the schema goes to ``default-registry``, created if missing (also when named:
        the AWS SerDe names it explicitly).

        Raises:
            InvalidInputException: no definition, or one the format's parser refuses (its message).
            EntityNotFoundException: the named registry does not exist.
            AlreadyExistsException: the registry has a schema of this name.
            ResourceNumberLimitExceededException: the account has Glue's maximum of schemas.
        """
        if definition is None:
            raise InvalidInputException("SchemaDefinition is required to create a schema")
        text, digest = checked_definition(data_format, definition)
        registry_name = registry_name_of(registry, self.scope) if registry is not None else DEFAULT_REGISTRY
        try:
            with self.store.write() as session:
                if registry_name == DEFAULT_REGISTRY and not _registry_exists(session, self.scope, DEFAULT_REGISTRY):
                    registry_row = self._new_registry(session, DEFAULT_REGISTRY, None)
                else:
                    registry_row = find_registry(session, self.scope, registry_name, for_update=True)
                if _schema_exists(session, self.scope, f"{registry_name}/{name}"):
                    raise AlreadyExistsException(f"Schema already exists. SchemaName: {name}")
                self._check_schema_quota(session)
                stamp = now()
                row = SchemaRow(registry_id=registry_row.id, name=name, data_format=data_format.value,
                                compatibility=compatibility.value, description=description,
                                status=ResourceStatus.AVAILABLE.value, checkpoint=1, latest_version=0, next_version=1,
                                created=stamp, updated=stamp)
                session.add(row)
                session.flush()
                version = add_version(session, row, text, digest, VersionStatus.AVAILABLE, None)
                write_tags(session, schema_arn(self.scope, registry_name, name), tags)
                return version_model(self.scope, registry_row, row, version)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Schema already exists. SchemaName: {name}") from exc

    def _check_schema_quota(self, session: Session) -> None:
        count = session.scalar(select(func.count()).select_from(SchemaRow).join(
            RegistryRow, SchemaRow.registry_id == RegistryRow.id).where(
            RegistryRow.account_id == self.scope.account_id, RegistryRow.region == self.scope.region)) or 0
        if count >= MAX_SCHEMAS:
            raise ResourceNumberLimitExceededException(
                f"More schemas cannot be created. The maximum limit of {MAX_SCHEMAS} has been reached.")

    def get_schema(self, ref: SchemaRef) -> Schema:
        """Mirror GetSchema."""
        with self.store.read() as session:
            registry, row = find_schema(session, self.scope, ref)
            return schema_model(self.scope, registry, row)

    def list_schemas(self, registry: RegistryRef | None, max_results: int,
                     token: str | None) -> tuple[list[Schema], str | None]:
        """Mirror ListSchemas: the schemas of one registry, or of all, by registry and name, paginated."""
        after = decode_token(token, list)
        query = (select(RegistryRow, SchemaRow).join(SchemaRow, SchemaRow.registry_id == RegistryRow.id)
                 .where(RegistryRow.account_id == self.scope.account_id, RegistryRow.region == self.scope.region)
                 .order_by(RegistryRow.name, SchemaRow.name))
        with self.store.read() as session:
            if registry is not None:
                name = find_registry(session, self.scope, registry_name_of(registry, self.scope)).name
                query = query.where(RegistryRow.name == name)
            if after is not None and len(after) == 2:
                query = query.where((RegistryRow.name > after[0]) | (
                    (RegistryRow.name == after[0]) & (SchemaRow.name > after[1])))
            rows = list(session.execute(query.limit(max_results + 1)))
        found = [schema_model(self.scope, r, s) for r, s in rows[:max_results]]
        more = len(rows) > max_results
        return found, encode_token([found[-1].registry_name, found[-1].name]) if more else None

    def update_schema(self, ref: SchemaRef, checkpoint: VersionRef | None, compatibility: Compatibility | None,
                      description: str | None) -> Schema:
        """Mirror UpdateSchema: description, compatibility mode and checkpoint.

        A new ``Compatibility`` needs a checkpoint (``SchemaVersionNumber``) with it; earlier versions
        are not re-checked against the new mode, as in Glue. The checkpoint must be an AVAILABLE version.

        Raises:
            InvalidInputException: nothing to update, a mode without a checkpoint, or a checkpoint
                that is not an AVAILABLE version.
        """
        if checkpoint is None and compatibility is None and description is None:
            raise InvalidInputException(
                "At least one of Compatibility, SchemaVersionNumber or Description has to be provided.")
        if compatibility is not None and checkpoint is None:
            raise InvalidInputException(
                "SchemaVersionNumber (the checkpoint) is required when Compatibility is provided.")
        with self.store.write() as session:
            registry, row = find_schema(session, self.scope, ref, for_update=True)
            if row.status != ResourceStatus.AVAILABLE.value:
                raise InvalidInputException(f"Schema {row.name} is {row.status}; only an AVAILABLE schema is updated.")
            if checkpoint is not None:
                _, _, version = find_version(session, self.scope, VersionRef(ref, None, checkpoint.number,
                                                                             checkpoint.latest))
                if version.status != VersionStatus.AVAILABLE.value:
                    raise InvalidInputException(
                        f"Schema version {version.number} is {version.status}; a checkpoint must be AVAILABLE.")
                row.checkpoint = version.number
            if compatibility is not None:
                row.compatibility = compatibility.value
            if description is not None:
                row.description = description
            row.updated = now()
            return schema_model(self.scope, registry, row)

    def delete_schema(self, ref: SchemaRef) -> Schema:
        """Mirror DeleteSchema: the schema, its versions and tags go; answered as DELETING."""
        with self.store.write() as session:
            registry, row = find_schema(session, self.scope, ref, for_update=True)
            model = schema_model(self.scope, registry, row)
            session.execute(delete(SchemaVersionRow).where(SchemaVersionRow.schema_id == row.id))
            delete_tags(session, model.arn)
            session.delete(row)
        return replace(model, status=ResourceStatus.DELETING)

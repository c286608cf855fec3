"""Schema versions: registration with its compatibility check, lookups, diffs, deletion and metadata.

``RegisterSchemaVersion`` parses the definition with the format's own parser (a definition it refuses
is ``InvalidInputException`` with the parser's message), answers the existing version when the same
definition (its canonical form) is already registered, and otherwise checks it against the schema's
AVAILABLE versions since the checkpoint under the schema's ``Compatibility``
(:func:`glueball.registry.compat.check`). A compatible version is AVAILABLE and becomes the latest; an
incompatible one is kept as FAILURE (its number is used up, as in Glue) with the checker's reasons, and
the latest version stays as it was. ``DISABLED`` refuses new versions altogether.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.errors import (
    AlreadyExistsException,
    EntityNotFoundException,
    GlueError,
    InvalidInputException,
    ResourceNumberLimitExceededException,
)
from glueball.registry import compat
from glueball.registry.locate import find_schema, find_version, schema_arn, version_model
from glueball.registry.models import (
    MAX_METADATA_PER_VERSION,
    MAX_VERSIONS_PER_SCHEMA,
    Compatibility,
    DataFormat,
    MetadataEntry,
    SchemaRef,
    SchemaVersion,
    VersionRef,
    VersionStatus,
)
from glueball.store.engine import Store
from glueball.store.registry_tables import RegistryRow, SchemaRow, SchemaVersionMetadataRow, SchemaVersionRow
from glueball.store.scoped import Scope


class IncompatibleSchemaVersion(InvalidInputException):
    """A definition the schema's compatibility mode refuses, when the caller keeps no FAILURE version."""

    def __init__(self, message: str, reasons: tuple[str, ...]) -> None:
        super().__init__(message)
        self.reasons = reasons


def checked_definition(data_format: DataFormat, definition: str) -> tuple[str, str]:
    """The definition and the digest of its canonical form.

    Raises:
        InvalidInputException: the format's parser refuses it (with the parser's message).
    """
    try:
        compat.validate(data_format.value, definition)
        canonical = compat.canonical(data_format.value, definition)
    except compat.InvalidSchemaDefinition as e:
        raise InvalidInputException(f"Schema definition of {data_format.value} data format is invalid: {e}") from None
    return definition, hashlib.sha256(canonical.encode()).hexdigest()


def add_version(session: Session, schema: SchemaRow, definition: str, digest: str, status: VersionStatus,
                reason: str | None) -> SchemaVersionRow:
    """Add the schema's next version (inside the write that holds the schema row).

    Raises:
        ResourceNumberLimitExceededException: the schema has Glue's maximum of versions.
    """
    count = session.scalar(select(func.count()).select_from(SchemaVersionRow).where(
        SchemaVersionRow.schema_id == schema.id)) or 0
    if count >= MAX_VERSIONS_PER_SCHEMA:
        raise ResourceNumberLimitExceededException(
            f"More schema versions cannot be created for schema {schema.name}. "
            f"The maximum limit of {MAX_VERSIONS_PER_SCHEMA} has been reached.")
    stamp = now()
    row = SchemaVersionRow(schema_id=schema.id, version_id=str(uuid.uuid4()), number=schema.next_version,
                           definition=definition, canonical_hash=digest, status=status.value,
                           failure_reason=reason, created=stamp)
    session.add(row)
    schema.next_version += 1
    if status is VersionStatus.AVAILABLE:
        schema.latest_version = row.number
    schema.updated = stamp
    session.flush()
    return row


def earlier_definitions(session: Session, schema: SchemaRow) -> list[str]:
    """The AVAILABLE versions' definitions since the checkpoint, oldest first: what a new one is checked against."""
    return list(session.scalars(select(SchemaVersionRow.definition).where(
        SchemaVersionRow.schema_id == schema.id, SchemaVersionRow.number >= schema.checkpoint,
        SchemaVersionRow.status == VersionStatus.AVAILABLE.value).order_by(SchemaVersionRow.number)))


def parse_range(versions: str) -> range:
    """``DeleteSchemaVersions``' ``Versions``: ``N`` or ``N-M`` (inclusive).

    Raises:
        InvalidInputException: a range whose end is before its start.
    """
    first, _, last = versions.partition("-")
    start, end = int(first), int(last or first)
    if end < start:
        raise InvalidInputException(f"Versions {versions!r}: the range ends before it starts")
    if end - start + 1 > MAX_VERSIONS_PER_SCHEMA:
        raise InvalidInputException(f"Versions {versions!r}: a range covers at most {MAX_VERSIONS_PER_SCHEMA} "
                                    "versions (a schema has no more)")
    return range(start, end + 1)


def json_patch(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """RFC 6902 operations that turn ``old`` into ``new`` (objects member by member, arrays by position)."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[dict[str, Any]] = []
        for key in old:
            pointer = f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key not in new:
                ops.append({"op": "remove", "path": pointer})
            else:
                ops += json_patch(old[key], new[key], pointer)
        for key in new:
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}",
                            "value": new[key]})
        return ops
    if isinstance(old, list) and isinstance(new, list):
        ops = []
        for index in range(min(len(old), len(new))):
            ops += json_patch(old[index], new[index], f"{path}/{index}")
        ops += [{"op": "remove", "path": f"{path}/{index}"} for index in reversed(range(len(new), len(old)))]
        ops += [{"op": "add", "path": f"{path}/-", "value": value} for value in new[len(old):]]
        return ops
    return [] if old == new and type(old) is type(new) else [{"op": "replace", "path": path, "value": new}]


def _document(data_format: str, definition: str) -> Any:
    if data_format == DataFormat.PROTOBUF.value:
        return [line.rstrip() for line in definition.splitlines() if line.strip()]
    return json.loads(definition)


class VersionService:
    """Schema versions and their metadata in one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def register(self, ref: SchemaRef, definition: str, keep_failed: bool = True) -> SchemaVersion:
        """Mirror RegisterSchemaVersion (see the module docstring).

        Without ``keep_failed`` an incompatible definition leaves no FAILURE version behind and raises
        :class:`IncompatibleSchemaVersion` with the reasons instead (the Confluent surface's 409).

        Raises:
            InvalidInputException: an invalid definition, or the schema's compatibility is DISABLED.
            EntityNotFoundException: no such schema.
            ResourceNumberLimitExceededException: the schema has Glue's maximum of versions.
        """
        with self.store.write() as session:
            registry, schema = find_schema(session, self.scope, ref, for_update=True)
            data_format = DataFormat(schema.data_format)
            text, digest = checked_definition(data_format, definition)
            same = session.scalars(select(SchemaVersionRow).where(
                SchemaVersionRow.schema_id == schema.id, SchemaVersionRow.canonical_hash == digest)
                .order_by(SchemaVersionRow.number)).first()
            if same is not None:
                return version_model(self.scope, registry, schema, same)
            if schema.compatibility == Compatibility.DISABLED.value:
                raise InvalidInputException(
                    f"Compatibility DISABLED does not allow versioning. SchemaId: SchemaId(schemaArn="
                    f"{schema_arn(self.scope, registry.name, schema.name)}, schemaName={schema.name}, "
                    f"registryName={registry.name})")
            verdict = compat.check(data_format.value, schema.compatibility, text,
                                   earlier_definitions(session, schema))
            if not verdict.compatible and not keep_failed:
                raise IncompatibleSchemaVersion(
                    f"Schema being registered is incompatible with an earlier schema for subject {schema.name} "
                    f"under {schema.compatibility}: {'; '.join(verdict.reasons)}", tuple(verdict.reasons))
            status = VersionStatus.AVAILABLE if verdict.compatible else VersionStatus.FAILURE
            reason = None if verdict.compatible else "\n".join(verdict.reasons) or "incompatible"
            row = add_version(session, schema, text, digest, status, reason)
            return version_model(self.scope, registry, schema, row)

    def check(self, ref: SchemaRef, definition: str, against: int | None) -> compat.Verdict:
        """Whether ``definition`` could be registered: against the versions its mode compares it with
        (``against`` None), or against version ``against`` alone under the mode's one-version form."""
        with self.store.read() as session:
            registry, schema = find_schema(session, self.scope, ref)
            checked_definition(DataFormat(schema.data_format), definition)
            mode = schema.compatibility
            if against is None:
                previous = earlier_definitions(session, schema)
            else:
                _, _, row = find_version(session, self.scope, VersionRef(ref, None, against))
                previous, mode = [row.definition], mode.removesuffix("_ALL")
            return compat.check(schema.data_format, mode, definition, previous)

    def by_schema_id(self, schema_id: int) -> SchemaVersion:
        """The version whose numeric id (the Confluent schema id) is ``schema_id``.

        Raises:
            EntityNotFoundException: no version of this account and region has it.
        """
        with self.store.read() as session:
            found = session.execute(select(RegistryRow, SchemaRow, SchemaVersionRow)
                                    .join(SchemaRow, SchemaRow.registry_id == RegistryRow.id)
                                    .join(SchemaVersionRow, SchemaVersionRow.schema_id == SchemaRow.id)
                                    .where(RegistryRow.account_id == self.scope.account_id,
                                           RegistryRow.region == self.scope.region,
                                           SchemaVersionRow.id == schema_id)).one_or_none()
            if found is None:
                raise EntityNotFoundException(f"Schema {schema_id} not found")
            return version_model(self.scope, *found)

    def get(self, ref: VersionRef) -> SchemaVersion:
        """Mirror GetSchemaVersion: by SchemaVersionId, or by schema and number (or latest)."""
        with self.store.read() as session:
            return version_model(self.scope, *find_version(session, self.scope, ref))

    def by_definition(self, ref: SchemaRef, definition: str) -> SchemaVersion:
        """Mirror GetSchemaByDefinition: the version of ``ref`` whose definition is the same (canonically).

        Raises:
            EntityNotFoundException: no version has this definition.
        """
        with self.store.read() as session:
            registry, schema = find_schema(session, self.scope, ref)
            _, digest = checked_definition(DataFormat(schema.data_format), definition)
            row = session.scalars(select(SchemaVersionRow).where(
                SchemaVersionRow.schema_id == schema.id, SchemaVersionRow.canonical_hash == digest)
                .order_by(SchemaVersionRow.number)).first()
            if row is None:
                raise EntityNotFoundException(
                    f"Schema version is not found. No version of schema {schema.name} in registry {registry.name} "
                    "has this definition")
            return version_model(self.scope, registry, schema, row)

    def page(self, ref: SchemaRef, max_results: int, token: str | None) -> tuple[list[SchemaVersion], str | None]:
        """Mirror ListSchemaVersions: by version number, paginated."""
        after = decode_token(token, int) or 0
        with self.store.read() as session:
            registry, schema = find_schema(session, self.scope, ref)
            rows = list(session.scalars(select(SchemaVersionRow).where(
                SchemaVersionRow.schema_id == schema.id, SchemaVersionRow.number > after)
                .order_by(SchemaVersionRow.number).limit(max_results + 1)))
            found = [version_model(self.scope, registry, schema, row) for row in rows[:max_results]]
        return found, encode_token(found[-1].number) if len(rows) > max_results else None

    def diff(self, ref: SchemaRef, first: int, second: int) -> str:
        """Mirror GetSchemaVersionsDiff (``SYNTAX_DIFF``): a JSON Patch from the first version to the second.

        Protobuf definitions are compared as lists of their non-blank lines.
        """
        with self.store.read() as session:
            _, _, one = find_version(session, self.scope, VersionRef(ref, None, first))
            registry, schema, two = find_version(session, self.scope, VersionRef(ref, None, second))
            data_format = schema.data_format
        patch = json_patch(_document(data_format, one.definition), _document(data_format, two.definition))
        return json.dumps(patch)

    def delete(self, ref: SchemaRef, versions: str) -> list[tuple[int, GlueError]]:
        """Mirror DeleteSchemaVersions: each version of the range is removed on its own; the checkpoint
        version and versions that do not exist are reported, not removed. The latest version moves back to
        the newest AVAILABLE one left."""
        numbers = parse_range(versions)
        errors: list[tuple[int, GlueError]] = []
        with self.store.write() as session:
            _, schema = find_schema(session, self.scope, ref, for_update=True)
            rows = {row.number: row for row in session.scalars(select(SchemaVersionRow).where(
                SchemaVersionRow.schema_id == schema.id, SchemaVersionRow.number.between(numbers[0], numbers[-1])))}
            for number in numbers:
                row = rows.get(number)
                if row is None:
                    errors.append((number, EntityNotFoundException(f"Schema version {number} is not found.")))
                elif number == schema.checkpoint:
                    errors.append((number, InvalidInputException(
                        f"Schema version {number} is the checkpoint of schema {schema.name} and cannot be deleted.")))
                else:
                    session.delete(row)
            session.flush()
            latest = session.scalar(select(func.max(SchemaVersionRow.number)).where(
                SchemaVersionRow.schema_id == schema.id, SchemaVersionRow.status == VersionStatus.AVAILABLE.value))
            schema.latest_version = int(latest or 0)
            schema.updated = now()
        return errors

    # -- metadata -------------------------------------------------------------------------------

    def put_metadata(self, ref: VersionRef, key: str, value: str) -> SchemaVersion:
        """Mirror PutSchemaVersionMetadata.

        Raises:
            AlreadyExistsException: the version already has this key-value pair.
            ResourceNumberLimitExceededException: the version has Glue's maximum of pairs.
        """
        with self.store.write() as session:
            registry, schema, version = find_version(session, self.scope, ref, for_update=True)
            pairs = list(session.scalars(select(SchemaVersionMetadataRow).where(
                SchemaVersionMetadataRow.version_row_id == version.id)))
            if any(p.key == key and p.value == value for p in pairs):
                raise AlreadyExistsException(f"Resource already exist for schema version id: {version.version_id}, "
                                             f"metadata key: {key}, metadata value: {value}")
            if len(pairs) >= MAX_METADATA_PER_VERSION:
                raise ResourceNumberLimitExceededException(
                    f"Your resource limits for Schema Version Metadata have been exceeded: a version has at most "
                    f"{MAX_METADATA_PER_VERSION} key-value pairs.")
            session.add(SchemaVersionMetadataRow(version_row_id=version.id, key=key, value=value, created=now()))
            return version_model(self.scope, registry, schema, version)

    def remove_metadata(self, ref: VersionRef, key: str, value: str) -> SchemaVersion:
        """Mirror RemoveSchemaVersionMetadata.

        Raises:
            EntityNotFoundException: the version has no such key-value pair.
        """
        with self.store.write() as session:
            registry, schema, version = find_version(session, self.scope, ref, for_update=True)
            row = session.scalars(select(SchemaVersionMetadataRow).where(
                SchemaVersionMetadataRow.version_row_id == version.id, SchemaVersionMetadataRow.key == key,
                SchemaVersionMetadataRow.value == value)).one_or_none()
            if row is None:
                raise EntityNotFoundException(f"Metadata is not found for schema version id: {version.version_id}, "
                                              f"metadata key: {key}, metadata value: {value}")
            session.delete(row)
            return version_model(self.scope, registry, schema, version)

    def query_metadata(self, ref: VersionRef, wanted: list[tuple[str, str | None]], max_results: int,
                       token: str | None) -> tuple[SchemaVersion, dict[str, list[MetadataEntry]], str | None]:
        """Mirror QuerySchemaVersionMetadata: the version's pairs by key (newest value first), only the keys
        (and values) ``wanted`` names when it names any; keys paginated in order."""
        after = decode_token(token, str)
        with self.store.read() as session:
            registry, schema, version = find_version(session, self.scope, ref)
            rows = session.scalars(select(SchemaVersionMetadataRow).where(
                SchemaVersionMetadataRow.version_row_id == version.id).order_by(
                SchemaVersionMetadataRow.key, SchemaVersionMetadataRow.created.desc(),
                SchemaVersionMetadataRow.id.desc()))
            by_key: dict[str, list[MetadataEntry]] = {}
            for row in rows:
                if wanted and not any(row.key == k and (v is None or row.value == v) for k, v in wanted):
                    continue
                by_key.setdefault(row.key, []).append(MetadataEntry(row.key, row.value, row.created))
            model = version_model(self.scope, registry, schema, version)
        keys = [k for k in sorted(by_key) if after is None or k > after]
        page = {k: by_key[k] for k in keys[:max_results]}
        return model, page, encode_token(keys[max_results - 1]) if len(keys) > max_results else None


def check_validity(data_format: DataFormat, definition: str) -> str | None:
    """Mirror CheckSchemaVersionValidity: None for a valid definition, else the parser's message."""
    try:
        compat.validate(data_format.value, definition)
    except compat.InvalidSchemaDefinition as e:
        return str(e) or "The schema definition is not valid"
    return None

"""``StorageDescriptor.SchemaReference`` of catalog tables: the schema version a table takes its columns from.

A reference names its schema by ``SchemaId`` (``SchemaArn``, or ``RegistryName`` and ``SchemaName``) and the
version by ``SchemaVersionNumber``, or names the version by ``SchemaVersionId`` alone; with neither, it
follows the schema's latest version, so a table shows a new version's columns as soon as it is registered.
"""

from __future__ import annotations

from typing import Any

from glueball.errors import InvalidInputException
from glueball.registry.columns import columns_of
from glueball.registry.models import SchemaRef, SchemaVersion, VersionRef
from glueball.registry.versions import VersionService
from glueball.store.engine import Store
from glueball.store.scoped import Scope


def version_ref_of(reference: dict[str, Any]) -> VersionRef:
    """The version a ``SchemaReference`` names (the latest when it names no number and no id).

    Raises:
        InvalidInputException: it names neither a schema nor a version id, or both a version id and a number.
    """
    version_id = reference.get("SchemaVersionId")
    number = reference.get("SchemaVersionNumber")
    schema_id = reference.get("SchemaId")
    if version_id is not None:
        if number is not None:
            raise InvalidInputException(
                "SchemaReference: give SchemaVersionId or SchemaVersionNumber, not both")
        return VersionRef(None, version_id)
    if not schema_id:
        raise InvalidInputException("SchemaReference needs SchemaId (with an optional SchemaVersionNumber) "
                                    "or SchemaVersionId")
    schema = SchemaRef(schema_id.get("SchemaArn"), schema_id.get("RegistryName"), schema_id.get("SchemaName"))
    return VersionRef(schema, None, number, number is None)


def referenced_version(store: Store, scope: Scope, reference: dict[str, Any]) -> SchemaVersion:
    """The schema version ``reference`` names, as it is now."""
    return VersionService(store, scope).get(version_ref_of(reference))


def referenced_columns(store: Store, scope: Scope, reference: dict[str, Any]) -> list[dict[str, str]]:
    """The catalog ``Columns`` of the version ``reference`` names.

    Raises:
        InvalidInputException: a malformed reference, or a version whose schema is not a record.
        EntityNotFoundException: no such schema or version.
    """
    version = referenced_version(store, scope, reference)
    try:
        return columns_of(version.schema.data_format.value, version.definition)
    except ValueError as e:
        raise InvalidInputException(f"SchemaReference to {version.schema.arn} version {version.number}: {e}") from None

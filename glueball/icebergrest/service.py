"""The REST catalog's logic over the Glue API: namespaces are databases, tables are ICEBERG Glue tables.

A commit reads the table (its metadata file and Glue ``VersionId``), checks the request's requirements against
that metadata, applies its updates (pyiceberg's ``update_table_metadata``), writes the next metadata file and
swaps the table's ``metadata_location`` with ``UpdateTable(VersionId=...)``: of two commits from the same base,
Glue lets one through and the other gets ``CommitFailedException``, which Iceberg clients answer by refreshing
and retrying.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from glueball.icebergrest import metadata as meta
from glueball.icebergrest.area import IcebergRestNeeds
from glueball.icebergrest.errors import (
    AlreadyExistsException,
    BadRequestException,
    CommitFailedException,
    ForbiddenException,
    IcebergRestError,
    NamespaceNotEmptyException,
    NoSuchNamespaceException,
    NoSuchTableException,
    ServiceUnavailableException,
    SlowDownException,
)

__all__ = ["RestCatalog", "glue_refusal"]

_LOCATION = "location"
_COMMENT = "comment"


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _message(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Message", ""))


def glue_refusal(exc: ClientError) -> IcebergRestError:
    """What a Glue API error the caller met is in the REST spec's terms: denied (403), throttled (429), bad input
    (400), something missing (404); anything else is the server failing (503), never a bare 500."""
    code, message = _code(exc), _message(exc) or _code(exc)
    if code in ("AccessDeniedException", "UnrecognizedClientException", "ExpiredTokenException"):
        return ForbiddenException(message)
    if code == "ThrottlingException":
        return SlowDownException(message)
    if code in ("InvalidInputException", "ValidationException", "ResourceNumberLimitExceededException"):
        return BadRequestException(message)
    if code == "EntityNotFoundException":
        return (NoSuchNamespaceException if "database" in message.lower() else NoSuchTableException)(message)
    return ServiceUnavailableException(f"{code}: {message}")


class RestCatalog:
    """One request's catalog: the caller's Glue client, and the object store's files."""

    def __init__(self, needs: IcebergRestNeeds, glue: Any) -> None:
        self.needs = needs
        self.glue = glue

    # -- namespaces

    def namespaces(self) -> list[str]:
        names: list[str] = []
        for page in self.glue.get_paginator("get_databases").paginate():
            names.extend(d["Name"] for d in page["DatabaseList"])
        return names

    def namespace(self, name: str) -> dict[str, str]:
        """A namespace's properties: the database's parameters, its location and description."""
        try:
            database = self.glue.get_database(Name=name)["Database"]
        except ClientError as exc:
            if _code(exc) == "EntityNotFoundException":
                raise NoSuchNamespaceException(f"Namespace does not exist: {name}") from None
            raise
        properties = dict(database.get("Parameters") or {})
        if database.get("LocationUri"):
            properties[_LOCATION] = database["LocationUri"]
        if database.get("Description"):
            properties[_COMMENT] = database["Description"]
        return properties

    def create_namespace(self, name: str, properties: dict[str, str]) -> None:
        database: dict[str, Any] = {"Name": name, "Parameters": {
            k: v for k, v in properties.items() if k not in (_LOCATION, _COMMENT)}}
        if properties.get(_LOCATION):
            database["LocationUri"] = properties[_LOCATION]
        if properties.get(_COMMENT):
            database["Description"] = properties[_COMMENT]
        try:
            self.glue.create_database(DatabaseInput=database)
        except ClientError as exc:
            if _code(exc) == "AlreadyExistsException":
                raise AlreadyExistsException(f"Namespace already exists: {name}") from None
            if _code(exc) == "InvalidInputException":
                raise BadRequestException(_message(exc)) from None
            raise

    def update_namespace(self, name: str, removals: list[str], updates: dict[str, str]) -> dict[str, list[str]]:
        """Set and remove properties; returns the spec's ``updated``, ``removed`` and ``missing``."""
        overlap = set(removals) & set(updates)
        if overlap:
            raise BadRequestException(f"Properties both updated and removed: {sorted(overlap)}")
        current = self.namespace(name)
        missing = [k for k in removals if k not in current]
        merged = {k: v for k, v in current.items() if k not in removals}
        merged.update(updates)
        database: dict[str, Any] = {"Name": name, "Parameters": {
            k: v for k, v in merged.items() if k not in (_LOCATION, _COMMENT)}}
        if merged.get(_LOCATION):
            database["LocationUri"] = merged[_LOCATION]
        if merged.get(_COMMENT):
            database["Description"] = merged[_COMMENT]
        self.glue.update_database(Name=name, DatabaseInput=database)
        return {"updated": sorted(updates), "removed": sorted(k for k in removals if k in current),
                "missing": missing}

    def drop_namespace(self, name: str) -> None:
        self.namespace(name)
        if self.glue.get_tables(DatabaseName=name, MaxResults=1)["TableList"]:
            raise NamespaceNotEmptyException(f"Namespace {name} is not empty: drop its tables first")
        self.glue.delete_database(Name=name)

    # -- tables

    def tables(self, namespace: str) -> list[str]:
        self.namespace(namespace)
        names: list[str] = []
        for page in self.glue.get_paginator("get_tables").paginate(DatabaseName=namespace):
            names.extend(t["Name"] for t in page["TableList"]
                         if str((t.get("Parameters") or {}).get("table_type", "")).upper() == meta.GLUE_TABLE_TYPE)
        return names

    def _glue_table(self, namespace: str, name: str) -> dict[str, Any]:
        try:
            table: dict[str, Any] = self.glue.get_table(DatabaseName=namespace, Name=name)["Table"]
        except ClientError as exc:
            if _code(exc) == "EntityNotFoundException":
                self.namespace(namespace)  # NoSuchNamespaceException when it is the namespace that is missing
                raise NoSuchTableException(f"Table does not exist: {namespace}.{name}") from None
            raise
        if str((table.get("Parameters") or {}).get("table_type", "")).upper() != meta.GLUE_TABLE_TYPE:
            raise NoSuchTableException(f"Table {namespace}.{name} is not an Iceberg table (its table_type is "
                                       f"{(table.get('Parameters') or {}).get('table_type')!r})")
        return table

    def load(self, namespace: str, name: str) -> tuple[dict[str, Any], str, Any]:
        """The Glue table, its metadata location and its metadata.

        Raises:
            NoSuchTableException / NoSuchNamespaceException.
        """
        table = self._glue_table(namespace, name)
        location = str((table.get("Parameters") or {}).get("metadata_location") or "")
        if not location:
            raise NoSuchTableException(f"Iceberg table {namespace}.{name} has no metadata_location")
        try:
            return table, location, meta.parse(self.needs.read_object(location))
        except FileNotFoundError:
            raise NoSuchTableException(f"The metadata file of {namespace}.{name} is gone: {location}") from None

    def create(self, namespace: str, request: Any) -> tuple[str, Any]:
        """A new table (``CreateTableRequest``): its first metadata file, then the Glue table. A staged create
        writes nothing: the client commits it later with ``assert-create``."""
        from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC
        from pyiceberg.table.metadata import new_table_metadata
        from pyiceberg.table.sorting import UNSORTED_SORT_ORDER

        properties = self.namespace(namespace)
        location = request.location or self._default_location(namespace, request.name, properties)
        metadata = new_table_metadata(request.table_schema, request.partition_spec or UNPARTITIONED_PARTITION_SPEC,
                                      request.write_order or UNSORTED_SORT_ORDER, location.rstrip("/"),
                                      request.properties)
        if request.stage_create:
            return "", metadata
        if self._exists(namespace, request.name):
            raise AlreadyExistsException(f"Table already exists: {namespace}.{request.name}")
        metadata_location = meta.metadata_file(metadata.location, 0)
        self.needs.write_object(metadata_location, meta.to_json(metadata))
        self._create_glue_table(namespace, request.name, metadata, metadata_location)
        return metadata_location, metadata

    def register(self, namespace: str, name: str, metadata_location: str) -> tuple[str, Any]:
        self.namespace(namespace)
        try:
            metadata = meta.parse(self.needs.read_object(metadata_location))
        except FileNotFoundError:
            raise BadRequestException(f"No metadata file at {metadata_location}") from None
        self._create_glue_table(namespace, name, metadata, metadata_location)
        return metadata_location, metadata

    def _create_glue_table(self, namespace: str, name: str, metadata: Any, metadata_location: str) -> None:
        try:
            self.glue.create_table(DatabaseName=namespace,
                                   TableInput=meta.glue_table_input(name, metadata, metadata_location))
        except ClientError as exc:
            if _code(exc) == "AlreadyExistsException":
                raise AlreadyExistsException(f"Table already exists: {namespace}.{name}") from None
            raise

    def _exists(self, namespace: str, name: str) -> bool:
        try:
            self.glue.get_table(DatabaseName=namespace, Name=name)
            return True
        except ClientError as exc:
            if _code(exc) == "EntityNotFoundException":
                return False
            raise

    def _default_location(self, namespace: str, name: str, properties: dict[str, str]) -> str:
        """``<namespace location>/<table>``, as Iceberg's GlueCatalog places a table of a database with one."""
        if properties.get(_LOCATION):
            return f"{properties[_LOCATION].rstrip('/')}/{name}"
        raise BadRequestException(f"Table {namespace}.{name} needs a location: neither the request nor the "
                                  f"namespace's properties give one")

    def commit(self, namespace: str, name: str, request: Any) -> tuple[str, Any]:
        """Apply a ``CommitTableRequest``: requirements checked, updates applied, the metadata swapped by Glue's
        ``VersionId``.

        Raises:
            CommitFailedException: a requirement does not hold, or another commit won the swap.
            NoSuchTableException: no such table (and no ``assert-create``).
        """
        from pyiceberg.exceptions import CommitFailedException as Failed
        from pyiceberg.schema import Schema
        from pyiceberg.table.metadata import TableMetadataV1
        from pyiceberg.table.update import AssertCreate, update_table_metadata

        creating = any(isinstance(r, AssertCreate) for r in request.requirements)
        table: dict[str, Any] | None = None
        old_location: str | None = None
        if creating:
            self.namespace(namespace)
            if self._exists(namespace, name):
                raise CommitFailedException(f"Table already exists: {namespace}.{name}")
            # no schema, spec or order yet: the create's own updates add them (as pyiceberg's catalogs start one)
            base = TableMetadataV1.model_construct(last_column_id=-1, schema=Schema())
        else:
            table, old_location, base = self.load(namespace, name)
        try:
            for requirement in request.requirements:
                requirement.validate(None if creating else base)
            updated = update_table_metadata(base, tuple(request.updates), enforce_validation=True,
                                            metadata_location=old_location)
        except Failed as exc:
            raise CommitFailedException(str(exc)) from None
        except ValueError as exc:
            raise BadRequestException(f"The commit's updates cannot be applied: {exc}") from None
        version = meta.version_of(old_location) + 1 if old_location else 0
        new_location = meta.metadata_file(updated.location, version)
        self.needs.write_object(new_location, meta.to_json(updated))
        if table is None:
            try:
                self._create_glue_table(namespace, name, updated, new_location)
            except AlreadyExistsException as exc:
                raise CommitFailedException(exc.message) from None
            return new_location, updated
        table_input = meta.glue_table_input(name, updated, new_location, old_location, base=table)
        try:
            self.glue.update_table(DatabaseName=namespace, TableInput=table_input, VersionId=table["VersionId"])
        except ClientError as exc:
            if _code(exc) == "ConcurrentModificationException":
                raise CommitFailedException(f"Table {namespace}.{name} was committed meanwhile: "
                                            f"{_message(exc)}") from None
            if _code(exc) == "EntityNotFoundException":
                raise NoSuchTableException(f"Table does not exist: {namespace}.{name}") from None
            raise
        return new_location, updated

    def drop(self, namespace: str, name: str) -> None:
        self._glue_table(namespace, name)
        self.glue.delete_table(DatabaseName=namespace, Name=name)

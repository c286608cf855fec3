"""Glue ML transforms (FindMatches) as stored resources, per account and region.

CreateMLTransform checks what Glue checks before any training: the input tables exist (the
transform's Schema is the first table's columns), the primary key column is one of them, capacity
is given one way (``MaxCapacity``, or ``WorkerType`` with ``NumberOfWorkers``), and SSE-KMS names its
key. A transform stays NOT_READY: glueball does not train FindMatches models, so every task run
operation is refused with a message that says so (docs/ml-transforms.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.errors import (
    AlreadyExistsException,
    EntityNotFoundException,
    GlueError,
    InvalidInputException,
    MLTransformNotReadyException,
)
from glueball.mltransforms.models import MLTransform, TransformFilter
from glueball.store.documents import Document, Documents, document_exists, resource_id_exists
from glueball.store.engine import Store
from glueball.store.resource_tables import ML_TRANSFORM, SECURITY_CONFIGURATION
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, register_resource_type, write_tags

ARN_KIND = "mlTransform"
NOUN = "Transform"
TableColumns = Callable[[Scope, str, str], list[dict[str, Any]]]
_SORT_KEYS: dict[str, Callable[[MLTransform], Any]] = {
    "NAME": lambda t: t.name, "TRANSFORM_TYPE": lambda t: t.transform_type, "STATUS": lambda t: t.status,
    "CREATED": lambda t: t.created, "LAST_MODIFIED": lambda t: t.modified,
}


def _model(document: Document) -> MLTransform:
    return MLTransform.from_spec(document.name, document.spec, document.create_time, document.update_time)


class MLTransformService:
    """Create, read, list, update and delete ML transforms (by TransformId, as Glue addresses them)."""

    def __init__(self, store: Store, scope: Scope, table_columns: TableColumns) -> None:
        self.store = store
        self.scope = scope
        self.table_columns = table_columns
        self.documents = Documents(store, scope, ML_TRANSFORM, NOUN, ARN_KIND)

    def arn(self, transform_id: str) -> str:
        return self.scope.arn(f"{ARN_KIND}/{transform_id}")

    def _check(self, transform: MLTransform) -> None:
        settings = transform.settings
        if settings.get("MaxCapacity") is not None and (settings.get("WorkerType") or settings.get("NumberOfWorkers")):
            raise InvalidInputException("MaxCapacity cannot be given with WorkerType or NumberOfWorkers")
        if (settings.get("WorkerType") is None) != (settings.get("NumberOfWorkers") is None):
            raise InvalidInputException("WorkerType and NumberOfWorkers must be given together")
        parameters = settings["Parameters"]
        matches = parameters.get("FindMatchesParameters") or {}
        key = matches.get("PrimaryKeyColumnName")
        if parameters["TransformType"] == "FIND_MATCHES" and not key:
            raise InvalidInputException("FindMatchesParameters.PrimaryKeyColumnName is required for FIND_MATCHES")
        if key and key.lower() not in {c["Name"].lower() for c in transform.schema}:
            raise InvalidInputException(f"PrimaryKeyColumnName {key} is not a column of the input table "
                                        f"{transform.input_tables[0]['DatabaseName']}."
                                        f"{transform.input_tables[0]['TableName']}")
        encryption = settings.get("TransformEncryption") or {}
        user_data = encryption.get("MlUserDataEncryption") or {}
        if user_data.get("MlUserDataEncryptionMode") == "SSE-KMS" and not user_data.get("KmsKeyId"):
            raise InvalidInputException("MlUserDataEncryption.KmsKeyId is required when MlUserDataEncryptionMode "
                                        "is SSE-KMS")
        configuration = encryption.get("TaskRunSecurityConfigurationName")
        if configuration:
            with self.store.read() as session:
                if not document_exists(session, self.scope, SECURITY_CONFIGURATION, configuration):
                    raise InvalidInputException(f"Security configuration {configuration} not found.")

    def _schema(self, tables: list[dict[str, Any]]) -> list[dict[str, str]]:
        if not tables:  # the model allows an empty list; a transform without records has no schema
            raise InvalidInputException("InputRecordTables must name at least one table: the transform's "
                                        "records and schema come from it")
        schemas = []
        for table in tables:
            try:
                columns = self.table_columns(self.scope, table["DatabaseName"], table["TableName"])
            except EntityNotFoundException as err:
                raise InvalidInputException(f"InputRecordTables: {err.message}") from err
            schemas.append([{"Name": c["Name"], "DataType": c.get("Type", "")} for c in columns])
        return schemas[0]

    def create(self, name: str, input_tables: list[dict[str, Any]], settings: dict[str, Any],
               tags: Mapping[str, str] | None = None) -> str:
        """Mirror CreateMLTransform; returns the TransformId.

        Raises:
            InvalidInputException: an input table does not exist, or a check of :meth:`_check` fails.
            AlreadyExistsException: a transform of this name exists.
        """
        transform = MLTransform(transform_id=f"tfm-{uuid.uuid4().hex}", name=name, input_tables=input_tables,
                                settings=settings, schema=self._schema(input_tables))
        self._check(transform)

        def tag(session: Session, _name: str) -> None:
            write_tags(session, self.arn(transform.transform_id), tags)

        self.documents.create(name, transform.to_spec(), now(), transform.transform_id, on_create=tag)
        return transform.transform_id

    def get(self, transform_id: str) -> MLTransform:
        """Mirror GetMLTransform.

        Raises:
            EntityNotFoundException: no transform with this id.
        """
        return _model(self.documents.get(self.documents.name_of(transform_id)))

    def list(self, transform_filter: TransformFilter, sort: tuple[str, bool] | None, max_results: int,
             token: str | None, tags: Mapping[str, str] | None = None) -> tuple[list[MLTransform], str | None]:
        """Mirror GetMLTransforms and ListMLTransforms: the transforms that pass the filter, sorted (by name
        unless ``sort`` says (column, descending)), one page at a time."""
        offset = decode_token(token, int) or 0
        documents = self.documents.tagged(self.documents.all(), tags, lambda d: self.arn(str(d.resource_id)))
        transforms = [t for t in map(_model, documents) if transform_filter.accepts(t)]
        if sort is not None:
            column, descending = sort
            transforms.sort(key=_SORT_KEYS[column], reverse=descending)
        page = transforms[offset:offset + max_results]
        more = offset + max_results < len(transforms)
        return page, encode_token(offset + max_results) if more else None

    def update(self, transform_id: str, name: str | None, changes: dict[str, Any]) -> None:
        """Mirror UpdateMLTransform: the given members replace the stored ones; a new Name renames it.

        Raises:
            EntityNotFoundException: no transform with this id.
            AlreadyExistsException: renaming onto another transform's name.
            InvalidInputException: the result fails a check of CreateMLTransform.
        """
        current = self.documents.name_of(transform_id)
        with self.store.write() as session:  # one transaction: a refused rename changes nothing
            row = self.documents.row(session, current, for_update=True)
            transform = _model(Document(row.name, row.resource_id, dict(row.spec), row.create_time, row.update_time))
            transform.settings.update(changes)
            self._check(transform)
            if name is not None and name != current:
                if self.documents.exists(session, name):
                    raise AlreadyExistsException(f"{NOUN} {name} already exists.")
                row.name = name
            row.spec = transform.to_spec()
            row.update_time = now()

    def delete(self, transform_id: str) -> None:
        """Mirror DeleteMLTransform (its tags go with it).

        Raises:
            EntityNotFoundException: no transform with this id.
        """
        self.documents.delete(self.documents.name_of(transform_id),
                              on_delete=lambda session, _name: delete_tags(session, self.arn(transform_id)))

    def refuse_task_run(self, transform_id: str, operation: str,
                        error: type[GlueError] = MLTransformNotReadyException) -> GlueError:
        """The refusal (an ``error``) of a task run operation on an existing transform.

        Raises:
            EntityNotFoundException: no transform with this id.
        """
        self.get(transform_id)
        return error(
            f"{operation}: glueball stores ML transforms but does not run their task runs (FindMatches training, "
            f"labeling, label import and export, evaluation); transform {transform_id} stays NOT_READY")


def _transform_exists(session: Session, scope: Scope, transform_id: str) -> bool:
    return resource_id_exists(session, scope, ML_TRANSFORM, transform_id)


register_resource_type(ARN_KIND, _transform_exists)

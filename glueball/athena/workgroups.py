"""Workgroups, named queries, prepared statements and data catalogs of one account in one region.

Every account has the ``primary`` workgroup (made on first use, as Athena makes it) and the ``AwsDataCatalog``
data catalog (the Data Catalog itself: built in, never stored). A workgroup's ``WorkGroupConfiguration`` is kept
as given and applied to the queries run in it: its result location (the query's own unless
``EnforceWorkGroupConfiguration``), and ``BytesScannedCutoffPerQuery``. Tags live in the shared tag table, so
usage is grouped by them (``glueball usage --group-by tag:team``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from glueball.athena.errors import InvalidRequestException, ResourceNotFoundException
from glueball.athena.models import (
    AWS_DATA_CATALOG,
    PRIMARY,
    DataCatalog,
    NamedQuery,
    PreparedStatement,
    WorkGroup,
    WorkGroupState,
)
from glueball.store.athena_tables import (
    AthenaDataCatalogRow,
    AthenaNamedQueryRow,
    AthenaPreparedStatementRow,
    AthenaQueryRow,
    AthenaWorkGroupRow,
)
from glueball.store.engine import Store
from glueball.store.schema import TagRow
from glueball.store.scoped import Scope, find_scoped, scoped_query
from glueball.tagging.service import delete_tags, write_tags

_RESULT_UPDATES = {"OutputLocation": "RemoveOutputLocation", "EncryptionConfiguration":
                   "RemoveEncryptionConfiguration", "ExpectedBucketOwner": "RemoveExpectedBucketOwner",
                   "AclConfiguration": "RemoveAclConfiguration"}


def athena_arn(scope: Scope, kind: str, name: str) -> str:
    """``arn:aws:athena:<region>:<account>:<kind>/<name>`` (``workgroup``, ``datacatalog``)."""
    return f"arn:aws:athena:{scope.region}:{scope.account_id}:{kind}/{name}"


def check_output_location(location: str | None) -> None:
    """A result location is an ``s3://bucket/...`` URI.

    Raises:
        InvalidRequestException: it is not.
    """
    if location is not None and (not location.startswith("s3://") or len(location) <= len("s3://")):
        raise InvalidRequestException(f"outputLocation is not a valid S3 path: {location}")


def _tag_map(tags: list[dict[str, str]] | None) -> dict[str, str]:
    return {t["Key"]: t.get("Value", "") for t in tags or []}


class Resources:
    """The workgroups, named queries, prepared statements and data catalogs of one scope."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    # -- workgroups

    def workgroup(self, name: str | None) -> WorkGroup:
        """The workgroup ``name`` (``primary`` when None, made on first use).

        Raises:
            InvalidRequestException: no such workgroup (Athena's answer for an unknown one).
        """
        name = name or PRIMARY
        with self.store.read() as db:  # a write only the first time: every StartQueryExecution asks
            row = find_scoped(db, AthenaWorkGroupRow, self.scope, name)
            if row is not None:
                return _workgroup(row)
        if name != PRIMARY:
            raise InvalidRequestException(f"WorkGroup {name} is not found.")
        with self.store.write() as db:
            row = find_scoped(db, AthenaWorkGroupRow, self.scope, name)
            if row is None:
                # as Athena makes it: the clients' settings (their result location) apply, none enforced
                row = AthenaWorkGroupRow(account_id=self.scope.account_id, region=self.scope.region, name=PRIMARY,
                                         state=WorkGroupState.ENABLED,
                                         configuration={"EnforceWorkGroupConfiguration": False}, created=time.time())
                db.add(row)
                db.flush()
            return _workgroup(row)

    def create_workgroup(self, name: str, configuration: dict[str, Any] | None, description: str | None,
                         tags: list[dict[str, str]] | None) -> None:
        check_output_location((configuration or {}).get("ResultConfiguration", {}).get("OutputLocation"))
        self.workgroup(PRIMARY)
        with self.store.write() as db:
            if find_scoped(db, AthenaWorkGroupRow, self.scope, name) is not None:
                raise InvalidRequestException(f"WorkGroup {name} already exists")
            db.add(AthenaWorkGroupRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                      state=WorkGroupState.ENABLED, configuration=dict(configuration or {}),
                                      description=description, created=time.time()))
            write_tags(db, athena_arn(self.scope, "workgroup", name), _tag_map(tags))

    def update_workgroup(self, name: str, description: str | None, updates: dict[str, Any] | None,
                         state: str | None) -> None:
        """UpdateWorkGroup: each ``ConfigurationUpdates`` member replaces the configuration's, and the
        ``Remove...`` flags remove theirs."""
        self.workgroup(name)
        with self.store.write() as db:
            row = find_scoped(db, AthenaWorkGroupRow, self.scope, name, for_update=True)
            assert row is not None
            configuration = dict(row.configuration)
            for key, value in (updates or {}).items():
                if key == "ResultConfigurationUpdates":
                    result = dict(configuration.get("ResultConfiguration") or {})
                    for member, remover in _RESULT_UPDATES.items():
                        if value.get(remover):
                            result.pop(member, None)
                        elif member in value:
                            result[member] = value[member]
                    check_output_location(result.get("OutputLocation"))
                    configuration["ResultConfiguration"] = result
                elif key == "RemoveBytesScannedCutoffPerQuery":
                    if value:
                        configuration.pop("BytesScannedCutoffPerQuery", None)
                elif key.startswith("Remove"):
                    if value:
                        configuration.pop(key.removeprefix("Remove"), None)
                else:
                    configuration[key] = value
            row.configuration = configuration
            if description is not None:
                row.description = description
            if state is not None:
                row.state = state

    def delete_workgroup(self, name: str, recursive: bool) -> None:
        """DeleteWorkGroup: ``primary`` cannot be deleted; one with named queries needs ``RecursiveDeleteOption``."""
        if name == PRIMARY:
            raise InvalidRequestException("Cannot delete primary workgroup")
        self.workgroup(name)
        with self.store.write() as db:
            named = db.scalar(select(func.count()).select_from(AthenaNamedQueryRow).where(
                AthenaNamedQueryRow.account_id == self.scope.account_id, AthenaNamedQueryRow.region ==
                self.scope.region, AthenaNamedQueryRow.workgroup == name))
            if named and not recursive:
                raise InvalidRequestException(f"WorkGroup {name} is not empty: it has {named} named queries (set "
                                              "RecursiveDeleteOption to delete them with it)")
            for table in (AthenaNamedQueryRow, AthenaPreparedStatementRow):
                db.execute(delete(table).where(table.account_id == self.scope.account_id,
                                               table.region == self.scope.region, table.workgroup == name))
            db.execute(delete(AthenaWorkGroupRow).where(AthenaWorkGroupRow.account_id == self.scope.account_id,
                                                        AthenaWorkGroupRow.region == self.scope.region,
                                                        AthenaWorkGroupRow.name == name))
            delete_tags(db, athena_arn(self.scope, "workgroup", name))

    def workgroups(self) -> list[WorkGroup]:
        self.workgroup(PRIMARY)
        with self.store.read() as db:
            return [_workgroup(r) for r in db.scalars(scoped_query(AthenaWorkGroupRow, self.scope).order_by(
                AthenaWorkGroupRow.name))]

    # -- named queries

    def create_named_query(self, request: Mapping[str, Any]) -> str:
        workgroup = self.workgroup(request.get("WorkGroup")).name
        token = request.get("ClientRequestToken")
        with self.store.write() as db:
            if token:
                found = db.scalar(select(AthenaNamedQueryRow).where(
                    AthenaNamedQueryRow.account_id == self.scope.account_id,
                    AthenaNamedQueryRow.region == self.scope.region, AthenaNamedQueryRow.client_token == token))
                if found is not None:
                    if (found.name, found.query_string, found.database) != (
                            request["Name"], request["QueryString"], request["Database"]):
                        raise InvalidRequestException("Idempotent parameters do not match: ClientRequestToken "
                                                      f"{token} was used for another named query")
                    return found.named_query_id
            named_id = str(uuid.uuid4())
            db.add(AthenaNamedQueryRow(account_id=self.scope.account_id, region=self.scope.region,
                                       named_query_id=named_id, name=request["Name"],
                                       description=request.get("Description"), database=request["Database"],
                                       query_string=request["QueryString"], workgroup=workgroup, client_token=token,
                                       created=time.time()))
            return named_id

    def named_query(self, named_id: str) -> NamedQuery:
        with self.store.read() as db:
            return _named(self._named_row(db, named_id))

    def _named_row(self, db: Session, named_id: str) -> AthenaNamedQueryRow:
        row = db.scalar(scoped_query(AthenaNamedQueryRow, self.scope).where(
            AthenaNamedQueryRow.named_query_id == named_id))
        if row is None:
            raise InvalidRequestException(f"NamedQuery {named_id} was not found")
        found: AthenaNamedQueryRow = row
        return found

    def update_named_query(self, named_id: str, name: str, description: str | None, query: str) -> None:
        with self.store.write() as db:
            row = self._named_row(db, named_id)
            row.name, row.query_string = name, query
            if description is not None:
                row.description = description

    def delete_named_query(self, named_id: str) -> None:
        with self.store.write() as db:
            db.delete(self._named_row(db, named_id))

    def named_queries(self, workgroup: str | None) -> list[NamedQuery]:
        name = self.workgroup(workgroup).name
        with self.store.read() as db:
            return [_named(r) for r in db.scalars(scoped_query(AthenaNamedQueryRow, self.scope).where(
                AthenaNamedQueryRow.workgroup == name).order_by(AthenaNamedQueryRow.created,
                                                                AthenaNamedQueryRow.id))]

    # -- prepared statements

    def put_prepared(self, workgroup: str | None, name: str, statement: str, description: str | None,
                     create: bool | None) -> None:
        """Create (``create`` True: refused if it exists), update (False: refused if it does not) or either
        (None: ``PREPARE``, which replaces a statement of the same name)."""
        group = self.workgroup(workgroup).name
        with self.store.write() as db:
            row = self._prepared_row(db, group, name, missing_ok=True)
            if row is not None and create:
                raise InvalidRequestException(f"Prepared statement {name} already exists in WorkGroup {group}")
            if row is None and create is False:
                raise ResourceNotFoundException(f"Prepared statement {name} was not found in WorkGroup {group}",
                                                name)
            if row is None:
                row = AthenaPreparedStatementRow(account_id=self.scope.account_id, region=self.scope.region,
                                                 workgroup=group, name=name)
                db.add(row)
            row.query_statement, row.last_modified = statement, time.time()
            if description is not None or create is not None:
                row.description = description

    def prepared(self, workgroup: str | None, name: str) -> PreparedStatement:
        group = self.workgroup(workgroup).name
        with self.store.read() as db:
            row = self._prepared_row(db, group, name)
            assert row is not None
            return _prepared(row)

    def delete_prepared(self, workgroup: str | None, name: str) -> None:
        group = self.workgroup(workgroup).name
        with self.store.write() as db:
            db.delete(self._prepared_row(db, group, name))

    def prepared_statements(self, workgroup: str | None) -> list[PreparedStatement]:
        group = self.workgroup(workgroup).name
        with self.store.read() as db:
            return [_prepared(r) for r in db.scalars(scoped_query(AthenaPreparedStatementRow, self.scope).where(
                AthenaPreparedStatementRow.workgroup == group).order_by(AthenaPreparedStatementRow.name))]

    def _prepared_row(self, db: Session, workgroup: str, name: str,
                      missing_ok: bool = False) -> AthenaPreparedStatementRow | None:
        row = db.scalar(scoped_query(AthenaPreparedStatementRow, self.scope).where(
            AthenaPreparedStatementRow.workgroup == workgroup, AthenaPreparedStatementRow.name == name))
        if row is None and not missing_ok:
            raise ResourceNotFoundException(f"Prepared statement {name} was not found in WorkGroup {workgroup}",
                                            name)
        found: AthenaPreparedStatementRow | None = row
        return found

    # -- data catalogs

    def create_catalog(self, name: str, kind: str, description: str | None, parameters: dict[str, str] | None,
                       tags: list[dict[str, str]] | None) -> None:
        """CreateDataCatalog: only ``GLUE`` catalogs of this account's Data Catalog (``catalog-id`` = the account)
        can be queried; others are refused, since glueball runs no Lambda or Hive connector."""
        if kind != "GLUE":
            raise InvalidRequestException(f"Data catalogs of type {kind} are not supported by glueball: it queries "
                                          "the Data Catalog (type GLUE) only")
        catalog_id = (parameters or {}).get("catalog-id", self.scope.account_id)
        if catalog_id != self.scope.account_id:
            raise InvalidRequestException(f"catalog-id {catalog_id}: glueball queries this account's Data Catalog "
                                          f"({self.scope.account_id}) only")
        with self.store.write() as db:
            if name.lower() == AWS_DATA_CATALOG.lower() or find_scoped(db, AthenaDataCatalogRow, self.scope,
                                                                       name) is not None:
                raise InvalidRequestException(f"DataCatalog {name} already exists")
            db.add(AthenaDataCatalogRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                        type=kind, description=description, parameters=dict(parameters or {})))
            write_tags(db, athena_arn(self.scope, "datacatalog", name), _tag_map(tags))

    def catalog(self, name: str) -> DataCatalog:
        if name.lower() == AWS_DATA_CATALOG.lower():
            return DataCatalog(AWS_DATA_CATALOG, "GLUE", "AWS Glue Data Catalog",
                               {"catalog-id": self.scope.account_id})
        with self.store.read() as db:
            row = find_scoped(db, AthenaDataCatalogRow, self.scope, name)
            if row is None:
                raise InvalidRequestException(f"DataCatalog {name} was not found")
            return DataCatalog(row.name, row.type, row.description, dict(row.parameters))

    def update_catalog(self, name: str, kind: str, description: str | None,
                       parameters: dict[str, str] | None) -> None:
        if name.lower() == AWS_DATA_CATALOG.lower():
            raise InvalidRequestException(f"{AWS_DATA_CATALOG} cannot be changed")
        self.catalog(name)
        if kind != "GLUE":
            raise InvalidRequestException(f"Data catalogs of type {kind} are not supported by glueball")
        with self.store.write() as db:
            row = find_scoped(db, AthenaDataCatalogRow, self.scope, name, for_update=True)
            assert row is not None
            row.description, row.parameters = description, dict(parameters or {})

    def delete_catalog(self, name: str) -> None:
        if name.lower() == AWS_DATA_CATALOG.lower():
            raise InvalidRequestException(f"{AWS_DATA_CATALOG} cannot be deleted")
        self.catalog(name)
        with self.store.write() as db:
            db.execute(delete(AthenaDataCatalogRow).where(AthenaDataCatalogRow.account_id == self.scope.account_id,
                                                          AthenaDataCatalogRow.region == self.scope.region,
                                                          AthenaDataCatalogRow.name == name))
            delete_tags(db, athena_arn(self.scope, "datacatalog", name))

    def catalogs(self) -> list[DataCatalog]:
        with self.store.read() as db:
            rows = list(db.scalars(scoped_query(AthenaDataCatalogRow, self.scope).order_by(AthenaDataCatalogRow.name)))
        return [self.catalog(AWS_DATA_CATALOG), *(DataCatalog(r.name, r.type, r.description, dict(r.parameters))
                                                 for r in rows)]

    # -- tags of workgroups and data catalogs

    def check_taggable(self, arn: str) -> None:
        """A workgroup's or data catalog's ARN of this scope, that exists.

        Raises:
            ResourceNotFoundException: anything else.
        """
        prefix = f"arn:aws:athena:{self.scope.region}:{self.scope.account_id}:"
        kind, _, name = arn.removeprefix(prefix).partition("/")
        if not arn.startswith(prefix) or kind not in ("workgroup", "datacatalog") or not name:
            raise ResourceNotFoundException(f"Resource {arn} is not a workgroup or data catalog of this account",
                                            arn)
        try:
            self.workgroup(name) if kind == "workgroup" else self.catalog(name)
        except InvalidRequestException:
            raise ResourceNotFoundException(f"{kind} {name} was not found", arn) from None

    def tags(self, arn: str) -> dict[str, str]:
        self.check_taggable(arn)
        with self.store.read() as db:
            return {r.key: r.value for r in db.scalars(select(TagRow).where(TagRow.resource_arn == arn))}

    def tag(self, arn: str, tags: list[dict[str, str]]) -> None:
        self.check_taggable(arn)
        with self.store.write() as db:
            write_tags(db, arn, _tag_map(tags))

    def untag(self, arn: str, keys: list[str]) -> None:
        self.check_taggable(arn)
        with self.store.write() as db:
            db.execute(delete(TagRow).where(TagRow.resource_arn == arn, TagRow.key.in_(keys)))

    def queries_of(self, workgroup: str) -> int:
        with self.store.read() as db:
            return int(db.scalar(select(func.count()).select_from(AthenaQueryRow).where(
                AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
                AthenaQueryRow.workgroup == workgroup)) or 0)


def _workgroup(row: AthenaWorkGroupRow) -> WorkGroup:
    return WorkGroup(row.name, WorkGroupState(row.state), dict(row.configuration), row.created, row.description)


def _named(row: AthenaNamedQueryRow) -> NamedQuery:
    return NamedQuery(row.named_query_id, row.name, row.database, row.query_string, row.workgroup, row.description)


def _prepared(row: AthenaPreparedStatementRow) -> PreparedStatement:
    return PreparedStatement(row.name, row.workgroup, row.query_statement, row.last_modified, row.description)

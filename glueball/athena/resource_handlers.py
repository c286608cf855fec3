"""Athena's workgroup, named query, prepared statement, data catalog, tag and catalog metadata operations: wire
shapes only.

ListDatabases, GetDatabase, ListTableMetadata and GetTableMetadata read the Data Catalog through the Glue API as
the caller (so ``--auth iam`` asks ``glue:GetDatabases``/``glue:GetTables`` ... as Athena does), in
``AwsDataCatalog`` or a GLUE data catalog registered over it.
"""

from __future__ import annotations

import fnmatch
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import decode_token, encode_token
from glueball.athena.area import OPERATIONS, AthenaNeeds
from glueball.athena.errors import InvalidRequestException, MetadataException
from glueball.athena.handlers import ENGINE_VERSION
from glueball.athena.models import DataCatalog, NamedQuery, PreparedStatement, WorkGroup
from glueball.athena.workgroups import Resources
from glueball.errors import InvalidInputException
from glueball.store.scoped import Scope

T = TypeVar("T")


def resources(needs: AthenaNeeds, caller: Caller) -> Resources:
    return Resources(needs.store, Scope(caller.account_id, caller.region))


def _page(items: list[T], key: Callable[[T], str], request: Request, default: int = 50) -> tuple[list[T], str | None]:
    try:
        after = decode_token(request.get("NextToken"), str)
    except InvalidInputException as err:
        raise InvalidRequestException(err.message, "INVALID_INPUT") from None
    size = int(request.get("MaxResults") or default)
    rest = [item for item in items if after is None or key(item) > after]
    page = rest[:size]
    return page, encode_token(key(page[-1])) if len(rest) > size else None


def _listed(member: str, items: list[Any], token: str | None) -> Response:
    response: dict[str, Any] = {member: items}
    if token:
        response["NextToken"] = token
    return response


def _workgroup_wire(group: WorkGroup) -> dict[str, Any]:
    configuration = {"EnforceWorkGroupConfiguration": True, "PublishCloudWatchMetricsEnabled": False,
                     "RequesterPaysEnabled": False, "EngineVersion": ENGINE_VERSION, **group.configuration}
    wire: dict[str, Any] = {"Name": group.name, "State": group.state.value, "Configuration": configuration,
                            "CreationTime": group.created}
    if group.description:
        wire["Description"] = group.description
    return wire


@OPERATIONS.operation("CreateWorkGroup")
def create_work_group(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).create_workgroup(request["Name"], request.get("Configuration"),
                                              request.get("Description"), request.get("Tags"))
    return {}


@OPERATIONS.operation("GetWorkGroup")
def get_work_group(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    return {"WorkGroup": _workgroup_wire(resources(needs, caller).workgroup(request["WorkGroup"]))}


@OPERATIONS.operation("ListWorkGroups")
def list_work_groups(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    page, token = _page(resources(needs, caller).workgroups(), lambda g: g.name, request)
    return _listed("WorkGroups", [{"Name": g.name, "State": g.state.value, "CreationTime": g.created,
                                   "EngineVersion": ENGINE_VERSION,
                                   **({"Description": g.description} if g.description else {})} for g in page], token)


@OPERATIONS.operation("UpdateWorkGroup")
def update_work_group(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).update_workgroup(request["WorkGroup"], request.get("Description"),
                                              request.get("ConfigurationUpdates"), request.get("State"))
    return {}


@OPERATIONS.operation("DeleteWorkGroup")
def delete_work_group(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).delete_workgroup(request["WorkGroup"], bool(request.get("RecursiveDeleteOption")))
    return {}


def _named_wire(named: NamedQuery) -> dict[str, Any]:
    wire = {"Name": named.name, "Database": named.database, "QueryString": named.query_string,
            "NamedQueryId": named.named_query_id, "WorkGroup": named.workgroup}
    if named.description:
        wire["Description"] = named.description
    return wire


@OPERATIONS.operation("CreateNamedQuery")
def create_named_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    return {"NamedQueryId": resources(needs, caller).create_named_query(request)}


@OPERATIONS.operation("GetNamedQuery")
def get_named_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    return {"NamedQuery": _named_wire(resources(needs, caller).named_query(request["NamedQueryId"]))}


@OPERATIONS.operation("BatchGetNamedQuery")
def batch_get_named_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    service = resources(needs, caller)
    found, missing = [], []
    for named_id in dict.fromkeys(request["NamedQueryIds"]):
        try:
            found.append(_named_wire(service.named_query(named_id)))
        except InvalidRequestException as err:
            missing.append({"NamedQueryId": named_id, "ErrorCode": "INVALID_INPUT", "ErrorMessage": err.message})
    return {"NamedQueries": found, "UnprocessedNamedQueryIds": missing}


@OPERATIONS.operation("ListNamedQueries")
def list_named_queries(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    named = resources(needs, caller).named_queries(request.get("WorkGroup"))
    ordered = {n.named_query_id: f"{index:010d}" for index, n in enumerate(named)}
    page, token = _page(named, lambda n: ordered[n.named_query_id], request)
    return _listed("NamedQueryIds", [n.named_query_id for n in page], token)


@OPERATIONS.operation("UpdateNamedQuery")
def update_named_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).update_named_query(request["NamedQueryId"], request["Name"], request.get("Description"),
                                                request["QueryString"])
    return {}


@OPERATIONS.operation("DeleteNamedQuery")
def delete_named_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).delete_named_query(request["NamedQueryId"])
    return {}


def _prepared_wire(statement: PreparedStatement) -> dict[str, Any]:
    wire = {"StatementName": statement.name, "QueryStatement": statement.query_statement,
            "WorkGroupName": statement.workgroup, "LastModifiedTime": statement.last_modified}
    if statement.description:
        wire["Description"] = statement.description
    return wire


@OPERATIONS.operation("CreatePreparedStatement")
def create_prepared_statement(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).put_prepared(request["WorkGroup"], request["StatementName"], request["QueryStatement"],
                                          request.get("Description"), True)
    return {}


@OPERATIONS.operation("UpdatePreparedStatement")
def update_prepared_statement(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).put_prepared(request["WorkGroup"], request["StatementName"], request["QueryStatement"],
                                          request.get("Description"), False)
    return {}


@OPERATIONS.operation("GetPreparedStatement")
def get_prepared_statement(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    return {"PreparedStatement": _prepared_wire(resources(needs, caller).prepared(request["WorkGroup"],
                                                                                 request["StatementName"]))}


@OPERATIONS.operation("BatchGetPreparedStatement")
def batch_get_prepared_statement(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    service = resources(needs, caller)
    found, missing = [], []
    for name in dict.fromkeys(request["PreparedStatementNames"]):
        try:
            found.append(_prepared_wire(service.prepared(request["WorkGroup"], name)))
        except Exception as err:  # noqa: BLE001 - each name answers alone
            missing.append({"StatementName": name, "ErrorCode": "RESOURCE_NOT_FOUND",
                            "ErrorMessage": getattr(err, "message", str(err))})
    return {"PreparedStatements": found, "UnprocessedPreparedStatementNames": missing}


@OPERATIONS.operation("ListPreparedStatements")
def list_prepared_statements(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    page, token = _page(resources(needs, caller).prepared_statements(request["WorkGroup"]), lambda s: s.name,
                        request)
    return _listed("PreparedStatements", [{"StatementName": s.name, "LastModifiedTime": s.last_modified}
                                          for s in page], token)


@OPERATIONS.operation("DeletePreparedStatement")
def delete_prepared_statement(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).delete_prepared(request["WorkGroup"], request["StatementName"])
    return {}


def _catalog_wire(catalog: DataCatalog) -> dict[str, Any]:
    wire: dict[str, Any] = {"Name": catalog.name, "Type": catalog.type, "Parameters": catalog.parameters,
                            "Status": "CREATE_COMPLETE"}
    if catalog.description:
        wire["Description"] = catalog.description
    return wire


@OPERATIONS.operation("CreateDataCatalog")
def create_data_catalog(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    service = resources(needs, caller)
    service.create_catalog(request["Name"], request["Type"], request.get("Description"), request.get("Parameters"),
                           request.get("Tags"))
    return {"DataCatalog": _catalog_wire(service.catalog(request["Name"]))}


@OPERATIONS.operation("GetDataCatalog")
def get_data_catalog(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    return {"DataCatalog": _catalog_wire(resources(needs, caller).catalog(request["Name"]))}


@OPERATIONS.operation("ListDataCatalogs")
def list_data_catalogs(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    page, token = _page(resources(needs, caller).catalogs(), lambda c: c.name, request)
    return _listed("DataCatalogsSummary", [{"CatalogName": c.name, "Type": c.type, "Status": "CREATE_COMPLETE"}
                                           for c in page], token)


@OPERATIONS.operation("UpdateDataCatalog")
def update_data_catalog(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).update_catalog(request["Name"], request["Type"], request.get("Description"),
                                            request.get("Parameters"))
    return {}


@OPERATIONS.operation("DeleteDataCatalog")
def delete_data_catalog(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    service = resources(needs, caller)
    catalog = service.catalog(request["Name"])
    service.delete_catalog(request["Name"])
    return {"DataCatalog": {**_catalog_wire(catalog), "Status": "DELETE_COMPLETE"}}


@OPERATIONS.operation("TagResource")
def tag_resource(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).tag(request["ResourceARN"], request["Tags"])
    return {}


@OPERATIONS.operation("UntagResource")
def untag_resource(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    resources(needs, caller).untag(request["ResourceARN"], request["TagKeys"])
    return {}


@OPERATIONS.operation("ListTagsForResource")
def list_tags_for_resource(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    tags = sorted(resources(needs, caller).tags(request["ResourceARN"]).items())
    page, token = _page(tags, lambda t: t[0], request, default=1000)
    return _listed("Tags", [{"Key": k, "Value": v} for k, v in page], token)


@OPERATIONS.operation("ListEngineVersions")
def list_engine_versions(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    return {"EngineVersions": [ENGINE_VERSION]}


# -- the Data Catalog, as Athena shows it


def _glue(needs: AthenaNeeds, caller: Caller, request: Request) -> Any:
    resources(needs, caller).catalog(request["CatalogName"])  # AwsDataCatalog, or a GLUE catalog over it
    if request.get("WorkGroup"):
        resources(needs, caller).workgroup(request["WorkGroup"])
    return needs.glue(caller)


def _glue_call(call: Callable[[], T]) -> T:
    """A Glue call's answer; Glue's refusals as Athena's (``MetadataException`` for what is not there)."""
    try:
        return call()
    except ClientError as err:
        code, message = err.response["Error"]["Code"], err.response["Error"].get("Message", "")
        if code == "EntityNotFoundException":
            # Athena passes the Data Catalog's error on in the AWS SDK's words, which clients read the code from
            # (PyAthena's SQLAlchemy dialect tells a missing table by it: has_table, to_sql to a new table)
            request_id = err.response.get("ResponseMetadata", {}).get("RequestId") or uuid.uuid4()
            raise MetadataException(f"{message} (Service: AmazonDataCatalog; Status Code: 400; Error Code: {code}; "
                                    f"Request ID: {request_id}; Proxy: null)") from None
        if code == "AccessDeniedException":
            raise InvalidRequestException(message, "ACCESS_DENIED") from None
        raise InvalidRequestException(f"{code}: {message}") from None


@OPERATIONS.operation("ListDatabases")
def list_databases(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    glue = _glue(needs, caller, request)
    databases = _glue_call(lambda: [d for page in glue.get_paginator("get_databases").paginate()
                                    for d in page["DatabaseList"]])
    page, token = _page(sorted(databases, key=lambda d: d["Name"]), lambda d: d["Name"], request)
    return _listed("DatabaseList", [_database_wire(d) for d in page], token)


def _database_wire(database: dict[str, Any]) -> dict[str, Any]:
    wire = {"Name": database["Name"], "Parameters": database.get("Parameters") or {}}
    if database.get("Description"):
        wire["Description"] = database["Description"]
    return wire


@OPERATIONS.operation("GetDatabase")
def get_database(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    glue = _glue(needs, caller, request)
    return {"Database": _database_wire(_glue_call(lambda: glue.get_database(Name=request["DatabaseName"])[
        "Database"]))}


def _table_wire(table: dict[str, Any]) -> dict[str, Any]:
    def columns(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: c[k] for k in ("Name", "Type", "Comment") if c.get(k) is not None} for c in found]

    descriptor = table.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    parameters = dict(table.get("Parameters") or {})
    # Athena gives the storage descriptor among the table's parameters: its location, formats and SerDe, and each
    # SerDe parameter as serde.param.<key> (PyAthena's SQLAlchemy dialect reflects a table's SERDEPROPERTIES,
    # ROW FORMAT, STORED AS and LOCATION from these)
    for key, value in (("location", descriptor.get("Location")), ("inputformat", descriptor.get("InputFormat")),
                       ("outputformat", descriptor.get("OutputFormat")),
                       ("serde.serialization.lib", serde.get("SerializationLibrary")),
                       *((f"serde.param.{k}", v) for k, v in (serde.get("Parameters") or {}).items())):
        if value or key.startswith("serde.param."):  # a SerDe parameter's empty value is a value
            parameters.setdefault(key, value)
    wire = {"Name": table["Name"], "TableType": table.get("TableType", "EXTERNAL_TABLE"),
            "Columns": columns(descriptor.get("Columns") or []),
            "PartitionKeys": columns(table.get("PartitionKeys") or []), "Parameters": parameters}
    for member in ("CreateTime", "LastAccessTime"):
        if table.get(member):  # the Glue client's datetime, Athena's epoch seconds on the wire
            wire[member] = _epoch(table[member])
    return wire


def _epoch(value: Any) -> float:
    return float(value.timestamp()) if hasattr(value, "timestamp") else float(value)


@OPERATIONS.operation("ListTableMetadata")
def list_table_metadata(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    """The database's tables; ``Expression`` is Athena's pattern on the name (``*`` any characters, ``|`` or)."""
    glue = _glue(needs, caller, request)
    tables = _glue_call(lambda: [t for page in glue.get_paginator("get_tables").paginate(
        DatabaseName=request["DatabaseName"]) for t in page["TableList"]])
    expression = request.get("Expression")
    if expression:
        patterns = [p.strip().lower() for p in expression.split("|")]
        tables = [t for t in tables if any(fnmatch.fnmatchcase(t["Name"].lower(), p) for p in patterns)]
    page, token = _page(sorted(tables, key=lambda t: t["Name"]), lambda t: t["Name"], request)
    return _listed("TableMetadataList", [_table_wire(t) for t in page], token)


@OPERATIONS.operation("GetTableMetadata")
def get_table_metadata(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    glue = _glue(needs, caller, request)
    return {"TableMetadata": _table_wire(_glue_call(lambda: glue.get_table(
        DatabaseName=request["DatabaseName"], Name=request["TableName"])["Table"]))}

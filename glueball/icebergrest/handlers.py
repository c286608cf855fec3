"""The Iceberg REST catalog's routes (``/iceberg/v1/...``): wire shapes only; the logic is :mod:`.service`.

Served: ``GET config``; namespaces (list, create, load, exists, drop, update properties); tables (list, create,
staged create, load, exists, commit with requirements, drop, register). Not served, answered with the spec's
``UnsupportedOperationException``: nested namespaces (a Glue database is one level), renames (Glue has no table
rename), purging a dropped table's files, views, server-side scan planning and credential vending.
"""

from __future__ import annotations

import json
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import RAW_BODY, STATUS, Request, Response
from glueball.icebergrest.area import OPERATIONS, IcebergRestNeeds
from glueball.icebergrest.errors import BadRequestException, NotSupportedException
from glueball.icebergrest.service import RestCatalog, glue_refusal

NAMESPACE_SEPARATOR = "\x1f"
# the routes this catalog serves, as the spec's "endpoints" of GET /v1/config
ENDPOINTS = [
    "GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces", "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}", "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties", "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables", "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}", "POST /v1/{prefix}/namespaces/{namespace}/register"]


def _answer(value: Any, status: int = 200) -> Response:
    return {STATUS: status, RAW_BODY: json.dumps(value).encode()}


def _empty(status: int = 204) -> Response:
    return {STATUS: status, RAW_BODY: b""}


def _namespace(raw: str) -> str:
    parts = raw.split(NAMESPACE_SEPARATOR)
    if len(parts) != 1 or not parts[0]:
        raise NotSupportedException(f"Namespace {parts} is nested: Glue databases are one level")
    return parts[0]


def _model(model: Any, body: Any) -> Any:
    from pydantic import ValidationError  # with pyiceberg's models, on the first Iceberg request: not at every start

    try:
        return model.model_validate(body or {})
    except ValidationError as exc:
        raise BadRequestException(f"Malformed {model.__name__}: {exc.errors()[0].get('msg')} at "
                                  f"{'.'.join(str(p) for p in exc.errors()[0].get('loc', ()))}") from None


def _table_result(metadata_location: str, metadata: Any, config: dict[str, str]) -> dict[str, Any]:
    result: dict[str, Any] = {"metadata": json.loads(metadata.model_dump_json()), "config": config}
    if metadata_location:
        result["metadata-location"] = metadata_location
    return result


def _file_io(needs: IcebergRestNeeds) -> dict[str, str]:
    """What a client's file IO needs to reach this installation's object store."""
    return {"s3.endpoint": needs.endpoint, "s3.path-style-access": "true"} if needs.endpoint else {}


@OPERATIONS.operation("Request")
def request(needs: IcebergRestNeeds, caller: Caller, request: Request) -> Response:
    """Every request under the prefix, routed by method and path (``v1/...``), as the caller: what the Glue API
    refuses the caller (``--auth iam``: Glue's policies on its actions) is refused here in the spec's terms."""
    from botocore.exceptions import ClientError

    try:
        return _route(needs, caller, request)
    except ClientError as exc:
        raise glue_refusal(exc) from None


def _route(needs: IcebergRestNeeds, caller: Caller, request: Request) -> Response:
    method, path, query, body = request["method"], list(request["path"]), request["query"], request["body"]
    if path[:1] != ["v1"]:
        raise NotSupportedException(f"No route {method} /{'/'.join(path)}: the REST catalog is under /v1")
    path = path[1:]
    if path == ["config"] and method == "GET":
        return _answer({"defaults": _file_io(needs), "overrides": {}, "endpoints": ENDPOINTS})
    catalog = RestCatalog(needs, needs.glue(caller))
    if path == ["namespaces"]:
        return _namespaces(catalog, method, query, body)
    if len(path) >= 2 and path[0] == "namespaces":
        namespace = _namespace(path[1])
        rest = path[2:]
        if not rest:
            return _one_namespace(catalog, method, namespace)
        if rest == ["properties"] and method == "POST":
            return _answer(catalog.update_namespace(namespace, list((body or {}).get("removals") or []),
                                                    dict((body or {}).get("updates") or {})))
        if rest == ["register"] and method == "POST":
            if not (body or {}).get("name") or not (body or {}).get("metadata-location"):
                raise BadRequestException("RegisterTableRequest needs name and metadata-location")
            location, metadata = catalog.register(namespace, body["name"], body["metadata-location"])
            return _answer(_table_result(location, metadata, _file_io(needs)))
        if rest[:1] == ["tables"]:
            return _tables(needs, catalog, method, namespace, rest[1:], query, body)
    if path == ["tables", "rename"]:
        raise NotSupportedException("Renaming a table is not supported: Glue tables cannot be renamed")
    raise NotSupportedException(f"No route {method} /v1/{'/'.join(path)} in this catalog")


def _namespaces(catalog: RestCatalog, method: str, query: dict[str, str], body: Any) -> Response:
    if method == "GET":
        if query.get("parent"):
            _namespace(query["parent"])
            return _answer({"namespaces": []})  # one level: no namespace has children
        return _answer({"namespaces": [[name] for name in catalog.namespaces()]})
    if method == "POST":
        parts = (body or {}).get("namespace")
        if not isinstance(parts, list) or not parts:
            raise BadRequestException("CreateNamespaceRequest needs namespace, a list of levels")
        if len(parts) != 1:
            raise NotSupportedException(f"Namespace {parts} is nested: Glue databases are one level")
        properties = {str(k): str(v) for k, v in ((body or {}).get("properties") or {}).items()}
        catalog.create_namespace(str(parts[0]), properties)
        return _answer({"namespace": parts, "properties": properties})
    raise NotSupportedException(f"No route {method} /v1/namespaces")


def _one_namespace(catalog: RestCatalog, method: str, namespace: str) -> Response:
    if method == "GET":
        return _answer({"namespace": [namespace], "properties": catalog.namespace(namespace)})
    if method == "HEAD":
        catalog.namespace(namespace)
        return _empty()
    if method == "DELETE":
        catalog.drop_namespace(namespace)
        return _empty()
    raise NotSupportedException(f"No route {method} /v1/namespaces/{namespace}")


def _tables(needs: IcebergRestNeeds, catalog: RestCatalog, method: str, namespace: str, rest: list[str],
            query: dict[str, str], body: Any) -> Response:
    from pyiceberg.catalog.rest import CreateTableRequest
    from pyiceberg.table import CommitTableRequest

    if not rest:
        if method == "GET":
            return _answer({"identifiers": [{"namespace": [namespace], "name": name}
                                            for name in catalog.tables(namespace)]})
        if method == "POST":
            # optional members of the spec that pyiceberg's model declares without a default
            optional = {"location": None, "partition-spec": None, "write-order": None}
            location, metadata = catalog.create(namespace, _model(CreateTableRequest, {**optional, **(body or {})}))
            return _answer(_table_result(location, metadata, _file_io(needs)))
        raise NotSupportedException(f"No route {method} /v1/namespaces/{namespace}/tables")
    if len(rest) != 1:
        raise NotSupportedException(f"No route {method} /v1/namespaces/{namespace}/tables/{'/'.join(rest)}")
    name = rest[0]
    if method == "GET":
        if query.get("snapshots") not in (None, "all", "refs"):
            raise BadRequestException(f"snapshots must be all or refs, not {query['snapshots']!r}")
        _, location, metadata = catalog.load(namespace, name)
        return _answer(_table_result(location, metadata, _file_io(needs)))
    if method == "HEAD":
        catalog.load(namespace, name)
        return _empty()
    if method == "POST":
        commit = _model(CommitTableRequest, {"identifier": {"namespace": [namespace], "name": name},
                                             **{k: v for k, v in (body or {}).items() if k != "identifier"}})
        location, metadata = catalog.commit(namespace, name, commit)
        return _answer({"metadata-location": location, "metadata": json.loads(metadata.model_dump_json())})
    if method == "DELETE":
        if str(query.get("purgeRequested", "false")).lower() == "true":
            raise NotSupportedException("purgeRequested: this catalog drops the table and leaves its files (drop "
                                        "without purge, then remove the files through S3)")
        catalog.drop(namespace, name)
        return _empty()
    raise NotSupportedException(f"No route {method} /v1/namespaces/{namespace}/tables/{name}")

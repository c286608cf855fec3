"""Wire handlers of the Data Catalog: partitions and partition indexes."""

from __future__ import annotations

import logging
from typing import Any

from glueball.api.dispatch import Request, Response, operation
from glueball.api.identity import Caller
from glueball.api.pagination import page_size, paged
from glueball.app import Glueball
from glueball.catalog.handlers import reject_unsupported, scope_of
from glueball.catalog.partitions import Partition, PartitionFailure, PartitionService, Segment
from glueball.clock import epoch

log = logging.getLogger("glueball.catalog")

_TIMESTAMPS = ("LastAccessTime", "LastAnalyzedTime")


def partitions(app: Glueball, caller: Caller) -> PartitionService:
    return PartitionService(app.store, scope_of(caller))


def partition_input(wire: dict[str, Any]) -> Partition:
    """A ``PartitionInput`` as a model; timestamps are kept as epoch seconds."""
    spec = {k: v for k, v in wire.items() if k != "Values"}
    for member in _TIMESTAMPS:
        if member in spec:
            spec[member] = epoch(spec[member])
    values = wire.get("Values")
    return Partition(values=list(values) if values is not None else None, spec=spec)


def partition_wire(partition: Partition, catalog_id: str, exclude_columns: bool = False) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "Values": partition.values,
        "DatabaseName": partition.database_name,
        "TableName": partition.table_name,
        "CreationTime": partition.create_time,
    }
    wire.update(partition.spec)
    if exclude_columns and "StorageDescriptor" in wire:
        wire["StorageDescriptor"] = {k: v for k, v in wire["StorageDescriptor"].items() if k != "Columns"}
    wire["CatalogId"] = catalog_id
    return wire


def _errors(failures: list[PartitionFailure], values_member: str) -> list[dict[str, Any]]:
    return [
        {values_member: f.values, "ErrorDetail": {"ErrorCode": f.error.code, "ErrorMessage": f.error.message}}
        for f in failures
    ]


def _audit(request: Request) -> None:
    """Lake Formation's audit context names what the caller reads; glueball logs it."""
    for member in ("AuditContext", "QuerySessionContext"):
        if request.get(member):
            log.debug("%s on %s.%s: %s", member, request["DatabaseName"], request["TableName"], request[member])


@operation("CreatePartition")
def create_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    partitions(app, caller).create(request["DatabaseName"], request["TableName"],
                                   partition_input(request["PartitionInput"]))
    return {}


@operation("BatchCreatePartition")
def batch_create_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    failures = partitions(app, caller).batch_create(
        request["DatabaseName"], request["TableName"], [partition_input(p) for p in request["PartitionInputList"]]
    )
    return {"Errors": _errors(failures, "PartitionValues")} if failures else {}


@operation("GetPartition")
def get_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    _audit(request)
    found = partitions(app, caller).get(request["DatabaseName"], request["TableName"], request["PartitionValues"])
    return {"Partition": partition_wire(found, caller.account_id)}


@operation("BatchGetPartition")
def batch_get_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    _audit(request)
    found = partitions(app, caller).batch_get(
        request["DatabaseName"], request["TableName"], [p["Values"] for p in request["PartitionsToGet"]]
    )
    return {"Partitions": [partition_wire(p, caller.account_id) for p in found], "UnprocessedKeys": []}


@operation("UpdatePartition")
def update_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    partitions(app, caller).update(request["DatabaseName"], request["TableName"], request["PartitionValueList"],
                                   partition_input(request["PartitionInput"]))
    return {}


@operation("BatchUpdatePartition")
def batch_update_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    entries = [(e["PartitionValueList"], partition_input(e["PartitionInput"])) for e in request["Entries"]]
    failures = partitions(app, caller).batch_update(request["DatabaseName"], request["TableName"], entries)
    return {"Errors": _errors(failures, "PartitionValueList")} if failures else {}


@operation("DeletePartition")
def delete_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    partitions(app, caller).delete(request["DatabaseName"], request["TableName"], request["PartitionValues"])
    return {}


@operation("BatchDeletePartition")
def batch_delete_partition(app: Glueball, caller: Caller, request: Request) -> Response:
    failures = partitions(app, caller).batch_delete(
        request["DatabaseName"], request["TableName"], [p["Values"] for p in request["PartitionsToDelete"]]
    )
    return {"Errors": _errors(failures, "PartitionValues")} if failures else {}


@operation("GetPartitions")
def get_partitions(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId", "QueryAsOfTime")
    _audit(request)
    wire_segment = request.get("Segment")
    segment = Segment(wire_segment["SegmentNumber"], wire_segment["TotalSegments"]) if wire_segment else None
    found, token = partitions(app, caller).list_partitions(
        request["DatabaseName"], request["TableName"], request.get("Expression"),
        page_size(request.get("MaxResults"), default=1000), request.get("NextToken"), segment,
    )
    exclude = bool(request.get("ExcludeColumnSchema"))
    return paged("Partitions", [partition_wire(p, caller.account_id, exclude) for p in found], token)


@operation("CreatePartitionIndex")
def create_partition_index(app: Glueball, caller: Caller, request: Request) -> Response:
    index = request["PartitionIndex"]
    partitions(app, caller).create_index(request["DatabaseName"], request["TableName"], index["IndexName"],
                                         index["Keys"])
    return {}


@operation("GetPartitionIndexes")
def get_partition_indexes(app: Glueball, caller: Caller, request: Request) -> Response:
    found = partitions(app, caller).list_indexes(request["DatabaseName"], request["TableName"],
                                                 request.get("NextToken"))
    return {"PartitionIndexDescriptorList": [
        {"IndexName": i.name, "Keys": i.keys, "IndexStatus": i.status} for i in found
    ]}


@operation("DeletePartitionIndex")
def delete_partition_index(app: Glueball, caller: Caller, request: Request) -> Response:
    partitions(app, caller).delete_index(request["DatabaseName"], request["TableName"], request["IndexName"])
    return {}

"""Wire handlers of the Data Catalog: partitions and partition indexes."""

from __future__ import annotations

import logging
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.catalog.area import OPERATIONS, CatalogNeeds
from glueball.catalog.handlers import reject_unsupported, scope_of
from glueball.catalog.partitions import Partition, PartitionFailure, PartitionService, Segment
from glueball.clock import epoch

log = logging.getLogger("glueball.catalog")

_TIMESTAMPS = ("LastAccessTime", "LastAnalyzedTime")


def partitions(needs: CatalogNeeds, caller: Caller) -> PartitionService:
    return PartitionService(needs.store, scope_of(caller))


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


@OPERATIONS.operation("CreatePartition")
def create_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    partitions(needs, caller).create(request["DatabaseName"], request["TableName"],
                                   partition_input(request["PartitionInput"]))
    return {}


@OPERATIONS.operation("BatchCreatePartition")
def batch_create_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    failures = partitions(needs, caller).batch_create(
        request["DatabaseName"], request["TableName"], [partition_input(p) for p in request["PartitionInputList"]]
    )
    return {"Errors": _errors(failures, "PartitionValues")} if failures else {}


@OPERATIONS.operation("GetPartition")
def get_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    _audit(request)
    found = partitions(needs, caller).get(request["DatabaseName"], request["TableName"], request["PartitionValues"])
    return {"Partition": partition_wire(found, caller.account_id)}


@OPERATIONS.operation("BatchGetPartition")
def batch_get_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    _audit(request)
    found = partitions(needs, caller).batch_get(
        request["DatabaseName"], request["TableName"], [p["Values"] for p in request["PartitionsToGet"]]
    )
    return {"Partitions": [partition_wire(p, caller.account_id) for p in found], "UnprocessedKeys": []}


@OPERATIONS.operation("UpdatePartition")
def update_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    partitions(needs, caller).update(request["DatabaseName"], request["TableName"], request["PartitionValueList"],
                                   partition_input(request["PartitionInput"]))
    return {}


@OPERATIONS.operation("BatchUpdatePartition")
def batch_update_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    entries = [(e["PartitionValueList"], partition_input(e["PartitionInput"])) for e in request["Entries"]]
    failures = partitions(needs, caller).batch_update(request["DatabaseName"], request["TableName"], entries)
    return {"Errors": _errors(failures, "PartitionValueList")} if failures else {}


@OPERATIONS.operation("DeletePartition")
def delete_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    partitions(needs, caller).delete(request["DatabaseName"], request["TableName"], request["PartitionValues"])
    return {}


@OPERATIONS.operation("BatchDeletePartition")
def batch_delete_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    failures = partitions(needs, caller).batch_delete(
        request["DatabaseName"], request["TableName"], [p["Values"] for p in request["PartitionsToDelete"]]
    )
    return {"Errors": _errors(failures, "PartitionValues")} if failures else {}


@OPERATIONS.operation("GetPartitions")
def get_partitions(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId", "QueryAsOfTime")
    _audit(request)
    wire_segment = request.get("Segment")
    segment = Segment(wire_segment["SegmentNumber"], wire_segment["TotalSegments"]) if wire_segment else None
    found, token = partitions(needs, caller).list_partitions(
        request["DatabaseName"], request["TableName"], request.get("Expression"),
        page_size(request.get("MaxResults"), default=1000), request.get("NextToken"), segment,
    )
    exclude = bool(request.get("ExcludeColumnSchema"))
    return paged("Partitions", [partition_wire(p, caller.account_id, exclude) for p in found], token)


@OPERATIONS.operation("CreatePartitionIndex")
def create_partition_index(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    index = request["PartitionIndex"]
    partitions(needs, caller).create_index(request["DatabaseName"], request["TableName"], index["IndexName"],
                                         index["Keys"])
    return {}


@OPERATIONS.operation("GetPartitionIndexes")
def get_partition_indexes(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    found = partitions(needs, caller).list_indexes(request["DatabaseName"], request["TableName"],
                                                 request.get("NextToken"))
    return {"PartitionIndexDescriptorList": [
        {"IndexName": i.name, "Keys": i.keys, "IndexStatus": i.status} for i in found
    ]}


@OPERATIONS.operation("DeletePartitionIndex")
def delete_partition_index(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    partitions(needs, caller).delete_index(request["DatabaseName"], request["TableName"], request["IndexName"])
    return {}

"""``purge_table`` and ``purge_s3_path``: delete old files of a table, its partitions or a path.

Options (Glue's names): ``retentionPeriod`` (hours, default 168: files newer than that are
kept), ``partitionPredicate`` (``purge_table`` only: the partitions to purge, a catalog
expression; a partition whose files are all deleted is removed from the catalog),
``excludeStorageClasses`` (files of those storage classes are kept; every object of the
local store is ``STANDARD``), ``manifestFilePath`` (a ``Success.csv`` listing the deleted
files is written there).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from glueball.objects import locations
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.io import catalog as cat
from glueball.runtime.io import files as file_listing

log = logging.getLogger("glueball.runtime.io")
LOCAL_STORAGE_CLASS = "STANDARD"


def _retention_hours(options: Mapping[str, Any]) -> float:
    value = options.get("retentionPeriod", 168)
    try:
        hours = float(value)
    except (TypeError, ValueError) as err:
        raise GlueRuntimeError(f"retentionPeriod must be a number of hours, got {value!r}") from err
    if hours < 0:
        raise GlueRuntimeError(f"retentionPeriod must not be negative, got {value!r}")
    return hours


def _excluded_classes(options: Mapping[str, Any]) -> set[str]:
    value = options.get("excludeStorageClasses") or []
    if isinstance(value, str):
        value = [value]
    return {str(v).upper() for v in value}


def _purge(glue_ctx: Any, uri: str, options: Mapping[str, Any]) -> tuple[list[str], int]:
    """Delete the files under ``uri`` older than the retention period: (deleted URIs, files kept)."""
    spark = glue_ctx.spark_session
    listed = file_listing.list_files([uri], recurse=True, spark=spark, include_hidden=True)
    if LOCAL_STORAGE_CLASS in _excluded_classes(options):
        return [], len(listed)
    cutoff = time.time() - _retention_hours(options) * 3600
    deleted: list[str] = []
    kept = 0
    for item in listed:
        if item.mtime < cutoff:
            file_listing.delete_file(spark, item)
            deleted.append(item.uri)
        else:
            kept += 1
    file_listing.remove_empty_dirs(uri)
    return deleted, kept


def _manifest(options: Mapping[str, Any], deleted: list[str]) -> None:
    target = options.get("manifestFilePath")
    if not target:
        return
    text = "".join(f"{uri}\n" for uri in deleted)
    if locations.is_s3(str(target)):
        from glueball.objects.access import process_objects

        process_objects().write(str(target).rstrip("/") + "/Success.csv", text.encode())
        return
    folder = locations.local_path(str(target))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Success.csv").write_text(text)


def purge_s3_path(glue_ctx: Any, s3_path: str, options: dict[str, Any], transformation_ctx: str) -> None:
    """Delete the files under ``s3_path`` (recursively) older than ``retentionPeriod`` hours."""
    deleted, kept = _purge(glue_ctx, s3_path, options)
    log.info("purge_s3_path %s: %d files deleted, %d kept", s3_path, len(deleted), kept)
    _manifest(options, deleted)


def purge_table(glue_ctx: Any, database: str, table_name: str, options: dict[str, Any],
                transformation_ctx: str) -> None:
    """Delete the files of a catalog table, or of its partitions matching ``partitionPredicate``.

    Partitions left without files are deleted from the catalog; the table itself stays.
    """
    table = cat.get_table(glue_ctx, database, table_name)
    location = str(table.get("StorageDescriptor", {}).get("Location") or "")
    predicate = str(options.get("partitionPredicate") or "").strip()
    deleted: list[str] = []
    if table.get("PartitionKeys"):
        partitions = cat.get_partitions(glue_ctx, database, table_name, predicate or None)
        emptied: list[list[str]] = []
        for partition in partitions:
            part_location = partition.get("StorageDescriptor", {}).get("Location")
            if not part_location:
                continue
            gone, kept = _purge(glue_ctx, str(part_location), options)
            deleted.extend(gone)
            if kept == 0:
                emptied.append(list(partition.get("Values", [])))
        if not predicate and location:
            gone, _kept = _purge(glue_ctx, location, options)
            deleted.extend(gone)
        if location:
            file_listing.remove_empty_dirs(location)
        client = glue_ctx.glue_client
        for start in range(0, len(emptied), 25):
            client.batch_delete_partition(DatabaseName=database, TableName=table_name,
                                          PartitionsToDelete=[{"Values": v} for v in emptied[start:start + 25]])
    else:
        if predicate:
            raise GlueRuntimeError(f"partitionPredicate given but {database}.{table_name} has no partition keys")
        if not location:
            raise GlueRuntimeError(f"table {database}.{table_name} has no location")
        deleted, _kept = _purge(glue_ctx, location, options)
    log.info("purge_table %s.%s: %d files deleted", database, table_name, len(deleted))
    _manifest(options, deleted)

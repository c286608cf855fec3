"""Crawler targets of open table formats: ``DeltaTargets`` and ``IcebergTargets``.

A Delta table is read from its transaction log (``_delta_log``: the last checkpoint, then the JSON commits after
it): its schema and partition columns from the newest ``metaData`` action, its live files from ``add`` and
``remove``. As Glue's crawler, ``CreateNativeDeltaTable`` makes a table engines read through the log
(``spark.sql.sources.provider`` delta, the table's path as its location); otherwise a symlink table over
``_symlink_format_manifest/`` (Hive's ``SymlinkTextInputFormat``), whose manifest the crawler writes when
``WriteManifest`` is set. An Iceberg table's current metadata is its ``metadata/`` folder's newest
``*.metadata.json``; the table registered is a Glue ICEBERG table pointing at it.

Hudi targets are refused when the crawler is defined (no Hudi bundle for Spark 4.1 to read them with).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from typing import Any

from glueball.objects.access import Objects, process_objects

__all__ = ["DeltaSnapshot", "LakeTableError", "delta_snapshot", "delta_table_input", "iceberg_table_input",
           "write_manifest"]

DELTA_LOG = "_delta_log"
MANIFEST_FOLDER = "_symlink_format_manifest"
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(\.\d+\.\d+)?\.parquet$")
_COMMIT = re.compile(r"^(\d{20})\.json$")
_METADATA = re.compile(r"^(\d+)-.*\.metadata\.json$")
# Delta's primitive type names as Hive's
_HIVE = {"long": "bigint", "integer": "int", "short": "smallint", "byte": "tinyint", "timestamp_ntz": "timestamp"}


class LakeTableError(Exception):
    """A target path holds no table of the format, or one that cannot be read; the message says which."""


@dataclass
class DeltaSnapshot:
    """A Delta table as of its newest commit."""

    version: int
    schema: dict[str, Any]
    partition_columns: list[str]
    files: dict[str, dict[str, str]] = field(default_factory=dict)  # live data file (relative path) -> partition
    properties: dict[str, str] = field(default_factory=dict)


def _apply(snapshot: DeltaSnapshot, action: dict[str, Any]) -> None:
    if "metaData" in action:
        meta = action["metaData"]
        snapshot.schema = json.loads(meta["schemaString"])
        snapshot.partition_columns = list(meta.get("partitionColumns") or [])
        snapshot.properties = dict(meta.get("configuration") or {})
    elif action.get("add"):
        snapshot.files[action["add"]["path"]] = dict(action["add"].get("partitionValues") or {})
    elif action.get("remove"):
        snapshot.files.pop(action["remove"]["path"], None)


def delta_snapshot(uri: str, objects: Objects | None = None) -> DeltaSnapshot:
    """The Delta table at ``uri`` as of its newest commit, read through ``objects`` (default: this process's
    object store, :mod:`glueball.objects.access`).

    Raises:
        LakeTableError: no ``_delta_log`` there, or a log without a schema.
    """
    objects = objects or process_objects()
    log = f"{uri.rstrip('/')}/{DELTA_LOG}"
    entries = objects.listdir(log).files
    if not entries:
        raise LakeTableError(f"{uri} is not a Delta table: it has no {DELTA_LOG} folder")
    checkpoints: dict[int, list[str]] = {}
    commits: dict[int, str] = {}
    for entry in entries:
        if match := _CHECKPOINT.match(entry.name):
            checkpoints.setdefault(int(match.group(1)), []).append(f"{log}/{entry.name}")
        elif match := _COMMIT.match(entry.name):
            commits[int(match.group(1))] = f"{log}/{entry.name}"
    snapshot = DeltaSnapshot(-1, {}, [])
    if checkpoints:
        import pyarrow.parquet as pq

        version = max(checkpoints)
        for part in sorted(checkpoints[version]):
            table = pq.read_table(io.BytesIO(objects.read(part)), columns=["add", "remove", "metaData"])
            for row in table.to_pylist():
                _apply(snapshot, {k: v for k, v in row.items() if v is not None})
        snapshot.version = version
    for version in sorted(v for v in commits if v > snapshot.version):
        for line in objects.read_text(commits[version]).splitlines():
            if line.strip():
                _apply(snapshot, json.loads(line))
        snapshot.version = version
    if not snapshot.schema:
        raise LakeTableError(f"the Delta log of {uri} has no metaData action (no schema)")
    return snapshot


def _hive_type(delta_type: Any) -> str:
    if isinstance(delta_type, str):
        return _HIVE.get(delta_type, delta_type)
    kind = delta_type.get("type")
    if kind == "struct":
        return "struct<" + ",".join(f"{f['name']}:{_hive_type(f['type'])}" for f in delta_type["fields"]) + ">"
    if kind == "array":
        return f"array<{_hive_type(delta_type['elementType'])}>"
    if kind == "map":
        return f"map<{_hive_type(delta_type['keyType'])},{_hive_type(delta_type['valueType'])}>"
    raise LakeTableError(f"unknown Delta type {delta_type!r}")


def delta_table_input(name: str, uri: str, snapshot: DeltaSnapshot, native: bool) -> dict[str, Any]:
    """The Glue ``TableInput`` a crawler writes for the Delta table at ``uri``: native (read through the Delta
    log: provider delta, every column in the schema, partitioning left to the log) or a symlink table (the
    partition columns as partition keys, the manifest folder as location)."""
    path = uri.rstrip("/")
    fields = snapshot.schema.get("fields") or []
    columns = [{"Name": f["name"], "Type": _hive_type(f["type"])} for f in fields]
    parameters = {"classification": "delta", "EXTERNAL": "TRUE", "delta.version": str(snapshot.version)}
    if native:
        parameters["spark.sql.sources.provider"] = "delta"
        descriptor: dict[str, Any] = {
            "Columns": columns, "Location": path,
            "InputFormat": "org.apache.hadoop.mapred.SequenceFileInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                          "Parameters": {"serialization.format": "1", "path": path}},
            "Parameters": dict(parameters)}
        return {"Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": parameters, "StorageDescriptor": descriptor,
                "PartitionKeys": []}
    keys = set(snapshot.partition_columns)
    descriptor = {
        "Columns": [c for c in columns if c["Name"] not in keys], "Location": f"{path}/{MANIFEST_FOLDER}",
        "InputFormat": "org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                      "Parameters": {}},
        "Parameters": dict(parameters)}
    partition_keys = [c for name_ in snapshot.partition_columns for c in columns if c["Name"] == name_]
    return {"Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": parameters, "StorageDescriptor": descriptor,
            "PartitionKeys": partition_keys}


def write_manifest(uri: str, snapshot: DeltaSnapshot, objects: Objects | None = None) -> int:
    """Write the table's symlink manifests (``_symlink_format_manifest/[k=v/...]manifest``: the absolute paths of
    its live files, one a line) as Delta's ``GENERATE symlink_format_manifest`` lays them out; returns how many
    manifest files were written."""
    objects = objects or process_objects()
    path = uri.rstrip("/")
    by_partition: dict[str, list[str]] = {}
    for file, values in snapshot.files.items():
        folder = "/".join(f"{k}={values.get(k)}" for k in snapshot.partition_columns)
        absolute = file if "://" in file else f"{path}/{file}"
        by_partition.setdefault(folder, []).append(absolute)
    for folder, files in by_partition.items():
        target = "/".join(part for part in (path, MANIFEST_FOLDER, folder, "manifest") if part)
        objects.write(target, "".join(f"{f}\n" for f in sorted(files)).encode())
    return len(by_partition)


def iceberg_table_input(name: str, uri: str, objects: Objects | None = None) -> dict[str, Any]:
    """The Glue ``TableInput`` of the Iceberg table at ``uri``: an ICEBERG table whose ``metadata_location`` is the
    newest metadata file of its ``metadata/`` folder.

    Raises:
        LakeTableError: no metadata file there.
    """
    objects = objects or process_objects()
    folder = f"{uri.rstrip('/')}/metadata"
    found = sorted((int(m.group(1)), entry.name) for entry in objects.listdir(folder).files
                   if (m := _METADATA.match(entry.name)))
    if not found:
        raise LakeTableError(f"{uri} is not an Iceberg table: no metadata/*.metadata.json")
    metadata_location = f"{uri.rstrip('/')}/metadata/{found[-1][1]}"
    current = json.loads(objects.read_text(f"{folder}/{found[-1][1]}"))
    schema = next((s for s in current.get("schemas") or [] if s.get("schema-id") == current.get("current-schema-id")),
                  current.get("schema") or {})
    columns = [{"Name": f["name"], "Type": f["type"] if isinstance(f["type"], str) else json.dumps(f["type"])}
               for f in schema.get("fields") or []]
    columns = [{**c, "Type": _ICEBERG_HIVE.get(c["Type"], c["Type"])} for c in columns]
    return {"Name": name, "TableType": "EXTERNAL_TABLE",
            "Parameters": {"table_type": "ICEBERG", "metadata_location": metadata_location,
                           "classification": "iceberg"},
            "StorageDescriptor": {"Columns": columns, "Location": current.get("location") or uri.rstrip("/")}}


_ICEBERG_HIVE = {"long": "bigint", "timestamptz": "timestamp", "uuid": "string", "time": "string"}

"""Avro without Spark's avro module (not on the classpath): fastavro on the executors.

Reading: the listed files are spread over an RDD, each task decodes its files
with fastavro, and the rows get the Spark schema mapped from the first file's
writer schema (logical types: ``date`` -> date, ``timestamp-millis``/``-micros``
-> timestamp, ``local-timestamp-*`` -> timestamp_ntz, ``decimal`` -> decimal,
``uuid`` -> string; a union of several non-null types becomes a Glue choice).
Writing: each partition of the frame is written by its task as Avro container
files (Hive-style ``key=value`` folders for ``partitionKeys``).

Files are opened by path on the executors, so they must see the object store
(always true for ``local[*]`` and a shared ``GLUEBALL_HOME``).
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import CHOICE_METADATA

_PRIMITIVES = {
    "boolean": "BooleanType", "int": "IntegerType", "long": "LongType", "float": "FloatType",
    "double": "DoubleType", "bytes": "BinaryType", "string": "StringType", "null": "NullType",
}
# Glue's type names for the members of a choice
_GLUE_NAMES = {"BooleanType": "boolean", "IntegerType": "int", "LongType": "long", "FloatType": "float",
               "DoubleType": "double", "BinaryType": "binary", "StringType": "string", "DateType": "date",
               "TimestampType": "timestamp", "TimestampNTZType": "timestamp", "DecimalType": "decimal",
               "StructType": "struct", "ArrayType": "array", "MapType": "map"}


def avro_to_spark(schema: Any, named: dict[str, Any] | None = None) -> Any:
    """The Spark type of an Avro schema (parsed JSON), logical types included."""
    from pyspark.sql import types as T

    named = {} if named is None else named
    if isinstance(schema, str):
        if schema in _PRIMITIVES:
            return getattr(T, _PRIMITIVES[schema])()
        if schema in named:
            return named[schema]
        raise GlueRuntimeError(f"unknown Avro type {schema!r}")
    if isinstance(schema, list):
        members = [m for m in schema if m != "null"]
        if len(members) == 1:
            return avro_to_spark(members[0], named)
        fields: list[Any] = []
        for member in members:
            spark_type = avro_to_spark(member, named)
            name = _GLUE_NAMES.get(type(spark_type).__name__, type(spark_type).__name__.lower())
            if all(f.name != name for f in fields):
                fields.append(T.StructField(name, spark_type, True))
        return T.StructType(fields)
    logical = schema.get("logicalType")
    base = schema.get("type")
    if logical == "date" and base == "int":
        return T.DateType()
    if logical in ("timestamp-millis", "timestamp-micros") and base == "long":
        return T.TimestampType()
    if logical in ("local-timestamp-millis", "local-timestamp-micros") and base == "long":
        return T.TimestampNTZType()
    if logical == "decimal" and base in ("bytes", "fixed"):
        return T.DecimalType(int(schema["precision"]), int(schema.get("scale", 0)))
    if logical in ("time-millis", "time-micros", "uuid"):
        return T.StringType()
    if base == "record":
        struct = T.StructType()
        named[schema["name"]] = struct
        if "namespace" in schema:
            named[f"{schema['namespace']}.{schema['name']}"] = struct
        for field in schema["fields"]:
            struct.add(field["name"], avro_to_spark(field["type"], named), True,
                       metadata=_choice_metadata(field["type"]))
        return struct
    if base == "enum":
        named[schema["name"]] = T.StringType()
        return T.StringType()
    if base == "fixed":
        named[schema["name"]] = T.BinaryType()
        return T.BinaryType()
    if base == "array":
        return T.ArrayType(avro_to_spark(schema["items"], named), True)
    if base == "map":
        return T.MapType(T.StringType(), avro_to_spark(schema["values"], named), True)
    return avro_to_spark(base, named)


def _choice_metadata(schema: Any) -> dict[str, Any]:
    if isinstance(schema, list) and len([m for m in schema if m != "null"]) > 1:
        return {CHOICE_METADATA: True}
    return {}


def _convert(value: Any, spark_type: Any, choice: bool = False) -> Any:
    """A fastavro value as PySpark expects it for ``spark_type`` (``choice``: a union's choice struct)."""
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(spark_type, T.StructType):
        if choice or not isinstance(value, dict):
            return _choice_value(value, spark_type)
        return tuple(_convert(value.get(f.name), f.dataType, bool(f.metadata.get(CHOICE_METADATA)))
                     for f in spark_type.fields)
    if isinstance(spark_type, T.ArrayType):
        return [_convert(v, spark_type.elementType) for v in value]
    if isinstance(spark_type, T.MapType):
        return {k: _convert(v, spark_type.valueType) for k, v in value.items()}
    if isinstance(spark_type, T.StringType) and not isinstance(value, str):
        return str(value)
    if isinstance(spark_type, T.TimestampNTZType) and isinstance(value, dt.datetime) and value.tzinfo:
        return value.replace(tzinfo=None)
    return value


def _choice_value(value: Any, spark_type: Any) -> tuple[Any, ...]:
    """The choice struct holding ``value`` in the member of its Python type."""
    kinds = {bool: ("boolean",), int: ("long", "int"), float: ("double", "float"), str: ("string",),
             bytes: ("binary",), dict: ("struct", "map"), list: ("array",), Decimal: ("decimal",),
             dt.datetime: ("timestamp",), dt.date: ("date",)}
    wanted = kinds.get(type(value), ())
    names = [f.name for f in spark_type.fields]
    target = next((n for n in wanted if n in names), None)
    return tuple(_convert(value, f.dataType) if f.name == target else None for f in spark_type.fields)


def _driver_site() -> str:
    """Where the driver's fastavro lives, for executors whose Python lacks it."""
    import fastavro

    return os.path.dirname(os.path.dirname(os.path.abspath(fastavro.__file__)))


def _import_fastavro(site: str) -> None:
    """Make fastavro importable on an executor (its Python may not be the driver's venv)."""
    try:
        import fastavro  # noqa: F401
    except ImportError:
        import sys

        sys.path.append(site)


def read_schema(path: str) -> Any:
    """The writer schema of an Avro file (parsed JSON)."""
    import fastavro

    with open(path, "rb") as handle:
        return fastavro.reader(handle).writer_schema


def read_avro(spark: Any, files: list[str], extra_fields: list[Any] | None = None,
              extra_values: dict[str, tuple[Any, ...]] | None = None) -> Any:
    """A DataFrame of the records of ``files`` (local paths), with optional extra columns per file.

    Args:
        spark: the Spark session.
        files: Avro container files.
        extra_fields: StructFields appended to every row (e.g. partition columns).
        extra_values: per file, the values of ``extra_fields``.
    """
    from pyspark.sql import types as T

    extra_fields = extra_fields or []
    extra_values = extra_values or {}
    if not files:
        return spark.createDataFrame([], T.StructType(list(extra_fields)))
    record_type = avro_to_spark(read_schema(files[0]))
    if not isinstance(record_type, T.StructType):
        record_type = T.StructType([T.StructField("value", record_type, True)])
        wrap = True
    else:
        wrap = False
    schema = T.StructType(list(record_type.fields) + list(extra_fields))
    jobs = [(f, extra_values.get(f, ())) for f in files]
    slices = max(1, min(len(jobs), spark.sparkContext.defaultParallelism * 4))

    site = _driver_site()

    def decode(items: Iterator[tuple[str, tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
        _import_fastavro(site)
        import fastavro

        for path, extra in items:
            with open(path, "rb") as handle:
                for record in fastavro.reader(handle):
                    body: Any = {"value": record} if wrap else record
                    yield tuple(_convert(body.get(f.name), f.dataType, bool(f.metadata.get(CHOICE_METADATA)))
                                for f in record_type.fields) + tuple(extra)

    rdd = spark.sparkContext.parallelize(jobs, slices).mapPartitions(decode)
    return spark.createDataFrame(rdd, schema, verifySchema=False)


def spark_to_avro(spark_type: Any, name: str, names: set[str]) -> Any:
    """The Avro schema (nullable unions) of a Spark type; record names made unique with ``names``."""
    from pyspark.sql import types as T

    def unique(base: str) -> str:
        candidate, n = base, 1
        while candidate in names:
            n += 1
            candidate = f"{base}{n}"
        names.add(candidate)
        return candidate

    simple: dict[type, Any] = {
        T.StringType: "string", T.IntegerType: "int", T.ShortType: "int", T.ByteType: "int",
        T.LongType: "long", T.FloatType: "float", T.DoubleType: "double", T.BooleanType: "boolean",
        T.BinaryType: "bytes", T.NullType: "null",
        T.DateType: {"type": "int", "logicalType": "date"},
        T.TimestampType: {"type": "long", "logicalType": "timestamp-micros"},
        T.TimestampNTZType: {"type": "long", "logicalType": "local-timestamp-micros"},
    }
    if type(spark_type) in simple:
        return simple[type(spark_type)]
    if isinstance(spark_type, T.DecimalType):
        return {"type": "bytes", "logicalType": "decimal", "precision": spark_type.precision,
                "scale": spark_type.scale}
    if isinstance(spark_type, T.ArrayType):
        return {"type": "array", "items": _nullable(spark_to_avro(spark_type.elementType, name, names))}
    if isinstance(spark_type, T.MapType):
        return {"type": "map", "values": _nullable(spark_to_avro(spark_type.valueType, name, names))}
    if isinstance(spark_type, T.StructType):
        return {"type": "record", "name": unique(name),
                "fields": [{"name": f.name, "type": _nullable(spark_to_avro(f.dataType, f.name, names)),
                            "default": None} for f in spark_type.fields]}
    return "string"


def _nullable(schema: Any) -> Any:
    return schema if schema == "null" else ["null", schema]


def _to_avro_value(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        # PySpark hands timestamps over as naive local times
        return value.astimezone(dt.UTC)
    if isinstance(value, dict):
        return {k: _to_avro_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_avro_value(v) for v in value]
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def escape_path_name(value: Any) -> str:
    """A partition value as Hive (and Spark) put it in a ``key=value`` folder name."""
    if value is None or value == "":
        return "__HIVE_DEFAULT_PARTITION__"
    text = str(value)
    special = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(0x20)}
    return "".join(f"%{ord(ch):02X}" if ch in special else ch for ch in text)


def write_avro(df: Any, local_dir: str, partition_keys: list[str], codec: str = "deflate") -> list[str]:
    """Write ``df`` as Avro files under ``local_dir``; returns the files written."""
    if codec not in ("null", "deflate", "bzip2", "xz", "snappy", "zstandard", "lz4"):
        raise GlueRuntimeError(f"unsupported Avro compression {codec!r} (null, deflate, snappy, bzip2, xz)")
    data_cols = [c for c in df.columns if c not in partition_keys]
    from pyspark.sql import types as T

    data_type = T.StructType([df.schema[c] for c in data_cols])
    avro_schema = spark_to_avro(data_type, "topLevelRecord", set())
    run_id = uuid.uuid4().hex

    site = _driver_site()

    def write_partition(index: int, rows: Iterator[Any]) -> Iterator[str]:
        _import_fastavro(site)
        from fastavro import parse_schema
        from fastavro.write import Writer

        parsed = parse_schema(avro_schema)
        writers: dict[str, tuple[Any, Any, str]] = {}
        try:
            for row in rows:
                record = row.asDict(recursive=True)
                folder = local_dir
                for key in partition_keys:
                    folder = os.path.join(folder, f"{key}={escape_path_name(record.pop(key))}")
                if folder not in writers:
                    os.makedirs(folder, exist_ok=True)
                    path = os.path.join(folder, f"part-{index:05d}-{run_id}.avro")
                    handle = open(path, "wb")  # noqa: SIM115  (closed in finally)
                    writers[folder] = (handle, Writer(handle, parsed, codec=codec), path)
                writers[folder][1].write({k: _to_avro_value(v) for k, v in record.items()})
        finally:
            for handle, writer, _ in writers.values():
                writer.flush()
                handle.close()
        yield from (path for _, _, path in writers.values())

    os.makedirs(local_dir, exist_ok=True)
    return list(df.select(*data_cols, *partition_keys).rdd.mapPartitionsWithIndex(write_partition).collect())

"""Self-describing binary formats: Avro (schema in the header), ORC and Parquet (schema and row
count in the footer). Only headers, footers and Avro block headers are read, never the data."""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from glueball.crawlers.classify.models import Classification

if TYPE_CHECKING:
    import pyarrow as pa

# fastavro and pyarrow (with numpy under it) are imported where a file is read, not with the module: every
# `glueball server` imports the crawlers' classifiers, and those libraries would be a quarter of its start

AVRO_MAGIC = b"Obj\x01"
ORC_MAGIC = b"ORC"
PARQUET_MAGIC = b"PAR1"

AVRO_SERDE = "org.apache.hadoop.hive.serde2.avro.AvroSerDe"
AVRO_INPUT = "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat"
AVRO_OUTPUT = "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat"
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
PARQUET_INPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
PARQUET_OUTPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
ORC_SERDE = "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
ORC_INPUT = "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"
ORC_OUTPUT = "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"

_AVRO_MAX_BLOCKS_COUNTED = 100_000

_AVRO_PRIMITIVES = {
    "null": "string", "boolean": "boolean", "int": "int", "long": "bigint", "float": "float",
    "double": "double", "bytes": "binary", "string": "string",
}


def _hive_name(name: str) -> str:
    return name.lower()


# --------------------------------------------------------------------------- Avro


def avro_to_hive(schema: Any, named: dict[str, str] | None = None, namespace: str = "") -> str:
    """The Hive type of an Avro schema, as Hive's AvroSerDe maps it.

    ``record`` → ``struct``, ``enum`` → ``string``, ``fixed`` → ``binary``, a union with ``null``
    → the other branch (other unions → ``uniontype``), logical ``date`` → ``date``,
    ``timestamp-millis``/``-micros`` → ``timestamp``, ``decimal`` → ``decimal(p,s)``.
    """
    named = {} if named is None else named
    if isinstance(schema, str):
        if schema in _AVRO_PRIMITIVES:
            return _AVRO_PRIMITIVES[schema]
        full = schema if "." in schema or not namespace else f"{namespace}.{schema}"
        return named.get(full) or named.get(schema) or "string"
    if isinstance(schema, list):
        branches = [b for b in schema if b != "null"]
        if len(branches) == 1:
            return avro_to_hive(branches[0], named, namespace)
        if not branches:
            return "string"
        return "uniontype<" + ",".join(avro_to_hive(b, named, namespace) for b in branches) + ">"
    if not isinstance(schema, dict):
        return "string"
    kind = schema.get("type")
    logical = schema.get("logicalType")
    if logical == "decimal":
        return f"decimal({int(schema.get('precision', 10))},{int(schema.get('scale', 0))})"
    if logical == "date":
        return "date"
    if logical in ("timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros"):
        return "timestamp"
    space = schema.get("namespace", namespace) or ""
    if kind == "record" or kind == "error":
        name = str(schema.get("name", ""))
        full = name if "." in name or not space else f"{space}.{name}"
        named[full] = named[name] = "string"  # a recursive reference before completion
        members = ",".join(f"{f['name']}:{avro_to_hive(f['type'], named, space)}" for f in schema.get("fields", []))
        named[full] = named[name] = f"struct<{members}>"
        return named[full]
    if kind == "enum" or kind == "fixed":
        name = str(schema.get("name", ""))
        hive = "string" if kind == "enum" else "binary"
        named[name] = named[f"{space}.{name}" if space and "." not in name else name] = hive
        return hive
    if kind == "array":
        return f"array<{avro_to_hive(schema.get('items', 'string'), named, space)}>"
    if kind == "map":
        return f"map<string,{avro_to_hive(schema.get('values', 'string'), named, space)}>"
    return avro_to_hive(kind, named, space)


def _read_avro_long(stream: IO[bytes]) -> int | None:
    shift = result = 0
    while True:
        byte = stream.read(1)
        if not byte:
            return None
        b = byte[0]
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return (result >> 1) ^ -(result & 1)
        shift += 7
        if shift > 70:
            raise ValueError("malformed Avro long")


def _count_avro_records(stream: BinaryIO, size: int) -> int | None:
    """Sum the record counts of the Avro blocks, seeking past each block's data."""
    records = 0
    for _ in range(_AVRO_MAX_BLOCKS_COUNTED):
        count = _read_avro_long(stream)
        if count is None:
            return records
        length = _read_avro_long(stream)
        if length is None or count < 0 or length < 0:
            return None
        records += count
        stream.seek(length + 16, 1)  # the block's data and sync marker
        if stream.tell() >= size:
            return records
    return None


def classify_avro(stream: BinaryIO, size: int) -> Classification | None:
    """Glue's Avro classifier: reads the writer schema at the beginning of the file."""
    import fastavro

    try:
        reader = fastavro.reader(stream)
        schema = reader.writer_schema
        literal = reader.metadata.get("avro.schema") or json.dumps(schema)
    except Exception:  # noqa: BLE001 - any failure means "not an Avro file"
        return None
    if not isinstance(schema, dict) or schema.get("type") != "record":
        columns = [("record", avro_to_hive(schema))]
    else:
        named: dict[str, str] = {}
        space = str(schema.get("namespace", ""))
        columns = [(_hive_name(f["name"]), avro_to_hive(f["type"], named, space)) for f in schema.get("fields", [])]
    # fastavro may have read ahead past the header; count blocks from where the header ends.
    records: int | None
    try:
        stream.seek(_avro_header_length(stream))
        records = _count_avro_records(stream, size)
    except (OSError, ValueError):
        records = None
    return Classification(
        classification="avro",
        columns=columns,
        parameters={"classification": "avro", "compressionType": "none", "avro.schema.literal": literal},
        serde={"SerializationLibrary": AVRO_SERDE, "Parameters": {"avro.schema.literal": literal}},
        input_format=AVRO_INPUT,
        output_format=AVRO_OUTPUT,
        record_count=records,
        average_record_size=size // records if records else None,
    )


def _avro_header_length(stream: BinaryIO) -> int:
    """The byte offset where the first Avro block starts (after magic, metadata map and sync)."""
    stream.seek(len(AVRO_MAGIC))
    while True:
        entries = _read_avro_long(stream)
        if entries is None:
            raise ValueError("truncated Avro header")
        if entries == 0:
            break
        if entries < 0:
            _read_avro_long(stream)  # the block's byte size
            entries = -entries
        for _ in range(entries * 2):  # key then value, both bytes
            length = _read_avro_long(stream)
            if length is None or length < 0:
                raise ValueError("malformed Avro header")
            stream.seek(length, 1)
    return stream.tell() + 16


# --------------------------------------------------------------------------- Arrow (Parquet, ORC)


def arrow_to_hive(data_type: pa.DataType) -> str:
    """The Hive type Glue writes for a Parquet/ORC column of this Arrow type."""
    import pyarrow.types as t

    if t.is_dictionary(data_type):
        return arrow_to_hive(data_type.value_type)
    if t.is_boolean(data_type):
        return "boolean"
    if t.is_int8(data_type):
        return "tinyint"
    if t.is_int16(data_type) or t.is_uint8(data_type):
        return "smallint"
    if t.is_int32(data_type) or t.is_uint16(data_type):
        return "int"
    if t.is_int64(data_type) or t.is_uint32(data_type):
        return "bigint"
    if t.is_uint64(data_type):
        return "decimal(20,0)"
    if t.is_float16(data_type) or t.is_float32(data_type):
        return "float"
    if t.is_float64(data_type):
        return "double"
    if t.is_decimal(data_type):
        return f"decimal({data_type.precision},{data_type.scale})"
    if t.is_string(data_type) or t.is_large_string(data_type) or t.is_string_view(data_type):
        return "string"
    if (t.is_binary(data_type) or t.is_large_binary(data_type) or t.is_binary_view(data_type)
            or t.is_fixed_size_binary(data_type)):
        return "binary"
    if t.is_timestamp(data_type):
        return "timestamp"
    if t.is_date(data_type):
        return "date"
    if t.is_map(data_type):
        return f"map<{arrow_to_hive(data_type.key_type)},{arrow_to_hive(data_type.item_type)}>"
    if t.is_list(data_type) or t.is_large_list(data_type) or t.is_fixed_size_list(data_type):
        return f"array<{arrow_to_hive(data_type.value_type)}>"
    if t.is_struct(data_type):
        members = ",".join(f"{data_type.field(i).name}:{arrow_to_hive(data_type.field(i).type)}"
                           for i in range(data_type.num_fields))
        return f"struct<{members}>"
    return "string"


def _arrow_columns(schema: pa.Schema) -> list[tuple[str, str]]:
    return [(_hive_name(f.name), arrow_to_hive(f.type)) for f in schema]


def _columnar(name: str, schema: Any, rows: int, size: int, serde: str, input_format: str,
              output_format: str) -> Classification:
    """The classification of a self-describing columnar file (Parquet, ORC): schema and row count from its footer."""
    return Classification(
        classification=name,
        columns=_arrow_columns(schema),
        parameters={"classification": name, "compressionType": "none", "typeOfData": "file"},
        serde={"SerializationLibrary": serde, "Parameters": {"serialization.format": "1"}},
        input_format=input_format,
        output_format=output_format,
        record_count=rows,
        average_record_size=size // rows if rows else None,
    )


def classify_parquet(stream: BinaryIO, size: int) -> Classification | None:
    """Glue's Parquet classifier: the schema and row count from the footer at the end of the file."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.ParquetFile(stream).metadata
        schema = metadata.schema.to_arrow_schema()
    except Exception:  # noqa: BLE001 - pyarrow raises several types for a corrupt footer
        return None
    return _columnar("parquet", schema, metadata.num_rows, size, PARQUET_SERDE, PARQUET_INPUT, PARQUET_OUTPUT)


def classify_orc(stream: BinaryIO, size: int) -> Classification | None:
    """Glue's ORC classifier: the schema and row count from the file's metadata (footer)."""
    import pyarrow.orc as orc

    try:
        orc_file = orc.ORCFile(stream)
        schema = orc_file.schema
        rows = int(orc_file.nrows)
    except Exception:  # noqa: BLE001 - pyarrow raises several types for a corrupt footer
        return None
    return _columnar("orc", schema, rows, size, ORC_SERDE, ORC_INPUT, ORC_OUTPUT)


def binary_format(head: bytes, tail: bytes) -> str | None:
    """Which self-describing binary format the magic bytes announce, if any."""
    if head.startswith(AVRO_MAGIC):
        return "avro"
    if head.startswith(ORC_MAGIC):
        return "orc"
    if head.startswith(PARQUET_MAGIC) and tail.endswith(PARQUET_MAGIC):
        return "parquet"
    return None



"""Micro-batches of schema-registry-framed records (``glueball.registry.serde``) decoded into records.

Each record names its writer's schema version in its header. Per micro-batch the driver collects the
distinct version ids (a small query over the persisted batch), fetches the versions it has not seen
(``GetSchemaVersion``; versions never change, so each is fetched once per process) and picks the
*reader* version: the one the table's ``SchemaReference`` names now (the latest version unless it names
one, so a version registered mid-stream is read from the next micro-batch on, without a restart), or,
without a reference, the newest version in the batch. The batch's columns are the reader's; Avro
records written with other versions are resolved to it (new fields get their defaults). The Python
workers get the definitions with the task and decode; a record that is not framed, names a version the
registry does not have, or does not decode becomes an error record saying so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import CHOICE_METADATA

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructField, StructType

    from glueball.registry.serde import KnownVersion, VersionCache
    from glueball.runtime.streaming.decode import DecodeSpec

_CACHE: list[VersionCache] = []


def version_cache(client: Any) -> VersionCache:
    """The process's cache of schema versions (ids are UUIDs: one cache serves every client), fetching
    what it lacks through ``client``."""
    from glueball.registry.serde import VersionCache

    if not _CACHE:
        _CACHE.append(VersionCache(client))
    _CACHE[0].client = client
    return _CACHE[0]


def reference_request(reference: dict[str, Any]) -> dict[str, Any]:
    """``GetSchemaVersion``'s parameters for a table's ``SchemaReference`` (latest without a number)."""
    if reference.get("SchemaVersionId"):
        return {"SchemaVersionId": reference["SchemaVersionId"]}
    if not reference.get("SchemaId"):
        raise GlueRuntimeError(f"SchemaReference {reference} names no SchemaId and no SchemaVersionId")
    number = reference.get("SchemaVersionNumber")
    return {"SchemaId": reference["SchemaId"],
            "SchemaVersionNumber": {"VersionNumber": number} if number else {"LatestVersion": True}}


def reader_version(client: Any, spec: DecodeSpec, seen: list[KnownVersion]) -> KnownVersion | None:
    """The version a batch is read with (see the module docstring); None: no reference and nothing known."""
    from glueball.registry.serde import KnownVersion

    if spec.schema_reference is not None:
        answer = client.get_schema_version(**reference_request(json.loads(spec.schema_reference)))
        return KnownVersion(answer["SchemaVersionId"], answer["DataFormat"], answer["SchemaDefinition"],
                            answer["SchemaArn"], answer["VersionNumber"])
    if not seen:
        return None
    newest = max(seen, key=lambda v: v.number)
    return max((v for v in seen if v.schema_arn == newest.schema_arn), key=lambda v: v.number)


def record_type(reader: KnownVersion) -> tuple[StructType, bool]:
    """The Spark type of the reader's records, and whether a datum is wrapped (an Avro non-record)."""
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    from glueball.registry.columns import columns_of
    from glueball.runtime.io.avro import avro_to_spark

    if reader.data_format == "AVRO":
        spark_type = avro_to_spark(json.loads(reader.definition))
        if isinstance(spark_type, StructType):
            return spark_type, False
        return StructType([StructField("value", spark_type, True)]), True
    try:
        columns = columns_of(reader.data_format, reader.definition)
    except ValueError as e:
        raise GlueRuntimeError(f"schema version {reader.version_id}: {e}") from None
    parsed = _parse_datatype_string(", ".join(f"`{c['Name']}` {c['Type']}" for c in columns))
    assert isinstance(parsed, StructType)
    return parsed, False


class _RegistryDecoder:
    """Decodes framed payloads on the workers with the versions the driver fetched for the batch."""

    def __init__(self, versions: dict[str, tuple[str, str]], reader: tuple[str, str], spark_type: StructType,
                 wrap: bool, site: str) -> None:
        self.versions, self.reader, self.spark_type, self.wrap, self.site = versions, reader, spark_type, wrap, site

    def __call__(self) -> Callable[[Any], tuple[Any, ...]]:
        from glueball.runtime.io.avro import _convert, _import_fastavro

        _import_fastavro(self.site)
        from glueball.registry.serde import SerDeError, is_framed, payload_decoder, unframe

        decoders: dict[str, Callable[[bytes, int], Any]] = {}
        reader_format, reader_definition = self.reader
        fields = self.spark_type.fields

        def decoder_of(version_id: str) -> Callable[[bytes, int], Any]:
            found = decoders.get(version_id)
            if found is None:
                data_format, definition = self.versions[version_id]
                resolve = reader_definition if data_format == reader_format == "AVRO" else None
                found = decoders[version_id] = payload_decoder(data_format, definition, resolve)
            return found

        def decode(payload: Any) -> tuple[Any, ...]:
            if payload is None:
                raise ValueError("The record has no payload")
            data = bytes(payload)
            if not is_framed(data):
                raise ValueError("The record is not framed by the schema registry (no header version byte 3)")
            try:
                unframed = unframe(data)
            except SerDeError as e:
                raise ValueError(str(e)) from None
            if unframed.version_id not in self.versions:
                raise ValueError(f"Unknown schema version id {unframed.version_id}: not in the schema registry")
            try:
                datum = decoder_of(unframed.version_id)(unframed.payload, 0)
            except Exception as e:  # noqa: BLE001 - each format's decoder raises its own kinds
                raise ValueError(f"The record does not decode with schema version {unframed.version_id}: {e}") \
                    from None
            body = {"value": datum} if self.wrap else datum
            if not isinstance(body, dict):
                raise ValueError("The record is not an object with fields")
            return tuple(_convert(body.get(f.name), f.dataType, bool(f.metadata.get(CHOICE_METADATA)))
                         for f in fields)

        return decode


def registry_batch_decoder(glue_ctx: Any, rows: DataFrame, spec: DecodeSpec
                           ) -> tuple[list[StructField], Callable[[], Callable[[Any], tuple[Any, ...]]]]:
    """The record fields of a batch of framed payloads (``rows``: ``value`` bytes, ...) and what decodes each
    payload on the workers (``decode._in_python`` runs it)."""
    from pyspark.sql import functions as F

    from glueball.registry.serde import HEADER_LENGTH, UnknownSchemaVersion
    from glueball.runtime.io.avro import _driver_site

    client = glue_ctx.glue_client
    framed = F.substring(F.col("value"), 1, 1) == F.unhex(F.lit("03"))
    ids = [r[0] for r in rows.where(framed & (F.length("value") >= HEADER_LENGTH))
           .select(F.lower(F.hex(F.substring("value", 3, 16)))).distinct().collect()]
    cache = version_cache(client)
    seen: list[KnownVersion] = []
    for hex_id in ids:
        version_id = f"{hex_id[:8]}-{hex_id[8:12]}-{hex_id[12:16]}-{hex_id[16:20]}-{hex_id[20:]}"
        try:
            seen.append(cache.get(version_id))
        except UnknownSchemaVersion:
            continue  # its records become error records on the workers
    reader = reader_version(client, spec, seen)
    if reader is None:  # nothing in the batch names a known version: every record is an error record
        from pyspark.sql.types import StructType

        spark_type, wrap = StructType([]), False
        reader_pair = ("", "")
    else:
        cache.remember(reader)
        spark_type, wrap = record_type(reader)
        reader_pair = (reader.data_format, reader.definition)
    versions = {v.version_id: (v.data_format, v.definition) for v in seen}
    return list(spark_type.fields), _RegistryDecoder(versions, reader_pair, spark_type, wrap, _driver_site())

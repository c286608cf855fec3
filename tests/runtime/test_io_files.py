"""Files through s3:// paths: every format's round trip, csv options, compression, listing, purge."""

from __future__ import annotations

import bz2
import datetime as dt
import gzip
import json
import os
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from glueball.objects.locations import local_path
from glueball.runtime.dynamicframe import CHOICE_METADATA, DynamicFrame
from glueball.runtime.errors import GlueRuntimeError

ROWS = [(1, "ann", 1.5), (2, "bob", 2.25), (3, "cy", -3.5)]


@pytest.fixture
def prefix(glue_home: Path) -> str:
    """A fresh s3:// folder for one test."""
    return f"s3://io-files/{uuid.uuid4().hex[:10]}"


def _frame(glue_context: Any, rows: list[tuple[Any, ...]] = ROWS, columns: str = "id long, name string, score double"
           ) -> DynamicFrame:
    df = glue_context.spark_session.createDataFrame(rows, columns)
    return DynamicFrame.fromDF(df, glue_context, "input")


def _put(uri: str, data: bytes | str) -> None:
    path = local_path(uri)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def _rows(frame: DynamicFrame, *cols: str) -> list[tuple[Any, ...]]:
    df = frame.toDF()
    return sorted(tuple(r) for r in df.select(*(cols or df.columns)).collect())


@pytest.mark.parametrize(("fmt", "format_options"), [
    ("csv", {}), ("json", {}), ("parquet", {}), ("glueparquet", {"compression": "gzip"}),
    ("orc", {}), ("avro", {}), ("xml", {"rowTag": "rec"}),
])
def test_round_trip_through_s3(glue_context: Any, prefix: str, fmt: str, format_options: dict[str, Any]) -> None:
    path = f"{prefix}/{fmt}/"
    glue_context.write_dynamic_frame.from_options(_frame(glue_context), connection_type="s3",
                                                  connection_options={"path": path}, format=fmt,
                                                  format_options=format_options)
    assert any(local_path(path).iterdir())
    back = glue_context.create_dynamic_frame.from_options("s3", {"paths": [path]}, format=fmt,
                                                          format_options={**format_options, "withHeader": True})
    assert _rows(back, "id", "name", "score") == sorted(ROWS)
    assert back.toDF().schema["id"].dataType.simpleString() in ("bigint", "int")
    assert back.errorsCount() == 0


def test_csv_options_separator_quote_escaper_and_no_header(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/a.csv", "1|'x|y'|3\n2|'it\\'s'|4\n")
    frame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [f"{prefix}/"]}, format="csv",
        format_options={"separator": "|", "quoteChar": "'", "escaper": "\\"})
    assert frame.toDF().columns == ["col0", "col1", "col2"]
    assert _rows(frame) == [(1, "x|y", 3), (2, "it's", 4)]


def test_csv_quote_char_minus_one_disables_quoting_and_skip_first(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/a.csv", "junk line\n\"a\",b\n")
    frame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix]}, format="csv", format_options={"quoteChar": -1, "skipFirst": True})
    assert _rows(frame) == [('"a"', "b")]


def test_csv_multiline_and_header(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/a.csv", 'id,text\n1,"two\nlines"\n2,one\n')
    frame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix]}, format="csv", format_options={"withHeader": True, "multiLine": True})
    assert _rows(frame) == [(1, "two\nlines"), (2, "one")]


def test_csv_mixed_column_is_a_choice_and_malformed_lines_are_errors(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/a.csv", "id,v\n1,10\n2,abc\n3,7\n4,5,extra\n")
    frame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix]}, format="csv", format_options={"withHeader": True})
    field = frame.toDF().schema["v"]
    assert field.metadata.get(CHOICE_METADATA) is True
    assert [f.name for f in field.dataType.fields] == ["long", "string"]
    values = {r["id"]: (r["v"]["long"], r["v"]["string"]) for r in frame.toDF().collect()}
    assert values == {1: (10, None), 2: (None, "abc"), 3: (7, None)}
    errors = frame.errorsAsDynamicFrame().toDF().collect()
    assert [e["error_input"] for e in errors] == ["4,5,extra"]
    assert errors[0]["error_source"].endswith("a.csv")


@pytest.mark.parametrize(("suffix", "pack"), [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_compressed_input_by_extension(glue_context: Any, prefix: str, suffix: str, pack: Any) -> None:
    _put(f"{prefix}/a.csv{suffix}", pack(b"id,name\n1,a\n2,b\n"))
    _put(f"{prefix}/b.json{suffix}", pack(b'{"id": 5}\n{"id": 6}\n'))
    csv = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix], "exclusions": '["**.json*"]'}, format="csv", format_options={"withHeader": True})
    assert _rows(csv) == [(1, "a"), (2, "b")]
    js = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix], "exclusions": '["**.csv*"]'}, format="json")
    assert _rows(js) == [(5,), (6,)]


def test_compression_type_on_output(glue_context: Any, prefix: str) -> None:
    glue_context.write_dynamic_frame.from_options(_frame(glue_context), "s3",
                                                  {"path": f"{prefix}/out", "compressionType": "gzip"}, "json")
    written = [p.name for p in local_path(f"{prefix}/out").iterdir() if p.name.startswith("run-")]
    assert written and all(name.endswith(".gz") for name in written)
    back = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/out"]}, "json")
    assert _rows(back, "id") == [(1,), (2,), (3,)]


def test_recurse_and_exclusions(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/top.csv", "n\n1\n")
    _put(f"{prefix}/sub/deep.csv", "n\n2\n")
    _put(f"{prefix}/sub/skip.tmp.csv", "n\n3\n")
    _put(f"{prefix}/_SUCCESS", "")
    opts = {"withHeader": True}
    flat = glue_context.create_dynamic_frame.from_options("s3", {"paths": [prefix]}, "csv", opts)
    assert _rows(flat) == [(1,)]
    deep = glue_context.create_dynamic_frame.from_options("s3", {"paths": [prefix], "recurse": True}, "csv", opts)
    assert _rows(deep) == [(1,), (2,), (3,)]
    excluded = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix], "recurse": True, "exclusions": '["**.tmp.csv"]'}, "csv", opts)
    assert _rows(excluded) == [(1,), (2,)]
    by_uri = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix], "recurse": True, "exclusions": json.dumps([f"{prefix}/sub/*"])}, "csv", opts)
    assert _rows(by_uri) == [(1,)]


def test_group_files_coalesces_small_files(glue_context: Any, prefix: str) -> None:
    for i in range(4):
        _put(f"{prefix}/f{i}.csv", f"n\n{i}\n")
    opts = {"paths": [prefix], "groupFiles": "inPartition", "groupSize": "1048576"}
    grouped = glue_context.create_dynamic_frame.from_options("s3", opts, "csv", {"withHeader": True})
    assert grouped.getNumPartitions() == 1
    assert grouped.count() == 4


def test_partition_keys_write_hive_folders(glue_context: Any, prefix: str) -> None:
    rows = [(1, "a", "x"), (2, "b", "y"), (3, "c", "x")]
    frame = _frame(glue_context, rows, "id long, name string, part string")
    glue_context.write_dynamic_frame.from_options(frame, "s3", {"path": prefix, "partitionKeys": ["part"]}, "avro")
    assert sorted(p.name for p in local_path(prefix).iterdir()) == ["part=x", "part=y"]
    back = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/part=x"]}, "avro")
    assert _rows(back) == [(1, "a"), (3, "c")]


def test_avro_logical_types_and_unions(glue_context: Any, prefix: str) -> None:
    import fastavro

    schema = {"type": "record", "name": "r", "fields": [
        {"name": "d", "type": {"type": "int", "logicalType": "date"}},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "maybe", "type": ["null", "string"]},
        {"name": "either", "type": ["long", "string"]},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ]}
    when = dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC)
    records = [{"d": dt.date(2024, 1, 2), "ts": when, "amount": Decimal("12.34"), "maybe": None, "either": 5,
                "tags": ["a"]},
               {"d": dt.date(2024, 1, 3), "ts": when, "amount": Decimal("-1.00"), "maybe": "m", "either": "five",
                "tags": []}]
    target = local_path(f"{prefix}/x.avro")
    target.parent.mkdir(parents=True)
    with open(target, "wb") as handle:
        fastavro.writer(handle, schema, records)
    df = glue_context.create_dynamic_frame.from_options("s3", {"paths": [prefix]}, "avro").toDF()
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert types == {"d": "date", "ts": "timestamp", "amount": "decimal(9,2)", "maybe": "string",
                     "either": "struct<long:bigint,string:string>", "tags": "array<string>"}
    assert df.schema["either"].metadata.get(CHOICE_METADATA) is True
    got = sorted(df.collect(), key=lambda r: r["d"])
    assert got[0]["amount"] == Decimal("12.34") and got[1]["maybe"] == "m"
    assert (got[0]["either"]["long"], got[1]["either"]["string"]) == (5, "five")
    ts = df.selectExpr("unix_timestamp(ts) AS s").first()
    assert ts is not None and ts["s"] == int(when.timestamp())
    # and written back by the runtime with the same types
    glue_context.write_dynamic_frame.from_options(
        DynamicFrame.fromDF(df.drop("either"), glue_context, "x"), "s3", {"path": f"{prefix}/out"}, "avro")
    again = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/out"]}, "avro").toDF()
    assert {f.name: f.dataType.simpleString() for f in again.schema.fields} == {
        k: v for k, v in types.items() if k != "either"}
    assert sorted(r["amount"] for r in again.collect()) == [Decimal("-1.00"), Decimal("12.34")]


def test_json_multiline_and_json_path(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/a.json", json.dumps({"records": [{"id": 1}, {"id": 2}]}, indent=2))
    frame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix]}, "json", {"multiline": True, "jsonPath": "$.records[*]"})
    assert _rows(frame) == [(1,), (2,)]


def test_empty_path_reads_an_empty_frame(glue_context: Any, prefix: str) -> None:
    frame = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/nothing"]}, "parquet")
    assert frame.count() == 0


def test_attach_filename(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/one.csv", "n\n1\n")
    frame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix], "attachFilename": "file"}, "csv", {"withHeader": True})
    assert frame.toDF().first()["file"].endswith("/one.csv")


def test_unsupported_connection_types_are_named(glue_context: Any) -> None:
    with pytest.raises(GlueRuntimeError, match=r"dynamodb.*s3, file, postgresql, mysql"):
        glue_context.create_dynamic_frame.from_options("dynamodb", {"dynamodb.input.tableName": "t"})
    with pytest.raises(GlueRuntimeError, match="streaming"):
        glue_context.create_dynamic_frame.from_options("kafka", {})
    with pytest.raises(GlueRuntimeError, match="redshift"):
        glue_context.write_dynamic_frame.from_options(_frame(glue_context), "redshift", {})
    with pytest.raises(GlueRuntimeError, match="unsupported format"):
        glue_context.create_dynamic_frame.from_options("s3", {"paths": ["s3://x/y"]}, format="ion")


def test_data_source_and_sink(glue_context: Any, prefix: str) -> None:
    sink = glue_context.getSink("s3", path=f"{prefix}/sink")
    sink.setFormat("csv", separator=";")
    sink.writeFrame(_frame(glue_context))
    text = "".join(p.read_text() for p in local_path(f"{prefix}/sink").glob("run-*"))
    assert "1;ann;1.5" in text
    source = glue_context.getSource("s3", paths=[f"{prefix}/sink"])
    source.setFormat("csv", separator=";", withHeader=True)
    assert _rows(source.getFrame(), "id", "name", "score") == sorted(ROWS)


def test_purge_s3_path_keeps_files_in_retention(glue_context: Any, prefix: str) -> None:
    _put(f"{prefix}/old/a.csv", "x")
    _put(f"{prefix}/new.csv", "y")
    old = time.time() - 3 * 3600
    os.utime(local_path(f"{prefix}/old/a.csv"), (old, old))
    glue_context.purge_s3_path(prefix, {"retentionPeriod": 1, "manifestFilePath": f"{prefix}-manifest"})
    assert not local_path(f"{prefix}/old").exists()
    assert local_path(f"{prefix}/new.csv").exists()
    assert local_path(f"{prefix}-manifest/Success.csv").read_text().strip() == f"{prefix}/old/a.csv"
    glue_context.purge_s3_path(prefix, {"retentionPeriod": 0, "excludeStorageClasses": ["STANDARD"]})
    assert local_path(f"{prefix}/new.csv").exists()
    glue_context.purge_s3_path(prefix, {"retentionPeriod": 0})
    assert not local_path(f"{prefix}/new.csv").exists()

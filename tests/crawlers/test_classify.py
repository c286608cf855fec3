"""Classification of real files, as a Glue crawler classifies them."""

from __future__ import annotations

import bz2
import datetime as dt
import decimal
import gzip
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from glueball.crawlers.classify import Classification, FileSample, classify, merge_columns, similarity
from glueball.crawlers.classify.schema import union_columns, wider_type

APACHE_LINE = ('198.51.100.{n} - bob [08/Jun/2026:10:00:{s:02d} +0000] "GET /items/{n}?page=2 HTTP/1.1" 200 {n}12 '
               '"https://example.com/" "curl/8.0"')
COMMON_LINE = '198.51.100.{n} - - [08/Jun/2026:10:00:{s:02d} +0000] "GET /x HTTP/1.1" 404 -'
SYSLOG_LINES = [
    "Jun  8 10:00:01 web-1 kernel: [12345.678] eth0: link up",
    "Jun  8 10:00:02 web-1 sshd[4242]: Accepted publickey for alice",
    "Jun 18 10:00:03 web-1 CRON[77]: (root) CMD (run-parts /etc/cron.hourly)",
]


def make(tmp_path: Path, name: str, data: bytes | str) -> FileSample:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return FileSample(path=str(path), uri=f"s3://bucket/{name}", size=path.stat().st_size)


def run(tmp_path: Path, name: str, data: bytes | str, custom: list[dict[str, Any]] | None = None,
        sample_records: int = 1000) -> Classification:
    found = classify(make(tmp_path, name, data), custom or [], sample_records)
    assert found is not None, f"{name} was not classified"
    return found


# --------------------------------------------------------------------------- Parquet / ORC / Avro


def _arrow_table() -> pa.Table:
    return pa.table({
        "id": pa.array([1, 2, 3], pa.int32()),
        "big": pa.array([10, 20, 30], pa.int64()),
        "ratio": pa.array([0.5, 1.5, 2.5], pa.float32()),
        "score": pa.array([1.0, 2.0, 3.0], pa.float64()),
        "name": pa.array(["a", "b", "c"]),
        "ok": pa.array([True, False, True]),
        "at": pa.array([dt.datetime(2026, 6, 8)] * 3, pa.timestamp("us")),
        "day": pa.array([dt.date(2026, 6, 8)] * 3, pa.date32()),
        "price": pa.array([decimal.Decimal("1.25")] * 3, pa.decimal128(10, 2)),
        "tags": pa.array([["x"], [], ["y", "z"]], pa.list_(pa.string())),
        "Point": pa.array([{"x": 1, "y": 2.0}] * 3, pa.struct([("x", pa.int64()), ("y", pa.float64())])),
        "attrs": pa.array([[("k", 1)]] * 3, pa.map_(pa.string(), pa.int32())),
    })


ARROW_HIVE_COLUMNS = [
    ("id", "int"), ("big", "bigint"), ("ratio", "float"), ("score", "double"), ("name", "string"),
    ("ok", "boolean"), ("at", "timestamp"), ("day", "date"), ("price", "decimal(10,2)"), ("tags", "array<string>"),
    ("point", "struct<x:bigint,y:double>"), ("attrs", "map<string,int>"),
]


def test_parquet_schema_and_row_count_from_the_footer(tmp_path: Path) -> None:
    pq.write_table(_arrow_table(), tmp_path / "t.parquet")
    sample = FileSample(str(tmp_path / "t.parquet"), "s3://b/t.parquet", (tmp_path / "t.parquet").stat().st_size)
    found = classify(sample, [])
    assert found is not None
    assert found.classification == "parquet"
    assert found.columns == ARROW_HIVE_COLUMNS
    assert found.record_count == 3
    assert found.parameters["classification"] == "parquet"
    assert found.serde["SerializationLibrary"] == "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert found.input_format == "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
    assert found.output_format == "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"


def test_orc_schema_and_row_count(tmp_path: Path) -> None:
    table = _arrow_table().drop_columns(["attrs"])
    orc.write_table(table, str(tmp_path / "t.orc"))
    found = run(tmp_path, "copy.orc", (tmp_path / "t.orc").read_bytes())
    assert found.classification == "orc"
    assert dict(found.columns) == {name: t for name, t in ARROW_HIVE_COLUMNS if name != "attrs"} | {
        "at": "timestamp"}
    assert found.record_count == 3
    assert found.serde["SerializationLibrary"] == "org.apache.hadoop.hive.ql.io.orc.OrcSerde"
    assert found.input_format == "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"


AVRO_SCHEMA = {
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "qty", "type": "int"},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "DONE"]}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3}},
        {"name": "items", "type": {"type": "array", "items": {
            "type": "record", "name": "Item", "fields": [{"name": "sku", "type": "string"},
                                                         {"name": "price", "type": "double"}]}}},
        {"name": "extra", "type": {"type": "map", "values": "float"}},
        {"name": "again", "type": ["null", "Item"], "default": None},
        {"name": "either", "type": ["int", "string"]},
    ],
}


def _avro_records(n: int) -> list[dict[str, Any]]:
    return [{"id": i, "qty": i % 7, "note": None if i % 2 else "n", "status": "NEW", "day": dt.date(2026, 6, 8),
             "at": dt.datetime(2026, 6, 8, tzinfo=dt.UTC), "amount": decimal.Decimal("1.500"),
             "items": [{"sku": "a", "price": 1.0}], "extra": {"k": 1.0}, "again": None, "either": i}
            for i in range(n)]


def test_avro_schema_from_the_header(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    fastavro.writer(buffer, AVRO_SCHEMA, _avro_records(2500), sync_interval=1000)
    found = run(tmp_path, "orders.avro", buffer.getvalue())
    assert found.classification == "avro"
    assert found.columns == [
        ("id", "bigint"), ("qty", "int"), ("note", "string"), ("status", "string"), ("day", "date"),
        ("at", "timestamp"), ("amount", "decimal(12,3)"), ("items", "array<struct<sku:string,price:double>>"),
        ("extra", "map<string,float>"), ("again", "struct<sku:string,price:double>"),
        ("either", "uniontype<int,string>"),
    ]
    assert found.record_count == 2500  # summed from the block headers
    assert found.serde["SerializationLibrary"] == "org.apache.hadoop.hive.serde2.avro.AvroSerDe"
    assert json.loads(found.serde["Parameters"]["avro.schema.literal"])["name"] == "Order"
    assert found.input_format == "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat"


# --------------------------------------------------------------------------- CSV


def test_csv_with_header(tmp_path: Path) -> None:
    found = run(tmp_path, "a.csv", "ID,Name,Price,Active\n1,apple,1.5,true\n2,pear,2,false\n3,fig,,true\n")
    assert found.classification == "csv"
    assert found.columns == [("id", "bigint"), ("name", "string"), ("price", "double"), ("active", "boolean")]
    assert found.parameters["skip.header.line.count"] == "1"
    assert found.parameters["delimiter"] == ","
    assert found.parameters["columnsOrdered"] == "true"
    assert found.parameters["areColumnsQuoted"] == "false"
    assert found.parameters["compressionType"] == "none"
    assert found.serde == {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                           "Parameters": {"field.delim": ","}}
    assert found.input_format == "org.apache.hadoop.mapred.TextInputFormat"
    assert found.output_format == "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"
    assert found.record_count == 3


def test_csv_without_header(tmp_path: Path) -> None:
    found = run(tmp_path, "b.csv", "1,apple,1.5\n2,pear,2.25\n")
    assert found.columns == [("col0", "bigint"), ("col1", "string"), ("col2", "double")]
    assert "skip.header.line.count" not in found.parameters
    assert found.record_count == 2


def test_csv_all_string_columns_have_no_header(tmp_path: Path) -> None:
    # The first row is not "sufficiently different" from the data: every column is a string.
    found = run(tmp_path, "c.csv", "name,city\nalice,paris\nbob,rome\n")
    assert found.columns == [("col0", "string"), ("col1", "string")]
    assert "skip.header.line.count" not in found.parameters


def test_csv_header_rules(tmp_path: Path) -> None:
    duplicate = run(tmp_path, "dup.csv", "a,A\n1,2\n3,4\n")
    assert [n for n, _ in duplicate.columns] == ["col0", "col1"]
    numeric_first_row = run(tmp_path, "num.csv", "1,x\n2,y\n")
    assert [n for n, _ in numeric_first_row.columns] == ["col0", "col1"]
    too_long = run(tmp_path, "long.csv", f"{'h' * 150},b\n1,2\n3,4\n")
    assert [n for n, _ in too_long.columns] == ["col0", "col1"]
    trailing = run(tmp_path, "trail.csv", "a,b,\n1,2,\n3,4,\n")
    assert trailing.columns == [("a", "bigint"), ("b", "bigint")]


@pytest.mark.parametrize(("delimiter", "name"), [(",", "comma"), ("|", "pipe"), ("\t", "tab"), (";", "semicolon"),
                                                 ("\u0001", "ctrl-a")])
def test_csv_delimiters(tmp_path: Path, delimiter: str, name: str) -> None:
    rows = [["id", "label", "value"], ["1", "one, or so", "1.5"], ["2", "two", "2.5"]]
    if delimiter == ",":
        rows = [[v.replace(", or so", "") for v in row] for row in rows]
    found = run(tmp_path, f"{name}.csv", "".join(delimiter.join(r) + "\n" for r in rows))
    assert found.parameters["delimiter"] == delimiter
    assert found.serde["Parameters"] == {"field.delim": delimiter}
    assert found.columns == [("id", "bigint"), ("label", "string"), ("value", "double")]


def test_single_column_text_is_not_csv(tmp_path: Path) -> None:
    assert classify(make(tmp_path, "words.txt", "alpha\nbeta\ngamma\n"), []) is None
    assert classify(make(tmp_path, "ragged.csv", "a,b\n1,2,3\n4\n"), []) is None
    assert classify(make(tmp_path, "one-row.csv", "a,b,c\n"), []) is None


def test_quoted_values_with_embedded_delimiters_use_open_csv_serde(tmp_path: Path) -> None:
    found = run(tmp_path, "q.csv", 'id,comment,amount\n1,"good, really",10\n2,"fine",20\n3,"multi\nline",30\n')
    assert found.columns == [("id", "bigint"), ("comment", "string"), ("amount", "bigint")]
    assert found.serde == {"SerializationLibrary": "org.apache.hadoop.hive.serde2.OpenCSVSerde",
                           "Parameters": {"separatorChar": ",", "quoteChar": '"'}}
    assert found.parameters["areColumnsQuoted"] == "true"
    plain_quotes = run(tmp_path, "q2.csv", 'id,name\n1,"a"\n2,"b"\n')
    assert plain_quotes.serde["SerializationLibrary"] == "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"


def test_csv_types_are_inferred_from_at_most_sample_records(tmp_path: Path) -> None:
    text = "n,v\n" + "".join(f"{i},{i}\n" for i in range(50)) + "51,not-a-number\n"
    assert dict(run(tmp_path, "s.csv", text, sample_records=50).columns)["v"] == "bigint"
    assert dict(run(tmp_path, "s2.csv", text, sample_records=1000).columns)["v"] == "string"


def test_compressed_csv(tmp_path: Path) -> None:
    text = "id,name\n" + "".join(f"{i},n{i}\n" for i in range(200))
    for name, data, kind in [("x.csv.gz", gzip.compress(text.encode()), "gzip"),
                             ("x.csv.bz2", bz2.compress(text.encode()), "bzip2"),
                             ("no-extension", gzip.compress(text.encode()), "gzip")]:
        found = run(tmp_path, name, data)
        assert found.classification == "csv"
        assert found.parameters["compressionType"] == kind
        assert found.columns == [("id", "bigint"), ("name", "string")]
        assert found.record_count == 200


# --------------------------------------------------------------------------- JSON


def test_json_lines_with_evolving_fields_and_nested_types(tmp_path: Path) -> None:
    lines = [
        {"id": 1, "name": "a", "address": {"city": "Paris", "zip": 75001}, "tags": ["x"]},
        {"id": 2, "name": "b", "score": 1.5, "tags": []},
        {"id": 3000000000, "name": None, "address": {"city": "Rome", "geo": {"lat": 41.9}}, "active": True},
        {"id": 4, "score": 2, "mixed": 1},
        {"id": 5, "mixed": "text"},
    ]
    found = run(tmp_path, "e.json", "\n".join(json.dumps(r) for r in lines) + "\n")
    assert found.classification == "json"
    assert found.columns == [
        ("id", "bigint"), ("name", "string"), ("address", "struct<city:string,zip:int,geo:struct<lat:double>>"),
        ("tags", "array<string>"), ("score", "double"), ("active", "boolean"), ("mixed", "string"),
    ]
    assert found.serde == {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe",
                           "Parameters": {"paths": "id,name,address,tags,score,active,mixed"}}
    assert found.parameters["classification"] == "json"
    assert found.input_format == "org.apache.hadoop.mapred.TextInputFormat"
    assert found.record_count == 5


def test_small_json_integers_are_int(tmp_path: Path) -> None:
    # The Glue docs' own example: {"A": 1, "B": 2} has the schema A:int, B:int.
    assert run(tmp_path, "ab.json", '{"A": 1, "B": 2}').columns == [("a", "int"), ("b", "int")]


def test_concatenated_pretty_printed_objects(tmp_path: Path) -> None:
    text = json.dumps({"a": 1, "b": {"c": [1, 2]}}, indent=2) + "\n" + json.dumps({"a": 2, "d": "x"}, indent=2)
    found = run(tmp_path, "pretty.json", text)
    assert found.columns == [("a", "int"), ("b", "struct<c:array<int>>"), ("d", "string")]
    assert found.record_count == 2


def test_top_level_array_is_one_array_column_without_a_json_path(tmp_path: Path) -> None:
    text = json.dumps([{"type": "constituency", "id": "x"}, {"type": "constituency", "name": "Alaska"}])
    found = run(tmp_path, "areas.json", text)
    assert found.columns == [("array", "array<struct<type:string,id:string,name:string>>")]


def test_json_path_selects_records(tmp_path: Path) -> None:
    array = json.dumps([{"type": "c", "id": "x"}, {"type": "c", "id": "y", "name": "Alaska"}])
    star = [{"JsonClassifier": {"Name": "records", "JsonPath": "$[*]"}}]
    found = run(tmp_path, "areas.json", array, star)
    assert found.columns == [("type", "string"), ("id", "string"), ("name", "string")]
    assert found.custom_classifier == "records"
    assert found.parameters["jsonPath"] == "$[*]"
    assert found.record_count == 2

    nested = json.dumps({"meta": {"n": 2}, "records": [{"k": 1}, {"k": 2, "v": True}]})
    found = run(tmp_path, "nested.json", nested, [{"JsonClassifier": {"Name": "r", "JsonPath": "$.records[*]"}}])
    assert found.columns == [("k", "int"), ("v", "boolean")]
    scalars = run(tmp_path, "ids.json", '{"id": "a", "n": 1}\n{"id": "b"}\n',
                  [{"JsonClassifier": {"Name": "ids", "JsonPath": "$['id']"}}])
    assert scalars.columns == [("record", "string")]
    # A path that selects nothing does not match: the built-in JSON classifier takes over.
    fallback = run(tmp_path, "fallback.json", '{"a": 1}\n', [{"JsonClassifier": {"Name": "x", "JsonPath": "$.b"}}])
    assert fallback.custom_classifier is None and fallback.columns == [("a", "int")]


def test_gzip_json(tmp_path: Path) -> None:
    data = gzip.compress("".join(json.dumps({"id": i, "v": f"{i}"}) + "\n" for i in range(100)).encode())
    found = run(tmp_path, "events.json.gz", data)
    assert found.classification == "json"
    assert found.parameters["compressionType"] == "gzip"
    assert found.columns == [("id", "int"), ("v", "string")]


def test_json_record_larger_than_one_megabyte(tmp_path: Path) -> None:
    big = {"id": 1, "blob": "x" * (3 * 1024 * 1024)}
    found = run(tmp_path, "big.json", json.dumps(big) + "\n" + json.dumps({"id": 2, "blob": "y"}) + "\n")
    assert found.columns == [("id", "int"), ("blob", "string")]


def test_json_schema_comes_from_at_most_sample_records(tmp_path: Path) -> None:
    text = "".join(json.dumps({"id": i}) + "\n" for i in range(50)) + json.dumps({"id": 50, "late": "x"}) + "\n"
    assert run(tmp_path, "late.json", text, sample_records=50).columns == [("id", "int")]
    assert run(tmp_path, "late.json", text, sample_records=51).columns == [("id", "int"), ("late", "string")]


def test_invalid_json_is_not_json(tmp_path: Path) -> None:
    found = classify(make(tmp_path, "bad.json", '{"a": 1}\n{"a": \n{"b": 2}\n'), [])
    assert found is None or found.classification != "json"


# --------------------------------------------------------------------------- XML


CATALOG_XML = """<?xml version="1.0"?>
<catalog>
   <book id="bk101">
     <AnyCompany>
       <author>Rivera, Martha</author>
       <title>AnyCompany Developer Guide</title>
     </AnyCompany>
     <price>44.95</price>
     <copies>3</copies>
   </book>
   <book id="bk102">
     <AnyCompany>
       <author>Stiles, John</author>
       <title>Style Guide for AnyCompany</title>
     </AnyCompany>
     <price>5</price>
     <tag>a</tag><tag>b</tag>
   </book>
</catalog>
"""


def test_builtin_xml_uses_the_repeated_element_under_the_root(tmp_path: Path) -> None:
    found = run(tmp_path, "books.xml", CATALOG_XML)
    assert found.classification == "xml"
    assert found.parameters["rowTag"] == "book"
    assert found.columns == [("_id", "string"), ("anycompany", "struct<author:string,title:string>"),
                             ("price", "double"), ("copies", "bigint"), ("tag", "array<string>")]
    assert found.record_count == 2


def test_custom_xml_row_tag(tmp_path: Path) -> None:
    custom = [{"XMLClassifier": {"Name": "company", "Classification": "books", "RowTag": "AnyCompany"}}]
    found = run(tmp_path, "books.xml", CATALOG_XML, custom)
    assert found.classification == "books"
    assert found.custom_classifier == "company"
    assert found.parameters["rowTag"] == "AnyCompany"
    assert found.columns == [("author", "string"), ("title", "string")]
    # Self-closing empty row elements are not records, so this classifier does not match them.
    empty_rows = "<rows><row/><row/></rows>"
    other = classify(make(tmp_path, "empty.xml", empty_rows),
                     [{"XMLClassifier": {"Name": "r", "Classification": "xml", "RowTag": "row"}}])
    assert other is None


# --------------------------------------------------------------------------- logs


def test_combined_apache_log(tmp_path: Path) -> None:
    text = "\n".join(APACHE_LINE.format(n=n, s=n) for n in range(1, 40)) + "\n"
    found = run(tmp_path, "access.log", text)
    assert found.classification == "combined_apache"
    assert found.parameters["grokPattern"] == "%{COMBINEDAPACHELOG}"
    assert found.serde == {"SerializationLibrary": "com.amazonaws.glue.serde.GrokSerDe",
                           "Parameters": {"input.format": "%{COMBINEDAPACHELOG}"}}
    assert [n for n, _ in found.columns][:4] == ["clientip", "ident", "auth", "timestamp"]
    assert found.record_count == 39


def test_common_apache_log_and_gzip(tmp_path: Path) -> None:
    text = "\n".join(COMMON_LINE.format(n=n, s=n) for n in range(1, 20)) + "\n"
    found = run(tmp_path, "access.log.gz", gzip.compress(text.encode()))
    assert found.classification == "apache"
    assert found.parameters["compressionType"] == "gzip"
    assert ("referrer", "string") not in found.columns


def test_syslog_is_linux_kernel_log(tmp_path: Path) -> None:
    found = run(tmp_path, "syslog", "\n".join(SYSLOG_LINES) + "\n")
    assert found.classification == "linux_kernel"
    assert [n for n, _ in found.columns] == ["timestamp", "facility", "priority", "logsource", "program", "pid",
                                             "message"]


def test_a_log_with_one_foreign_line_is_not_that_log(tmp_path: Path) -> None:
    text = "\n".join(COMMON_LINE.format(n=n, s=n) for n in range(1, 5)) + "\nnot a log line\n"
    found = classify(make(tmp_path, "mixed.log", text), [])
    assert found is None or found.classification != "apache"


# --------------------------------------------------------------------------- unknown


def test_unknown_files(tmp_path: Path) -> None:
    assert classify(make(tmp_path, "empty.csv", b""), []) is None
    assert classify(make(tmp_path, "blank.txt", b"\n\n   \n"), []) is None
    assert classify(make(tmp_path, "random.bin", os.urandom(64 * 1024)), []) is None
    assert classify(make(tmp_path, "corrupt.parquet", b"PAR1" + os.urandom(2048) + b"PAR1"), []) is None
    assert classify(make(tmp_path, "corrupt.avro", b"Obj\x01" + os.urandom(512)), []) is None
    assert classify(make(tmp_path, "corrupt.gz", b"\x1f\x8b\x08" + os.urandom(512)), []) is None


# --------------------------------------------------------------------------- custom classifiers


GROK_LOG = "2026-06-08T10:00:00Z [a-b-c-d-e] INFO : started\n2026-06-08T10:00:01Z [f-g-h-i-j] ERROR : failed\n"
CRAWLER_GROK = {"GrokClassifier": {
    "Name": "crawlerlogs", "Classification": "special-logs",
    "GrokPattern": r"%{TIMESTAMP_ISO8601:timestamp} \[%{MESSAGEPREFIX:message_prefix}\] "
                   r"%{CRAWLERLOGLEVEL:loglevel} : %{GREEDYDATA:message}",
    "CustomPatterns": "CRAWLERLOGLEVEL (BENCHMARK|ERROR|WARN|INFO|TRACE)\nMESSAGEPREFIX .*-.*-.*-.*-.*",
}}


def test_custom_grok_classifier(tmp_path: Path) -> None:
    found = run(tmp_path, "crawler.log", GROK_LOG, [CRAWLER_GROK])
    assert found.classification == "special-logs"
    assert found.custom_classifier == "crawlerlogs"
    assert found.columns == [("timestamp", "string"), ("message_prefix", "string"), ("loglevel", "string"),
                             ("message", "string")]
    assert found.parameters["grokPattern"] == CRAWLER_GROK["GrokClassifier"]["GrokPattern"]
    assert found.parameters["grokCustomPatterns"] == CRAWLER_GROK["GrokClassifier"]["CustomPatterns"]
    assert found.serde["SerializationLibrary"] == "com.amazonaws.glue.serde.GrokSerDe"
    assert found.serde["Parameters"]["input.format"] == CRAWLER_GROK["GrokClassifier"]["GrokPattern"]


def test_a_custom_grok_pattern_that_does_not_compile_matches_nothing(tmp_path: Path) -> None:
    broken = {"GrokClassifier": {"Name": "broken", "Classification": "b", "GrokPattern": "%{NOSUCHPATTERN:x}"}}
    found = run(tmp_path, "t.csv", "id,name\n1,a\n2,b\n", [broken])
    assert found.classification == "csv" and found.custom_classifier is None


def test_custom_classifiers_run_first_in_the_given_order(tmp_path: Path) -> None:
    csv_text = "id,name\n1,a\n2,b\n"
    semicolon = {"CsvClassifier": {"Name": "semi", "Delimiter": ";", "ContainsHeader": "ABSENT"}}
    as_comma = {"CsvClassifier": {"Name": "comma", "Delimiter": ",", "ContainsHeader": "ABSENT",
                                  "Header": ["key", "label"]}}
    as_grok = {"GrokClassifier": {"Name": "pairs", "Classification": "pairs",
                                  "GrokPattern": "%{WORD:left},%{WORD:right}"}}
    first = run(tmp_path, "t.csv", csv_text, [semicolon, as_comma, as_grok])
    assert first.custom_classifier == "comma"  # "semi" did not match; "comma" did before "pairs"
    assert first.columns == [("key", "string"), ("label", "string")]  # ABSENT: "id,name" is a data row
    second = run(tmp_path, "t.csv", csv_text, [as_grok, as_comma])
    assert second.custom_classifier == "pairs"
    assert second.classification == "pairs"
    builtin = run(tmp_path, "t.csv", csv_text, [semicolon])
    assert builtin.custom_classifier is None and builtin.columns == [("id", "bigint"), ("name", "string")]


def test_partial_custom_grok_match_loses_to_a_builtin_but_beats_unknown(tmp_path: Path) -> None:
    partial = {"GrokClassifier": {"Name": "nums", "Classification": "nums", "GrokPattern": "%{INT:a},%{INT:b}"}}
    csv_text = "1,2\n3,4\nx,y\n"
    assert run(tmp_path, "p.csv", csv_text, [partial]).classification == "csv"
    odd = "1,2\nhello world\n"  # no built-in recognises this; the grok classifier matched half the lines
    found = run(tmp_path, "odd.txt", odd, [partial])
    assert found.classification == "nums"
    assert found.custom_classifier == "nums"


def test_custom_csv_options(tmp_path: Path) -> None:
    text = "'a'#'b'#'when'\n' 1 '#'x, y'#'2026-06-08'\n'2'#'z'#'2026-06-09'\n"
    custom = [{"CsvClassifier": {"Name": "hash", "Delimiter": "#", "QuoteSymbol": "'", "ContainsHeader": "PRESENT",
                                 "CustomDatatypeConfigured": True, "CustomDatatypes": ["INT", "DATE"],
                                 "Serde": "OpenCSVSerDe"}}]
    found = run(tmp_path, "hash.txt", text, custom)
    assert found.columns == [("a", "int"), ("b", "string"), ("when", "date")]
    assert found.parameters["delimiter"] == "#"
    assert found.parameters["skip.header.line.count"] == "1"
    assert found.serde == {"SerializationLibrary": "org.apache.hadoop.hive.serde2.OpenCSVSerde",
                           "Parameters": {"separatorChar": "#", "quoteChar": "'"}}
    untrimmed = [{"CsvClassifier": {"Name": "raw", "Delimiter": ",", "DisableValueTrimming": True,
                                    "ContainsHeader": "ABSENT"}}]
    assert run(tmp_path, "sp.csv", " 1,2\n 3,4\n", untrimmed).columns == [("col0", "string"), ("col1", "bigint")]
    single = [{"CsvClassifier": {"Name": "one", "Delimiter": ",", "AllowSingleColumn": True,
                                 "ContainsHeader": "PRESENT"}}]
    assert run(tmp_path, "one.csv", "value\n1\n2\n", single).columns == [("value", "bigint")]


def test_unrecognised_classifier_structure_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a custom classifier"):
        classify(make(tmp_path, "a.csv", "a,b\n1,2\n"), [{"Unknown": {}}])


# --------------------------------------------------------------------------- bounded reads


class CountingReader(io.RawIOBase):
    """A file that counts the bytes read through it."""

    def __init__(self, inner: BinaryIO, counter: list[int]) -> None:
        self.inner = inner
        self.counter = counter

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        buffer[:len(data)] = data
        self.counter[0] += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.inner.seek(offset, whence)

    def tell(self) -> int:
        return self.inner.tell()

    def close(self) -> None:
        self.inner.close()
        super().close()


@pytest.fixture()
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counter = [0]
    original: Callable[[FileSample], BinaryIO] = FileSample.open

    def counting_open(self: FileSample) -> BinaryIO:
        return CountingReader(original(self), counter)  # type: ignore[return-value]

    monkeypatch.setattr(FileSample, "open", counting_open)
    return counter


def test_a_50_megabyte_csv_is_classified_from_a_prefix(tmp_path: Path, bytes_read: list[int]) -> None:
    row = "".join(f"{i},name-{i},{i * 0.5},true\n" for i in range(1000))
    path = tmp_path / "big.csv"
    with path.open("w") as f:
        f.write("id,name,amount,flag\n")
        while f.tell() < 50 * 1024 * 1024:
            f.write(row)
    size = path.stat().st_size
    found = classify(FileSample(str(path), "s3://b/big.csv", size), [])
    assert found is not None and found.classification == "csv"
    assert found.columns == [("id", "bigint"), ("name", "string"), ("amount", "double"), ("flag", "boolean")]
    assert bytes_read[0] <= 4 * 1024 * 1024, f"read {bytes_read[0]} bytes of {size}"
    true_rows = sum(1 for _ in path.open()) - 1
    assert found.record_count is not None and abs(found.record_count - true_rows) / true_rows < 0.1


def test_parquet_reads_only_the_footer(tmp_path: Path, bytes_read: list[int]) -> None:
    table = pa.table({"id": pa.array(range(400_000), pa.int64()), "v": pa.array([os.urandom(8).hex()] * 400_000)})
    pq.write_table(table, tmp_path / "big.parquet", compression="none")
    size = (tmp_path / "big.parquet").stat().st_size
    found = classify(FileSample(str(tmp_path / "big.parquet"), "s3://b/big.parquet", size), [])
    assert found is not None and found.record_count == 400_000
    assert bytes_read[0] < size / 10


# --------------------------------------------------------------------------- schema merging


def test_similarity_and_merge_columns() -> None:
    a = [("a", "int"), ("b", "int")]
    assert similarity(a, [("c", "int"), ("d", "int")]) == 0.0
    assert merge_columns(a, [("c", "int"), ("d", "int")]) is None  # the Glue docs' two-tables example
    assert similarity(a, a) == 1.0
    evolving = [("id", "int"), ("name", "string"), ("x", "int")]
    grown = [("id", "bigint"), ("name", "string"), ("x", "double"), ("extra", "boolean")]
    assert similarity(evolving, grown) == pytest.approx(0.75)
    assert merge_columns(evolving, grown) == [("id", "bigint"), ("name", "string"), ("x", "double"),
                                              ("extra", "boolean")]
    two_new = [("id", "int"), ("name", "string"), ("x", "int"), ("p", "int"), ("q", "int")]
    assert similarity(evolving, two_new) == pytest.approx(0.6)
    assert merge_columns(evolving, two_new) is None
    struct_vs_int = [("id", "int"), ("name", "string"), ("x", "struct<a:int>")]
    assert similarity(evolving, struct_vs_int) == pytest.approx(2 / 3)
    assert merge_columns([], []) == []


def test_type_widening() -> None:
    assert wider_type("int", "bigint") == "bigint"
    assert wider_type("bigint", "double") == "double"
    assert wider_type("int", "string") == "string"
    assert wider_type("boolean", "int") == "string"
    assert wider_type("date", "timestamp") == "timestamp"
    assert wider_type("decimal(10,2)", "decimal(12,4)") == "decimal(12,4)"
    assert wider_type("struct<a:int,b:string>", "struct<a:bigint,c:array<int>>") == \
        "struct<a:bigint,b:string,c:array<int>>"
    assert wider_type("array<int>", "array<double>") == "array<double>"
    assert wider_type("map<string,int>", "map<string,bigint>") == "map<string,bigint>"
    assert wider_type("array<int>", "struct<a:int>") == "string"
    assert union_columns([("A", "int")], [("a", "bigint"), ("b", "string")]) == [("A", "bigint"), ("b", "string")]

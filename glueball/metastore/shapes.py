"""What the endpoint adds to tables on their way between Spark and the Data Catalog.

**Spark -> Glue.** Spark stores a data source table whose format Hive has no SerDe for (``USING csv``,
``json``, ``avro``...) as a placeholder Hive table: one column ``col array<string>``, no location, the
real schema in the ``spark.sql.sources.schema*`` properties and the path in the SerDe's ``path``
parameter. Glue's readers (Athena, awswrangler, a Glue job's ``from_catalog``) see only the
placeholder, so the endpoint stores such a table with its real columns, its location, and the SerDe,
input and output formats Glue's crawlers give that format; Spark reads it back from its own properties,
which are kept. Every table also gets Glue's ``classification`` parameter when its format is known.

**Glue -> Spark.** A table made by a crawler, boto3 or Athena in a format Spark reads itself (Parquet,
ORC, JSON, CSV, XML) is answered to Spark as the data source table Spark would have made: the same
table with ``spark.sql.sources.provider``, the partition columns and the reader's options (``path``,
``sep``, ``header``, ``quote``, ``rowTag``) added. Spark's Hive SerDes could not read most of them
(Glue's JSON SerDe is not on Spark's class path, a table given only ``classification`` has no SerDe at
all, ``skip.header.line.count`` and OpenCSVSerde's quoting need the CSV reader). The columns stay the
catalog's: Spark takes the schema from them. Those additions are taken away again when
Spark writes the table back (``ALTER TABLE``), so the stored table keeps the shape its maker gave it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from glueball.metastore.convert import (
    CREATED_BY_SPARK,
    NUM_PART_COLS,
    PART_COL,
    PARTITION_PROVIDER,
    PROVIDER,
    SCHEMA,
    SCHEMA_PART,
    SCHEMA_PARTS,
    VIRTUAL_VIEW,
)

TEXT_INPUT = "org.apache.hadoop.mapred.TextInputFormat"
TEXT_OUTPUT = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"
LAZY_SIMPLE = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
OPENX_JSON = "org.openx.data.jsonserde.JsonSerDe"
# SerDes Glue's crawlers and Athena's DDL give tables that Spark's class path lacks. Hive's client loads a table's
# SerDe to check the table before it alters it (``Table.checkValidity``: MSCK REPAIR TABLE, ALTER TABLE ... SET
# TBLPROPERTIES), so a table Spark reads with its own data source is answered with Hive's text SerDe in their
# place (Spark never reads through it), and the stored one is kept when Spark writes the table or its partitions
FOREIGN_SERDES = frozenset({
    OPENX_JSON, "org.apache.hive.hcatalog.data.JsonSerDe", "org.apache.hadoop.hive.serde2.JsonSerDe",
    "com.amazonaws.glue.serde.GrokSerDe", "com.amazon.ionhiveserde.IonHiveSerDe",
    "com.ibm.spss.hive.serde2.xml.XmlSerDe", "com.amazonaws.glue.serde.xml.XmlSerDe",
    "com.amazon.emr.hive.serde.CloudTrailSerde",
})

# those of them whose tables no reader of Spark's reads (JSON and XML have Spark's readers): a table of one is
# answered to Spark with UNREAD_SERDE naming it, and an Athena engine refuses a query that reads it by that name
UNREADABLE_SERDES = frozenset({"com.amazonaws.glue.serde.GrokSerDe", "com.amazon.ionhiveserde.IonHiveSerDe",
                               "com.amazon.emr.hive.serde.CloudTrailSerde"})
UNREAD_SERDE = "glueball.unread.serde"

# the SerDe, input and output formats Glue's crawlers give each format Spark stores without a Hive SerDe
_GLUE_FORMATS = {
    "csv": (LAZY_SIMPLE, TEXT_INPUT, TEXT_OUTPUT),
    "json": (OPENX_JSON, TEXT_INPUT, TEXT_OUTPUT),
    "avro": ("org.apache.hadoop.hive.serde2.avro.AvroSerDe",
             "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
             "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat"),
    "xml": ("com.amazonaws.glue.serde.xml.XmlSerDe", "com.amazonaws.glue.serde.xml.XmlInputFormat",
            TEXT_OUTPUT),
}
_SPARK_PLACEHOLDER = "col"
# the location Spark's Hive client gives an external data source table (its real one is the SerDe's "path")
_SPARK_LOCATION_PLACEHOLDER = "-__PLACEHOLDER__"
# keys the endpoint adds when answering a table to Spark as a data source table
PRESENTED = "glueball.presented"


def spark_type(kind: Any) -> str:
    """Hive's type string of a type of Spark's JSON schema (``{"type": "array", ...}`` or ``"integer"``)."""
    if isinstance(kind, str):
        simple = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint",
                  "timestamp_ntz": "timestamp", "void": "string"}
        return simple.get(kind, kind)
    name = kind.get("type")
    if name == "array":
        return f"array<{spark_type(kind['elementType'])}>"
    if name == "map":
        return f"map<{spark_type(kind['keyType'])},{spark_type(kind['valueType'])}>"
    if name == "struct":
        return "struct<" + ",".join(f"{f['name']}:{spark_type(f['type'])}" for f in kind["fields"]) + ">"
    if name == "udt":
        return spark_type(kind.get("sqlType", "string"))
    return str(name)


_HIVE_ATOMIC = {"tinyint": "byte", "smallint": "short", "int": "integer", "integer": "integer", "bigint": "long",
                "long": "long", "float": "float", "double": "double", "string": "string", "boolean": "boolean",
                "binary": "binary", "date": "date", "timestamp": "timestamp", "decimal": "decimal(10,0)"}


class _TypeReader:
    """Reads a Hive type string (``struct<a:int,b:array<decimal(5,2)>>``) into Spark's JSON schema form."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text.strip(), 0

    def _name(self) -> str:
        start = self.at
        while self.at < len(self.text) and self.text[self.at] not in "<>(),:":
            self.at += 1
        return self.text[start:self.at].strip()

    def _expect(self, char: str) -> None:
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1
        if self.at >= len(self.text) or self.text[self.at] != char:
            raise ValueError(f"expected {char!r} at {self.at} of {self.text!r}")
        self.at += 1

    def _peek(self, char: str) -> bool:
        return self.at < len(self.text) and self.text[self.at] == char

    def read(self) -> Any:
        name = self._name().lower()
        if name == "array":
            self._expect("<")
            element = self.read()
            self._expect(">")
            return {"type": "array", "elementType": element, "containsNull": True}
        if name == "map":
            self._expect("<")
            key = self.read()
            self._expect(",")
            value = self.read()
            self._expect(">")
            return {"type": "map", "keyType": key, "valueType": value, "valueContainsNull": True}
        if name == "struct":
            self._expect("<")
            fields = []
            while not self._peek(">"):
                field_name = self._name()
                self._expect(":")
                fields.append({"name": field_name, "type": self.read(), "nullable": True, "metadata": {}})
                if self._peek(","):
                    self.at += 1
            self._expect(">")
            return {"type": "struct", "fields": fields}
        if self._peek("("):
            self.at += 1
            arguments = []
            while not self._peek(")"):
                arguments.append(self._name())
                if self._peek(","):
                    self.at += 1
            self._expect(")")
            if name == "decimal":
                return f"decimal({arguments[0]},{arguments[1] if len(arguments) > 1 else 0})"
            if name in ("varchar", "char"):
                return "string"
        if name not in _HIVE_ATOMIC:
            raise ValueError(f"no Spark type for Hive's {name!r}")
        return _HIVE_ATOMIC[name]


def schema_json(columns: list[Mapping[str, Any]]) -> str | None:
    """Spark's JSON schema of Glue columns, or None when a type has no Spark counterpart."""
    try:
        fields = [{"name": c["Name"], "type": _TypeReader(c.get("Type") or "string").read(), "nullable": True,
                   "metadata": {}} for c in columns]
    except (ValueError, IndexError):
        return None
    return json.dumps({"type": "struct", "fields": fields}, separators=(",", ":"))


def spark_schema(parameters: Mapping[str, str]) -> list[dict[str, Any]] | None:
    """The fields of the schema Spark keeps in a table's properties, or None."""
    text = parameters.get(SCHEMA)
    if text is None and parameters.get(SCHEMA_PARTS):
        text = "".join(parameters.get(f"{SCHEMA_PART}{i}", "") for i in range(int(parameters[SCHEMA_PARTS])))
    if not text:
        return None
    try:
        return list(json.loads(text).get("fields") or [])
    except (ValueError, AttributeError):
        return None


def format_of(table: Mapping[str, Any]) -> str | None:
    """The data format of a Glue table (``parquet``, ``csv``...), from Spark's provider or the SerDe."""
    parameters = table.get("Parameters") or {}
    provider = (parameters.get(PROVIDER) or "").lower()
    if provider and provider != "hive":
        return provider.rsplit(".", 1)[-1] if provider.startswith("org.") else provider
    descriptor = table.get("StorageDescriptor") or {}
    known = " ".join(str(x).lower() for x in (
        parameters.get("classification"), (descriptor.get("SerdeInfo") or {}).get("SerializationLibrary"),
        descriptor.get("InputFormat")) if x)
    for name in ("parquet", "orc", "avro", "json", "xml"):
        if name in known:
            return name
    if "csv" in known or "lazysimpleserde" in known:
        return "csv"
    if "textinputformat" in known:
        return "csv"
    return None


def for_glue(table_input: dict[str, Any], default_location: str | None) -> dict[str, Any]:
    """The ``TableInput`` to store for a table Spark creates (see the module's docstring)."""
    parameters = table_input.setdefault("Parameters", {})
    if table_input.get("TableType") == VIRTUAL_VIEW:
        return table_input
    descriptor = table_input.setdefault("StorageDescriptor", {})
    serde = descriptor.setdefault("SerdeInfo", {})
    serde_parameters = serde.setdefault("Parameters", {})
    if not descriptor.get("Location") or str(descriptor["Location"]).endswith(_SPARK_LOCATION_PLACEHOLDER):
        location = serde_parameters.get("path") or default_location
        if location:
            descriptor["Location"] = location
    fmt = format_of(table_input)
    if fmt and "classification" not in parameters:
        parameters["classification"] = fmt
    fields = spark_schema(parameters)
    columns = descriptor.get("Columns") or []
    placeholder = len(columns) == 1 and columns[0]["Name"] == _SPARK_PLACEHOLDER and \
        columns[0].get("Type") == "array<string>"
    if fields is not None and placeholder:
        keys = {k["Name"].lower() for k in table_input.get("PartitionKeys") or []}
        descriptor["Columns"] = [{"Name": f["name"], "Type": spark_type(f["type"])}
                                 for f in fields if f["name"].lower() not in keys]
        if fmt in _GLUE_FORMATS:
            library, input_format, output_format = _GLUE_FORMATS[fmt]
            serde["SerializationLibrary"] = library
            descriptor["InputFormat"], descriptor["OutputFormat"] = input_format, output_format
            if fmt == "csv":
                serde_parameters.setdefault("field.delim", serde_parameters.get("sep")
                                            or serde_parameters.get("delimiter") or ",")
                if (serde_parameters.get("header") or "").lower() == "true":
                    parameters.setdefault("skip.header.line.count", "1")
    return table_input


def header_lines(parameters: Mapping[str, str]) -> int:
    """The lines a text table's files begin with that are no rows (its ``skip.header.line.count``; 0 unless a
    count)."""
    try:
        return max(int(str(parameters.get("skip.header.line.count") or "0").strip()), 0)
    except ValueError:
        return 0


def _reader_options(table: Mapping[str, Any], fmt: str) -> dict[str, str] | None:
    descriptor = table.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    parameters = {**(serde.get("Parameters") or {}), **(table.get("Parameters") or {})}
    if fmt == "csv":
        # Spark's CSV reader skips one line (an Athena engine drops the rest of more: glueball.athena.plan)
        options = {"header": "true" if header_lines(parameters) else "false",
                   "sep": parameters.get("field.delim") or parameters.get("separatorChar") or ","}
        if parameters.get("quoteChar"):
            options["quote"] = parameters["quoteChar"]
        return options
    if fmt == "xml":
        return {"rowTag": parameters.get("rowTag") or parameters.get("xmlRowTag") or "row"}
    if fmt in ("json", "parquet", "orc"):
        return {}
    return None


def for_spark(table: dict[str, Any]) -> dict[str, Any]:
    """The Glue table to answer Spark: a table Spark cannot read through Hive, made a data source table, and a data
    source table's SerDe one Spark's Hive client can load (:data:`FOREIGN_SERDES`)."""
    presented = _as_data_source(table)
    if _stands_in(presented):
        descriptor = presented["StorageDescriptor"]
        serde = {**descriptor["SerdeInfo"], "SerializationLibrary": LAZY_SIMPLE}
        presented = {**presented, "StorageDescriptor": {**descriptor, "SerdeInfo": serde}}
    return presented


def for_showing(table: dict[str, Any]) -> dict[str, Any]:
    """The Glue table as stored, its SerDe's parameters escaped as Hive's ``SHOW CREATE TABLE`` writes them (Java's
    escapes: ``'field.delim'='\\t'``, ``'\\u0001'``, ``'\\\\'``), for a client that shows the table's DDL rather than
    reads it (an Athena engine's ``SHOW CREATE TABLE ... AS SERDE``: Spark writes the values as they are, and a tab
    or a line break would split the statement's text)."""
    descriptor = table.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    if not serde.get("Parameters"):
        return table
    escaped = {k: _java_escaped(str(v)) for k, v in serde["Parameters"].items()}
    return {**table, "StorageDescriptor": {**descriptor, "SerdeInfo": {**serde, "Parameters": escaped}}}


def _java_escaped(text: str) -> str:
    named = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
    return "".join(named.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) > 0x7E else c) for c in text)


def _stands_in(table: Mapping[str, Any]) -> bool:
    """Whether ``table`` is a data source table (Spark reads it with its own reader) stored with a SerDe Spark's
    class path lacks."""
    provider = ((table.get("Parameters") or {}).get(PROVIDER) or "hive").lower()
    library = (((table.get("StorageDescriptor") or {}).get("SerdeInfo") or {}).get("SerializationLibrary"))
    return provider != "hive" and library in FOREIGN_SERDES


def stood_in(stored: Mapping[str, Any]) -> str | None:
    """The stored table's SerDe where :func:`for_spark` answers Spark a stand-in for it, else None."""
    if not _stands_in(_as_data_source(dict(stored))):
        return None
    return str(stored["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"])


def keep_serde(descriptor: dict[str, Any] | None, library: str | None) -> None:
    """Put ``library`` (:func:`stood_in`: the stored table's SerDe Spark was answered a stand-in for) back into
    ``descriptor``, a table's or partition's that Spark writes, where it carries the stand-in."""
    serde = (descriptor or {}).get("SerdeInfo")
    if library is not None and serde is not None and serde.get("SerializationLibrary") in (None, LAZY_SIMPLE):
        serde["SerializationLibrary"] = library


def _as_data_source(table: dict[str, Any]) -> dict[str, Any]:
    """``table`` made a data source table where Spark cannot read it through Hive (see the module's docstring)."""
    parameters = table.get("Parameters") or {}
    if PROVIDER in parameters or table.get("TableType") == VIRTUAL_VIEW:
        return table
    descriptor = table.get("StorageDescriptor") or {}
    if not descriptor.get("Location"):
        return table
    fmt = format_of(table)
    library = ((descriptor.get("SerdeInfo") or {}).get("SerializationLibrary") or "").lower()
    by_spark = CREATED_BY_SPARK in parameters
    if fmt is None or (fmt == "avro" and library):
        return table  # Avro through Hive's AvroSerDe (Spark's own Avro reader is not on the class path)
    skips_header = header_lines(parameters) > 0
    if by_spark and library and "opencsvserde" not in library and "json" not in library and not skips_header:
        # a Hive-format table Spark made: Hive's SerDe reads it as it was written (but Spark's Hive table reader
        # ignores skip.header.line.count, which Athena's DDL gives text tables with a header: the CSV reader)
        return table
    options = _reader_options(table, fmt)
    if options is None:
        return table
    if by_spark and skips_header and "lazysimpleserde" in library:
        # read as Hive's text SerDe reads it: nothing quoted, \N is NULL (an empty field stays NULL: Spark's CSV
        # reader has no empty string unquoted)
        options.update({"quote": "", "nullValue": "\\N"})
    keys = table.get("PartitionKeys") or []
    schema = schema_json([*(descriptor.get("Columns") or []), *keys])
    if schema is None:
        return table
    added = {PROVIDER: fmt, PRESENTED: "true", SCHEMA: schema}
    original = (descriptor.get("SerdeInfo") or {}).get("SerializationLibrary")
    if original in UNREADABLE_SERDES:  # Spark's reader of the format would misread it: named for the reader
        added[UNREAD_SERDE] = original
    if keys:
        added[PARTITION_PROVIDER] = "catalog"
        added[NUM_PART_COLS] = str(len(keys))
        added.update({f"{PART_COL}{i}": k["Name"] for i, k in enumerate(keys)})
    serde = dict(descriptor.get("SerdeInfo") or {})
    serde["Parameters"] = {**(serde.get("Parameters") or {}), **options, "path": descriptor["Location"]}
    return {**table, "Parameters": {**parameters, **added}, "StorageDescriptor": {**descriptor, "SerdeInfo": serde}}


def strip_presented(table_input: dict[str, Any], stored: Mapping[str, Any]) -> dict[str, Any]:
    """``table_input`` without what :func:`for_spark` added to ``stored`` (Spark writing it back)."""
    keep_serde(table_input.get("StorageDescriptor"), stood_in(stored))
    parameters = table_input.get("Parameters") or {}
    if parameters.get(PRESENTED) != "true":
        return table_input
    presented = for_spark(dict(stored))
    added = set(presented.get("Parameters") or {}) - set(stored.get("Parameters") or {})
    table_input["Parameters"] = {k: v for k, v in parameters.items() if k not in added}
    descriptor = table_input.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    original = ((stored.get("StorageDescriptor") or {}).get("SerdeInfo") or {}).get("Parameters") or {}
    presented_serde = ((presented.get("StorageDescriptor") or {}).get("SerdeInfo") or {}).get("Parameters") or {}
    if serde.get("Parameters"):
        serde["Parameters"] = {k: v for k, v in serde["Parameters"].items()
                               if k in original or k not in presented_serde}
    return table_input


# ---------------------------------------------------------------- partition names, as Hive writes them

_ESCAPED = set('"#%\'*/:=?\\\x7f{[]^')


def escape_path_name(value: str) -> str:
    """A partition value as Hive writes it into a partition name or path (``a/b`` -> ``a%2Fb``)."""
    if value == "":
        return "__HIVE_DEFAULT_PARTITION__"
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED or ord(c) < 0x20 else c for c in value)


def unescape_path_name(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "%" and i + 2 < len(text) + 0 and all(c in "0123456789abcdefABCDEF" for c in text[i + 1:i + 3]) \
                and len(text[i + 1:i + 3]) == 2:
            out.append(chr(int(text[i + 1:i + 3], 16)))
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def partition_name(keys: list[str], values: list[str]) -> str:
    """``k1=v1/k2=v2`` of a partition, escaped as Hive does."""
    return "/".join(f"{escape_path_name(k)}={escape_path_name(v)}" for k, v in zip(keys, values, strict=True))


def partition_values(name: str) -> list[str]:
    """The values of a partition name ``k1=v1/k2=v2``."""
    return [unescape_path_name(part.partition("=")[2]) for part in name.split("/")]

"""Athena's result files: what the engine writes and GetQueryResults reads back.

A query's rows land at ``<OutputLocation>/<QueryExecutionId>.csv`` as Athena writes them: RFC 4180 CSV, every
value quoted (``"EUR","1.1"``) except NULL, which is an empty unquoted field (so ``""`` is an empty string and
nothing at all is NULL); a header row naming the columns for queries. SHOW and DESCRIBE results are
``<id>.txt``, one row a line, fields separated by tabs, no header. Beside it, ``<id>.csv.metadata`` describes
the columns: Athena's is a binary of its own that no client reads; glueball's is JSON
(``{"ColumnInfo": [...], "Rows": n}``), the ``ResultSetMetadata`` GetQueryResults answers.

GetQueryResults pages through the file by byte offset (:func:`read_page`), so each page costs what it holds.
"""

from __future__ import annotations

import re
from typing import IO, Any

METADATA_SUFFIX = ".metadata"

# Spark's simple type names -> Athena's (Trino's) type names and the precision Athena reports
_TYPES = {"string": ("varchar", 2147483647), "int": ("integer", 10), "integer": ("integer", 10),
          "bigint": ("bigint", 19), "long": ("bigint", 19), "smallint": ("smallint", 5), "short": ("smallint", 5),
          "tinyint": ("tinyint", 3), "byte": ("tinyint", 3), "float": ("float", 17), "double": ("double", 17),
          "boolean": ("boolean", 0), "date": ("date", 0), "timestamp": ("timestamp", 3),
          "timestamp_ntz": ("timestamp", 6), "binary": ("varbinary", 1073741824), "void": ("unknown", 0),
          "json": ("json", 0), "timestamp with time zone": ("timestamp with time zone", 3)}
ZONED = "timestamp with time zone"
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")
_SIZED = re.compile(r"(varchar|char)\((\d+)\)")
_PRECISE = re.compile(r"(timestamp|time)\((\d+)\)")  # Trino's timestamp(6), Spark's and Trino's time(3)


def athena_type(spark_type: str) -> tuple[str, int, int]:
    """An Athena ``ColumnInfo``'s (Type, Precision, Scale) for a Spark type's simple string."""
    spark_type = spark_type.strip().lower()
    decimal = _DECIMAL.fullmatch(spark_type)
    if decimal:
        return "decimal", int(decimal[1]), int(decimal[2])
    sized = _SIZED.fullmatch(spark_type)
    if sized:  # a varchar(n) / char(n) column (Spark's metadata keeps the catalog's type)
        return sized[1], int(sized[2]), 0
    precise = _PRECISE.fullmatch(spark_type)
    if precise:
        return precise[1], int(precise[2]), 0
    if spark_type.startswith(("varchar", "char")):
        return "varchar", 2147483647, 0
    for nested, name in (("array<", "array"), ("map<", "map"), ("struct<", "row")):
        if spark_type.startswith(nested):
            return name, 0, 0
    name, precision = _TYPES.get(spark_type, ("varchar", 2147483647))
    return name, precision, 0


def column_info(name: str, spark_type: str) -> dict[str, Any]:
    """Athena's ``ColumnInfo`` of a result column."""
    kind, precision, scale = athena_type(spark_type)
    return {"CatalogName": "hive", "SchemaName": "", "TableName": "", "Name": name, "Label": name, "Type": kind,
            "Precision": precision, "Scale": scale, "Nullable": "UNKNOWN", "CaseSensitive": kind == "varchar"}


def csv_field(value: str | None) -> str:
    """One value as Athena writes it: quoted, quotes doubled; NULL as nothing."""
    if value is None:
        return ""
    return '"' + value.replace('"', '""') + '"'


def csv_line(values: list[str | None]) -> str:
    return ",".join(csv_field(v) for v in values) + "\n"


def text_line(values: list[str | None]) -> str:
    return "\t".join("" if v is None else v for v in values) + "\n"


def parse_record(record: str) -> list[str | None]:
    """The values of one CSV record as Athena writes them (a quoted value is a string, an empty unquoted field
    is NULL)."""
    values: list[str | None] = []
    index, size = 0, len(record)
    while True:
        if index < size and record[index] == '"':
            index += 1
            parts: list[str] = []
            while True:
                end = record.find('"', index)
                if end < 0:
                    parts.append(record[index:])
                    index = size
                    break
                parts.append(record[index:end])
                if end + 1 < size and record[end + 1] == '"':
                    parts.append('"')
                    index = end + 2
                    continue
                index = end + 1
                break
            values.append("".join(parts))
            comma = record.find(",", index)
        else:
            comma = record.find(",", index)
            field = record[index:] if comma < 0 else record[index:comma]
            values.append(field if field else None)
        if comma < 0:
            return values
        index = comma + 1


def read_page(source: IO[bytes], offset: int, rows: int, text: bool) -> tuple[list[list[str | None]], int | None]:
    """Up to ``rows`` records from byte ``offset`` of a result file; and the offset of the next, None at the end.

    A CSV record may span lines (a quoted value with a newline in it): lines are joined while a quote is open.
    """
    source.seek(offset)
    found: list[list[str | None]] = []
    while len(found) < rows:
        line = source.readline()
        if not line:
            return found, None
        if text:
            found.append([None if v == "" else v for v in line.decode("utf-8").rstrip("\n").split("\t")])
            continue
        record = line
        while record.count(b'"') % 2 == 1:
            more = source.readline()
            if not more:
                break
            record += more
        decoded = record.decode("utf-8")
        found.append(parse_record(decoded[:-1] if decoded.endswith("\n") else decoded))
    position = source.tell()
    return found, None if not source.read(1) else position

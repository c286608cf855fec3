"""CSV: Glue's built-in CSV classifier and custom CsvClassifiers.

The built-in classifier checks the delimiters comma, pipe, tab, semicolon and Ctrl-A (``\\u0001``);
a file is CSV when every sampled row has the same number of fields, at least two columns and at
least two rows. A header is inferred when every value of the first row is a string (shorter than
150 characters, a valid column name, none empty except a trailing column that is empty throughout,
no duplicates) and the data rows are "sufficiently different": at least one column of the data
parses as something other than a string. Without a header the columns are ``col0``, ``col1``, ...
Column types are inferred from the sampled values: ``bigint``, ``double``, ``boolean`` or
``string`` (``CustomDatatypes`` of a custom classifier widen that list).

Tables get ``LazySimpleSerDe`` with ``field.delim``; quoted values that contain the delimiter or a
line break need ``OpenCSVSerde``, which Glue uses when it sees them (or when a custom classifier's
``Serde`` asks for it).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

from glueball.crawlers.classify.models import TEXT_INPUT_FORMAT, TEXT_OUTPUT_FORMAT
from glueball.crawlers.classify.schema import infer_value_type, wider_type

BUILTIN_DELIMITERS = (",", "|", "\t", ";", "\u0001")
LAZY_SIMPLE_SERDE = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
OPEN_CSV_SERDE = "org.apache.hadoop.hive.serde2.OpenCSVSerde"
MAX_HEADER_VALUE_LENGTH = 150
_COLUMN_NAME = re.compile(r"[\u0020-\uD7FF\uE000-\uFFFD\t]{1,255}")

# CustomDatatypes of a CsvClassifier → Hive types, narrowest first (the order values are tried in).
_CUSTOM_TYPES: tuple[tuple[str, str], ...] = (
    ("BOOLEAN", "boolean"), ("SHORT", "smallint"), ("INT", "int"), ("LONG", "bigint"), ("FLOAT", "float"),
    ("DOUBLE", "double"), ("DECIMAL", "decimal(38,18)"), ("DATE", "date"), ("TIMESTAMP", "timestamp"),
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?")


@dataclass
class CsvOptions:
    """The settings of a custom CsvClassifier (defaults: the built-in classifier)."""

    delimiter: str | None = None
    quote: str = '"'
    contains_header: str = "UNKNOWN"
    header: list[str] | None = None
    trim_values: bool = True
    allow_single_column: bool = False
    custom_datatypes: list[str] | None = None
    serde: str = "None"

    @classmethod
    def from_classifier(cls, spec: dict[str, Any]) -> CsvOptions:
        """Options from a wire ``CsvClassifier`` structure."""
        custom = spec.get("CustomDatatypes") if spec.get("CustomDatatypeConfigured") else None
        return cls(
            delimiter=spec.get("Delimiter") or None,
            quote=spec.get("QuoteSymbol") or '"',
            contains_header=spec.get("ContainsHeader") or "UNKNOWN",
            header=list(spec["Header"]) if spec.get("Header") else None,
            trim_values=not spec.get("DisableValueTrimming", False),
            allow_single_column=bool(spec.get("AllowSingleColumn", False)),
            custom_datatypes=[str(t).upper() for t in custom] if custom else None,
            serde=spec.get("Serde") or "None",
        )


@dataclass
class CsvResult:
    """A recognised CSV sample: its schema and storage settings plus what was sampled."""

    columns: list[tuple[str, str]]
    parameters: dict[str, str]
    serde: dict[str, Any]
    input_format: str
    output_format: str
    records: int
    sampled_bytes: int
    all_records_read: bool


@dataclass
class _Parsed:
    rows: list[list[str]]
    quoted: bool
    embedded: bool  # a quoted value holding the delimiter or a line break
    sampled_bytes: int
    exhausted: bool


def _parse(lines: list[str], delimiter: str, quote: str, limit: int) -> _Parsed | None:
    text = "\n".join(lines)
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, quotechar=quote, strict=True)
    rows: list[list[str]] = []
    quoted = embedded = False
    consumed_lines = 0
    boundary = re.compile(f"(?:^|{re.escape(delimiter)})[ \\t]*{re.escape(quote)}")
    exhausted = True
    try:
        for row in reader:
            first_line, consumed_lines = consumed_lines, reader.line_num
            if not row or (len(row) == 1 and row[0] == "" and first_line + 1 == consumed_lines):
                continue  # blank line
            raw = lines[first_line] if first_line < len(lines) else ""
            if consumed_lines - first_line > 1:
                embedded = quoted = True
            elif quote in raw and boundary.search(raw):
                quoted = True
                if raw.count(delimiter) + 1 != len(row):
                    embedded = True
            rows.append(row)
            if len(rows) >= limit:
                exhausted = consumed_lines >= len(lines)
                break
    except csv.Error:
        return None
    sampled = sum(len(line.encode()) + 1 for line in lines[:consumed_lines])
    return _Parsed(rows, quoted, embedded, sampled, exhausted)


def _value_type(value: str, custom: list[str] | None) -> str | None:
    if custom is None:
        return infer_value_type(value)
    if value == "":
        return None
    for name, hive in _CUSTOM_TYPES:
        if name in custom and _parses_as(value, name):
            return hive
    return "string"


def _parses_as(value: str, name: str) -> bool:
    builtin = infer_value_type(value)
    if name == "BOOLEAN":
        return builtin == "boolean"
    if name in ("SHORT", "INT", "LONG"):
        bits = {"SHORT": 15, "INT": 31, "LONG": 63}[name]
        return builtin == "bigint" and -(2**bits) <= int(value) < 2**bits
    if name in ("FLOAT", "DOUBLE", "DECIMAL"):
        return builtin in ("bigint", "double")
    if name == "DATE":
        return bool(_DATE.fullmatch(value))
    if name == "TIMESTAMP":
        return bool(_TIMESTAMP.fullmatch(value))
    return False


def _column_types(rows: list[list[str]], width: int, custom: list[str] | None) -> list[str]:
    types: list[str | None] = [None] * width
    for row in rows:
        for i, value in enumerate(row[:width]):
            found = _value_type(value, custom)
            if found is not None:
                current = types[i]
                types[i] = found if current is None else wider_type(current, found)
    return [t or "string" for t in types]


def _looks_like_header(first: list[str], data: list[list[str]], types: list[str], custom: list[str] | None) -> bool:
    """Glue's header heuristics for a candidate first row."""
    if not data:
        return False
    last_empty_throughout = first[-1] == "" and all(len(r) < len(first) or r[-1] == "" for r in data)
    names = first[:-1] if last_empty_throughout else first
    seen: set[str] = set()
    for i, value in enumerate(names):
        if value == "" or not _COLUMN_NAME.fullmatch(value):
            return False
        if i < len(first) - 1 and len(value) >= MAX_HEADER_VALUE_LENGTH:
            return False
        if _value_type(value, custom) != "string":
            return False
        if value.lower() in seen:
            return False
        seen.add(value.lower())
    return any(t != "string" for t in types[:len(names)])


def _choose_delimiter(lines: list[str], options: CsvOptions, limit: int) -> tuple[str, _Parsed] | None:
    candidates = (options.delimiter,) if options.delimiter else BUILTIN_DELIMITERS
    minimum_columns = 1 if options.allow_single_column else 2
    best: tuple[str, _Parsed] | None = None
    for delimiter in candidates:
        parsed = _parse(lines, delimiter, options.quote, limit)
        if parsed is None or len(parsed.rows) < 2:
            continue
        widths = {len(row) for row in parsed.rows}
        if len(widths) != 1 or widths.pop() < minimum_columns:
            continue
        if best is None or len(parsed.rows[0]) > len(best[1].rows[0]):
            best = (delimiter, parsed)
    return best


def classify_csv(lines: list[str], all_lines: bool, options: CsvOptions, sample_records: int) -> CsvResult | None:
    """Recognise CSV in the sampled lines of a file.

    Args:
        lines: the complete lines of the sample.
        all_lines: whether ``lines`` are the whole file.
        options: the custom classifier's settings, or the defaults of the built-in classifier.
        sample_records: how many data records to infer types from (Glue reads 1,000).

    Returns:
        The CSV schema, or None when the lines are not CSV by these rules.
    """
    chosen = _choose_delimiter(lines, options, sample_records + 1)
    if chosen is None:
        return None
    delimiter, parsed = chosen
    rows = [[v.strip() for v in row] for row in parsed.rows] if options.trim_values else parsed.rows
    width = len(rows[0])
    custom = options.custom_datatypes
    data_types = _column_types(rows[1:], width, custom)
    if options.contains_header == "PRESENT":
        has_header = True
    elif options.contains_header == "ABSENT":
        has_header = False
    else:
        has_header = _looks_like_header(rows[0], rows[1:], data_types, custom)
    data = rows[1:] if has_header else rows
    types = data_types if has_header else _column_types(rows, width, custom)
    names = _column_names(rows[0] if has_header else None, options.header, width)
    if has_header and width > 1 and names[-1] == f"col{width - 1}" and all(r[-1] == "" for r in rows):
        names, types, width = names[:-1], types[:-1], width - 1  # a trailing delimiter
    serde_name = {"OpenCSVSerDe": OPEN_CSV_SERDE, "LazySimpleSerDe": LAZY_SIMPLE_SERDE}.get(
        options.serde, OPEN_CSV_SERDE if parsed.embedded else LAZY_SIMPLE_SERDE)
    if serde_name == OPEN_CSV_SERDE:
        serde = {"SerializationLibrary": OPEN_CSV_SERDE,
                 "Parameters": {"separatorChar": delimiter, "quoteChar": options.quote}}
    else:
        serde = {"SerializationLibrary": LAZY_SIMPLE_SERDE, "Parameters": {"field.delim": delimiter}}
    parameters = {
        "classification": "csv",
        "delimiter": delimiter,
        "columnsOrdered": "true",
        "areColumnsQuoted": "true" if parsed.quoted else "false",
        "typeOfData": "file",
    }
    if has_header:
        parameters["skip.header.line.count"] = "1"
    return CsvResult(
        columns=list(zip(names, types, strict=True)),
        parameters=parameters,
        serde=serde,
        input_format=TEXT_INPUT_FORMAT,
        output_format=TEXT_OUTPUT_FORMAT,
        records=len(data),
        sampled_bytes=parsed.sampled_bytes,
        all_records_read=all_lines and parsed.exhausted,
    )


def _column_names(header_row: list[str] | None, configured: list[str] | None, width: int) -> list[str]:
    if configured:
        names = [n.strip().lower() for n in configured[:width]]
    elif header_row is not None:
        names = [v.strip().lower() for v in header_row]
    else:
        names = []
    names += [f"col{i}" for i in range(len(names), width)]
    seen: set[str] = set()
    for i, name in enumerate(names):
        if not name or name in seen:
            names[i] = f"col{i}"
        seen.add(names[i])
    return names

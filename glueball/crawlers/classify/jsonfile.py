"""JSON: Glue's built-in JSON classifier and custom JsonClassifiers (JsonPath).

The built-in classifier reads the beginning of the file (1 MB, then up to 10 MB in 1 MB steps until
a valid record is found). JSON lines, concatenated objects and pretty-printed objects each give one
record per top-level object; every field seen in the sampled records becomes a column (evolving
fields included). Without a JsonPath a file holding a top-level array is one value — Glue's
documented schema for it is a single array column — while a custom classifier with JsonPath
``$[*]`` makes each element a record. Types: ``int`` (``bigint`` beyond 32 bits), ``double``,
``string``, ``boolean``, ``struct<...>``, ``array<...>``; a field seen with different types gets
the wider one (``int`` → ``bigint`` → ``double``, otherwise ``string``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from glueball.crawlers.classify.models import TEXT_INPUT_FORMAT, TEXT_OUTPUT_FORMAT
from glueball.crawlers.classify.schema import BIGINT_MAX, BIGINT_MIN, INT_MAX, INT_MIN, HiveType, widen

JSON_SERDE = "org.openx.data.jsonserde.JsonSerDe"
ARRAY_COLUMN = "array"  # the single column of a top-level JSON array crawled without a JsonPath
RECORD_COLUMN = "record"  # the column of scalar values a JsonPath selects

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class _TopLevelArray(list[Any]):
    """The elements of a top-level array (possibly only the first ones, when the sample ends)."""


@dataclass
class JsonDocuments:
    """The top-level JSON values of a sample and how much of the sample they span."""

    documents: list[Any]
    consumed_chars: int
    exhausted: bool  # every value of the sample was read (nothing left after the limit)


def parse_documents(text: str, complete: bool, limit: int) -> JsonDocuments | None:
    """Read up to ``limit`` top-level JSON values (array elements count against the limit).

    Returns:
        The values, or None when the text is not JSON. A value cut off by the end of an incomplete
        sample is dropped; any other syntax error means the text is not JSON.
    """
    documents: list[Any] = []
    pos = _WHITESPACE.match(text, 0).end()  # type: ignore[union-attr]
    taken = 0
    last_newline = text.rfind("\n")
    while pos < len(text) and taken < limit:
        try:
            if text[pos] == "[":
                array, pos, count, finished = _parse_array(text, pos, limit - taken)
                documents.append(array)
                taken += count
                if not finished:
                    return JsonDocuments(documents, pos, False)
            else:
                value, pos = _DECODER.raw_decode(text, pos)
                documents.append(value)
                taken += 1
        except json.JSONDecodeError as e:
            if not complete and e.pos >= last_newline:
                return JsonDocuments(documents, pos, False) if documents else None
            return None
        pos = _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]
    if not documents:
        return None
    return JsonDocuments(documents, pos, complete and pos >= len(text))


def _parse_array(text: str, pos: int, limit: int) -> tuple[_TopLevelArray, int, int, bool]:
    """Stream a top-level array's elements; raises JSONDecodeError at a syntax error."""
    array = _TopLevelArray()
    pos = _WHITESPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", pos):
        return array, pos + 1, 1, True
    while True:
        if len(array) >= limit:
            return array, pos, len(array), False
        value, pos = _DECODER.raw_decode(text, pos)
        array.append(value)
        pos = _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith("]", pos):
            return array, pos + 1, max(1, len(array)), True
        if not text.startswith(",", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        pos = _WHITESPACE.match(text, pos + 1).end()  # type: ignore[union-attr]


def value_type(value: Any) -> HiveType | None:
    """The Hive type of a JSON value (None for ``null``, which says nothing about the type)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return HiveType("boolean")
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return HiveType("int")
        return HiveType("bigint") if BIGINT_MIN <= value <= BIGINT_MAX else HiveType("double")
    if isinstance(value, float):
        return HiveType("double")
    if isinstance(value, str):
        return HiveType("string")
    if isinstance(value, dict):
        return HiveType("struct", fields=[(name, t) for name, t in _object_fields(value)])
    if isinstance(value, list):
        element: HiveType | None = None
        for item in value:
            element = _merge(element, value_type(item))
        return HiveType("array", args=[element or HiveType("string")])
    return HiveType("string")


def _merge(a: HiveType | None, b: HiveType | None) -> HiveType | None:
    if a is None:
        return b
    if b is None:
        return a
    return widen(a, b)


def _object_fields(obj: dict[str, Any]) -> Iterator[tuple[str, HiveType]]:
    for name, item in obj.items():
        yield name, value_type(item) or HiveType("string")


def merged_columns(records: list[Any]) -> list[tuple[str, str]]:
    """The columns of a set of records: objects give one column per field (all fields of all
    records, in order of first appearance), other values one ``record`` column."""
    merged: dict[str, HiveType | None] = {}
    scalar: HiveType | None = None
    for record in records:
        if isinstance(record, dict):
            for name, item in record.items():
                key = name.lower()
                merged[key] = _merge(merged.get(key), value_type(item))
        else:
            scalar = _merge(scalar, value_type(record))
    if scalar is not None and not merged:
        return [(RECORD_COLUMN, str(scalar))]
    return [(key, str(t or HiveType("string"))) for key, t in merged.items()]


# --------------------------------------------------------------------------- JsonPath

_SEGMENT = re.compile(r"""\.(?P<name>[^.\[\]]+)"""
                      r"""|\[(?:(?P<star>\*)|(?P<index>-?\d+)|'(?P<sq>[^']*)'|"(?P<dq>[^"]*)")\]""")


def parse_json_path(path: str) -> list[str | int | None]:
    """The steps of a JsonPath in dot or bracket notation: a key, an index, or None for ``*``.

    Raises:
        ValueError: the path is not ``$`` followed by ``.key``, ``['key']``, ``[n]`` or ``[*]`` steps.
    """
    if not path.startswith("$"):
        raise ValueError(f"JsonPath must start with '$': {path!r}")
    steps: list[str | int | None] = []
    pos = 1
    while pos < len(path):
        found = _SEGMENT.match(path, pos)
        if found is None:
            raise ValueError(f"unsupported JsonPath {path!r} at position {pos}")
        if found.group("star") or found.group("name") == "*":
            steps.append(None)
        elif found.group("index") is not None:
            steps.append(int(found.group("index")))
        else:
            key = found.group("name") or found.group("sq") or found.group("dq") or ""
            steps.append(key)
        pos = found.end()
    return steps


def select(document: Any, steps: list[str | int | None]) -> Iterator[Any]:
    """The values a parsed JsonPath selects in one document."""
    if not steps:
        yield document
        return
    step, rest = steps[0], steps[1:]
    if step is None:
        children = document if isinstance(document, list) else list(document.values()) \
            if isinstance(document, dict) else []
        for child in children:
            yield from select(child, rest)
    elif isinstance(step, int):
        if isinstance(document, list) and -len(document) <= step < len(document):
            yield from select(document[step], rest)
    elif isinstance(document, dict) and step in document:
        yield from select(document[step], rest)


# --------------------------------------------------------------------------- classification


@dataclass
class JsonResult:
    """A recognised JSON sample."""

    columns: list[tuple[str, str]]
    parameters: dict[str, str]
    serde: dict[str, Any]
    input_format: str
    output_format: str
    records: int
    sampled_chars: int
    all_records_read: bool


def classify_json(text: str, complete: bool, json_path: str | None, sample_records: int) -> JsonResult | None:
    """Recognise JSON and infer its schema from up to ``sample_records`` records.

    Args:
        text: the decoded sample.
        complete: whether the sample is the whole file.
        json_path: a custom JsonClassifier's JsonPath, or None for the built-in classifier.
        sample_records: the most records to infer the schema from.
    """
    parsed = parse_documents(text, complete, sample_records)
    if parsed is None:
        return None
    if json_path is None:
        if not all(isinstance(d, dict | list) for d in parsed.documents):
            return None
        arrays = [d for d in parsed.documents if isinstance(d, list)]
        if arrays and len(arrays) == len(parsed.documents):
            element: HiveType | None = None
            for array in arrays:
                element = _merge(element, value_type(list(array)).args[0] if array else None)  # type: ignore[union-attr]
            columns = [(ARRAY_COLUMN, str(HiveType("array", args=[element or HiveType("string")])))]
            records = len(arrays)
            parsed.exhausted = True  # one row per array: the count is known without reading it all
        else:
            records_list = [d for d in parsed.documents if isinstance(d, dict)]
            columns = merged_columns(records_list)
            records = len(records_list)
    else:
        steps = parse_json_path(json_path)
        selected = [v for d in parsed.documents for v in select(d, steps)]
        if not selected:
            return None
        columns = merged_columns(selected)
        records = len(selected)
    if not columns:
        return None
    parameters = {"classification": "json", "typeOfData": "file"}
    if json_path is not None:
        parameters["jsonPath"] = json_path
    return JsonResult(
        columns=columns,
        parameters=parameters,
        serde={"SerializationLibrary": JSON_SERDE, "Parameters": {"paths": ",".join(n for n, _ in columns)}},
        input_format=TEXT_INPUT_FORMAT,
        output_format=TEXT_OUTPUT_FORMAT,
        records=records,
        sampled_chars=parsed.consumed_chars,
        all_records_read=parsed.exhausted,
    )

"""XML: Glue's built-in XML classifier and custom XMLClassifiers (RowTag).

The classifier reads the beginning of the file and builds the schema from the XML tags: each
element named by the row tag is a record (a custom classifier names it; the built-in classifier
takes the element that repeats under the document's root). A row's attributes become columns
prefixed with ``_`` and its child elements become columns; nested elements are structs, repeated
ones arrays, and text values are typed like CSV values (``bigint``, ``double``, ``boolean``,
``string``). A row element must have content: an empty self-closing element is not a record.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from typing import Any, cast

from glueball.crawlers.classify.models import TEXT_OUTPUT_FORMAT
from glueball.crawlers.classify.schema import HiveType, infer_value_type, widen

XML_INPUT_FORMAT = "com.amazonaws.emr.xml.XmlInputFormat"
XML_SERDE = "com.amazonaws.emr.xml.XmlSerDe"
ATTRIBUTE_PREFIX = "_"
VALUE_TAG = "_VALUE"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if tag.startswith("{") else tag


@dataclass
class XmlResult:
    """A recognised XML sample."""

    columns: list[tuple[str, str]]
    parameters: dict[str, str]
    serde: dict[str, Any]
    input_format: str
    output_format: str
    records: int
    all_records_read: bool


def _parse(text: str, complete: bool) -> tuple[ET.Element, set[int]] | None:
    """The (possibly partial) document and the ids of the elements that were closed."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    closed: set[int] = set()
    root: ET.Element | None = None
    try:
        parser.feed(text)
        if complete:
            parser.close()
        events = cast("list[tuple[str, Any]]", list(parser.read_events()))
        for event, element in events:
            if not isinstance(element, ET.Element):
                continue
            if event == "start" and root is None:
                root = element
            elif event == "end":
                closed.add(id(element))
    except ET.ParseError:
        return None
    return (root, closed) if root is not None else None


def _scalar(text: str | None) -> HiveType | None:
    found = infer_value_type((text or "").strip())
    return HiveType(found) if found else None


def _merge(a: HiveType | None, b: HiveType | None) -> HiveType | None:
    if a is None:
        return b
    if b is None:
        return a
    return widen(a, b)


def _element_fields(element: ET.Element) -> list[tuple[str, HiveType | None]]:
    fields: list[tuple[str, HiveType | None]] = [
        (ATTRIBUTE_PREFIX + _local(name), _scalar(value)) for name, value in element.attrib.items()]
    by_tag: dict[str, list[HiveType | None]] = {}
    for child in element:
        by_tag.setdefault(_local(child.tag), []).append(_element_type(child))
    for tag, types in by_tag.items():
        merged: HiveType | None = None
        for t in types:
            merged = _merge(merged, t)
        if len(types) > 1:
            fields.append((tag, HiveType("array", args=[merged or HiveType("string")])))
        else:
            fields.append((tag, merged))
    return fields


def _element_type(element: ET.Element) -> HiveType | None:
    if not element.attrib and len(element) == 0:
        return _scalar(element.text)
    fields = _element_fields(element)
    if (element.text or "").strip():
        fields.append((VALUE_TAG, _scalar(element.text)))
    return HiveType("struct", fields=[(n, t or HiveType("string")) for n, t in fields])


def _row_tag(root: ET.Element, closed: set[int]) -> str | None:
    counts = Counter(_local(child.tag) for child in root if id(child) in closed)
    if not counts:
        return None
    return counts.most_common(1)[0][0]


def classify_xml(text: str, complete: bool, row_tag: str | None, classification: str,
                 sample_records: int) -> XmlResult | None:
    """Recognise XML and infer the schema of its row elements.

    Args:
        text: the decoded sample.
        complete: whether the sample is the whole file.
        row_tag: a custom XMLClassifier's RowTag, or None to let the built-in classifier choose.
        classification: the classification string to report (``xml`` or the custom one).
        sample_records: the most rows to infer the schema from.
    """
    if not text.lstrip().startswith("<"):
        return None
    parsed = _parse(text, complete)
    if parsed is None:
        return None
    root, closed = parsed
    tag = row_tag or _row_tag(root, closed)
    if not tag:
        return None
    rows = [e for e in root.iter() if _local(e.tag) == tag and id(e) in closed and (len(e) or e.attrib)]
    if not rows:
        return None
    all_read = complete and len(rows) <= sample_records
    merged: dict[str, HiveType | None] = {}
    names: dict[str, str] = {}
    for row in rows[:sample_records]:
        for name, t in _element_fields(row):
            key = name.lower()
            names.setdefault(key, key)
            merged[key] = _merge(merged.get(key), t)
        if (row.text or "").strip() and len(row) == 0:
            merged[VALUE_TAG.lower()] = _merge(merged.get(VALUE_TAG.lower()), _scalar(row.text))
            names.setdefault(VALUE_TAG.lower(), VALUE_TAG.lower())
    columns = [(names[k], str(t or HiveType("string"))) for k, t in merged.items()]
    if not columns:
        return None
    return XmlResult(
        columns=columns,
        parameters={"classification": classification, "rowTag": tag, "typeOfData": "file"},
        serde={"SerializationLibrary": XML_SERDE, "Parameters": {"rowTag": tag}},
        input_format=XML_INPUT_FORMAT,
        output_format=TEXT_OUTPUT_FORMAT,
        records=min(len(rows), sample_records),
        all_records_read=all_read,
    )

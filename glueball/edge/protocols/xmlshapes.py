"""Values of a botocore shape to and from XML, as the query and REST-XML protocols write them.

Structures are elements per member (named by the member's ``locationName``), lists are
``<member>`` children (or repeated elements when ``flattened``), maps ``<entry><key/><value/>``
(or flattened entries); timestamps are ISO 8601 in UTC unless the shape says otherwise, booleans
``true``/``false``, blobs base64.
"""

from __future__ import annotations

import base64
import datetime as dt
import email.utils
import re
import xml.etree.ElementTree as ET
from typing import Any
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr

from botocore.model import ListShape, MapShape, Shape, StructureShape

from glueball.errors import SerializationException

# characters XML 1.0 cannot carry, even escaped: C0 controls but tab, newline and return; lone
# surrogates; U+FFFE and U+FFFF
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    """``text`` as XML character data: markup escaped, and characters XML cannot carry written as
    ``\\uXXXX`` (an error message that quotes a client's NUL stays well-formed)."""
    return _escape(_NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def member_name(shape: Shape, default: str) -> str:
    return str(shape.serialization.get("name", default))


def timestamp_text(value: Any, fmt: str = "iso8601") -> str:
    """A timestamp (epoch seconds, datetime or text) in ``fmt`` (``iso8601``, ``rfc822``, ``unixTimestamp``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        value = dt.datetime.fromtimestamp(value, dt.UTC)
    moment = value.astimezone(dt.UTC) if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if fmt == "rfc822":
        return email.utils.format_datetime(moment, usegmt=True)
    if fmt == "unixTimestamp":
        return str(int(moment.timestamp()))
    if moment.microsecond:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def scalar_text(shape: Shape, value: Any) -> str:
    kind = shape.type_name
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "timestamp":
        return timestamp_text(value, str(shape.serialization.get("timestampFormat", "iso8601")))
    if kind == "blob":
        raw = value.encode() if isinstance(value, str) else bytes(value)
        return base64.b64encode(raw).decode()
    return str(value)


def members_xml(shape: StructureShape, values: dict[str, Any]) -> str:
    """The member elements of a structure (attributes excluded)."""
    parts = []
    for name, member in shape.members.items():
        value = values.get(name)
        if value is None or member.serialization.get("xmlAttribute"):
            continue
        parts.append(element_xml(member, member_name(member, name), value))
    return "".join(parts)


def _attributes(shape: StructureShape, values: dict[str, Any]) -> str:
    found = ""
    for name, member in shape.members.items():
        if member.serialization.get("xmlAttribute") and values.get(name) is not None:
            found += f" {member_name(member, name)}={quoteattr(str(values[name]))}"
    return found


def element_xml(shape: Shape, name: str, value: Any, namespace: str = "") -> str:
    """``value`` as the element ``name`` of ``shape`` (with ``xmlns`` when given)."""
    xmlns = f' xmlns="{namespace}"' if namespace else ""
    kind = shape.type_name
    if kind == "structure":
        assert isinstance(shape, StructureShape)
        return f"<{name}{xmlns}{_attributes(shape, value)}>{members_xml(shape, value)}</{name}>"
    if kind == "list":
        assert isinstance(shape, ListShape)
        if shape.serialization.get("flattened"):
            return "".join(element_xml(shape.member, name, item) for item in value)
        inner = member_name(shape.member, "member")
        return f"<{name}{xmlns}>" + "".join(element_xml(shape.member, inner, item) for item in value) + f"</{name}>"
    if kind == "map":
        assert isinstance(shape, MapShape)
        key_name, value_name = member_name(shape.key, "key"), member_name(shape.value, "value")
        entries = [f"{element_xml(shape.key, key_name, k)}{element_xml(shape.value, value_name, v)}"
                   for k, v in value.items()]
        if shape.serialization.get("flattened"):
            return "".join(f"<{name}>{entry}</{name}>" for entry in entries)
        return f"<{name}{xmlns}>" + "".join(f"<entry>{entry}</entry>" for entry in entries) + f"</{name}>"
    return f"<{name}{xmlns}>{escape(scalar_text(shape, value))}</{name}>"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def parse_document(body: bytes) -> ET.Element:
    """The root element of an XML request body.

    Raises:
        SerializationException: the body is not well-formed XML.
    """
    try:
        return ET.fromstring(body)
    except ET.ParseError as exc:
        raise SerializationException(f"The XML you provided was not well-formed: {exc}") from exc


def read_element(shape: Shape, element: ET.Element) -> Any:
    """The value of ``element`` read as ``shape``."""
    kind = shape.type_name
    if kind == "structure":
        assert isinstance(shape, StructureShape)
        return read_structure(shape, element)
    if kind == "list":
        assert isinstance(shape, ListShape)
        inner = member_name(shape.member, "member")
        return [read_element(shape.member, child) for child in element if _local(child.tag) == inner]
    if kind == "map":
        assert isinstance(shape, MapShape)
        return dict(_read_entries(shape, [c for c in element if _local(c.tag) == "entry"]))
    return scalar_value(shape, element.text or "", _local(element.tag))


def _read_entries(shape: MapShape, entries: list[ET.Element]) -> list[tuple[Any, Any]]:
    key_name, value_name = member_name(shape.key, "key"), member_name(shape.value, "value")
    pairs = []
    for entry in entries:
        key = next((c for c in entry if _local(c.tag) == key_name), None)
        value = next((c for c in entry if _local(c.tag) == value_name), None)
        if key is None or value is None:
            raise SerializationException(f"A map entry needs <{key_name}> and <{value_name}>")
        pairs.append((key.text or "", read_element(shape.value, value)))
    return pairs


def read_structure(shape: StructureShape, element: ET.Element) -> dict[str, Any]:
    children = list(element)
    found: dict[str, Any] = {}
    for name, member in shape.members.items():
        wire = member_name(member, name)
        if member.serialization.get("xmlAttribute"):
            for attribute, text in element.attrib.items():
                if _local(attribute) == _local(wire):
                    found[name] = scalar_value(member, text, wire)
            continue
        matching = [c for c in children if _local(c.tag) == wire]
        if not matching:
            continue
        if member.type_name == "list" and member.serialization.get("flattened"):
            assert isinstance(member, ListShape)
            found[name] = [read_element(member.member, c) for c in matching]
        elif member.type_name == "map" and member.serialization.get("flattened"):
            assert isinstance(member, MapShape)
            found[name] = dict(_read_entries(member, matching))
        else:
            found[name] = read_element(member, matching[0])
    return found


def scalar_value(shape: Shape, text: str, where: str) -> Any:
    """``text`` as a scalar of ``shape``.

    Raises:
        SerializationException: not a number or boolean where one is expected.
    """
    kind = shape.type_name
    try:
        if kind in ("integer", "long"):
            return int(text)
        if kind in ("double", "float"):
            return float(text)
    except ValueError as exc:
        raise SerializationException(f"Value {text!r} of {where} is not a number") from exc
    if kind == "boolean":
        if text.strip().lower() not in ("true", "false"):
            raise SerializationException(f"Value {text!r} of {where} is not true or false")
        return text.strip().lower() == "true"
    return text

"""SearchTables: text search, property filters and sorting over a catalog's tables.

As documented for Glue, string properties match by tokens: the property value
is split on punctuation and whitespace and a predicate's ``Value`` must equal
one token (``Name=link`` finds ``customer-link`` but not ``xxlinkyy``); a
quoted ``SearchText`` must match a whole value exactly. The comparator is used
for time fields only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from glueball.catalog.models import Table
from glueball.clock import epoch
from glueball.errors import InvalidInputException

_TOKEN_SPLIT = re.compile(r"[\s\-_:#/.,;=()\[\]{}'\"@!?|&+*]+")
_TIME_FIELDS = {"CreateTime", "UpdateTime", "LastAccessTime", "LastAnalyzedTime"}
_SORTABLE = {"Name", "DatabaseName", "Description", "Owner", "TableType", *_TIME_FIELDS}


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN_SPLIT.split(text.lower()) if t}


def _field(table: Table, key: str) -> Any:
    if key == "Name":
        return table.name
    if key == "DatabaseName":
        return table.database_name
    if key == "CreateTime":
        return table.create_time
    if key == "UpdateTime":
        return table.update_time
    if key == "Location":
        return (table.spec.get("StorageDescriptor") or {}).get("Location")
    if key in table.spec and not isinstance(table.spec[key], dict | list):
        return table.spec[key]
    return (table.spec.get("Parameters") or {}).get(key)


def _searchable_texts(table: Table) -> list[str]:
    texts = [table.name, table.database_name]
    for key in ("Description", "Owner", "TableType"):
        if table.spec.get(key):
            texts.append(str(table.spec[key]))
    descriptor = table.spec.get("StorageDescriptor") or {}
    if descriptor.get("Location"):
        texts.append(descriptor["Location"])
    for column in list(descriptor.get("Columns") or []) + list(table.spec.get("PartitionKeys") or []):
        texts.append(column["Name"])
        if column.get("Comment"):
            texts.append(column["Comment"])
    texts += [str(v) for v in (table.spec.get("Parameters") or {}).values()]
    return texts


def _text_matcher(search_text: str) -> Callable[[Table], bool]:
    stripped = search_text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        exact = stripped[1:-1].lower()
        return lambda table: any(text.lower() == exact for text in _searchable_texts(table))
    wanted = _tokens(stripped)
    if not wanted:
        return lambda table: True

    def matches(table: Table) -> bool:
        found: set[str] = set()
        for text in _searchable_texts(table):
            found |= _tokens(text)
        return wanted <= found

    return matches


def _compare(actual: Any, comparator: str, value: str) -> bool:
    expected = epoch(float(value) if re.fullmatch(r"\d+(\.\d+)?", value) else value)
    if actual is None:
        return False
    return {
        "EQUALS": actual == expected,
        "GREATER_THAN": actual > expected,
        "LESS_THAN": actual < expected,
        "GREATER_THAN_EQUALS": actual >= expected,
        "LESS_THAN_EQUALS": actual <= expected,
    }[comparator]


def _predicate_matcher(predicate: dict[str, Any]) -> Callable[[Table], bool]:
    key, value = predicate.get("Key"), predicate.get("Value")
    if not key or value is None:
        raise InvalidInputException("Each SearchTables filter needs a Key and a Value")
    comparator = predicate.get("Comparator", "EQUALS")
    if key in _TIME_FIELDS:
        try:
            epoch(float(value) if re.fullmatch(r"\d+(\.\d+)?", value) else value)
        except ValueError as exc:
            raise InvalidInputException(f"Filter value {value!r} of {key} is not a timestamp") from exc
        return lambda table: _compare(_field(table, key), comparator, value)
    wanted = value.lower()

    def matches(table: Table) -> bool:
        actual = _field(table, key)
        if actual is None:
            return False
        return wanted == str(actual).lower() or wanted in _tokens(str(actual))

    return matches


def search_tables(tables: list[Table], search_text: str | None, filters: list[dict[str, Any]],
                  sort: list[dict[str, Any]]) -> list[Table]:
    """The tables matching the text and every filter, in the requested order."""
    matchers = [_predicate_matcher(p) for p in filters]
    if search_text:
        matchers.append(_text_matcher(search_text))
    found = [t for t in tables if all(m(t) for m in matchers)]
    if len(sort) > 1:
        raise InvalidInputException("SearchTables accepts at most one SortCriteria entry")
    if sort:
        field_name = sort[0].get("FieldName", "Name")
        if field_name not in _SORTABLE:
            raise InvalidInputException(
                f"Cannot sort by {field_name!r}; sortable fields are {', '.join(sorted(_SORTABLE))}")
        descending = sort[0].get("Sort", "ASC") == "DESC"
        found.sort(key=lambda t: (_field(t, field_name) is None, _field(t, field_name) or ""),
                   reverse=descending)
    return found

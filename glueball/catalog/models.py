"""Typed catalog models exchanged between handlers and services.

``spec`` holds the remaining members of the Glue structure exactly as the
client sent them (already validated against the service model); the typed
fields are what glueball's logic reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from glueball.store.scoped import Scope as Scope  # the catalog's scope is the store's

Spec = dict[str, Any]


@dataclass
class Column:
    name: str
    type: str | None = None

    @classmethod
    def from_wire(cls, column: Spec) -> Column:
        return cls(name=column["Name"], type=column.get("Type"))


@dataclass
class Database:
    name: str
    spec: Spec = field(default_factory=dict)
    create_time: float | None = None


@dataclass
class Table:
    database_name: str
    name: str
    spec: Spec = field(default_factory=dict)
    version: int = 0
    create_time: float | None = None
    update_time: float | None = None

    @property
    def partition_keys(self) -> list[Column]:
        return [Column.from_wire(c) for c in self.spec.get("PartitionKeys") or []]


@dataclass
class TableVersion:
    table: Table
    version: int

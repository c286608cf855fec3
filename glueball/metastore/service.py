"""The catalog as a Hive metastore sees it: each metastore operation as Glue API calls.

Every call goes through a Glue client given by the caller (the driver's own: in-process in embedded
mode, boto3 against the server as the run's role otherwise), so the Glue API's validation, errors and
IAM apply unchanged and the Data Catalog stays the one source of truth. What Hive's metastore does
beyond storing definitions is done here too, as Hive's does it: a managed table's data goes with its
``DROP``, a managed table renamed moves its folder, a database without a location answers one under the
warehouse.

Within :meth:`Metastore.remembering` (one Athena query, say) a database or table read once is answered
again from memory: Spark's analysis of one statement asks for the same table and database several times,
each a Glue API round trip otherwise. Any write through the metastore forgets what was remembered.
"""

from __future__ import annotations

import copy
import functools
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from glueball.metastore import shapes
from glueball.metastore.convert import MANAGED_TABLE, VIRTUAL_VIEW, glue_partition_as_input
from glueball.metastore.errors import MetastoreError

log = logging.getLogger("glueball.metastore")
_BATCH = 100
F = TypeVar("F", bound=Callable[..., Any])


def _writes(method: F) -> F:
    """A call that changes the catalog: what was remembered is forgotten before and after it (an answer read
    during the call, say the table it drops, is no longer true after it)."""

    @functools.wraps(method)
    def wrapper(self: Metastore, *args: Any, **kwargs: Any) -> Any:
        self._forget()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._forget()

    return wrapper  # type: ignore[return-value]


class DataFiles(Protocol):
    """What the endpoint does to table data in the object store (the runtime supplies it)."""

    def remove(self, location: str) -> None:
        """Delete everything under ``location`` (nothing there is fine)."""

    def move(self, source: str, target: str) -> None:
        """Move everything under ``source`` to ``target``."""

    def make_folder(self, location: str) -> None:
        """Create the folder ``location`` unless it exists."""


@dataclass
class Metastore:
    """The Glue client behind the endpoint and what it needs besides.

    Args:
        client: returns the Glue client to use for a call (made once by the caller, or per run).
        warehouse: where databases without ``LocationUri`` keep their managed tables (Hive's warehouse).
        files: deletes and moves table data.
    """

    client: Callable[[], Any]
    warehouse: str
    files: DataFiles
    _memo: dict[tuple[str, ...], dict[str, Any]] | None = field(default=None, init=False, repr=False)
    _generation: int = field(default=0, init=False, repr=False)
    _memo_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _stored: int = field(default=0, init=False, repr=False)

    # ------------------------------------------------------------ remembered reads

    @contextmanager
    def remembering(self) -> Iterator[None]:
        """Within the block, :meth:`get_database` and :meth:`get_table` answer a name asked before from memory
        (until a write through this metastore); outside it every read asks the catalog. For a caller that
        acts as one identity for the block and makes no catalog change outside this metastore meanwhile."""
        with self._memo_lock:
            self._memo, self._generation = {}, self._generation + 1
        try:
            yield
        finally:
            with self._memo_lock:
                self._memo, self._generation = None, self._generation + 1

    @contextmanager
    def as_stored(self) -> Iterator[None]:
        """Within the block, tables are answered to the metastore's client as stored (:attr:`presents` is false):
        not made the data source tables Spark reads some of them as (:func:`shapes.for_spark`), their SerDe's
        parameters escaped as Hive shows them (:func:`shapes.for_showing`). For a statement that shows a table rather
        than reads or writes it (an Athena engine's ``SHOW CREATE TABLE``), on a metastore that serves one statement
        at a time."""
        with self._memo_lock:
            self._stored += 1
        try:
            yield
        finally:
            with self._memo_lock:
                self._stored -= 1

    @property
    def presents(self) -> bool:
        """Whether tables are answered as Spark reads them (:func:`shapes.for_spark`), not as stored."""
        return self._stored == 0

    def _forget(self) -> None:
        with self._memo_lock:
            if self._memo is not None:
                self._memo.clear()
            self._generation += 1

    def _recalled(self, key: tuple[str, ...], fetch: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        with self._memo_lock:
            found = self._memo.get(key) if self._memo is not None else None
            generation = self._generation
        if found is not None:
            return copy.deepcopy(found)
        answer = fetch()
        with self._memo_lock:  # kept only if nothing was written (or the block left) while it was fetched
            if self._memo is not None and self._generation == generation:
                self._memo[key] = copy.deepcopy(answer)
        return answer

    # ------------------------------------------------------------ databases

    def default_database_location(self, name: str) -> str:
        return f"{self.warehouse.rstrip('/')}/{name}.db"

    def database_names(self, pattern: str | None = None) -> list[str]:
        names = [d["Name"] for d in self._pages("get_databases", "DatabaseList", AttributesToGet=["NAME"])]
        return [n for n in names if pattern is None or hive_pattern_matches(pattern, n)]

    def get_database(self, name: str) -> dict[str, Any]:
        return self._recalled(("database", name.lower()),
                              lambda: dict(self.client().get_database(Name=name)["Database"]))

    @_writes
    def create_database(self, database_input: dict[str, Any]) -> None:
        self.client().create_database(DatabaseInput=database_input)

    @_writes
    def update_database(self, name: str, database_input: dict[str, Any]) -> None:
        self.client().update_database(Name=name, DatabaseInput=database_input)

    @_writes
    def drop_database(self, name: str, delete_data: bool, cascade: bool) -> None:
        """Hive's ``drop_database``: refused for a database holding tables unless ``cascade``; with
        ``delete_data``, the data of its managed tables is deleted too."""
        tables = list(self._pages("get_tables", "TableList", DatabaseName=name))
        if tables and not cascade:
            raise MetastoreError("InvalidInputException",
                                 f"Database {name} is not empty. One or more tables exist.")
        self.client().delete_database(Name=name)
        if delete_data:
            for table in tables:
                self._remove_managed_data(table)

    # ------------------------------------------------------------ tables

    def table_names(self, database: str, pattern: str | None = None, table_type: str | None = None) -> list[str]:
        params: dict[str, Any] = {"DatabaseName": database,
                                  "AttributesToGet": ["NAME", "TABLE_TYPE"] if table_type else ["NAME"]}
        if pattern and pattern != "*":
            params["Expression"] = pattern
        return [t["Name"] for t in self._pages("get_tables", "TableList", **params)
                if table_type is None or (t.get("TableType") or "EXTERNAL_TABLE") == table_type]

    def tables(self, database: str) -> list[dict[str, Any]]:
        """Every table of ``database``, whole."""
        return list(self._pages("get_tables", "TableList", DatabaseName=database))

    def get_table(self, database: str, name: str) -> dict[str, Any]:
        return self._recalled(("table", database.lower(), name.lower()),
                              lambda: dict(self.client().get_table(DatabaseName=database, Name=name)["Table"]))

    def get_tables(self, database: str, names: list[str]) -> list[dict[str, Any]]:
        """The tables of ``names`` that exist, in that order."""
        if len(names) <= 10:
            found = []
            for name in names:
                try:
                    found.append(self.get_table(database, name))
                except Exception as exc:
                    if getattr(exc, "response", {}).get("Error", {}).get("Code") != "EntityNotFoundException":
                        raise
            return found
        wanted = {n.lower(): i for i, n in enumerate(names)}
        tables = [t for t in self._pages("get_tables", "TableList", DatabaseName=database)
                  if t["Name"].lower() in wanted]
        return sorted(tables, key=lambda t: wanted[t["Name"].lower()])

    @_writes
    def create_table(self, database: str, table_input: dict[str, Any]) -> None:
        """Create a table Spark describes, completed as :func:`glueball.metastore.shapes.for_glue` says; a
        managed table without a location gets its database's default path."""
        default = None
        if table_input.get("TableType") == MANAGED_TABLE:
            default = self.default_table_location(database, table_input["Name"])
        stored = shapes.for_glue(table_input, default)
        self.client().create_table(DatabaseName=database, TableInput=stored)
        location = (stored.get("StorageDescriptor") or {}).get("Location")
        if location and stored.get("TableType") != VIRTUAL_VIEW:
            self.files.make_folder(location)  # as Hive's metastore does: Hive's writers expect it

    def default_table_location(self, database: str, table: str) -> str:
        found = self.get_database(database)
        root = found.get("LocationUri") or self.default_database_location(database)
        return f"{root.rstrip('/')}/{table}"

    @_writes
    def alter_table(self, database: str, name: str, table_input: dict[str, Any]) -> None:
        """Hive's ``alter_table``: an update, or a rename when the new definition has another name."""
        stored = self.get_table(database, name)
        table_input = shapes.strip_presented(table_input, stored)
        if table_input["Name"].lower() != name.lower():
            self._rename_table(database, stored, table_input)
            return
        self.client().update_table(DatabaseName=database, TableInput=table_input)

    def _rename_table(self, database: str, stored: dict[str, Any], table_input: dict[str, Any]) -> None:
        """Glue has no rename: the table is created under its new name with its partitions, then the old
        one deleted (as AWS's Glue client for Hive does); a managed table's folder moves with it."""
        new_name = table_input["Name"]
        old_location = (stored.get("StorageDescriptor") or {}).get("Location") or ""
        new_location = old_location
        moves = stored.get("TableType") == MANAGED_TABLE and old_location.rstrip("/") == \
            self.default_table_location(database, stored["Name"]).rstrip("/")
        if moves:
            new_location = self.default_table_location(database, new_name)
            descriptor = table_input.setdefault("StorageDescriptor", {})
            descriptor["Location"] = new_location
            serde = descriptor.setdefault("SerdeInfo", {}).setdefault("Parameters", {})
            if "path" in serde:
                serde["path"] = new_location
        glue = self.client()
        glue.create_table(DatabaseName=database, TableInput=table_input)
        partitions = [glue_partition_as_input(p) for p in self._pages(
            "get_partitions", "Partitions", DatabaseName=database, TableName=stored["Name"])]
        if moves:
            for partition in partitions:
                descriptor = partition.get("StorageDescriptor") or {}
                location = descriptor.get("Location") or ""
                if location.startswith(old_location.rstrip("/") + "/"):
                    descriptor["Location"] = new_location.rstrip("/") + location[len(old_location.rstrip("/")):]
        try:
            for start in range(0, len(partitions), _BATCH):
                glue.batch_create_partition(DatabaseName=database, TableName=new_name,
                                            PartitionInputList=partitions[start:start + _BATCH])
            if moves and old_location:
                self.files.move(old_location, new_location)
        except Exception:
            glue.delete_table(DatabaseName=database, Name=new_name)
            raise
        glue.delete_table(DatabaseName=database, Name=stored["Name"])

    @_writes
    def drop_table(self, database: str, name: str, delete_data: bool) -> None:
        """Delete a table; with ``delete_data``, a managed table's data goes too (an external table's stays,
        unless its ``external.table.purge`` parameter is true, as in Hive)."""
        stored = self.get_table(database, name)
        self.client().delete_table(DatabaseName=database, Name=name)
        if delete_data:
            self._remove_managed_data(stored)

    def _remove_managed_data(self, table: Mapping[str, Any]) -> None:
        purge = (table.get("Parameters") or {}).get("external.table.purge", "").lower() == "true"
        location = (table.get("StorageDescriptor") or {}).get("Location")
        if location and (table.get("TableType") == MANAGED_TABLE or purge):
            self.files.remove(location)

    # ------------------------------------------------------------ partitions

    def partitions(self, database: str, table: str, expression: str | None = None,
                   limit: int = -1) -> list[dict[str, Any]]:
        """The table's partitions (those ``expression`` selects, in Glue's partition filter language)."""
        params: dict[str, Any] = {"DatabaseName": database, "TableName": table}
        if expression:
            params["Expression"] = expression
        found = []
        for partition in self._pages("get_partitions", "Partitions", **params):
            found.append(partition)
            if 0 <= limit <= len(found):
                break
        return found

    def get_partition(self, database: str, table: str, values: list[str]) -> dict[str, Any]:
        return dict(self.client().get_partition(DatabaseName=database, TableName=table,
                                                PartitionValues=values)["Partition"])

    def get_partitions(self, database: str, table: str, values: list[list[str]]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for start in range(0, len(values), _BATCH):
            found += self.client().batch_get_partition(
                DatabaseName=database, TableName=table,
                PartitionsToGet=[{"Values": v} for v in values[start:start + _BATCH]])["Partitions"]
        return found

    @_writes
    def add_partitions(self, database: str, table: str, inputs: list[dict[str, Any]],
                       if_not_exists: bool) -> list[dict[str, Any]]:
        """Add partitions, all or none: an existing one is ``AlreadyExistsException`` before anything is
        added, unless ``if_not_exists`` (then it is left as it is). The inputs added."""
        existing = {tuple(p["Values"]) for p in self.get_partitions(database, table, [p["Values"] for p in inputs])}
        if existing and not if_not_exists:
            raise MetastoreError("AlreadyExistsException",
                                 f"Partition already exists: {list(sorted(existing)[0])} of {database}.{table}")
        fresh = [p for p in inputs if tuple(p["Values"]) not in existing]
        self._keep_serde(database, table, fresh)
        for partition in fresh:
            location = (partition.get("StorageDescriptor") or {}).get("Location")
            if location:
                self.files.make_folder(location)
        glue = self.client()
        for start in range(0, len(fresh), _BATCH):
            answer = glue.batch_create_partition(DatabaseName=database, TableName=table,
                                                 PartitionInputList=fresh[start:start + _BATCH])
            errors = answer.get("Errors") or []
            if errors:
                detail = errors[0].get("ErrorDetail") or {}
                raise MetastoreError(detail.get("ErrorCode") or "InvalidInputException",
                                     f"{detail.get('ErrorMessage')} (partition {errors[0].get('PartitionValues')})")
        return fresh

    @_writes
    def update_partitions(self, database: str, table: str, inputs: list[tuple[list[str], dict[str, Any]]]) -> None:
        """Replace partitions: each ``(values now, new PartitionInput)``."""
        self._keep_serde(database, table, [item for _, item in inputs])
        glue = self.client()
        for start in range(0, len(inputs), _BATCH):
            entries = [{"PartitionValueList": values, "PartitionInput": item}
                       for values, item in inputs[start:start + _BATCH]]
            answer = glue.batch_update_partition(DatabaseName=database, TableName=table, Entries=entries)
            errors = answer.get("Errors") or []
            if errors:
                detail = errors[0].get("ErrorDetail") or {}
                raise MetastoreError(detail.get("ErrorCode") or "InvalidInputException",
                                     f"{detail.get('ErrorMessage')} (partition {errors[0].get('PartitionValueList')})")

    def _keep_serde(self, database: str, table: str, inputs: list[dict[str, Any]]) -> None:
        """Partitions Spark writes keep their table's SerDe where Spark was answered a stand-in for it
        (:func:`glueball.metastore.shapes.keep_serde`)."""
        if not inputs:
            return
        library = shapes.stood_in(self.get_table(database, table))  # the table's shape read once for them all
        for partition in inputs:
            shapes.keep_serde(partition.get("StorageDescriptor"), library)

    @_writes
    def drop_partition(self, database: str, table: str, values: list[str], delete_data: bool) -> dict[str, Any]:
        """Delete a partition; with ``delete_data`` and a managed table, its folder too. The partition."""
        stored_table = self.get_table(database, table)
        partition = self.get_partition(database, table, values)
        self.client().delete_partition(DatabaseName=database, TableName=table, PartitionValues=values)
        location = (partition.get("StorageDescriptor") or {}).get("Location")
        if delete_data and location and stored_table.get("TableType") == MANAGED_TABLE:
            self.files.remove(location)
        return partition

    # ------------------------------------------------------------ functions

    def functions(self, database: str | None, pattern: str = "*") -> list[dict[str, Any]]:
        params: dict[str, Any] = {"Pattern": pattern or "*"}
        if database:
            params["DatabaseName"] = database
        return list(self._pages("get_user_defined_functions", "UserDefinedFunctions", **params))

    def get_function(self, database: str, name: str) -> dict[str, Any]:
        return dict(self.client().get_user_defined_function(DatabaseName=database, FunctionName=name)[
            "UserDefinedFunction"])

    @_writes
    def create_function(self, database: str, function_input: dict[str, Any]) -> None:
        self.client().create_user_defined_function(DatabaseName=database, FunctionInput=function_input)

    @_writes
    def update_function(self, database: str, name: str, function_input: dict[str, Any]) -> None:
        self.client().update_user_defined_function(DatabaseName=database, FunctionName=name,
                                                   FunctionInput=function_input)

    @_writes
    def drop_function(self, database: str, name: str) -> None:
        self.client().delete_user_defined_function(DatabaseName=database, FunctionName=name)

    # ------------------------------------------------------------ helpers

    def _pages(self, operation: str, member: str, **params: Any) -> Iterator[dict[str, Any]]:
        for page in self.client().get_paginator(operation).paginate(**params):
            yield from page.get(member, [])


def hive_pattern_matches(pattern: str, name: str) -> bool:
    """Hive's name patterns: alternatives separated by ``|``, each a regular expression in which ``*`` stands
    for ``.*``, matched whole and ignoring case (a malformed one matches its text literally)."""
    for alternative in pattern.split("|"):
        try:
            regex = re.compile(alternative.strip().replace("*", ".*"), re.IGNORECASE)
        except re.error:
            regex = re.compile(".*".join(re.escape(p) for p in alternative.strip().split("*")), re.IGNORECASE)
        if regex.fullmatch(name):
            return True
    return False

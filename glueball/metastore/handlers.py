"""The Hive metastore's Thrift calls, one method each, named as in ``hive_metastore.thrift``.

Only wire shapes here: a call's Thrift arguments become Glue shapes (:mod:`glueball.metastore.convert`),
the :class:`~glueball.metastore.service.Metastore` does the work, and its answer goes back as Thrift
structs; a Glue error becomes the Hive exception the call declares (:mod:`glueball.metastore.errors`).
The calls are those a Hive 2.3 client (Spark's built-in one) and Hive 3 clients make for databases,
tables, partitions and functions; a call outside them (transactions, locks, roles, tokens...) answers a
``MetaException`` naming it (a Thrift ``UNKNOWN_METHOD`` error where the call declares no exception).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pymetastore.hive_metastore import ttypes as hms
from thrift.Thrift import TApplicationException

from glueball.metastore import convert, shapes
from glueball.metastore.errors import MetastoreError, declared, to_hive
from glueball.metastore.service import Metastore, hive_pattern_matches

log = logging.getLogger("glueball.metastore")
F = TypeVar("F", bound=Callable[..., Any])


def _call(method: F) -> F:
    """Answer a Glue error as the Hive exception the call declares."""
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self: HiveMetastoreHandler, *args: Any) -> Any:
        try:
            return method(self, *args)
        except hms.TException:
            raise
        except Exception as exc:
            if not hasattr(exc, "response") and not isinstance(exc, MetastoreError):
                log.exception("metastore call %s failed", name)
            raise to_hive(name, exc) from exc

    return wrapper  # type: ignore[return-value]


class HiveMetastoreHandler:
    """The handler of ``ThriftHiveMetastore.Processor``: each Hive call as Glue API calls."""

    def __init__(self, metastore: Metastore) -> None:
        self.metastore = metastore

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def unsupported(*args: Any) -> Any:
            message = f"glueball's Hive metastore over the Glue Data Catalog does not serve the call {name}"
            if hms.MetaException in declared(name):
                raise hms.MetaException(message=message)
            raise TApplicationException(TApplicationException.UNKNOWN_METHOD, message)

        return unsupported

    # ------------------------------------------------------------ session and configuration

    def set_ugi(self, user_name: str, group_names: list[str]) -> list[str]:
        return list(group_names or [])

    def get_config_value(self, name: str, defaultValue: str) -> str:  # noqa: N803
        return defaultValue

    def getMetaConf(self, key: str) -> str:  # noqa: N802
        return ""

    def setMetaConf(self, key: str, value: str) -> None:  # noqa: N802
        return None

    def get_current_notificationEventId(self) -> hms.CurrentNotificationEventId:  # noqa: N802
        return hms.CurrentNotificationEventId(eventId=0)

    def get_table_statistics_req(self, request: hms.TableStatsRequest) -> hms.TableStatsResult:
        return hms.TableStatsResult(tableStats=[])

    def get_partitions_statistics_req(self, request: hms.PartitionsStatsRequest) -> hms.PartitionsStatsResult:
        return hms.PartitionsStatsResult(partStats={})

    def get_aggr_stats_for(self, request: hms.PartitionsStatsRequest) -> hms.AggrStats:
        return hms.AggrStats(colStats=[], partsFound=0)

    # ------------------------------------------------------------ databases

    @_call
    def get_all_databases(self) -> list[str]:
        return self.metastore.database_names()

    @_call
    def get_databases(self, pattern: str) -> list[str]:
        return self.metastore.database_names(pattern)

    @_call
    def get_database(self, name: str) -> hms.Database:
        return convert.to_hive_database(self.metastore.get_database(name),
                                        self.metastore.default_database_location(name))

    @_call
    def create_database(self, database: hms.Database) -> None:
        self.metastore.create_database(convert.database_input(database))

    @_call
    def alter_database(self, dbname: str, db: hms.Database) -> None:
        self.metastore.update_database(dbname, convert.database_input(db))

    @_call
    def drop_database(self, name: str, deleteData: bool, cascade: bool) -> None:  # noqa: N803
        self.metastore.drop_database(name, bool(deleteData), bool(cascade))

    # ------------------------------------------------------------ tables

    @_call
    def get_all_tables(self, db_name: str) -> list[str]:
        return self.metastore.table_names(db_name)

    @_call
    def get_tables(self, db_name: str, pattern: str) -> list[str]:
        return self.metastore.table_names(db_name, pattern)

    @_call
    def get_tables_by_type(self, db_name: str, pattern: str, tableType: str) -> list[str]:  # noqa: N803
        return self.metastore.table_names(db_name, pattern, tableType)

    @_call
    def get_table_meta(self, db_patterns: str, tbl_patterns: str, tbl_types: list[str]) -> list[hms.TableMeta]:
        found = []
        for database in self.metastore.database_names(db_patterns or "*"):
            for table in self.metastore.tables(database):
                kind = table.get("TableType") or convert.EXTERNAL_TABLE
                if hive_pattern_matches(tbl_patterns or "*", table["Name"]) and (not tbl_types or kind in tbl_types):
                    found.append(hms.TableMeta(dbName=database, tableName=table["Name"], tableType=kind,
                                               comments=table.get("Description")))
        return found

    def _hive_table(self, table: dict[str, Any], database: str) -> hms.Table:
        return convert.to_hive_table(shapes.for_spark(table) if self.metastore.presents else shapes.for_showing(table),
                                     database)

    @_call
    def get_table(self, dbname: str, tbl_name: str) -> hms.Table:
        return self._hive_table(self.metastore.get_table(dbname, tbl_name), dbname)

    @_call
    def get_table_req(self, req: hms.GetTableRequest) -> hms.GetTableResult:
        return hms.GetTableResult(table=self._hive_table(self.metastore.get_table(req.dbName, req.tblName),
                                                         req.dbName))

    @_call
    def get_table_objects_by_name(self, dbname: str, tbl_names: list[str]) -> list[hms.Table]:
        return [self._hive_table(t, dbname) for t in self.metastore.get_tables(dbname, list(tbl_names or []))]

    @_call
    def get_table_objects_by_name_req(self, req: hms.GetTablesRequest) -> hms.GetTablesResult:
        return hms.GetTablesResult(tables=[self._hive_table(t, req.dbName)
                                           for t in self.metastore.get_tables(req.dbName, list(req.tblNames or []))])

    @_call
    def get_fields(self, db_name: str, table_name: str) -> list[hms.FieldSchema]:
        return list(self.get_table(db_name, table_name).sd.cols or [])

    @_call
    def get_schema(self, db_name: str, table_name: str) -> list[hms.FieldSchema]:
        table = self.get_table(db_name, table_name)
        return [*(table.sd.cols or []), *(table.partitionKeys or [])]

    def get_fields_with_environment_context(self, db_name: str, table_name: str, environment_context: Any) -> Any:
        return self.get_fields(db_name, table_name)

    def get_schema_with_environment_context(self, db_name: str, table_name: str, environment_context: Any) -> Any:
        return self.get_schema(db_name, table_name)

    @_call
    def create_table(self, tbl: hms.Table) -> None:
        self.metastore.create_table(tbl.dbName, convert.table_input(tbl))

    @_call
    def create_table_with_environment_context(self, tbl: hms.Table, environment_context: Any) -> None:
        self.metastore.create_table(tbl.dbName, convert.table_input(tbl))

    @_call
    def create_table_with_constraints(self, tbl: hms.Table, *constraints: Any) -> None:
        self.metastore.create_table(tbl.dbName, convert.table_input(tbl))

    @_call
    def alter_table(self, dbname: str, tbl_name: str, new_tbl: hms.Table) -> None:
        self.metastore.alter_table(dbname, tbl_name, convert.table_input(new_tbl))

    @_call
    def alter_table_with_environment_context(self, dbname: str, tbl_name: str, new_tbl: hms.Table,
                                             environment_context: Any) -> None:
        self.metastore.alter_table(dbname, tbl_name, convert.table_input(new_tbl))

    @_call
    def alter_table_with_cascade(self, dbname: str, tbl_name: str, new_tbl: hms.Table, cascade: bool) -> None:
        self.metastore.alter_table(dbname, tbl_name, convert.table_input(new_tbl))

    @_call
    def drop_table(self, dbname: str, name: str, deleteData: bool) -> None:  # noqa: N803
        self.metastore.drop_table(dbname, name, bool(deleteData))

    @_call
    def drop_table_with_environment_context(self, dbname: str, name: str, deleteData: bool,  # noqa: N803
                                            environment_context: Any) -> None:
        self.metastore.drop_table(dbname, name, bool(deleteData))

    # ------------------------------------------------------------ partitions

    def _table(self, db_name: str, tbl_name: str) -> hms.Table:
        return self._hive_table(self.metastore.get_table(db_name, tbl_name), db_name)

    def _hive_partitions(self, db_name: str, tbl_name: str, partitions: list[dict[str, Any]]) -> list[hms.Partition]:
        table = self._table(db_name, tbl_name)
        return [convert.to_hive_partition(p, table) for p in partitions]

    def _keys(self, db_name: str, tbl_name: str) -> list[str]:
        return [k.name for k in self._table(db_name, tbl_name).partitionKeys or []]

    @_call
    def add_partition(self, new_part: hms.Partition) -> hms.Partition:
        self.metastore.add_partitions(new_part.dbName, new_part.tableName, [convert.partition_input(new_part)], False)
        return new_part

    @_call
    def add_partition_with_environment_context(self, new_part: hms.Partition, environment_context: Any) -> Any:
        self.metastore.add_partitions(new_part.dbName, new_part.tableName, [convert.partition_input(new_part)], False)
        return new_part

    @_call
    def add_partitions(self, new_parts: list[hms.Partition]) -> int:
        if not new_parts:
            return 0
        first = new_parts[0]
        return len(self.metastore.add_partitions(first.dbName, first.tableName,
                                                 [convert.partition_input(p) for p in new_parts], False))

    @_call
    def add_partitions_req(self, request: hms.AddPartitionsRequest) -> hms.AddPartitionsResult:
        inputs = [convert.partition_input(p) for p in request.parts or []]
        added = self.metastore.add_partitions(request.dbName, request.tblName, inputs, bool(request.ifNotExists))
        values = {tuple(p["Values"]) for p in added}
        parts = [p for p in request.parts or [] if tuple(p.values) in values] if request.needResult else []
        return hms.AddPartitionsResult(partitions=parts)

    @_call
    def get_partitions(self, db_name: str, tbl_name: str, max_parts: int) -> list[hms.Partition]:
        return self._hive_partitions(db_name, tbl_name, self.metastore.partitions(db_name, tbl_name, limit=max_parts))

    @_call
    def get_partitions_with_auth(self, db_name: str, tbl_name: str, max_parts: int, user_name: str,
                                 group_names: list[str]) -> list[hms.Partition]:
        return self.get_partitions(db_name, tbl_name, max_parts)

    @_call
    def get_partition_names(self, db_name: str, tbl_name: str, max_parts: int) -> list[str]:
        keys = self._keys(db_name, tbl_name)
        return [shapes.partition_name(keys, p["Values"])
                for p in self.metastore.partitions(db_name, tbl_name, limit=max_parts)]

    @_call
    def get_partitions_by_filter(self, db_name: str, tbl_name: str, filter: str,  # noqa: A002
                                 max_parts: int) -> list[hms.Partition]:
        """Partitions a Hive filter selects; one Glue's filter language refuses answers every partition (Spark
        prunes what it gets again)."""
        try:
            found = self.metastore.partitions(db_name, tbl_name, filter or None, max_parts)
        except Exception as exc:
            if getattr(exc, "response", {}).get("Error", {}).get("Code") != "InvalidInputException":
                raise
            log.debug("partition filter %r left to Spark: %s", filter, exc)
            found = self.metastore.partitions(db_name, tbl_name, None, max_parts)
        return self._hive_partitions(db_name, tbl_name, found)

    def _matching(self, db_name: str, tbl_name: str, part_vals: list[str], max_parts: int) -> list[dict[str, Any]]:
        """Partitions whose values match a partial specification (an empty value matches any)."""
        found = []
        for partition in self.metastore.partitions(db_name, tbl_name):
            if all(not want or want == have for want, have in zip(part_vals or [], partition["Values"], strict=False)):
                found.append(partition)
                if 0 <= max_parts <= len(found):
                    break
        return found

    @_call
    def get_partitions_ps(self, db_name: str, tbl_name: str, part_vals: list[str],
                          max_parts: int) -> list[hms.Partition]:
        return self._hive_partitions(db_name, tbl_name, self._matching(db_name, tbl_name, part_vals, max_parts))

    @_call
    def get_partitions_ps_with_auth(self, db_name: str, tbl_name: str, part_vals: list[str], max_parts: int,
                                    user_name: str, group_names: list[str]) -> list[hms.Partition]:
        return self._hive_partitions(db_name, tbl_name, self._matching(db_name, tbl_name, part_vals, max_parts))

    @_call
    def get_partition_names_ps(self, db_name: str, tbl_name: str, part_vals: list[str], max_parts: int) -> list[str]:
        keys = self._keys(db_name, tbl_name)
        return [shapes.partition_name(keys, p["Values"])
                for p in self._matching(db_name, tbl_name, part_vals, max_parts)]

    @_call
    def get_partition(self, db_name: str, tbl_name: str, part_vals: list[str]) -> hms.Partition:
        partition = self.metastore.get_partition(db_name, tbl_name, list(part_vals))
        return self._hive_partitions(db_name, tbl_name, [partition])[0]

    @_call
    def get_partition_with_auth(self, db_name: str, tbl_name: str, part_vals: list[str], user_name: str,
                                group_names: list[str]) -> hms.Partition:
        return self.get_partition(db_name, tbl_name, part_vals)

    @_call
    def get_partition_by_name(self, db_name: str, tbl_name: str, part_name: str) -> hms.Partition:
        return self.get_partition(db_name, tbl_name, shapes.partition_values(part_name))

    @_call
    def get_partitions_by_names(self, db_name: str, tbl_name: str, names: list[str]) -> list[hms.Partition]:
        found = self.metastore.get_partitions(db_name, tbl_name, [shapes.partition_values(n) for n in names or []])
        return self._hive_partitions(db_name, tbl_name, found)

    @_call
    def partition_name_to_vals(self, part_name: str) -> list[str]:
        return shapes.partition_values(part_name)

    @_call
    def partition_name_to_spec(self, part_name: str) -> dict[str, str]:
        return {shapes.unescape_path_name(p.partition("=")[0]): shapes.unescape_path_name(p.partition("=")[2])
                for p in part_name.split("/")}

    @_call
    def alter_partition(self, db_name: str, tbl_name: str, new_part: hms.Partition) -> None:
        self.metastore.update_partitions(db_name, tbl_name, [(list(new_part.values),
                                                              convert.partition_input(new_part))])

    @_call
    def alter_partition_with_environment_context(self, db_name: str, tbl_name: str, new_part: hms.Partition,
                                                 environment_context: Any) -> None:
        self.alter_partition(db_name, tbl_name, new_part)

    @_call
    def alter_partitions(self, db_name: str, tbl_name: str, new_parts: list[hms.Partition]) -> None:
        self.metastore.update_partitions(db_name, tbl_name, [(list(p.values), convert.partition_input(p))
                                                             for p in new_parts or []])

    @_call
    def alter_partitions_with_environment_context(self, db_name: str, tbl_name: str, new_parts: list[hms.Partition],
                                                  environment_context: Any) -> None:
        self.alter_partitions(db_name, tbl_name, new_parts)

    @_call
    def rename_partition(self, db_name: str, tbl_name: str, part_vals: list[str], new_part: hms.Partition) -> None:
        self.metastore.update_partitions(db_name, tbl_name, [(list(part_vals), convert.partition_input(new_part))])

    @_call
    def drop_partition(self, db_name: str, tbl_name: str, part_vals: list[str], deleteData: bool) -> bool:  # noqa: N803
        self.metastore.drop_partition(db_name, tbl_name, list(part_vals), bool(deleteData))
        return True

    @_call
    def drop_partition_with_environment_context(self, db_name: str, tbl_name: str, part_vals: list[str],
                                                deleteData: bool, environment_context: Any) -> bool:  # noqa: N803
        self.metastore.drop_partition(db_name, tbl_name, list(part_vals), bool(deleteData))
        return True

    @_call
    def drop_partition_by_name(self, db_name: str, tbl_name: str, part_name: str, deleteData: bool) -> bool:  # noqa: N803
        self.metastore.drop_partition(db_name, tbl_name, shapes.partition_values(part_name), bool(deleteData))
        return True

    @_call
    def drop_partitions_req(self, req: hms.DropPartitionsRequest) -> hms.DropPartitionsResult:
        if req.parts is None or req.parts.names is None:
            raise MetastoreError("InvalidInputException",
                                 "drop_partitions_req by expression is not served: name the partitions")
        dropped = []
        for name in req.parts.names:
            try:
                dropped.append(self.metastore.drop_partition(req.dbName, req.tblName, shapes.partition_values(name),
                                                             bool(req.deleteData)))
            except Exception as exc:
                code = getattr(exc, "response", {}).get("Error", {}).get("Code")
                if not (req.ifExists and code == "EntityNotFoundException"):
                    raise
        return hms.DropPartitionsResult(
            partitions=self._hive_partitions(req.dbName, req.tblName, dropped) if req.needResult else [])

    # ------------------------------------------------------------ functions

    @_call
    def get_all_functions(self) -> hms.GetAllFunctionsResponse:
        return hms.GetAllFunctionsResponse(functions=[convert.to_hive_function(f, f.get("DatabaseName") or "")
                                                      for f in self.metastore.functions(None)])

    @_call
    def get_functions(self, dbName: str, pattern: str) -> list[str]:  # noqa: N803
        return [f["FunctionName"] for f in self.metastore.functions(dbName, pattern or "*")]

    @_call
    def get_function(self, dbName: str, funcName: str) -> hms.Function:  # noqa: N803
        return convert.to_hive_function(self.metastore.get_function(dbName, funcName), dbName)

    @_call
    def create_function(self, func: hms.Function) -> None:
        self.metastore.create_function(func.dbName, convert.function_input(func))

    @_call
    def alter_function(self, dbName: str, funcName: str, newFunc: hms.Function) -> None:  # noqa: N803
        self.metastore.update_function(dbName, funcName, convert.function_input(newFunc))

    @_call
    def drop_function(self, dbName: str, funcName: str) -> None:  # noqa: N803
        self.metastore.drop_function(dbName, funcName)

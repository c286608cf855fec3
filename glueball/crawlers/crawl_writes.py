"""A crawl's writes to the Data Catalog: each table created or updated as the SchemaChangePolicy says (a new
table version on UpdateTable), its partitions created, updated and deleted in Glue's batch sizes, and the tables
whose data is gone deleted, deprecated or logged (DeleteBehavior). A stop lands between tables, never inside one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from botocore.exceptions import ClientError

from glueball.crawlers.crawl_model import CrawlOptions, CrawlOutcome, TableSpec
from glueball.crawlers.targets import split_s3_uri

PARTITION_BATCH = 100          # BatchCreatePartition / BatchUpdatePartition take at most 100 entries
DELETE_BATCH = 25              # BatchDeletePartition takes at most 25
TABLE_INPUT_KEYS = ("Name", "Description", "Owner", "LastAccessTime", "LastAnalyzedTime", "Retention",
                    "StorageDescriptor", "PartitionKeys", "ViewOriginalText", "ViewExpandedText", "TableType",
                    "Parameters", "TargetTable")


class CatalogWrites:
    """The writing half of a crawl (mixed into the engine's crawl, which provides what is declared here)."""

    glue: Any
    options: CrawlOptions
    outcome: CrawlOutcome
    incremental: bool
    progress: Callable[[str, int, int], None]

    def log(self, message: str) -> None:
        raise NotImplementedError

    def _check_stop(self) -> None:
        raise NotImplementedError

    def _paginate(self, method: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
        raise NotImplementedError

    def _tables(self, database: str) -> dict[str, dict[str, Any]]:
        raise NotImplementedError

    def _owned(self, table: dict[str, Any]) -> bool:
        return (table.get("Parameters") or {}).get("UPDATED_BY_CRAWLER") == self.options.name

    def _write(self, specs: list[TableSpec]) -> None:
        total = len(specs)
        for index, spec in enumerate(specs):
            self._check_stop()
            self.progress("writing", index, total)
            self._write_table(spec)
        self.progress("writing", total, total)

    def _write_table(self, spec: TableSpec) -> None:
        """Create or update one table, then its partitions: a stop never leaves a table half-written."""
        tables = self._tables(spec.database)
        existing = tables.get(spec.name.lower())
        if existing is None:
            try:
                self.glue.create_table(DatabaseName=spec.database, TableInput=spec.table_input)
            except ClientError as exc:
                if error_code(exc) != "AlreadyExistsException":
                    raise
                existing = self.glue.get_table(DatabaseName=spec.database, Name=spec.name)["Table"]
            else:
                self.outcome.tables_created += 1
                self.log(f"Created table {spec.database}.{spec.name} at {spec.location}")
                table_columns = spec.table_input["StorageDescriptor"]["Columns"]
                tables[spec.name.lower()] = {**spec.table_input, "DatabaseName": spec.database}
                self._create_partition_index(spec)
                self._write_partitions(spec, table_columns, {})
                return
        table_columns = self._update_table(spec, existing)
        current = {}
        if spec.table_input.get("PartitionKeys") or existing.get("PartitionKeys"):
            current = {tuple(p["Values"]): p for p in self._paginate(
                "get_partitions", "Partitions", DatabaseName=spec.database, TableName=spec.name)}
        self._write_partitions(spec, table_columns, current)

    def _create_partition_index(self, spec: TableSpec) -> None:
        """Glue crawlers add a partition index on the partition keys of the tables they create."""
        keys = [k["Name"] for k in spec.table_input.get("PartitionKeys") or []][:3]
        if not keys:
            return
        try:
            self.glue.create_partition_index(DatabaseName=spec.database, TableName=spec.name,
                                             PartitionIndex={"Keys": keys, "IndexName": "crawler_partition_index"})
        except ClientError as exc:
            self.log(f"No partition index on {spec.name}: {error_code(exc)}")

    def _update_table(self, spec: TableSpec, existing: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply the UpdateBehavior to a changed schema; returns the columns the table has afterwards."""
        old_sd = existing.get("StorageDescriptor") or {}
        old_columns = old_sd.get("Columns") or []
        new_input = spec.table_input
        new_sd = new_input["StorageDescriptor"]
        columns = new_sd["Columns"]
        if self.options.merge_new_columns or spec.catalog_target:
            known = {c["Name"].lower() for c in old_columns}
            columns = list(old_columns) + [c for c in columns if c["Name"].lower() not in known]
        old_params = existing.get("Parameters") or {}
        keys = new_input.get("PartitionKeys") or []
        if spec.catalog_target and existing.get("PartitionKeys"):
            keys = existing["PartitionKeys"]
        changes = []
        if _column_pairs(columns) != _column_pairs(old_columns):
            changes.append("columns")
        if _column_pairs(keys) != _column_pairs(existing.get("PartitionKeys") or []):
            changes.append("partition keys")
        for label, old, new in (("classification", old_params.get("classification"),
                                 new_input["Parameters"].get("classification")),
                                ("location", old_sd.get("Location"), new_sd.get("Location")),
                                ("format", old_sd.get("InputFormat"), new_sd.get("InputFormat"))):
            if old != new and not (spec.catalog_target and label != "columns" and old):
                changes.append(label)
        crawled_sd_params = {k: v for k, v in (new_sd.get("Parameters") or {}).items() if k != "UPDATED_BY_CRAWLER"}
        if spec.catalog_target and not set(crawled_sd_params) <= set(old_sd.get("Parameters") or {}):
            changes.append("storage parameters")
        deprecated = "DEPRECATED_BY_CRAWLER" in old_params
        if not changes and not deprecated:
            return old_columns
        if self.options.update != "UPDATE_IN_DATABASE" or self.incremental:
            self.log(f"Table {spec.database}.{spec.name} changed ({', '.join(changes) or 'data is back'}); "
                     "not updated (SchemaChangePolicy.UpdateBehavior LOG)")
            return old_columns
        table_input = _table_input(existing)
        if spec.catalog_target:
            sd = dict(table_input.get("StorageDescriptor") or {})
            sd["Columns"] = columns
            for member in ("InputFormat", "OutputFormat", "SerdeInfo"):  # fill what a hand-made table lacks
                if not sd.get(member) and new_sd.get(member):
                    sd[member] = new_sd[member]
            sd["Parameters"] = {**(sd.get("Parameters") or {}), **crawled_sd_params}
            table_input["StorageDescriptor"] = sd
            table_input["PartitionKeys"] = keys
            params = dict(table_input.get("Parameters") or {})
            params.update({k: v for k, v in new_input["Parameters"].items() if k != "UPDATED_BY_CRAWLER"})
            table_input["Parameters"] = params
        else:
            table_input.update({k: v for k, v in new_input.items() if k != "Name"})
            table_input["StorageDescriptor"] = {**new_sd, "Columns": columns}
        params = dict(table_input.get("Parameters") or {})
        params.pop("DEPRECATED_BY_CRAWLER", None)
        table_input["Parameters"] = params
        self.glue.update_table(DatabaseName=spec.database, TableInput=table_input)
        self.outcome.tables_updated += 1
        self.log(f"Updated table {spec.database}.{spec.name} ({', '.join(changes) or 'data is back'}): "
                 "a new table version")
        return columns

    def _write_partitions(self, spec: TableSpec, table_columns: list[dict[str, Any]],
                          current: dict[tuple[str, ...], dict[str, Any]]) -> None:
        to_create: list[dict[str, Any]] = []
        to_update: list[dict[str, Any]] = []
        seen: set[tuple[str, ...]] = set()
        update = self.options.update == "UPDATE_IN_DATABASE" and not self.incremental
        for partition in spec.partitions:
            values = tuple(partition["Values"])
            seen.add(values)
            if self.options.inherit_partitions:
                partition = {**partition, "StorageDescriptor": {**partition["StorageDescriptor"],
                                                                "Columns": table_columns}}
            old = current.get(values)
            if old is None:
                to_create.append(partition)
            elif update and _partition_changed(old, partition):
                to_update.append(partition)
        created = 0
        for chunk in _chunks(to_create, PARTITION_BATCH):
            response = self.glue.batch_create_partition(DatabaseName=spec.database, TableName=spec.name,
                                                        PartitionInputList=chunk)
            errors = response.get("Errors") or []
            for error in errors:
                detail = error.get("ErrorDetail") or {}
                if detail.get("ErrorCode") != "AlreadyExistsException":
                    self.log(f"Partition {error.get('PartitionValues')} of {spec.name}: {detail.get('ErrorMessage')}")
            created += len(chunk) - len(errors)
        for chunk in _chunks(to_update, PARTITION_BATCH):
            entries = [{"PartitionValueList": p["Values"], "PartitionInput": p} for p in chunk]
            response = self.glue.batch_update_partition(DatabaseName=spec.database, TableName=spec.name,
                                                        Entries=entries)
            self.outcome.partitions_updated += len(chunk) - len(response.get("Errors") or [])
        self.outcome.partitions_created += created
        if created or to_update:
            self.log(f"Table {spec.name}: {created} partitions created, {len(to_update)} updated")
        gone = [values for values in current if values not in seen] if spec.complete else []
        if gone:
            self._handle_deleted_partitions(spec, gone)
        if spec.state_entry is not None:
            root_len = len(spec.state_root.split("/")) if spec.state_root else 0
            partitions = set(spec.state_entry.get("partitions") or [])
            if spec.complete:
                partitions = set()
            for partition in spec.partitions:
                uri = partition["StorageDescriptor"]["Location"].rstrip("/")
                relative = uri[len(spec.state_key) + 1:] if uri.startswith(spec.state_key + "/") else ""
                partitions.add("/".join(relative.split("/")[root_len:]))
            spec.state_entry["partitions"] = sorted(partitions)
            spec.state_entry["name"] = spec.name
            spec.state_entry["keys"] = [k["Name"] for k in spec.table_input.get("PartitionKeys") or []]

    def _handle_deleted_partitions(self, spec: TableSpec, gone: list[tuple[str, ...]]) -> None:
        behavior = "LOG" if spec.catalog_target else self.options.delete
        if behavior == "DELETE_FROM_DATABASE":
            for chunk in _chunks(gone, DELETE_BATCH):
                response = self.glue.batch_delete_partition(
                    DatabaseName=spec.database, TableName=spec.name,
                    PartitionsToDelete=[{"Values": list(values)} for values in chunk])
                self.outcome.partitions_deleted += len(chunk) - len(response.get("Errors") or [])
            self.log(f"Table {spec.name}: {len(gone)} partitions whose data is gone were deleted")
        else:
            self.log(f"Table {spec.name}: {len(gone)} partitions whose data is gone were kept "
                     f"(DeleteBehavior {behavior}): {', '.join('/'.join(v) for v in gone[:10])}")

    def _handle_deleted_tables(self, specs: list[TableSpec], s3_targets: list[dict[str, Any]],
                               jdbc_targets: list[dict[str, Any]]) -> None:
        """Tables this crawler made for its targets whose data is gone: DeleteBehavior applies."""
        produced = {(s.database, s.name.lower()) for s in specs}
        roots = []
        for target in s3_targets:
            bucket, prefix = split_s3_uri(target.get("Path") or "")
            roots.append(f"s3://{bucket}/{prefix}".rstrip("/"))
        connections = {t.get("ConnectionName") for t in jdbc_targets}
        database = self.options.database
        for key, table in sorted(self._tables(database).items()):
            if (database, key) in produced or not self._owned(table):
                continue
            location = (table.get("StorageDescriptor") or {}).get("Location") or ""
            params = table.get("Parameters") or {}
            ours = any(location == root or location.startswith(root + "/") for root in roots) or (
                params.get("connectionName") in connections and params.get("typeOfData") == "table")
            if not ours:
                continue
            behavior = self.options.delete
            if behavior == "DELETE_FROM_DATABASE":
                self.glue.delete_table(DatabaseName=database, Name=table["Name"])
                self.outcome.tables_deleted += 1
                self.log(f"Deleted table {database}.{table['Name']}: its data at {location} is gone")
            elif behavior == "DEPRECATE_IN_DATABASE" and "DEPRECATED_BY_CRAWLER" not in params:
                table_input = _table_input(table)
                table_input["Parameters"] = {**params, "DEPRECATED_BY_CRAWLER": str(int(time.time()))}
                self.glue.update_table(DatabaseName=database, TableInput=table_input)
                self.outcome.tables_updated += 1
                self.log(f"Deprecated table {database}.{table['Name']}: its data at {location} is gone")
            elif behavior == "LOG":
                self.log(f"Table {database}.{table['Name']}: its data at {location} is gone (DeleteBehavior LOG)")


def error_code(exc: ClientError) -> str:
    """The Glue error code of a client error (``EntityNotFoundException``...)."""
    return str(exc.response.get("Error", {}).get("Code", ""))


def _column_pairs(columns: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["Name"].lower(), (c.get("Type") or "").lower()) for c in columns]


def _partition_changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    old_sd, new_sd = old.get("StorageDescriptor") or {}, new["StorageDescriptor"]
    return (_column_pairs(old_sd.get("Columns") or []) != _column_pairs(new_sd["Columns"])
            or old_sd.get("Location") != new_sd["Location"]
            or old_sd.get("InputFormat") != new_sd.get("InputFormat"))


def _table_input(table: dict[str, Any]) -> dict[str, Any]:
    """A Table as GetTable returns it, reduced to the members a TableInput takes."""
    return {k: table[k] for k in TABLE_INPUT_KEYS if k in table}


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]

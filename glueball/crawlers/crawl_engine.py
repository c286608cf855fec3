"""The crawl engine: list targets, classify samples, group tables, write the Data Catalog.

It mirrors an AWS Glue crawler run ("How crawlers work"): custom classifiers then built-in ones
infer each sampled file's format and schema; folders become tables and partitions by Glue's
grouping rules (:mod:`glueball.crawlers.grouping`); the catalog is written through a
boto3-compatible Glue client (CreateTable, UpdateTable — a new table version —, BatchCreatePartition,
BatchUpdatePartition, BatchDeletePartition, DeleteTable), so the same engine can fill glueball's
catalog in-process, a glueball server, or AWS itself. What it writes and how is
:mod:`glueball.crawlers.crawl_writes`; its inputs and results are :mod:`glueball.crawlers.crawl_model`.

Policies honoured: ``SchemaChangePolicy`` (UpdateBehavior ``UPDATE_IN_DATABASE`` | ``LOG``;
DeleteBehavior ``DEPRECATE_IN_DATABASE`` | ``DELETE_FROM_DATABASE`` | ``LOG``), ``RecrawlPolicy``
(``CRAWL_EVERYTHING`` | ``CRAWL_NEW_FOLDERS_ONLY``), and the ``Configuration`` JSON's
``Grouping.TableGroupingPolicy``, ``Grouping.TableLevelConfiguration``,
``CrawlerOutput.Partitions.AddOrUpdateBehavior`` and ``CrawlerOutput.Tables.AddOrUpdateBehavior``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from glueball.crawlers import lakes
from glueball.crawlers.classify import Classification, FileSample, classify, merge_columns
from glueball.crawlers.crawl_model import CrawlError, CrawlOptions, CrawlOutcome, CrawlStopped, TableSpec
from glueball.crawlers.crawl_writes import CatalogWrites, error_code
from glueball.crawlers.grouping import (
    Grouper,
    TableGroup,
    Unit,
    file_groups,
    group_at_level,
    sanitize_name,
    union_columns,
)
from glueball.crawlers.targets import (
    Exclusions,
    FolderListing,
    ObjectEntry,
    S3Listing,
    TargetError,
    list_jdbc_tables,
    list_s3_target,
    split_s3_uri,
)
from glueball.objects.access import Objects, process_objects

__all__ = ["CrawlError", "CrawlOutcome", "CrawlStopped", "run_crawl"]

STATE_VERSION = 1
PARTITION_INPUT_KEYS = ("Values", "LastAccessTime", "StorageDescriptor", "Parameters", "LastAnalyzedTime")


@dataclass
class _Stats:
    """Sizes and record estimates of a set of objects, scaled from the sampled ones."""

    size: int = 0
    objects: int = 0
    sampled_size: int = 0
    sampled_records: int = 0

    def add(self, other: _Stats) -> None:
        self.size += other.size
        self.objects += other.objects
        self.sampled_size += other.sampled_size
        self.sampled_records += other.sampled_records

    @property
    def record_count(self) -> int:
        if not self.sampled_size:
            return 0
        return round(self.sampled_records * self.size / self.sampled_size)

    @property
    def average_record_size(self) -> int:
        return round(self.sampled_size / self.sampled_records) if self.sampled_records else 0


@dataclass
class _Payload:
    """What the engine keeps for a unit: its files, its (first) classification, its statistics."""

    files: list[ObjectEntry]
    classification: Classification
    stats: _Stats


def run_crawl(crawler: dict[str, Any], classifiers: list[dict[str, Any]], glue: Any,
              previous_state: dict[str, Any] | None, progress: Callable[[str, int, int], None],
              should_stop: Callable[[], bool], log: Callable[[str], None],
              objects: Objects | None = None) -> CrawlOutcome:
    """Run one crawl of ``crawler`` and write what it finds to the Data Catalog through ``glue``.

    Mirrors an AWS Glue crawler run: S3 targets are listed (exclusions, hidden ``_``/``.`` objects
    skipped), up to ``SampleSize`` files per leaf folder are classified (custom classifiers first),
    folders are grouped into tables and partitions, and the catalog is created or updated according
    to the crawler's SchemaChangePolicy, RecrawlPolicy and Configuration. JDBC targets read
    ``information_schema`` through the catalog connection; catalog targets re-crawl the locations
    of existing tables and update only those tables.

    Args:
        crawler: the wire ``Crawler`` (as GetCrawler returns it).
        classifiers: the wire ``Classifier`` structures of the crawler's custom classifiers, in order.
        glue: a boto3-compatible Glue client of the caller's account and region.
        previous_state: the ``state`` of the crawler's previous crawl (for ``CRAWL_NEW_FOLDERS_ONLY``).
        progress: called as ``progress(stage, done, total)`` for stages listing, classifying, writing.
        should_stop: polled between folders and between tables.
        log: receives each log line as it is produced.
        objects: the object store of the catalog's installation (default: this process's,
            :mod:`glueball.objects.access`).

    Returns:
        The counts of tables and partitions created, updated and deleted, the new state and the log.

    Raises:
        CrawlStopped: ``should_stop()`` turned true; every table written so far is complete.
        CrawlError: the crawler's definition cannot be run (the crawl FAILED).
    """
    crawl = _Crawl(crawler, classifiers, glue, previous_state, progress, should_stop, log)
    crawl.objects = objects or process_objects()
    return crawl.run()


class _Crawl(CatalogWrites):
    def __init__(self, crawler: dict[str, Any], classifiers: list[dict[str, Any]], glue: Any,
                 previous_state: dict[str, Any] | None, progress: Callable[[str, int, int], None],
                 should_stop: Callable[[], bool], log: Callable[[str], None]) -> None:
        self.crawler = crawler
        self.objects: Objects = process_objects()
        self.options = CrawlOptions.of(crawler)
        self.classifiers = classifiers
        self.glue = glue
        self.previous = previous_state if (previous_state or {}).get("version") == STATE_VERSION else None
        self.progress = progress
        self.should_stop = should_stop
        self._log = log
        self.outcome = CrawlOutcome()
        self.incremental = self.options.recrawl == "CRAWL_NEW_FOLDERS_ONLY" and self.previous is not None
        self._catalog: dict[str, dict[str, dict[str, Any]]] = {}
        self._claimed: set[tuple[str, str]] = set()
        self.files_classified = 0

    # ------------------------------------------------------------------------------------ plumbing

    def log(self, message: str) -> None:
        self.outcome.messages.append(message)
        self._log(message)

    def _check_stop(self) -> None:
        if self.should_stop():
            self.log("Crawl stopped on request")
            raise CrawlStopped(f"crawler {self.options.name} was stopped")

    def _paginate(self, method: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
        for page in self.glue.get_paginator(method).paginate(**params):
            yield from page.get(key) or []

    def _tables(self, database: str) -> dict[str, dict[str, Any]]:
        if database not in self._catalog:
            try:
                self._catalog[database] = {t["Name"].lower(): t for t in
                                           self._paginate("get_tables", "TableList", DatabaseName=database)}
            except ClientError as exc:
                if error_code(exc) == "EntityNotFoundException":
                    raise CrawlError(f"Database {database} does not exist") from exc
                raise
        return self._catalog[database]

    def _ensure_database(self, database: str) -> None:
        """Create the crawler's output database when it does not exist, as a Glue crawler does."""
        try:
            self.glue.get_database(Name=database)
            return
        except ClientError as exc:
            if error_code(exc) != "EntityNotFoundException":
                raise
        try:
            self.glue.create_database(DatabaseInput={"Name": database})
        except ClientError as exc:
            if error_code(exc) != "AlreadyExistsException":  # another crawl created it meanwhile
                raise CrawlError(f"Database {database} does not exist and cannot be created: {exc}") from exc
            return
        self.log(f"Created database {database}")

    # ---------------------------------------------------------------------------------------- run

    def run(self) -> CrawlOutcome:
        targets = self.crawler.get("Targets") or {}
        s3_targets = targets.get("S3Targets") or []
        jdbc_targets = targets.get("JdbcTargets") or []
        catalog_targets = targets.get("CatalogTargets") or []
        lake_targets = [(kind, t) for kind in ("DeltaTargets", "IcebergTargets") for t in targets.get(kind) or []]
        unsupported = [k for k, v in targets.items() if v and k not in (
            "S3Targets", "JdbcTargets", "CatalogTargets", "DeltaTargets", "IcebergTargets")]
        if unsupported:
            raise CrawlError(f"Crawler targets {', '.join(sorted(unsupported))} are not supported by glueball")
        if catalog_targets and (s3_targets or jdbc_targets):
            raise CrawlError("A crawler with CatalogTargets cannot crawl other targets in the same run")
        if not (s3_targets or jdbc_targets or catalog_targets or lake_targets):
            raise CrawlError("The crawler has no targets")
        if not catalog_targets and not self.options.database:
            raise CrawlError("The crawler has no DatabaseName")
        if not catalog_targets:
            self._ensure_database(self.options.database)
        if self.incremental:
            self.log("Incremental crawl (CRAWL_NEW_FOLDERS_ONLY): only folders added since the last crawl are read")
        specs: list[TableSpec] = []
        state: dict[str, Any] = {"version": STATE_VERSION, "s3": {}, "jdbc": {}}
        for index, target in enumerate(s3_targets):
            self.progress("listing", index, len(s3_targets))
            specs.extend(self._crawl_s3(target, state))
        if s3_targets:
            self.progress("listing", len(s3_targets), len(s3_targets))
        for target in catalog_targets:
            specs.extend(self._crawl_catalog_target(target, state))
        for target in jdbc_targets:
            specs.extend(self._crawl_jdbc(target, state))
        for kind, target in lake_targets:
            specs.extend(self._crawl_lake(kind, target))
        self._write(specs)
        if not self.incremental and not catalog_targets:
            self._handle_deleted_tables(specs, s3_targets, jdbc_targets)
        self.outcome.state = state
        o = self.outcome
        self.log(f"Crawl finished: {o.tables_created} tables created, {o.tables_updated} updated, "
                 f"{o.tables_deleted} deleted; {o.partitions_created} partitions created, "
                 f"{o.partitions_updated} updated, {o.partitions_deleted} deleted; "
                 f"{self.files_classified} files classified")
        return o

    # ---------------------------------------------------------------------------------- S3 targets

    def _list(self, path: str, exclusions: Exclusions, known: set[str]) -> S3Listing:
        try:
            listing = list_s3_target(path, exclusions, known, self.should_stop, self.objects)
        except TargetError as exc:
            raise CrawlError(str(exc)) from exc
        self._check_stop()
        files = sum(len(f.files) for f in listing.folders)
        self.log(f"Listed {path}: {files} objects in {len(listing.folders)} folders"
                 + (f", {listing.excluded} excluded" if listing.excluded else "")
                 + (f", {listing.hidden} hidden skipped" if listing.hidden else "")
                 + (f", {listing.skipped_known} known folders skipped" if listing.skipped_known else ""))
        return listing

    def _crawl_s3(self, target: dict[str, Any], state: dict[str, Any]) -> list[TableSpec]:
        path = target.get("Path") or ""
        if not path.startswith(("s3://", "s3a://", "s3n://")):
            raise CrawlError(f"S3 target path {path!r} must be an s3:// URI")
        sample_size = target.get("SampleSize")
        if sample_size is not None and not 1 <= int(sample_size) <= 249:
            raise CrawlError(f"SampleSize must be between 1 and 249, not {sample_size}")
        exclusions = Exclusions(target.get("Exclusions"))
        bucket, prefix = split_s3_uri(path)
        include_uri = f"s3://{bucket}/{prefix}".rstrip("/")
        previous = ((self.previous or {}).get("s3") or {}).get(include_uri) if self.incremental else None
        known_partitions: set[str] = set()
        known_roots: set[str] = set()
        for root, entry in ((previous or {}).get("tables") or {}).items():
            if entry.get("depth"):
                known_partitions.update(_join(root, p) for p in entry.get("partitions") or [])
            else:
                known_roots.add(root)
        listing = self._list(path, exclusions, known_partitions)
        folders = [f for f in listing.folders if f.relative not in known_roots]
        units = self._classify_folders(folders, sample_size)
        include_level = 1 + (len(prefix.split("/")) if prefix else 0)
        groups, extra = self._attach_to_known(units, previous) if previous else ([], units)
        groups.extend(self._group(extra, include_level))
        include_name = (prefix.rsplit("/", 1)[-1] if prefix else bucket)
        known_names = {root: entry["name"] for root, entry in ((previous or {}).get("tables") or {}).items()
                       if entry.get("name")}
        for name in known_names.values():
            self._claimed.add((self.options.database, name.lower()))
        entry_state: dict[str, Any] = {"tables": {}}
        if previous:
            entry_state["tables"] = {root: dict(entry) for root, entry in (previous.get("tables") or {}).items()}
        state["s3"][include_uri] = entry_state
        specs = []
        for group in groups:
            spec = self._s3_spec(group, include_uri, include_name, exclusions, listing.single_file,
                                 name=known_names.get(group.root))
            spec.complete = not self.incremental
            spec.state_key, spec.state_root = include_uri, group.root
            spec.state_entry = entry_state["tables"].setdefault(group.root, {"depth": group.depth, "partitions": []})
            specs.append(spec)
        return specs

    def _classify_folders(self, folders: list[FolderListing], sample_size: int | None,
                          combine: bool = False) -> list[Unit]:
        units: list[Unit] = []
        total = len(folders)
        for index, folder in enumerate(folders):
            self._check_stop()
            self.progress("classifying", index, total)
            units.extend(self._classify_folder(folder, sample_size, combine))
        self.progress("classifying", total, total)
        return units

    def _classify_folder(self, folder: FolderListing, sample_size: int | None, combine: bool = False) -> list[Unit]:
        """Classify up to ``sample_size`` files of a folder (all when unset, as Glue) and cluster them
        by format, then by schema similarity (:func:`file_groups`; ``combine`` as CombineCompatibleSchemas):
        the largest format's files are the folder's unit when their schemas are mostly similar; the
        rest become file-level tables."""
        sampled = folder.files if sample_size is None else folder.files[:sample_size]
        clusters: list[tuple[tuple[str, ...], list[tuple[ObjectEntry, Classification]]]] = []
        for entry in sampled:
            result = classify(FileSample("", entry.uri, entry.size, partial(self.objects.open, entry.uri)),
                              self.classifiers)
            self.files_classified += 1
            if result is None:
                self.log(f"UNKNOWN: {entry.uri} matched no classifier and was skipped")
                continue
            key = _format_key(result)
            for cluster_key, members in clusters:
                if cluster_key == key:
                    members.append((entry, result))
                    break
            else:
                clusters.append((key, [(entry, result)]))
        if not clusters:
            return []
        clusters.sort(key=lambda c: -len(c[1]))
        unsampled = folder.files[len(sampled):]
        units = []
        for index, (key, members) in enumerate(clusters):
            folder_level, groups = file_groups([result.columns for _, result in members], merge_columns,
                                               combine or self.options.combine)
            for position, group in enumerate(groups):
                main = index == 0 and folder_level
                extra = unsampled if index == 0 and position == 0 else []
                units.append(self._unit(folder, key, [members[i] for i in group], extra, file_level=not main))
            if index > 0:
                self.log(f"{members[0][0].uri}: {key[0]} data beside {clusters[0][0][0]} data in "
                         f"s3 folder {folder.relative or '/'} becomes a table of its own")
            elif not folder_level:
                self.log(f"s3 folder {folder.relative or '/'}: the schemas of its {len(members)} {key[0]} files "
                         f"are not similar; {len(groups)} tables named after their files")
        return units

    @staticmethod
    def _unit(folder: FolderListing, key: tuple[str, ...], members: list[tuple[ObjectEntry, Classification]],
              unsampled: list[ObjectEntry], file_level: bool) -> Unit:
        stats = _Stats()
        for entry, result in members:
            stats.size += entry.size
            stats.objects += 1
            stats.sampled_size += entry.size
            stats.sampled_records += _records(result, entry.size)
        files = [entry for entry, _ in members] + unsampled
        stats.size += sum(e.size for e in unsampled)
        stats.objects += len(unsampled)
        columns = union_columns([result.columns for _, result in members], merge_columns)
        return Unit(folder.relative, key, columns, name=files[0].name, file_level=file_level,
                    data=_Payload(files, members[0][1], stats))

    def _group(self, units: list[Unit], include_level: int) -> list[TableGroup]:
        if not units:
            return []
        if self.options.table_level is not None:
            groups, rejected = group_at_level(units, self.options.table_level, include_level, merge_columns)
            for unit in rejected:
                self.log(f"Folder {unit.folder or '/'} ({unit.key[0]}) does not fit the table at level "
                         f"{self.options.table_level} and was skipped")
            return groups
        return Grouper(merge_columns, self.options.combine).group(units)

    def _attach_to_known(self, units: list[Unit], previous: dict[str, Any]) -> tuple[list[TableGroup], list[Unit]]:
        """Incremental crawls: new folders under a known table root at its partition depth are new
        partitions of that table; the rest are grouped into new tables."""
        tables = previous.get("tables") or {}
        attached: dict[str, list[Unit]] = {}
        rest: list[Unit] = []
        for unit in units:
            for root, entry in tables.items():
                depth = entry.get("depth") or 0
                root_parts = root.split("/") if root else []
                if depth and unit.parts[:len(root_parts)] == root_parts and len(unit.parts) == len(root_parts) + depth:
                    attached.setdefault(root, []).append(unit)
                    break
            else:
                rest.append(unit)
        groups = []
        for root, members in attached.items():
            entry = tables[root]
            group = TableGroup(root, members, entry["depth"], union_columns([u.columns for u in members],
                                                                          merge_columns))
            group.partition_keys = entry.get("keys") or [f"partition_{i}" for i in range(entry["depth"])]
            groups.append(group)
        return groups, rest

    def _s3_spec(self, group: TableGroup, include_uri: str, include_name: str, exclusions: Exclusions,
                 single_file: bool = False, database: str | None = None, name: str | None = None) -> TableSpec:
        database = database or self.options.database
        first: _Payload = group.units[0].data
        stats = _Stats()
        for unit in group.units:
            stats.add(unit.data.stats)
        if group.file_level or (single_file and not group.root):
            location = first.files[0].uri if len(first.files) == 1 else _dir_uri(include_uri, group.units[0].folder)
            base = first.files[0].name
        else:
            location = _dir_uri(include_uri, group.root)
            base = group.root.rsplit("/", 1)[-1] if group.root else include_name
        if name is None:
            name = self._table_name(database, self.options.prefix + sanitize_name(base), location)
        classification = first.classification
        parameters = self._file_parameters(classification, stats)
        if exclusions:
            parameters["exclusions"] = json.dumps([f"{include_uri}/{p.lstrip('/')}" for p in exclusions.patterns])
        table_input = {
            "Name": name,
            "StorageDescriptor": _storage(group.columns, location, classification, parameters),
            "PartitionKeys": [{"Name": key, "Type": "string"} for key in group.partition_keys],
            "TableType": "EXTERNAL_TABLE",
            "Parameters": parameters,
        }
        partitions = []
        if group.depth:
            for unit in group.units:
                payload: _Payload = unit.data
                part_params = self._file_parameters(payload.classification, payload.stats)
                part_location = _dir_uri(include_uri, unit.folder)
                partitions.append({
                    "Values": group.partition_values(unit),
                    "StorageDescriptor": _storage(unit.columns, part_location, payload.classification, part_params),
                    "Parameters": part_params,
                })
        return TableSpec(database, name, table_input, partitions, location)

    def _file_parameters(self, classification: Classification, stats: _Stats) -> dict[str, str]:
        parameters = {str(k): str(v) for k, v in (classification.parameters or {}).items()}
        parameters.setdefault("classification", classification.classification)
        parameters.setdefault("compressionType", "none")
        parameters.update({
            "typeOfData": "file",
            "recordCount": str(stats.record_count),
            "averageRecordSize": str(stats.average_record_size),
            "sizeKey": str(stats.size),
            "objectCount": str(stats.objects),
            "UPDATED_BY_CRAWLER": self.options.name,
            "CrawlerSchemaSerializerVersion": "1.0",
            "CrawlerSchemaDeserializerVersion": "1.0",
        })
        return parameters

    def _table_name(self, database: str, name: str, location: str) -> str:
        """The table's name: the folder's, or with a hash of the location appended when a table of
        that name belongs to someone else or another table of this crawl already took it."""
        existing = self._tables(database).get(name.lower())
        taken = (database, name.lower()) in self._claimed
        if taken or (existing is not None and not self._owned(existing)):
            suffixed = f"{name}_{hashlib.md5(location.encode()).hexdigest()[:8]}"
            reason = "another table of this crawl" if taken else "a table not created by this crawler"
            self.log(f"Table name {name} is used by {reason}; the table for {location} is named {suffixed}")
            name = suffixed
        self._claimed.add((database, name.lower()))
        return name

    # ----------------------------------------------------------------------------- catalog targets

    def _crawl_catalog_target(self, target: dict[str, Any], state: dict[str, Any]) -> list[TableSpec]:
        database = target.get("DatabaseName") or self.options.database
        specs = []
        for table_name in target.get("Tables") or []:
            table = self._tables(database).get(table_name.lower())
            if table is None:
                raise CrawlError(f"Catalog target table {database}.{table_name} does not exist")
            location = (table.get("StorageDescriptor") or {}).get("Location") or ""
            if not location.startswith(("s3://", "s3a://", "s3n://")):
                raise CrawlError(f"Catalog target table {database}.{table_name} has no s3:// location")
            bucket, prefix = split_s3_uri(location)
            include_uri = f"s3://{bucket}/{prefix}".rstrip("/")
            previous = ((self.previous or {}).get("s3") or {}).get(include_uri) if self.incremental else None
            known = {_join("", p) for p in ((previous or {}).get("tables") or {}).get("", {}).get("partitions") or []}
            listing = self._list(location, Exclusions(None), known)
            units = [u for u in self._classify_folders(listing.folders, None, combine=True) if not u.file_level]
            include_level = 1 + (len(prefix.split("/")) if prefix else 0)
            groups, rejected = group_at_level(units, include_level, include_level, merge_columns)
            for unit in rejected:
                self.log(f"Folder {unit.folder or '/'} does not match table {table_name} and was skipped")
            entry_state: dict[str, Any] = {"tables": {}}
            if previous:
                entry_state["tables"] = {r: dict(e) for r, e in (previous.get("tables") or {}).items()}
            state["s3"][include_uri] = entry_state
            if not groups:
                self.log(f"No data found for catalog table {database}.{table_name} at {location}")
                continue
            group = groups[0]
            existing_keys = [k["Name"] for k in table.get("PartitionKeys") or []]
            if existing_keys and len(existing_keys) == group.depth:
                group.partition_keys = existing_keys
            self._claimed.add((database, table["Name"].lower()))
            spec = self._s3_spec(group, include_uri, table["Name"], Exclusions(None), database=database,
                                 name=table["Name"])
            spec.catalog_target = True
            spec.complete = not self.incremental
            spec.state_key, spec.state_root = include_uri, ""
            spec.state_entry = entry_state["tables"].setdefault("", {"depth": group.depth, "partitions": []})
            specs.append(spec)
        return specs

    # ------------------------------------------------------------------------- Delta and Iceberg tables

    def _crawl_lake(self, kind: str, target: dict[str, Any]) -> list[TableSpec]:
        """One table per path of a DeltaTargets or IcebergTargets entry, named after the path's last folder."""
        specs = []
        paths = target.get("DeltaTables") if kind == "DeltaTargets" else target.get("Paths")
        for path in paths or []:
            uri = path.rstrip("/")
            name = self._table_name(self.options.database, uri.rsplit("/", 1)[-1].lower(), uri)
            try:
                if kind == "DeltaTargets":
                    snapshot = lakes.delta_snapshot(uri, self.objects)
                    native = bool(target.get("CreateNativeDeltaTable"))
                    table_input = lakes.delta_table_input(name, uri, snapshot, native)
                    if not native and target.get("WriteManifest"):
                        written = lakes.write_manifest(uri, snapshot, self.objects)
                        self.log(f"Wrote {written} symlink manifest(s) of Delta table {uri} (version "
                                 f"{snapshot.version})")
                else:
                    table_input = lakes.iceberg_table_input(name, uri, self.objects)
            except lakes.LakeTableError as exc:
                self.log(f"Skipped {uri}: {exc}")
                continue
            location = table_input["StorageDescriptor"]["Location"]
            specs.append(TableSpec(self.options.database, name, table_input, [], location))
        return specs

    # ---------------------------------------------------------------------------------------- JDBC

    def _crawl_jdbc(self, target: dict[str, Any], state: dict[str, Any]) -> list[TableSpec]:
        connection_name = target.get("ConnectionName") or ""
        try:
            connection = self.glue.get_connection(Name=connection_name, HidePassword=False)["Connection"]
        except ClientError as exc:
            raise CrawlError(f"Connection {connection_name!r} of the JDBC target: {exc}") from exc
        properties = connection.get("ConnectionProperties") or {}
        self.progress("listing", 0, 1)
        try:
            url, tables = list_jdbc_tables(properties, target.get("Path") or "", Exclusions(target.get("Exclusions")))
        except TargetError as exc:
            raise CrawlError(str(exc)) from exc
        self.log(f"JDBC target {connection_name}/{target.get('Path')}: {len(tables)} tables")
        classification = "postgresql" if url.engine == "postgresql" else "mysql"
        specs = []
        names = []
        for table in tables:
            location = ".".join(p for p in (table.database, table.schema, table.name) if p is not None)
            base = "_".join(p for p in (table.database, table.schema, table.name) if p is not None)
            name = self._table_name(self.options.database, self.options.prefix + sanitize_name(base), location)
            names.append(name)
            parameters = {
                "classification": classification,
                "connectionName": connection_name,
                "typeOfData": "table",
                "compressionType": "none",
                "UPDATED_BY_CRAWLER": self.options.name,
                "CrawlerSchemaSerializerVersion": "1.0",
                "CrawlerSchemaDeserializerVersion": "1.0",
            }
            descriptor = {
                "Columns": [{"Name": n, "Type": t} for n, t in table.columns],
                "Location": location,
                "Compressed": False,
                "NumberOfBuckets": -1,
                "SerdeInfo": {"Parameters": {}},
                "BucketColumns": [],
                "SortColumns": [],
                "Parameters": dict(parameters),
                "StoredAsSubDirectories": False,
            }
            table_input = {"Name": name, "StorageDescriptor": descriptor, "PartitionKeys": [],
                           "TableType": "EXTERNAL_TABLE", "Parameters": parameters}
            specs.append(TableSpec(self.options.database, name, table_input, [], location))
        state["jdbc"].setdefault(connection_name, []).extend(names)
        return specs


# ------------------------------------------------------------------------------------------- helpers


def _join(root: str, relative: str) -> str:
    return f"{root}/{relative}" if root and relative else root or relative


def _dir_uri(include_uri: str, relative: str) -> str:
    return f"{include_uri}/{relative}/" if relative else f"{include_uri}/"


def _format_key(result: Classification) -> tuple[str, ...]:
    """What files must share to be one table: format, compression, delimiter, header, classifier."""
    params = result.parameters or {}
    return (result.classification, params.get("compressionType", "none"), params.get("delimiter", ""),
            params.get("skip.header.line.count", ""), result.custom_classifier or "")


def _records(result: Classification, size: int) -> int:
    if result.record_count is not None:
        return int(result.record_count)
    if result.average_record_size:
        return max(1, round(size / result.average_record_size))
    return 0


def _storage(columns: list[tuple[str, str]], location: str, classification: Classification,
             parameters: dict[str, str]) -> dict[str, Any]:
    serde = classification.serde or {}
    return {
        "Columns": [{"Name": name, "Type": type_} for name, type_ in columns],
        "Location": location,
        "InputFormat": classification.input_format,
        "OutputFormat": classification.output_format,
        "Compressed": parameters.get("compressionType", "none") != "none",
        "NumberOfBuckets": -1,
        "SerdeInfo": {"SerializationLibrary": serde.get("SerializationLibrary", ""),
                      "Parameters": dict(serde.get("Parameters") or {})},
        "BucketColumns": [],
        "SortColumns": [],
        "Parameters": dict(parameters),
        "StoredAsSubDirectories": False,
    }

"""Running one query execution in an engine's Spark session, and writing its result where Athena writes it.

The plan (:mod:`glueball.athena.plan`) says what to run. Before anything runs, the session forgets the tables and
file listings of earlier queries (each query reads the files there are now, whoever wrote them), and the bytes the
query would read (the files of the partitions it reads) are checked against the workgroup's
``BytesScannedCutoffPerQuery``; that figure is also the query's ``DataScannedInBytes``. Then:

- ``rows``: the statement's rows, every value as Athena prints it (timestamps ``2026-01-01 10:00:00.000``,
  maps and rows ``{k=v, ...}``, varbinary as hex), collected as Arrow and written by pyarrow's CSV writer in
  Athena's quoting (:mod:`glueball.athena.resultfile`) — or as tab-separated text for SHOW and DESCRIBE;
- ``ddl``: run for its effect, an empty ``<id>.txt``;
- ``ctas``/``insert``/``unload``: the table or location written, its files listed in ``<id>-manifest.csv``
  (``Statistics.DataManifestLocation``), the rows written as ``UpdateCount``.

A Spark error becomes the FAILED query's ``AthenaError`` (:func:`glueball.athena.engine_errors.failure_of`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from glueball.athena import iceberg, resultfile, texts
from glueball.athena.engine_errors import failure_of
from glueball.athena.models import ErrorCategory, ErrorType, Failure
from glueball.metastore import shapes
from glueball.objects.locations import local_path, object_store_root
from glueball.runtime import hivecatalog


class Cancelled(Exception):
    """The query was stopped while it ran (StopQueryExecution)."""


class Failed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def run(spark: Any, query: dict[str, Any], cancelled: Any) -> tuple[str, str | None, dict[str, Any]]:
    """Run ``query`` (TakeQuery's ``Query``); its outcome: status, message and the details of its record
    (``Statistics``, ``Result``, ``AthenaError``). ``cancelled()`` says whether it was stopped meanwhile."""
    plan = json.loads(query["Plan"])
    begun = time.monotonic()
    # the query's catalog reads, each asked of the catalog once; the tables as stored where the plan says so
    with hivecatalog.remembering(), hivecatalog.as_stored(bool(plan.get("AsStored"))):
        return _run(spark, plan, query, cancelled, begun)


def _run(spark: Any, plan: dict[str, Any], query: dict[str, Any], cancelled: Any,
         begun: float) -> tuple[str, str | None, dict[str, Any]]:
    query_id = query["QueryExecutionId"]
    statistics: dict[str, Any] = {}
    try:
        spark.sparkContext.setJobGroup(f"athena-{query_id}", f"Athena query {query_id}", interruptOnCancel=True)
        forget_listings(spark)
        # quoted: a database named as Glue allows (my-db) is one name, not an expression
        spark.catalog.setCurrentDatabase(texts.quoted(query.get("Database") or "default"))
        statistics["PlanningMillis"] = _since(begun)  # a SELECT's runner counts its planning on (_rows)
        result = _RUNNERS[plan["Kind"]](spark, plan, query, statistics, begun)
        statistics.setdefault("EngineExecutionTimeInMillis", _since(begun))
        return "SUCCEEDED", None, {"Statistics": statistics, "Result": result}
    except Exception as exc:  # noqa: BLE001 - every failure is the query's outcome
        statistics["EngineExecutionTimeInMillis"] = _since(begun)
        if cancelled():
            return "CANCELLED", "Query cancelled by user", {"Statistics": statistics}
        failure = exc.failure if isinstance(exc, Failed) else failure_of(exc)
        return "FAILED", failure.message, {"Statistics": statistics, "AthenaError": failure.wire()}
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)


def _since(begun: float) -> int:
    return int((time.monotonic() - begun) * 1000)


def forget_listings(spark: Any) -> None:
    """Drop any table relation the engine's session holds from earlier queries: a relation keeps the files it listed
    until the table is refreshed, and another writer (a Glue job, an upload) adds and removes files meanwhile; each
    Athena query reads the files there are when it runs. glueball's sessions keep no relations across statements
    (``spark.sql.filesourceTableRelationCacheSize`` is 0, ``runtime/hivecatalog.py``) nor partitions' files
    (``spark.sql.hive.filesourcePartitionFileCacheSize`` is 0): this holds the engine to that whatever a query did."""
    spark._jsparkSession.sessionState().catalog().invalidateAllCachedTables()


# -- what each kind of plan does


def _rows(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
          begun: float) -> dict[str, Any]:
    """A statement's rows, as Athena times it: planned (``QueryPlanningTimeInMillis``: parsed, resolved against
    the catalog, its partitions and files listed, optimized), run by the engine (``EngineExecutionTimeInMillis``,
    planning included), then written out (``ServiceProcessingTimeInMillis``)."""
    for statement in plan["Statements"][:-1]:
        spark.sql(statement).collect()
    frame = _last_statement(spark, plan)
    # the result's columns - Athena's names (SHOW, DESCRIBE), only those it keeps, every value as text: the values
    # Spark prints in one projection (each DataFrame step would analyse the whole statement again), none when the
    # engine prints them all (texts.printed_here)
    fields = frame.schema.fields
    renames = plan.get("Rename") or {}
    named = [(index, field, renames.get(field.name, field.name)) for index, field in enumerate(fields)]
    if plan.get("Keep"):
        named = [entry for kept in plan["Keep"] for entry in named if entry[2] == kept]
    # a varchar(n) / char(n) column is a string to Spark; its metadata keeps the catalog's type
    # Trino's json values are their JSON text to Spark, and its zoned timestamps the text Trino prints
    # and its timestamp(p) of more than 3 digits are Spark's timestamps, printed with p digits
    precise: dict[str, int] = plan.get("Precise") or {}
    typed = {**dict.fromkeys(plan.get("Json") or [], "json"),
             **dict.fromkeys(plan.get("Zoned") or [], resultfile.ZONED),
             **{name: f"timestamp({precision})" for name, precision in precise.items()}}
    columns = [resultfile.column_info(name, typed.get(name) or field.metadata.get("__CHAR_VARCHAR_TYPE_STRING")
                                      or field.dataType.simpleString()) for _, field, name in named]
    if plan.get("Hive"):  # Athena's Hive DDL engine answers SHOW and DESCRIBE: Hive's string columns
        columns = [{**column, "Type": "string", "Precision": 0, "CaseSensitive": False} for column in columns]
    printed = frame
    if renames or plan.get("Keep") or not all(texts.printed_here(field.dataType) for _, field, _ in named):
        source = [field.name for field in fields]
        if len(set(source)) < len(source):  # a name twice (SELECT 1 AS a, 2 AS a): each column by its place
            source = [f"_column_{index}" for index in range(len(fields))]
            frame = frame.toDF(*source)
        printed = frame.selectExpr(*[f"{_printing(texts.quoted(source[index]), field.dataType, precise.get(name))} AS "
                                     f"{texts.quoted(name)}" for index, field, name in named])
    if plan.get("Header", True):  # the frame's files (a Hive table's are its folder's), from the plan then run
        _check_cutoff(spark, printed, [], query, statistics)
    statistics["PlanningMillis"] = _since(begun)
    table = printed.toArrow()
    for position, (_, field, name) in enumerate(named):
        if texts.printed_here(field.dataType):
            table = table.set_column(position, name, texts.column_text(table.column(position), field.dataType))
    statistics["EngineExecutionTimeInMillis"] = _since(begun)
    collected = time.monotonic()
    extension = "csv" if plan.get("Header", True) else "txt"
    target = f"{query['OutputLocation'].rstrip('/')}/{query['QueryExecutionId']}.{extension}"
    with _Written(target) as path:
        if extension == "csv":
            import pyarrow.csv

            pyarrow.csv.write_csv(table, str(path), pyarrow.csv.WriteOptions(quoting_style="all_valid"))
        else:
            width = int(plan.get("Pad") or 0)
            with path.open("w", encoding="utf-8") as out:
                for row in table.to_pylist():  # SHOW CREATE TABLE's one value ends with a newline: no empty row
                    out.write(resultfile.text_line([_padded(_chomp(row[c["Name"]]), width) for c in columns]))
    statistics["OutputRows"] = table.num_rows
    statistics["OutputBytes"] = _written_size(target)
    _write_metadata(target, columns, table.num_rows)
    statistics["ProcessingMillis"] = _since(collected)
    return {"ColumnInfo": columns, "Rows": table.num_rows, "Extension": extension, "UpdateCount": 0}


def _last_statement(spark: Any, plan: dict[str, Any]) -> Any:
    """The frame of the plan's last statement, or of its ``Otherwise`` where Spark refuses that statement for a data
    source table (``SHOW CREATE TABLE ... AS SERDE``)."""
    from pyspark.errors import AnalysisException

    try:
        return spark.sql(plan["Statements"][-1])
    except AnalysisException as exc:
        if not plan.get("Otherwise") or "ON_DATA_SOURCE_TABLE" not in str(exc):
            raise
        return spark.sql(plan["Otherwise"])


def _printing(column: str, data_type: Any, precision: int | None = None) -> str:
    """A result column's expression in the projection: its value as Spark prints it (a timestamp of the
    ``precision`` Trino gives it), or as it is where the engine prints it from the rows."""
    from pyspark.sql import types as t

    if precision is not None and isinstance(data_type, t.TimestampType | t.TimestampNTZType):
        return texts.timestamp_text(column, precision)
    return column if texts.printed_here(data_type) else texts.as_text(column, data_type)


def _ddl(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
         begun: float) -> dict[str, Any]:
    for statement in plan["Statements"]:
        spark.sql(statement).collect()
    target = f"{query['OutputLocation'].rstrip('/')}/{query['QueryExecutionId']}.txt"
    with _Written(target) as path:
        path.write_bytes(b"")
    _write_metadata(target, [], 0)
    return {"ColumnInfo": [], "Rows": 0, "Extension": "txt", "UpdateCount": 0}


def _write_table(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
                 begun: float) -> dict[str, Any]:
    """CTAS and INSERT INTO: the statement writes; the rows written are its write metric."""
    _check_cutoff(spark, None, plan.get("TablesRead") or [], query, statistics)
    table = plan["Table"]
    statement = plan["Statements"][-1]
    if table.get("Select"):  # a column Trino has no type for (SELECT NULL AS c) makes no table
        fields = spark.sql(table["Select"]).schema.fields
        unknown = [f.name for f in fields if f.dataType.typeName() == "void"]
        if unknown:
            raise Failed(Failure(ErrorCategory.USER, ErrorType.USER, f"NOT_SUPPORTED: Column type is unknown: "
                                 f"{unknown[0]}"))
        if table.get("Iceberg"):  # Athena's Iceberg timestamps have no zone
            statement = statement.replace("{select}", _without_zone(table["Select"], fields))
    frame = spark.sql(statement)
    name = iceberg.spark_name(table["Name"]) if table.get("Iceberg") else table["Name"]
    written = _rows_written(frame)
    if plan["Kind"] == "ctas" and not written:  # Spark's CTAS keeps no write metric: the new table holds them all
        written = spark.table(name).count()
    location = table.get("Location") or _table_location(spark, name)
    return _written_result(spark, query, location, written, statistics, counted=True)


def _without_zone(select: str, fields: list[Any]) -> str:
    """``select`` with its ``timestamp`` values (in structs, arrays and maps too) cast to ``timestamp_ntz``: the
    Iceberg table a CTAS makes has Athena's ``timestamp`` columns, Iceberg's timestamps without a zone."""
    from pyspark.sql import types as t

    def plain(kind: Any) -> Any:
        if isinstance(kind, t.TimestampType):
            return t.TimestampNTZType()
        if isinstance(kind, t.StructType):
            return t.StructType([t.StructField(f.name, plain(f.dataType), f.nullable) for f in kind.fields])
        if isinstance(kind, t.ArrayType):
            return t.ArrayType(plain(kind.elementType), kind.containsNull)
        if isinstance(kind, t.MapType):
            return t.MapType(plain(kind.keyType), plain(kind.valueType), kind.valueContainsNull)
        return kind

    columns = []
    for field in fields:
        name = "`" + field.name.replace("`", "``") + "`"
        kind = plain(field.dataType)
        columns.append(name if kind == field.dataType else f"CAST({name} AS {kind.simpleString()}) AS {name}")
    return f"SELECT {', '.join(columns)} FROM ({select}) AS `glueball_selected`"


def _row_level(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
               begun: float) -> dict[str, Any]:
    """UPDATE, DELETE and MERGE INTO of an Iceberg table; their ``UpdateCount`` the rows they changed, as Athena
    counts them, from the summary of the snapshot they committed (:func:`_changed_rows`); none committed, none."""
    table = plan["Table"]
    name = iceberg.spark_name(table["Name"])
    before = _current_snapshot(spark, name)
    counted: int | None = None
    if table["Verb"] == "UPDATE" and table.get("Count") and _copies_on_write(spark, name):
        counted = int(spark.sql(table["Count"]).collect()[0][0])  # a rewritten file's rows are no measure of it
    result = _ddl(spark, plan, query, statistics, begun)
    after = _current_snapshot(spark, name)
    if after is None or after == before:
        return {**result, "UpdateCount": 0}
    summary = {str(k): str(v) for k, v in (spark.sql(
        f"SELECT summary FROM {name}.snapshots WHERE snapshot_id = {int(after)}").collect()[0][0] or {}).items()}
    return {**result, "UpdateCount": counted if counted is not None else _changed_rows(table["Verb"], summary)}


def _current_snapshot(spark: Any, name: str) -> int | None:
    rows = spark.sql(f"SELECT snapshot_id FROM {name}.refs WHERE name = 'main'").collect()
    return int(rows[0][0]) if rows else None


def _copies_on_write(spark: Any, name: str) -> bool:
    rows = spark.sql(f"SHOW TBLPROPERTIES {name} ('write.update.mode')").collect()
    return not rows or "merge-on-read" not in str(rows[0][1])


def _changed_rows(verb: str, summary: dict[str, str]) -> int:
    """The rows a row-level statement changed, from its snapshot's summary: a MERGE's Spark counts (updated,
    inserted, deleted); a DELETE's position deletes, or the rows of the files it dropped less those it kept; an
    UPDATE's new rows (merge-on-read: one for each row changed)."""
    def figure(key: str) -> int:
        return int(summary.get(key) or 0)

    if verb == "MERGE" and any(key.startswith("spark.merge-into.") for key in summary):
        return sum(figure(f"spark.merge-into.num-target-rows-{kind}") for kind in ("updated", "inserted", "deleted"))
    if verb == "DELETE":
        return max(figure("added-position-deletes") + figure("deleted-records") - figure("added-records"), 0)
    return figure("added-records")


def _maintenance(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
                 begun: float) -> dict[str, Any]:
    """OPTIMIZE and VACUUM of an Iceberg table: Iceberg's procedures, with the options of the table's Athena
    properties as they are now (:func:`glueball.athena.iceberg.procedure_calls`)."""
    table = plan["Table"]
    name = iceberg.spark_name(table["Name"])
    properties = {str(row[0]): str(row[1]) for row in spark.sql(f"SHOW TBLPROPERTIES {name}").collect()}
    calls = iceberg.procedure_calls(table["Verb"], table["Name"], table.get("Where") or "", properties, time.time())
    return _ddl(spark, {**plan, "Statements": calls}, query, statistics, begun)


def _unload(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
            begun: float) -> dict[str, Any]:
    options = plan["Table"]
    location = str(options["Location"])
    if _files_under(spark, location):
        raise Failed(Failure(ErrorCategory.USER, ErrorType.USER, f"HIVE_PATH_ALREADY_EXISTS: Target directory for "
                             f"UNLOAD already exists and is not empty: {location}"))
    frame = spark.sql(plan["Statements"][-1])
    _check_cutoff(spark, frame, [], query, statistics)
    if options["Format"] == "avro":
        return _written_result(spark, query, location, _unload_avro(frame, location, options), statistics)
    writer = frame.write.format(options["Format"]).options(**options.get("Options", {})).mode("append")
    if options.get("PartitionedBy"):
        writer = writer.partitionBy(*options["PartitionedBy"])
    writer.save(location)
    separator = {"sep": options["Options"]["sep"]} if "sep" in options.get("Options", {}) else {}
    written = spark.read.format(options["Format"]).options(**separator).load(location).count()  # what landed
    if not written:  # Athena unloads no rows as no files (Spark writes a file of none); the folder was empty
        _remove_files(spark, location)
    return _written_result(spark, query, location, written, statistics)


def _unload_avro(frame: Any, location: str, options: dict[str, Any]) -> int:
    """An Avro UNLOAD, written as a Glue job's Avro sink writes (fastavro in each task: Spark's avro module is no jar
    the engine has); the rows written, counted from the files' blocks. No rows write no file."""
    from glueball.objects.locations import to_spark_path
    from glueball.objects.reach import through_s3_api
    from glueball.runtime.io.avro import write_avro

    if through_s3_api():
        raise Failed(Failure(ErrorCategory.USER, ErrorType.USER, "NOT_SUPPORTED: UNLOAD format 'AVRO' is written by "
                             "glueball's engine into its object store's folder, not through an S3 API"))
    files = write_avro(frame, to_spark_path(location), list(options.get("PartitionedBy") or []),
                       options.get("Options", {}).get("codec", "deflate"))
    import fastavro

    written = 0
    for name in files:
        with open(name, "rb") as handle:
            written += sum(block.num_records for block in fastavro.block_reader(handle))
    return written


def _remove_files(spark: Any, location: str) -> None:
    jvm = spark.sparkContext._jvm
    root = jvm.org.apache.hadoop.fs.Path(location)
    system = root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    for name, _ in _files_under(spark, location):
        system.delete(jvm.org.apache.hadoop.fs.Path(name), False)


def _catalog(spark: Any, plan: dict[str, Any], query: dict[str, Any], statistics: dict[str, Any],
             begun: float) -> dict[str, Any]:
    """A table Spark's Hive client cannot create (its SerDe is not on Spark's class path), made with Glue's
    CreateTable by the engine's Glue client, as the query's caller (:func:`glueball.athena.hive_ddl.hive_ddl`)."""
    from botocore.exceptions import ClientError

    from glueball.runtime.client import glue_client

    table = plan["Table"]
    database = table.get("Database") or query.get("Database") or "default"
    try:
        glue_client().create_table(DatabaseName=database, TableInput=table["TableInput"])
    except ClientError as err:
        code = err.response["Error"]["Code"]
        if code == "AlreadyExistsException" and table.get("IfNotExists"):
            pass
        elif code == "AlreadyExistsException":
            raise Failed(Failure(ErrorCategory.USER, ErrorType.DDL_FAILED, f"ALREADY_EXISTS: Table "
                                 f"{database}.{table['TableInput']['Name']} already exists")) from None
        elif code == "EntityNotFoundException":
            raise Failed(Failure(ErrorCategory.USER, ErrorType.USER, f"SCHEMA_NOT_FOUND: Schema {database} does not "
                                 "exist")) from None
        else:
            raise
    return _ddl(spark, {**plan, "Statements": []}, query, statistics, begun)


_RUNNERS = {"rows": _rows, "ddl": _ddl, "ctas": _write_table, "insert": _write_table, "unload": _unload,
            "catalog": _catalog, "maintenance": _maintenance, "dml": _row_level}


def _written_result(spark: Any, query: dict[str, Any], location: str, rows: int,
                    statistics: dict[str, Any], counted: bool = False) -> dict[str, Any]:
    """The outcome of a statement that writes files: their manifest; ``counted``, a CTAS's or INSERT's result,
    whose one column ``rows`` Athena describes (its count is the UpdateCount: the result holds no row)."""
    files = _files_under(spark, location)
    output = query["OutputLocation"].rstrip("/")
    manifest = f"{output}/{query['QueryExecutionId']}-manifest.csv"
    with _Written(manifest) as path:
        path.write_text("".join(f"{name}\n" for name, _ in files), encoding="utf-8")
    target = f"{output}/{query['QueryExecutionId']}.csv"
    with _Written(target) as path:
        path.write_bytes(b"")
    columns = [resultfile.column_info("rows", "bigint")] if counted else []
    _write_metadata(target, columns, 0)
    statistics["OutputRows"] = rows
    statistics["OutputBytes"] = sum(size for _, size in files)
    return {"ColumnInfo": columns, "Rows": 0, "Extension": "csv", "UpdateCount": rows, "Manifest": manifest}


def _padded(value: str | None, width: int) -> str | None:
    return value.ljust(width) if isinstance(value, str) else value


def _chomp(value: str | None) -> str | None:
    return value.rstrip("\n") if isinstance(value, str) else value


# -- bytes scanned


def _check_cutoff(spark: Any, frame: Any, tables: list[str], query: dict[str, Any],
                  statistics: dict[str, Any]) -> None:
    """``DataScannedInBytes``: the size of the files the query reads (its tables' files, after pruning by partition
    as Athena counts them, not by column); past the workgroup's cutoff the query fails before it runs."""
    frames = [frame] if frame is not None else []
    for table in tables:
        try:
            frames.append(spark.table(table))
        except Exception:  # noqa: BLE001 - a name that is no table (a CTE's) reads nothing counted here
            continue
    scanned = _scanned(spark, frames)
    statistics["DataScannedInBytes"] = scanned
    cutoff = query.get("BytesScannedCutoff")
    if cutoff is not None and scanned > int(cutoff):
        raise Failed(Failure(ErrorCategory.USER, ErrorType.QUERY_REJECTED,
                             f"Query cancelled! : Bytes scanned limit was exceeded (the query reads {scanned} bytes; "
                             f"the workgroup's BytesScannedCutoffPerQuery is {cutoff})"))


_FILE_RELATION = "org.apache.spark.sql.execution.datasources.HadoopFsRelation"
_CATALOG_FILE_INDEX = "org.apache.spark.sql.execution.datasources.CatalogFileIndex"
_HIVE_RELATION = "org.apache.spark.sql.catalyst.catalog.HiveTableRelation"


def _scanned(spark: Any, frames: list[Any]) -> int:
    """The bytes of the files ``frames`` read, each table's once, from the listing Spark made to plan them.

    A table read through a file index (Parquet, ORC, a data source table) counts its index's files: those of the
    partitions its filters leave, summed in the JVM from the listing planning made (one call, however many files).
    A Hive table Spark reads as such (text, CSV, JSON SerDes) counts the files under its location. Other sources
    (an in-line VALUES list, an Iceberg table) count nothing here."""
    jvm = spark.sparkContext._jvm
    counted: dict[str, int] = {}
    for frame in frames:
        leaves = frame._jdf.queryExecution().optimizedPlan().collectLeaves().iterator()
        while leaves.hasNext():
            leaf = leaves.next()
            kind = leaf.getClass().getName()
            if kind.endswith(".LogicalRelation"):
                _refuse_unread(leaf)
            if kind.endswith(".LogicalRelation") and leaf.relation().getClass().getName() == _FILE_RELATION:
                index = leaf.relation().location()
                if index.getClass().getName() == _CATALOG_FILE_INDEX:  # not pruned: its statistics are no size
                    nothing = jvm.java.lang.Class.forName("scala.collection.immutable.Nil$").getField(
                        "MODULE$").get(None)
                    index = index.filterPartitions(nothing)
                # a table read twice with the same partitions left counts once (a self-join's two sides)
                key = " ".join(str(path.toString()) for path in _items(index.rootPaths()))
                counted.setdefault(key, int(index.sizeInBytes()))
            elif kind == _HIVE_RELATION:
                location = leaf.tableMeta().storage().locationUri()
                if location.isDefined():
                    uri = str(location.get().toString())
                    if uri not in counted:
                        counted[uri] = _size(spark, uri)
    return sum(counted.values())


def _refuse_unread(relation: Any) -> None:
    """A catalog table whose SerDe no reader of Spark's reads (Glue's Grok SerDe, Ion, CloudTrail's) is refused by
    its SerDe's name before the query runs: Spark's reader of its format would misread its files."""
    table = relation.catalogTable()
    if not table.isDefined() or not table.get().properties().contains(shapes.UNREAD_SERDE):
        return
    serde = table.get().properties().apply(shapes.UNREAD_SERDE)
    name = str(table.get().identifier().unquotedString()).removeprefix("spark_catalog.")
    raise Failed(Failure(ErrorCategory.USER, ErrorType.USER, f"NOT_SUPPORTED: Table {name} is read with the SerDe "
                         f"{serde}, which glueball's engine (Spark) does not have"))


def _items(sequence: Any) -> list[Any]:
    found, each = [], sequence.iterator()
    while each.hasNext():
        found.append(each.next())
    return found


def _size(spark: Any, uri: str) -> int:
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    try:
        status = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).getFileStatus(path)
    except Exception:  # noqa: BLE001 - a file gone meanwhile reads nothing
        return 0
    if status.isDirectory():  # a Hive table's reader names its location, not its files: the files under it
        return sum(size for _, size in _files_under(spark, uri))
    return int(status.getLen())


def _files_under(spark: Any, location: str) -> list[tuple[str, int]]:
    """The data files under a location (hidden ``_``/``.`` names left out), with their sizes."""
    jvm = spark.sparkContext._jvm
    root = jvm.org.apache.hadoop.fs.Path(location)
    system = root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if not system.exists(root):
        return []
    found: list[tuple[str, int]] = []
    listing = system.listFiles(root, True)
    while listing.hasNext():
        status = listing.next()
        relative = str(status.getPath().toString())[len(str(root.toString())):]
        if any(part.startswith(("_", ".")) for part in relative.split("/") if part):
            continue
        found.append((f"{location.rstrip('/')}{relative if relative.startswith('/') else '/' + relative}",
                      int(status.getLen())))
    return sorted(found)


def _rows_written(frame: Any) -> int:
    """The rows a write command wrote (its ``numOutputRows`` metric; an Iceberg append's ``addedRecords``), 0 when
    Spark kept none."""
    try:
        plan = frame._jdf.queryExecution().executedPlan()
        command = plan.commandPhysicalPlan() if plan.getClass().getSimpleName() == "CommandResultExec" else plan
        # a V1 write's metrics are its command's (DataWritingCommandExec); a V2 write's (AppendDataExec) its own
        metrics = command.cmd().metrics() if command.getClass().getSimpleName() == "DataWritingCommandExec" else \
            command.metrics()
        for name in ("numOutputRows", "addedRecords"):
            found = metrics.get(name)
            if found.isDefined():
                return int(found.get().value())
        return 0
    except Exception:  # noqa: BLE001 - a command without the metric
        return 0


def _table_location(spark: Any, name: str) -> str:
    rows = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect()
    return next((str(r[1]) for r in rows if str(r[0]).strip() == "Location"), "")


# -- writing into the object store


class _Written:
    """A result object written whole or not at all: to a temporary file beside it, renamed into place; through the
    S3 API when the object store is another S3-compatible store (``GLUEBALL_S3_ENDPOINT``)."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.remote = bool(os.environ.get("GLUEBALL_S3_ENDPOINT"))
        if self.remote:
            import tempfile

            self.final = Path(tempfile.mkstemp(prefix="athena-")[1])
        else:
            self.final = local_path(uri, object_store_root())
        self.temporary = self.final.with_name(f".{self.final.name}.{os.getpid()}.tmp")

    def __enter__(self) -> Path:
        self.temporary.parent.mkdir(parents=True, exist_ok=True)
        return self.temporary

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if kind is not None:
            self.temporary.unlink(missing_ok=True)
            return
        if self.remote:
            from glueball.objects.locations import parse_s3
            from glueball.runtime.client import service_client

            location = parse_s3(self.uri)
            try:
                service_client("s3").upload_file(str(self.temporary), location.bucket, location.key)
            finally:
                self.temporary.unlink(missing_ok=True)
                self.final.unlink(missing_ok=True)
            return
        os.replace(self.temporary, self.final)


def _write_metadata(target: str, columns: list[dict[str, Any]], rows: int) -> None:
    with _Written(target + resultfile.METADATA_SUFFIX) as path:
        path.write_text(json.dumps({"ColumnInfo": columns, "Rows": rows}), encoding="utf-8")


def _written_size(uri: str) -> int:
    if os.environ.get("GLUEBALL_S3_ENDPOINT"):
        return 0
    try:
        return local_path(uri, object_store_root()).stat().st_size
    except OSError:
        return 0

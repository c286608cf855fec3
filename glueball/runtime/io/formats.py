"""Glue's data formats for files: reading listed files and writing a frame, with Glue's format options.

Supported formats and ``format_options`` (names as Glue takes them):

- ``csv``: ``separator`` (","), ``quoteChar`` ('"'; ``-1`` turns quoting off), ``escaper``
  (none), ``withHeader`` (false; columns are then ``col0``, ``col1``, ...), ``skipFirst``
  (skip the first line of each file), ``multiLine``, ``writeHeader`` (true, on output),
  ``optimizePerformance`` (accepted: Spark's reader is used either way), ``encoding``.
  Like Glue, values are typed per record: a column whose values are all integers is
  ``long``, with fractions ``double``, and one mixing numbers and text becomes a choice
  (``choice<long,string>``); malformed lines (wrong number of fields) become error records.
- ``json``: ``jsonPath``, ``multiline`` (a whole file is one or more records); parsed by
  ``glueball.runtime.inference`` (choice types, malformed records as error records).
- ``parquet`` / ``glueparquet``: ``compression`` (snappy, gzip, lzo, zstd, uncompressed/none),
  ``blockSize``, ``pageSize`` on output; ``useGlueParquetWriter`` accepted.
- ``orc``: ``compression`` on output.
- ``avro``: ``compression`` (deflate, snappy, null/none, bzip2, xz) on output; ``version`` accepted.
- ``xml``: ``rowTag`` (required to read), ``rootTag`` (output), ``encoding``, ``attributePrefix``,
  ``valueTag``, ``excludeAttribute``, ``ignoreSurroundingSpaces``, ``treatEmptyValuesAsNulls``.

``gzip``/``bzip2`` input is recognised by extension (``.gz``, ``.bz2``); ``compressionType``
of the connection options compresses csv/json/xml output.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from glueball.objects import locations
from glueball.runtime.errors import Errors, GlueRuntimeError, LazyErrors, error_schema
from glueball.runtime.gluetypes import CHOICE_METADATA
from glueball.runtime.hadoop import output_path
from glueball.runtime.io.csvtypes import type_csv_columns
from glueball.runtime.io.files import InputFile
from glueball.runtime.io.jsonfields import JsonFields
from glueball.runtime.pending import PendingTyping

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import StructField

log = logging.getLogger("glueball.runtime.io")

FILE_FORMATS = ("csv", "json", "parquet", "glueparquet", "orc", "avro", "xml")
CORRUPT = "_glueball_corrupt_record"
_COMPRESSIONS = {"gzip": "gzip", "gz": "gzip", "bzip2": "bzip2", "bz2": "bzip2", "none": "none",
                 "uncompressed": "none", "deflate": "deflate", "snappy": "snappy", "lz4": "lz4",
                 "zstd": "zstd", "lzo": "lzo"}


def as_bool(value: Any, default: bool = False) -> bool:
    """A Glue boolean option: ``True``, ``"true"``, ``"True"``..."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "1", "yes")


def normalize_format(fmt: str | None) -> str:
    """The lower-case format name; raises GlueRuntimeError for one Glue has no file reader for here."""
    if not fmt:
        raise GlueRuntimeError(f"a format is required for files, one of {', '.join(FILE_FORMATS)}")
    name = fmt.strip().lower()
    if name not in FILE_FORMATS:
        raise GlueRuntimeError(f"unsupported format {fmt!r}; supported: {', '.join(FILE_FORMATS)}")
    return name


def _get(options: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if name in options and options[name] is not None:
            return options[name]
    return default


def error_records(df: DataFrame, message: str, stage: str, input_col: Column, source_col: Column) -> DataFrame:
    """Error records in ``error_schema()`` shape."""
    from pyspark.sql import functions as F

    return df.select(F.lit(message).alias("error_message"), F.lit(stage).alias("error_stage"),
                     input_col.cast("string").alias("error_input"), source_col.cast("string").alias("error_source"))


# -- reading ----------------------------------------------------------------------------------------


class FileRead:
    """What ``read_files`` returns: the records and the error records (None: none possible).

    ``pending``: the typing left to the caller (``read_files(..., lazy_typing=True)`` of csv and
    json); ``df`` then holds the raw records (see ``glueball.runtime.pending``).
    """

    def __init__(self, df: DataFrame, errors: Errors | None, pending: PendingTyping | None = None) -> None:
        self.df = df
        self.errors = errors
        self.pending = pending.with_raw(df) if pending is not None else None

    def with_df(self, df: DataFrame) -> FileRead:
        """The same read with its (raw) records replaced by ``df`` (coalesced, with columns added)."""
        return FileRead(df, self.errors, self.pending)

    def typed(self) -> DataFrame:
        """The typed records (runs the pending typing, if any)."""
        return self.pending.resolve() if self.pending is not None else self.df


def type_pending(raw: DataFrame, pending: tuple[str, ...]) -> DataFrame:
    """Type the ``pending`` text columns of a csv read as Glue does (one aggregation pass)."""
    return type_csv_columns(raw, keep=tuple(c for c in raw.columns if c not in pending))


def read_files(spark: SparkSession, glue_ctx: Any, files: list[InputFile], fmt: str,
               format_options: Mapping[str, Any], *, stage: str = "", column_names: list[str] | None = None,
               header_lines: int | None = None, partition_fields: list[StructField] | None = None,
               partition_of: Mapping[str, tuple[Any, ...]] | None = None, lazy_typing: bool = False) -> FileRead:
    """Read ``files`` in format ``fmt`` with Glue's ``format_options``.

    Args:
        spark: the Spark session.
        glue_ctx: the GlueContext (JSON parsing goes through its inference).
        files: the listed input files.
        fmt: a normalized format name.
        format_options: Glue's format options.
        stage: the transformation context, named in error records.
        column_names: csv column names from a catalog table (the header is then skipped, not used).
        header_lines: csv header lines to skip (catalog ``skip.header.line.count``).
        partition_fields: typed partition columns to add (catalog reads).
        partition_of: per file ``spark_path``, the partition values for ``partition_fields``.
        lazy_typing: leave csv columns as text and json records as variants, their typing in
            ``FileRead.pending``, for the caller to run when needed.
    """
    partition_fields = partition_fields or []
    partition_of = partition_of or {}
    if fmt == "avro":
        from glueball.runtime.io.avro import read_avro

        local = [f.spark_path for f in files]
        return FileRead(read_avro(spark, local, partition_fields,
                                  {f.spark_path: partition_of.get(f.spark_path, ()) for f in files}), None)
    spark_paths = [f.spark_path for f in files]
    if fmt == "json":
        read = _read_json(spark, files, format_options, partition_fields, partition_of)
        return read if lazy_typing else FileRead(read.typed(), read.errors)
    if fmt == "csv":
        read = _read_csv(spark, spark_paths, format_options, stage, column_names, header_lines)
    elif fmt in ("parquet", "glueparquet"):
        read = FileRead(spark.read.parquet(*spark_paths), None)
    elif fmt == "orc":
        read = FileRead(spark.read.orc(spark_paths), None)
    else:
        read = _read_xml(spark, spark_paths, format_options, stage)
    if partition_fields:
        read = read.with_df(attach_partitions(spark, read.df, files, partition_fields, partition_of))
    if read.pending is not None and not lazy_typing:
        return FileRead(read.typed(), read.errors)
    return read


def _file_dir_uri(spark: SparkSession, spark_path: str, cache: dict[str, str]) -> str:
    """The qualified URI of a file's folder, as Spark writes it in ``_metadata.file_path``."""
    parent = spark_path.rsplit("/", 1)[0]
    if parent not in cache:
        session: Any = spark
        hpath = session._jvm.org.apache.hadoop.fs.Path(parent)
        fs = hpath.getFileSystem(session._jsc.hadoopConfiguration())
        qualified = str(fs.makeQualified(hpath).toUri().toString()).rstrip("/")
        cache[parent] = re.sub(r"^file:/+", "/", qualified)
    return cache[parent]


def attach_partitions(spark: SparkSession, df: DataFrame, files: list[InputFile],
                      partition_fields: list[StructField], partition_of: Mapping[str, tuple[Any, ...]]) -> DataFrame:
    """Add typed partition columns to the rows of ``df`` by the folder of the file each came from.

    One read of every selected file, then a broadcast join on the file's folder: the plan
    stays one scan however many partitions were selected.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    cache: dict[str, str] = {}
    by_dir: dict[str, tuple[Any, ...]] = {}
    for item in files:
        values = partition_of.get(item.spark_path)
        if values is not None:
            by_dir[_file_dir_uri(spark, item.spark_path, cache)] = values
    key = "_glueball_file_dir"
    mapping_schema = StructType([StructField(key, StringType(), False), *partition_fields])
    mapping = spark.createDataFrame([(d, *v) for d, v in by_dir.items()], mapping_schema)
    folder = F.regexp_extract(F.col("_metadata.file_path"), r"^(.*)/[^/]*$", 1)
    tagged = df.withColumn(key, F.regexp_replace(folder, r"^file:/+", "/"))
    return tagged.join(F.broadcast(mapping), key, "inner").drop(key)


def _csv_reader_options(options: Mapping[str, Any]) -> dict[str, str]:
    out = {"sep": str(_get(options, "separator", "delimiter", default=",")), "mode": "PERMISSIVE",
           "columnNameOfCorruptRecord": CORRUPT}
    quote = _get(options, "quoteChar", default='"')
    out["quote"] = "\u0000" if str(quote) == "-1" else str(quote)
    escaper = _get(options, "escaper")
    if escaper:
        out["escape"] = str(escaper)
    if as_bool(_get(options, "multiLine", "multiline")):
        out["multiLine"] = "true"
    encoding = _get(options, "encoding")
    if encoding:
        out["encoding"] = str(encoding)
    return out


def _read_csv(spark: SparkSession, spark_paths: list[str], options: Mapping[str, Any], stage: str,
              column_names: list[str] | None, header_lines: int | None) -> FileRead:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    with_header = as_bool(_get(options, "withHeader"))
    skip_first = as_bool(_get(options, "skipFirst"))
    if header_lines is not None and header_lines > 1:
        raise GlueRuntimeError(f"skip.header.line.count {header_lines} is not supported (0 or 1)")
    if with_header and skip_first:
        raise GlueRuntimeError("csv options withHeader and skipFirst together are not supported")
    reader_options = _csv_reader_options(options)
    # malformed lines are found only when every field is parsed, not just the ones a query reads
    spark.conf.set("spark.sql.csv.parser.columnPruning.enabled", "false")
    # the records: Spark drops malformed lines itself (every field is parsed), which costs less than carrying a
    # corrupt-record column and filtering on it
    records_reader = spark.read.options(**{k: v for k, v in reader_options.items()
                                           if k != "columnNameOfCorruptRecord"}).option("mode", "DROPMALFORMED")
    records: DataFrame | None = None
    if column_names is None:
        if skip_first:
            probe = spark.read.options(**{k: v for k, v in reader_options.items() if k != "mode"})
            lines = [r["value"] for r in spark.read.text(spark_paths[:1]).limit(2).collect()]
            sample = spark.sparkContext.parallelize(lines[1:2] or lines[:1], 1)
            # an RDD of lines is read as CSV text (PySpark 4.1 types csv() paths only, but takes an RDD)
            probed = probe.option("header", "false").csv(sample).columns  # type: ignore[arg-type]
        elif with_header:
            # Spark reads the header for the column names: that read's frame is the records' (all text columns)
            records = records_reader.option("header", "true").csv(spark_paths)
            probed = records.columns
        else:
            probed = records_reader.option("header", "false").csv(spark_paths).columns
        names = probed if with_header else [f"col{i}" for i in range(len(probed))]
        skip_line = with_header or skip_first
    else:
        names = list(column_names)
        skip_line = bool(header_lines) or skip_first
    fields = [StructField(n, StringType(), True) for n in names]
    header = str(skip_line).lower()
    if records is None:
        records = records_reader.option("header", header).schema(StructType(fields)).csv(spark_paths)
    if not names:
        return FileRead(records, None)

    def malformed() -> DataFrame:
        raw = spark.read.options(**reader_options).option("header", header) \
            .schema(StructType([*fields, StructField(CORRUPT, StringType(), True)])).csv(spark_paths)
        # the filter also reads a data column: Spark refuses scans of the corrupt-record column alone
        bad = raw.where(F.col(CORRUPT).isNotNull() & _reads(names[0]))
        return error_records(bad, "Malformed CSV record: the number of fields differs from the header",
                             stage or "read", F.coalesce(F.col(CORRUPT), F.col(names[0])), F.input_file_name())

    # the malformed lines are read again only when the error records are asked for
    return FileRead(records, LazyErrors(malformed), PendingTyping(records, tuple(names), type_pending))


def _reads(name: str) -> Column:
    """An always-true condition that makes a scan read column ``name``."""
    from pyspark.sql import functions as F

    return F.length(F.coalesce(F.col(f"`{name}`").cast("string"), F.lit(""))) >= 0


def _read_json(spark: SparkSession, files: list[InputFile], options: Mapping[str, Any],
               partition_fields: list[StructField], partition_of: Mapping[str, tuple[Any, ...]]) -> FileRead:
    """Records of JSON files, typing pending: each a variant, the inference left to ``FileRead.typed``."""
    from pyspark.sql import functions as F

    from glueball.runtime.jsonrecords import RECORD, json_records

    multiline = as_bool(_get(options, "multiline", "multiLine"))
    json_path = _get(options, "jsonPath")

    def texts_of(group: list[InputFile], values: tuple[Any, ...]) -> DataFrame:
        paths = [f.spark_path for f in group]
        texts = spark.read.text(paths, wholetext=True) if multiline else spark.read.text(paths)
        if not multiline:
            texts = texts.where(F.trim(F.col("value")) != "")
        partition_values = [F.lit(v).cast(f.dataType).alias(f.name)
                            for v, f in zip(values, partition_fields, strict=True)]
        return texts.select(F.col("value"), F.input_file_name().alias("source"), *partition_values)

    # partition values ride along with each partition's texts; the inference runs once over all of
    # them, so partitions that disagree on a field's type make a choice, as one Glue read would
    groups: dict[tuple[Any, ...], list[InputFile]] = {}
    for item in files:
        groups.setdefault(partition_of[item.spark_path] if partition_fields else (), []).append(item)
    parts = [texts_of(group, values) for values, group in groups.items()]
    texts = parts[0]
    for part in parts[1:]:
        texts = texts.unionByName(part)
    parsed = json_records(texts, json_path)
    fields = None if json_path or multiline else JsonFields(
        spark, [([f.spark_path for f in group], values) for values, group in groups.items()], partition_fields)
    return FileRead(parsed.rows, parsed.lazy_errors,
                    PendingTyping(parsed.rows, (), lambda raw, _columns: parsed.typed(raw), record=RECORD,
                                  fields=fields))


def _read_xml(spark: SparkSession, spark_paths: list[str], options: Mapping[str, Any], stage: str) -> FileRead:
    from pyspark.sql import functions as F

    row_tag = _get(options, "rowTag")
    if not row_tag:
        raise GlueRuntimeError("format xml needs the format option rowTag")
    reader = spark.read.format("xml").option("rowTag", str(row_tag)).option("mode", "PERMISSIVE") \
        .option("columnNameOfCorruptRecord", CORRUPT)
    for glue_name, spark_name in (("encoding", "encoding"), ("attributePrefix", "attributePrefix"),
                                  ("valueTag", "valueTag"), ("excludeAttribute", "excludeAttribute"),
                                  ("ignoreSurroundingSpaces", "ignoreSurroundingSpaces"),
                                  ("samplingRatio", "samplingRatio")):
        value = _get(options, glue_name)
        if value is not None:
            reader = reader.option(spark_name, str(value).lower() if isinstance(value, bool) else str(value))
    if as_bool(_get(options, "treatEmptyValuesAsNulls")):
        reader = reader.option("nullValue", "")
    df = reader.load(spark_paths)
    if CORRUPT not in df.columns:
        return FileRead(df, None)
    data_cols = [c for c in df.columns if c != CORRUPT]
    if not data_cols:
        return FileRead(df.where(F.lit(False)).drop(CORRUPT), None)
    records = df.where(F.col(CORRUPT).isNull() & _reads(data_cols[0])).drop(CORRUPT)
    first = F.col(f"`{data_cols[0]}`").cast("string")
    errors = error_records(df.where(F.col(CORRUPT).isNotNull() & _reads(data_cols[0])), "Malformed XML record",
                           stage or "read",
                           F.coalesce(F.col(CORRUPT), first), F.input_file_name())
    return FileRead(records, errors)


def empty_frame(spark: SparkSession, fields: list[StructField]) -> DataFrame:
    from pyspark.sql.types import StructType

    return spark.createDataFrame([], StructType(list(fields)))


def no_errors(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([], error_schema())


# -- writing ----------------------------------------------------------------------------------------


def compression_name(value: Any) -> str | None:
    """Glue's compression names (``gzip``, ``bzip2``, ``snappy``, ``none``...) as Spark's codec names."""
    if value is None or value == "":
        return None
    name = _COMPRESSIONS.get(str(value).strip().lower())
    if name is None:
        raise GlueRuntimeError(f"unsupported compression {value!r}; supported: {', '.join(sorted(_COMPRESSIONS))}")
    return name


def _flatten_choices(df: DataFrame) -> DataFrame:
    """Top-level choice columns as text: a csv cell holds the value of whichever member is set."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    columns = []
    for field in df.schema.fields:
        if field.metadata.get(CHOICE_METADATA) and isinstance(field.dataType, StructType):
            members = [F.col(f"`{field.name}`.`{m.name}`").cast("string") for m in field.dataType.fields]
            columns.append(F.coalesce(*members).alias(field.name))
        else:
            columns.append(F.col(f"`{field.name}`"))
    return df.select(*columns)


def write_files(spark: SparkSession, df: DataFrame, uri: str, fmt: str, format_options: Mapping[str, Any],
                partition_keys: list[str], compression_type: Any = None) -> None:
    """Append ``df`` under ``uri`` in format ``fmt`` (Hive-style folders for ``partition_keys``).

    Glue appends to what is there; so does this.
    """
    missing = [k for k in partition_keys if k not in df.columns]
    if missing:
        raise GlueRuntimeError(f"partitionKeys {missing} are not fields of the frame ({df.columns})")
    target = output_path(spark, uri)
    if fmt == "avro":
        from glueball.runtime.io.avro import write_avro

        if locations.is_s3(uri) and os.environ.get("GLUEBALL_S3_ENDPOINT"):
            raise GlueRuntimeError("avro output to an S3 endpoint is not supported (fastavro writes local files)")
        target = locations.to_spark_path(uri)  # fastavro writes the files itself: no checksum files
        codec = compression_name(_get(format_options, "compression", default="deflate"))
        write_avro(df, target, partition_keys, "null" if codec == "none" else str(codec))
        return
    if fmt == "csv":
        df = _flatten_choices(df)
    # Glue's sinks leave their data objects only: no _SUCCESS marker (Hadoop's committer writes one by default)
    writer = df.write.mode("append").option("mapreduce.fileoutputcommitter.marksuccessfuljobs", "false")
    if partition_keys:
        writer = writer.partitionBy(*partition_keys)
    text_codec = compression_name(compression_type)
    if fmt == "csv":
        quote = _get(format_options, "quoteChar", default='"')
        writer = writer.option("sep", str(_get(format_options, "separator", "delimiter", default=","))) \
            .option("header", str(as_bool(_get(format_options, "writeHeader"), True)).lower()) \
            .option("quote", "\u0000" if str(quote) == "-1" else str(quote))
        escaper = _get(format_options, "escaper")
        if escaper:
            writer = writer.option("escape", str(escaper))
        if text_codec:
            writer = writer.option("compression", text_codec)
        writer.csv(target)
    elif fmt == "json":
        if text_codec:
            writer = writer.option("compression", text_codec)
        writer.json(target)
    elif fmt in ("parquet", "glueparquet"):
        codec = compression_name(_get(format_options, "compression", default="snappy"))
        writer = writer.option("compression", "uncompressed" if codec == "none" else str(codec))
        for glue_name, hadoop_name in (("blockSize", "parquet.block.size"), ("pageSize", "parquet.page.size")):
            value = _get(format_options, glue_name)
            if value is not None:
                writer = writer.option(hadoop_name, str(value))
        writer.parquet(target)
    elif fmt == "orc":
        codec = compression_name(_get(format_options, "compression"))
        if codec:
            writer = writer.option("compression", codec)
        writer.orc(target)
    else:
        row_tag = _get(format_options, "rowTag", default="row")
        writer = writer.format("xml").option("rowTag", str(row_tag))
        root_tag = _get(format_options, "rootTag")
        if root_tag:
            writer = writer.option("rootTag", str(root_tag))
        if text_codec:
            writer = writer.option("compression", text_codec)
        writer.save(target)

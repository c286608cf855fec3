"""Top-level fields of JSON-lines records read by Spark's JSON reader, typed by the reader itself.

A mapping of JSON fields to stated types (``ApplyMapping``) does not need each record whole:
Spark's JSON data source reads just the named keys, and reads them as the types asked for
(``long``, ``double``, ``boolean``, ``timestamp``) straight from the parser, which costs a third
of parsing each line into a VARIANT and taking the fields out of it. The reader is held to
``try_parse_json``'s strictness (``STRICT``): what it refuses (malformed lines, arrays holding
non-objects, a value of another kind than the type asked, such as ``"12"`` read as a long)
comes back whole in the ``MALFORMED`` column, and the caller parses that line as the records
path does.

The reader matches keys exactly, so which keys the records hold is found first (``keys``):
Spark's own inference of the files' schema, one pass over the data (the one ``spark.read.json``
makes before reading), run once per read and only when a mapping needs it. A case-insensitive
mapping then reads every key equal to its source ignoring case. The same step looks for lines
holding an array (a scan of the text that stops at the first): the reader gives a refused array
one row per record it could read, a number that cannot be told from the line, so files with
array lines are mapped through the records path instead (``keys`` returns None), and so are
files with a duplicate key in a record or keys that differ only in case, which Spark's
inference refuses (``try_parse_json`` refuses a duplicate key; the reader would take its last
value; a mapping of the eagerly typed frame fails on such keys).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField

MALFORMED = "__glueball_malformed"
STRICT = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": MALFORMED, "allowNonNumericNumbers": "false",
          "allowSingleQuotes": "false"}


def reader_type(target: DataType) -> DataType:
    """The type the JSON reader reads a field as, for a mapping to ``target``.

    The reader succeeds exactly where converting the value of its own kind gives what the reader gives:
    integers as ``long`` (integral targets), numbers as ``double`` (``double``, ``float``, ``decimal``:
    the eager conversion goes through the double too), ``true``/``false`` as ``boolean``, text and
    epoch seconds as ``timestamp`` (Spark's cast parses the text). Any other target reads the value
    as a VARIANT, which keeps its kind for the conversion.
    """
    from pyspark.sql import types as st

    if isinstance(target, st.ByteType | st.ShortType | st.IntegerType | st.LongType):
        return st.LongType()
    if isinstance(target, st.DoubleType | st.FloatType | st.DecimalType):
        return st.DoubleType()
    if isinstance(target, st.BooleanType | st.TimestampType):
        return target
    return st.VariantType()


class JsonFields:
    """Reads top-level fields of the records of JSON-lines files (no ``jsonPath``, not ``multiline``).

    Args:
        spark: the session.
        groups: the files, grouped by their partition values (one group of all files when unpartitioned).
        partition_fields: the partition columns, added to every record as ``lit`` values of their types.
    """

    def __init__(self, spark: SparkSession, groups: Sequence[tuple[list[str], tuple[Any, ...]]],
                 partition_fields: list[StructField]) -> None:
        self._spark = spark
        self._groups = list(groups)
        self._partition_fields = partition_fields
        self._keys: list[str] | None = None
        self._found = False

    @property
    def carried(self) -> list[str]:
        return [f.name for f in self._partition_fields]

    def keys(self) -> list[str] | None:
        """The top-level keys of the records, in any record; None when a line holds an array, a record a duplicate
        key, or two keys differ only in case (Spark's inference refuses the last two).

        Found the first time (a scan for array lines, then one inference pass), then kept.
        """
        from pyspark.errors import AnalysisException
        from pyspark.sql import functions as F

        if not self._found:
            spark = self._spark
            paths = [path for group, _ in self._groups for path in group]
            text = F.col("value")
            # a line starting "[", or with white space and then "[" (the regular expression only for those)
            array_line = text.startswith("[") | ((text < F.lit("!")) & text.rlike(r"^\s*\["))
            arrays = spark.read.text(paths).where(array_line).limit(1).count()
            if not arrays:
                try:
                    names = spark.read.option("columnNameOfCorruptRecord", MALFORMED).json(paths).schema.fieldNames()
                except AnalysisException:
                    names = None  # a record with a duplicate key, or keys differing only in case: the records path
                self._keys = None if names is None else [n for n in names if n != MALFORMED]
            self._found = True
        return self._keys

    def read(self, types: Mapping[str, DataType]) -> DataFrame:
        """One row per record: key ``k`` of ``types`` read as its type in column ``column(i)`` (``i`` its place in
        ``types``), ``MALFORMED``, the partition columns.

        ``MALFORMED`` holds the line where the reader refused it (an object: the keys are then null). Only
        for files whose ``keys`` are known (no array lines), and keys that differ other than in case (Spark
        plans the scan by names ignoring case).
        """
        from pyspark.sql import functions as F
        from pyspark.sql import types as st

        spark = self._spark
        schema = st.StructType([*[st.StructField(k, t) for k, t in types.items()],
                                st.StructField(MALFORMED, st.StringType())])
        parts = []
        for paths, values in self._groups:
            frame = spark.read.schema(schema).options(**STRICT).json(paths)
            partition_values = [F.lit(v).cast(f.dataType).alias(f.name)
                                for v, f in zip(values, self._partition_fields, strict=True)]
            parts.append(frame.select(*[F.col(f"`{k.replace('`', '``')}`").alias(column(i))
                                        for i, k in enumerate(types)], F.col(MALFORMED), *partition_values))
        rows = parts[0]
        for part in parts[1:]:
            rows = rows.unionByName(part)
        return rows


def column(index: int) -> str:
    """The name ``JsonFields.read`` gives the key in place ``index``."""
    return f"__glueball_key{index}"

"""Top-level fields of JSON-lines records read by Spark's JSON reader, each as the one type its values have.

A mapping of JSON fields to stated types (``ApplyMapping``) does not need each record whole:
Spark's JSON data source reads just the named keys, straight from the parser, which costs a third
of parsing each line into a VARIANT and taking the fields out of it. The reader is held to
``try_parse_json``'s strictness (``STRICT``); what it refuses comes back whole in the ``MALFORMED``
column, and the caller parses that line as the records path does.

The reader matches keys exactly and converts each value to the type asked for, refusing the record
when it cannot. So the keys the records hold, and the kinds of their values, are found first
(``kinds``): one scan of the lines by the JVM scanner of ``glueball.runtime.io.rawkinds``, once per
read and only when a mapping needs it. Each key is then read as the type all its values have
(``reader_type``): the eager typing's type of the field, so converting it gives the eager result, and
the reader never refuses a well-formed record (only malformed lines and lines that are no object).
A key whose values differ in kind is read as a VARIANT and converted per value. Files with a line
holding an array (the reader makes one row of each of its records, and a refused array one row per
record it could read) or a record repeating a key (``try_parse_json`` refuses it, the reader takes the
last value) are mapped through the records path instead (``kinds`` returns None), as they are when
the session has no scanner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from glueball.runtime.io import rawkinds
from glueball.runtime.io.csvtypes import column_ref

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField

MALFORMED = "__glueball_malformed"
STRICT = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": MALFORMED, "allowNonNumericNumbers": "false",
          "allowSingleQuotes": "false"}


def reader_type(kinds: int, target: DataType) -> DataType:
    """The type the JSON reader reads a key as, given the kinds of its values (``rawkinds`` bits) and the target.

    The one type all the key's values have: ``long``, ``double``, ``string`` or ``boolean`` (JSON nulls aside;
    a key only ever null reads as ``string``), which is the eager typing's type of the field; and ``double`` for
    longs mixed with fractions mapped to ``double`` (the eager conversion of each member gives the value's
    double). Anything else (mixed kinds, objects, arrays, wide numbers) reads as a VARIANT, converted per value
    by its kind.
    """
    from pyspark.sql import types as st

    values = kinds & ~rawkinds.NULL
    single: dict[int, DataType] = {0: st.StringType(), rawkinds.LONG: st.LongType(),
                                   rawkinds.DOUBLE: st.DoubleType(), rawkinds.STRING: st.StringType(),
                                   rawkinds.BOOLEAN: st.BooleanType()}
    if values in single:
        return single[values]
    if values == rawkinds.LONG | rawkinds.DOUBLE and isinstance(target, st.DoubleType):
        return st.DoubleType()
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
        self._kinds: dict[str, int] | None = None
        self._found = False
        self._shapes: rawkinds.JsonShapes | None = None
        self._shaped = False

    @property
    def carried(self) -> list[str]:
        return [f.name for f in self._partition_fields]

    def kinds(self) -> dict[str, int] | None:
        """The top-level keys of the records, in any record, and the kinds of their values (``rawkinds`` bits).

        Found the first time by one scan of the lines, then kept. None when the mapping must read the parsed
        records instead: the session has no scanner, a line holds an array, or a record repeats a key.
        """
        if not self._found:
            paths = [path for group, _ in self._groups for path in group]
            found = rawkinds.json_kinds(self._spark.read.text(paths))
            usable = found is not None and not found.has(rawkinds.ARRAY_LINE | rawkinds.DUPLICATE_KEY)
            self._kinds = found.keys if found is not None and usable else None
            self._found = True
        return self._kinds

    def shapes(self) -> rawkinds.JsonShapes | None:
        """The shape of the records (``rawkinds.json_shapes``): one scan the first time, then kept; None without a
        scanner."""
        if not self._shaped:
            paths = [path for group, _ in self._groups for path in group]
            self._shapes = rawkinds.json_shapes(self._spark.read.text(paths))
            self._shaped = True
        return self._shapes

    def read(self, types: Mapping[str, DataType]) -> DataFrame:
        """One row per record: key ``k`` of ``types`` read as its type in column ``column(i)`` (``i`` its place in
        ``types``), ``MALFORMED``, the partition columns.

        ``MALFORMED`` holds the line where the reader refused it. Only for files whose ``kinds`` are known (no
        array lines), and keys that differ other than in case (Spark plans the scan by names ignoring case).
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
            parts.append(frame.select(*[column_ref(k).alias(column(i))
                                        for i, k in enumerate(types)], F.col(MALFORMED), *partition_values))
        rows = parts[0]
        for part in parts[1:]:
            rows = rows.unionByName(part)
        return rows


def column(index: int) -> str:
    """The name ``JsonFields.read`` gives the key in place ``index``."""
    return f"__glueball_key{index}"


def records_of(rows: DataFrame, record: Column) -> DataFrame:
    """The rows of ``JsonFields.read`` that are records: those the reader read, and refused lines whose parse
    (``record``, a variant) is an object.

    The condition also reads the first key (always true, and left alone by Spark's optimizer): a query that needs
    none of the fields still scans one, as Spark refuses a scan of the malformed-line column alone.
    """
    from pyspark.sql import functions as F

    from glueball.runtime.inference import is_object

    first = F.col(column(0))
    return rows.where((F.col(MALFORMED).isNull() | is_object(record)) & (first.isNull() | first.isNotNull()))

"""The kinds of raw CSV values and JSON-lines values, told in one pass by a small Java scanner.

Typing raw text as Glue does needs the kinds each column (CSV) or top-level key (JSON lines) holds:
a long, a double or text for a CSV value; a long, double, string, boolean, object, array or null
for a JSON value. Spark SQL can only tell a CSV value's kind with expressions evaluated per value
(a character-class test and a cast: about three times the cost of reading the data), and finding a
JSON file's keys takes Spark's own schema inference, which builds a data type for every value.
``dev.glueball.spark.RawKinds`` (``RawKinds.java`` beside this module) reads each value's UTF-8
bytes (CSV) or each line's top-level tokens with the Jackson parser Spark itself parses JSON with
(JSON lines), and ORs the kinds per column or key, once per partition: the CSV pass costs about a
third of the SQL aggregation it replaces (most of it reading the data), the JSON pass about two thirds
of Spark's inference. No library does
this (Spark's inference widens conflicting kinds to a type, which loses exactly what Glue's typing
needs: whether a string column also held numbers), so it is written here.

The class is compiled on first use like glueball's other Java (``glueball.runtime.javabuild``),
against the jars pyspark ships, and goes on every Spark session glueball makes
(``glueball.runtime.spark.driver_jars``). Without it (no JDK, or a session made without the jar) the
callers fall back: CSV kinds to the Spark SQL aggregation, JSON mappings to the parsed records.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from glueball.runtime import javabuild

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger("glueball.runtime.io")

CLASS = "dev.glueball.spark.RawKinds"
JAVAC_MISSING = "javac not found: raw CSV and JSON typing runs without its JVM scanner (install a JDK)"

# CSV kinds (bits)
CSV_LONG, CSV_DOUBLE, CSV_STRING = 1, 2, 4
# JSON kinds of a key's values (bits); WIDE: an integer beyond the long range, a fraction long enough to be read as a
# wide decimal, or a negative zero in decimal form (-0.0, which the variant parser reads as 0): numbers whose eager kind
# the scan does not settle
LONG, DOUBLE, STRING, BOOLEAN, WIDE, OBJECT, ARRAY, NULL = 1, 2, 4, 8, 16, 32, 64, 128
# JSON line flags; UNSETTLED_NUMBER (of json_shapes): a number whose eager kind depends on the variant parser's decimals
ARRAY_LINE, SCALAR_LINE, MALFORMED_LINE, DUPLICATE_KEY, UNSETTLED_NUMBER = 1, 2, 4, 8, 16
# a kind bit of json_shapes: a fraction whose double differs from its decimal's (-0.0)
BY_DECIMAL = 256


class RawKindsJarError(RuntimeError):
    """The scanner's jar cannot be built (no JDK, no pyspark jars, javac failed)."""


def sources() -> list[Path]:
    """The scanner's Java sources."""
    return sorted(Path(__file__).parent.glob("*.java"))


def compile_classpath() -> list[Path]:
    """The jars javac compiles the scanner against: Spark's, as pyspark ships them.

    Raises:
        RawKindsJarError: pyspark ships no Spark SQL jar.
    """
    _, folder = javabuild.pyspark_jars()
    jars = sorted(folder.glob("*.jar"))
    if not any(j.name.startswith("spark-sql_") for j in jars):
        raise RawKindsJarError(f"no spark-sql jar in {folder}: pyspark's jars are needed to build the scanner")
    return jars


_JAR = javabuild.JavaJar("glueball's raw-kinds scanner", sources, compile_classpath, RawKindsJarError,
                         JAVAC_MISSING)
_loaded: dict[int, Any] = {}  # id of a JVM gateway -> the scanner class there, or None


def jar() -> Path | None:
    """The scanner's jar, built on first use in this process; None when it cannot be built."""
    return _JAR.jar()


def unavailable_reason() -> str | None:
    """Why this process has no scanner jar (after :func:`jar` said None), or None."""
    return _JAR.unavailable_reason()


def scanner(df: DataFrame) -> Any:
    """The scanner class in the JVM of ``df``'s session, or None when that JVM cannot load it."""
    from py4j.java_gateway import JavaClass

    session: Any = df.sparkSession
    gateway = session.sparkContext._gateway
    key = id(gateway)
    if key not in _loaded:
        found = session._jvm
        for part in CLASS.split("."):
            found = getattr(found, part)
        _loaded[key] = found if isinstance(found, JavaClass) else None
        if _loaded[key] is None:
            log.info("raw CSV/JSON kinds without the JVM scanner (%s is not on this session's class path%s)",
                     CLASS, f": {unavailable_reason()}" if unavailable_reason() else "")
    return _loaded[key]


def csv_kinds(df: DataFrame) -> list[int] | None:
    """The CSV kinds of each column of ``df`` (all string columns), in column order, in one pass.

    None when the scanner is not available in ``df``'s JVM (the caller then aggregates in Spark SQL).
    """
    found = scanner(df)
    if found is None:
        return None
    text = str(found.csv(df._jdf))
    return [int(bits) for bits in text.split(",")] if text else []


@dataclass(frozen=True)
class JsonKinds:
    """What the scan of JSON lines found.

    Attributes:
        keys: every top-level key of the records (in the order first seen) and the kinds of its values (bits).
        flags: which lines were seen: a top-level array, a scalar, a malformed line, a record repeating a key.
    """

    keys: dict[str, int]
    flags: int

    def has(self, flag: int) -> bool:
        return bool(self.flags & flag)


def json_kinds(lines: DataFrame) -> JsonKinds | None:
    """The keys and kinds of the JSON lines in the first column of ``lines`` (a string column), in one pass.

    None when the scanner is not available in the JVM of ``lines``.
    """
    found = scanner(lines)
    if found is None:
        return None
    decoded = json.loads(str(found.json(lines._jdf)))
    return JsonKinds({str(k): int(v) for k, v in decoded["keys"].items()}, int(decoded["flags"]))


@dataclass(frozen=True)
class JsonShapes:
    """The shape of JSON-lines records: the kinds at every place a value can be (``RawKinds.jsonShapes``).

    Attributes:
        root: the records' shape: ``{"k": kinds, "f": {name: shape}, "e": shape}`` (``f``: the fields of its
            object values, ``e``: the elements of its array values; each there once such a value was seen).
        flags: which lines were seen (see ``JsonKinds``), and ``UNSETTLED_NUMBER``.
    """

    root: dict[str, Any]
    flags: int

    def has(self, flag: int) -> bool:
        return bool(self.flags & flag)


def json_shapes(lines: DataFrame) -> JsonShapes | None:
    """The shape of the records of the JSON lines in the first column of ``lines``, in one pass; only well-formed
    object lines count. None when the scanner is not available in the JVM of ``lines``.
    """
    found = scanner(lines)
    if found is None:
        return None
    decoded = json.loads(str(found.jsonShapes(lines._jdf)))
    return JsonShapes(decoded["root"], int(decoded["flags"]))

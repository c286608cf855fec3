"""A Spark (or Glue) error as the FAILED query's ``AthenaError``: the user's mistakes (a table or column not found, a
function Spark does not have, a division by zero, a Glue refusal) with ``ErrorCategory`` 2 and Athena's (Trino's)
names for them, in Spark's own words (its error class's line, not Py4J's "An error occurred while calling"),
anything else category 1."""

from __future__ import annotations

import re

from glueball.athena import iceberg
from glueball.athena.models import ErrorCategory, ErrorType, Failure

__all__ = ["failure_of"]

_NAMES = [
    ("TABLE_OR_VIEW_NOT_FOUND", "TABLE_NOT_FOUND", ErrorType.USER),
    ("SCHEMA_NOT_FOUND", "SCHEMA_NOT_FOUND", ErrorType.USER),
    ("UNRESOLVED_COLUMN", "COLUMN_NOT_FOUND", ErrorType.USER),
    ("UNRESOLVED_ROUTINE", "FUNCTION_NOT_FOUND", ErrorType.USER),
    ("PARSE_SYNTAX_ERROR", "SYNTAX_ERROR", ErrorType.SYNTAX),
    ("TABLE_OR_VIEW_ALREADY_EXISTS", "ALREADY_EXISTS", ErrorType.DDL_FAILED),
    ("SCHEMA_ALREADY_EXISTS", "ALREADY_EXISTS", ErrorType.DDL_FAILED),
    ("LOCATION_ALREADY_EXISTS", "HIVE_PATH_ALREADY_EXISTS", ErrorType.DDL_FAILED),
    ("DIVIDE_BY_ZERO", "DIVISION_BY_ZERO", ErrorType.DATA),
    ("CAST_INVALID_INPUT", "INVALID_CAST_ARGUMENT", ErrorType.DATA),
    ("PARQUET_COLUMN_DATA_TYPE_MISMATCH", "HIVE_BAD_DATA", ErrorType.DATA),
    ("FAILED_READ_FILE", "HIVE_CURSOR_ERROR", ErrorType.DATA),
    ("DATATYPE_MISMATCH", "TYPE_MISMATCH", ErrorType.USER),
    ("INSERT_COLUMN_ARITY_MISMATCH", "MISMATCHED_COLUMN_ALIASES", ErrorType.USER),
    ("AccessDeniedException", "ACCESS_DENIED", ErrorType.USER),
    ("MERGE_CARDINALITY_VIOLATION", "MERGE_TARGET_ROW_MULTIPLE_MATCHES", ErrorType.USER),
    # time travel to a snapshot an Iceberg table has not (FOR VERSION/TIMESTAMP AS OF), in Trino's name for it
    ("Cannot find snapshot with ID", "INVALID_ARGUMENTS", ErrorType.USER),
    ("Cannot find a snapshot older than", "INVALID_ARGUMENTS", ErrorType.USER),
    # an engine started without Iceberg, given a statement of an Iceberg table (its jars fetched meanwhile)
    (f"Catalog '{iceberg.CATALOG}' plugin class not found", "NOT_SUPPORTED", ErrorType.USER),
    (f"[CATALOG_NOT_FOUND] The catalog `{iceberg.CATALOG}` not found", "NOT_SUPPORTED", ErrorType.USER),
]


_ERROR_CLASS = re.compile(r"\[[A-Z][A-Z0-9_.]*\] .*")
_THROWN = re.compile(r"^(?:: |Caused by: )(?:[\w.$]+(?:Exception|Error): )?(.*)$")


def _thrown(lines: list[str]) -> str:
    """The words of the JVM's exception in a Py4J error's lines: the first that names Spark's error class (a job's
    failure wraps its task's), else the first exception's message that says anything (``Exception thrown in
    awaitResult:`` says nothing)."""
    for line in lines:
        named = _ERROR_CLASS.search(line)
        if named is not None:
            return named.group(0)
    messages = [found.group(1).strip() for found in map(_THROWN.match, lines) if found is not None]
    return next((m for m in messages if m and not m.endswith(":")), messages[0] if messages else lines[0])


def failure_of(exc: BaseException) -> Failure:
    """The ``AthenaError`` of a Spark (or Glue) error: Athena's name for it and Spark's own words."""
    text = str(exc)
    lines = text.strip().splitlines()
    if lines and lines[0].startswith("An error occurred while calling"):  # Py4J's: the JVM's exceptions follow
        lines = [_thrown(lines)]
    words = re.sub(r"\s*SQLSTATE: \w+", "", lines[0] if lines else type(exc).__name__)
    # a function Spark does not have is looked up in the catalog's functions (GetUserDefinedFunction), which
    # answers that it is not there: Trino's words for it
    unknown = re.search(r"Function ([\w.`]+) not found in database", text)
    if unknown is not None:
        name = unknown.group(1).replace("`", "").rsplit(".", 1)[-1]
        return Failure(ErrorCategory.USER, ErrorType.USER, f"FUNCTION_NOT_FOUND: Function '{name}' not registered")
    missing = re.search(r"ClassNotFoundException:?\s+(?:Class\s+)?([\w.$]+)", text)
    if missing is not None:  # a table's SerDe or format Spark's class path lacks
        return Failure(ErrorCategory.USER, ErrorType.USER, f"NOT_SUPPORTED: {missing.group(1)} is not available to "
                       "glueball's engine (Spark)")
    for spark_name, athena_name, kind in _NAMES:
        if spark_name in text:
            if athena_name == "ACCESS_DENIED":
                return Failure(ErrorCategory.USER, kind, f"Insufficient permissions to execute the query. {words}")
            return Failure(ErrorCategory.USER, kind, f"{athena_name}: {words}")
    from pyspark.errors import AnalysisException

    if isinstance(exc, AnalysisException):
        return Failure(ErrorCategory.USER, ErrorType.USER, words)
    return Failure(ErrorCategory.SYSTEM, ErrorType.ENGINE, f"GENERIC_INTERNAL_ERROR: {words}", retryable=True)

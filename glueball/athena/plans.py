"""What a planned Athena query is (:class:`Plan`, or a :class:`Refusal` naming why it will not run), and the
dialects and names the planners share (:mod:`glueball.athena.plan`, :mod:`glueball.athena.hive_ddl`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp
from sqlglot.errors import ErrorLevel, UnsupportedError

from glueball.athena.models import ErrorType, StatementType

READ = "athena"  # sqlglot's Athena dialect: Hive for DDL, Trino for the rest
WRITE = "spark"


class Refusal(Exception):
    """A statement that will not run: the FAILED query's ``AthenaError`` (category USER) says what and why."""

    def __init__(self, message: str, error_type: ErrorType = ErrorType.USER) -> None:
        super().__init__(message)
        self.message = message
        self.error_type = error_type


@dataclass
class Plan:
    """What the engine runs for one query execution (stored as :meth:`to_json`)."""

    kind: str
    statements: list[str]
    statement_type: StatementType
    substatement_type: str
    header: bool = True  # the result's first row names the columns (queries; not DDL's text results)
    extension: str = "csv"
    rename: dict[str, str] = field(default_factory=dict)  # Spark's column names -> Athena's (SHOW, DESCRIBE)
    table: dict[str, Any] = field(default_factory=dict)  # ctas/insert: Database, Name, Location; unload options
    tables_read: list[str] = field(default_factory=list)
    keep: list[str] = field(default_factory=list)  # the result's columns of Spark's (SHOW TABLES: the name only)
    json: list[str] = field(default_factory=list)  # the result's columns of Trino's json type (JSON text to Spark)
    zoned: list[str] = field(default_factory=list)  # ... of timestamp with time zone (their text made by Spark)
    precise: dict[str, int] = field(default_factory=dict)  # ... of timestamp(p), p > 3: their precision
    hive: bool = False  # a result of Athena's Hive DDL engine (SHOW, DESCRIBE): its columns are Hive's strings
    pad: int = 0  # each value padded with spaces to this width, as Hive's text formatter writes SHOW COLUMNS
    # run instead of the last statement when Spark refuses it for a data source table (SHOW CREATE TABLE ... AS
    # SERDE, which prints Hive's DDL of a Hive-format table only)
    otherwise: str | None = None
    # Spark is answered the catalog's tables as stored, not as the data source tables glueball reads some of them
    # as (glueball.metastore.shapes.for_spark): SHOW CREATE TABLE prints the table its maker made
    as_stored: bool = False
    reuse: int | None = None  # ResultReuseByAgeConfiguration's MaxAgeInMinutes, when the request enables it

    def to_json(self) -> dict[str, Any]:
        return {"Kind": self.kind, "Statements": self.statements, "Header": self.header,
                "Extension": self.extension, "Rename": self.rename, "Table": self.table,
                "TablesRead": self.tables_read, "Keep": self.keep, "Json": self.json,
                "Zoned": self.zoned, "Precise": self.precise, "Hive": self.hive, "Pad": self.pad,
                "Otherwise": self.otherwise, "AsStored": self.as_stored,
                **({"Reuse": self.reuse} if self.reuse is not None else {})}


def quoted_name(table: exp.Table) -> str:
    return ".".join(f"`{part}`" for part in (table.db, table.name) if part)


def escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def spark_sql(statement: exp.Expression) -> str:
    """``statement`` in Spark's SQL.

    Raises:
        Refusal: what sqlglot cannot write in Spark's dialect, in its words.
    """
    try:
        return statement.sql(WRITE, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError as exc:
        raise Refusal(f"NOT_SUPPORTED: {exc}") from exc


def table_name(table: exp.Table) -> str:
    """A table's ``database.table`` as written (its name alone without a database)."""
    return ".".join(part for part in (table.db, table.name) if part)


def tables_of(statement: exp.Expression) -> list[str]:
    """The tables a statement names (not its WITH queries'), once each, in order."""
    ctes = {cte.alias_or_name for cte in statement.find_all(exp.CTE)}
    found = [table_name(t) for t in statement.find_all(exp.Table) if t.name and t.name not in ctes]
    return list(dict.fromkeys(found))

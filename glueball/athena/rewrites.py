"""The means of the Trino rewrites (:mod:`glueball.athena.trino`, :mod:`glueball.athena.trino_types`): Spark SQL
made from a template with the statement's own expressions put in, and an expression's annotated type."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

__all__ = ["template", "type_of"]


def template(spark_sql: str, **parts: exp.Expr) -> exp.Expr:
    """Spark SQL with ``__name`` columns standing for ``parts`` (copies of the statement's own expressions)."""
    made = sqlglot.parse_one(spark_sql, read="spark")
    for parsed in list(made.find_all(exp.ParseJSON)):  # sqlglot writes Spark's PARSE_JSON(x) as x alone
        parsed.replace(exp.Anonymous(this="PARSE_JSON", expressions=[parsed.this]))
    if isinstance(made, exp.ParseJSON):
        made = exp.Anonymous(this="PARSE_JSON", expressions=[made.this])
    for column in list(made.find_all(exp.Column)):
        name = column.name
        if not column.table and name.startswith("__") and name[2:] in parts:
            column.replace(parts[name[2:]].copy())
    return made


def type_of(node: exp.Expr) -> exp.DataType | None:
    """``node``'s type as sqlglot's annotation found it, None when it found none."""
    found = node.type
    return found if isinstance(found, exp.DataType) and found.this is not exp.DType.UNKNOWN else None

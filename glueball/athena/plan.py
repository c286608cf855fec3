"""From a query string in Athena's SQL to what an engine runs: Spark SQL statements and how to present their result.

Athena speaks two dialects: DDL is Hive's (``CREATE EXTERNAL TABLE ... ROW FORMAT ... STORED AS ... LOCATION``,
``MSCK REPAIR TABLE``, ``ALTER TABLE ... ADD PARTITION``), which Spark's Hive support runs as written; queries
and DML are Trino's, translated to Spark SQL by sqlglot (its ``athena`` dialect reads both, its ``spark`` dialect
writes Spark's). What sqlglot cannot express in Spark, and what Athena itself refuses, is refused here by name
with a :class:`Refusal` (a FAILED query with ``ErrorCategory`` 2), never handed to Spark to misread.

A :class:`Plan` is stored with the query execution and read by the engine (:mod:`glueball.athena.query_runs`):

- ``rows``: the last statement's rows are the result (SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN), written as
  Athena writes them: ``<id>.csv`` with a header row for queries, ``<id>.txt`` without one for SHOW/DESCRIBE;
- ``ddl``: statements run for their effect (CREATE/DROP/ALTER, MSCK REPAIR TABLE); an empty result;
- ``ctas``, ``insert``: a table written (the manifest of files written, the rows as ``UpdateCount``);
- ``unload``: a SELECT written to a location in a format (``UNLOAD (...) TO 's3://...' WITH (format = ...)``).

``PREPARE``, ``EXECUTE ... USING`` and ``DEALLOCATE PREPARE`` are resolved by the service before planning
(:func:`prepared_statement_of`, :func:`bind`), as Athena resolves them against the workgroup's statements.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError

from glueball.athena import ctas, iceberg, trino, trino_types
from glueball.athena.hive_ddl import hive_ddl
from glueball.athena.models import ErrorType, StatementType
from glueball.athena.plans import READ, WRITE, Plan, Refusal, escaped, quoted_name, spark_sql, table_name, tables_of

__all__ = ["READ", "WRITE", "Catalog", "Plan", "Refusal", "bind", "bind_text", "escaped", "parse", "plan",
           "prepared_statement_of", "quoted_name", "using_values"]

# sqlglot names the statements it keeps as plain commands (SHOW, MSCK, UNLOAD ...) in a warning: planned here
logging.getLogger("sqlglot").setLevel(logging.ERROR)

# Spark functions that reach into the JVM or the files of the driver: no Athena function, never run
_FORBIDDEN_FUNCTIONS = frozenset({"REFLECT", "JAVA_METHOD", "TRY_REFLECT", "INPUT_FILE_NAME"})
_BOUND_QUERY = "glueball_bound_query"  # an UNLOAD's query with its parameters bound (bind_text)


def parse(sql: str) -> list[exp.Expression]:
    """The statements of ``sql`` in Athena's dialect.

    Raises:
        Refusal: it does not parse (``SYNTAX``), or holds more than one statement (Athena runs one).
    """
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise Refusal("Query string is empty", ErrorType.SYNTAX)
    try:
        statements = [s for s in sqlglot.parse(text, read=READ, error_level=ErrorLevel.RAISE)
                      if isinstance(s, exp.Expression)]
    except ParseError as exc:
        raise Refusal(f"line {_line_col(exc)}: {_first_line(exc)}", ErrorType.SYNTAX) from exc
    if len(statements) != 1:
        raise Refusal(f"Only one SQL statement is allowed. Got: {len(statements)}", ErrorType.SYNTAX)
    trino.mark_typed_literals(statements[0], text)
    return statements


def _line_col(exc: ParseError) -> str:
    errors = exc.errors[0] if exc.errors else {}
    return f"{errors.get('line', 1)}:{errors.get('col', 1)}"


def _first_line(exc: ParseError) -> str:
    errors = exc.errors[0] if exc.errors else {}
    described = str(errors.get("description") or str(exc).splitlines()[0])
    return re.sub(r" but got <Token token_type: TokenType\.(\w+), text: ([^,]*),.*$",
                  lambda m: " at the end of the statement" if m[1] == "SENTINEL" else f" but got '{m[2]}'", described)


_NAME = r"(\"[A-Za-z_][A-Za-z0-9_@:]*\"|[A-Za-z_][A-Za-z0-9_@:]*)"  # a statement's name, quoted or not
_PREPARE = re.compile(rf"^\s*PREPARE\s+{_NAME}\s+FROM\s+(.+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_EXECUTE = re.compile(rf"^\s*EXECUTE\s+{_NAME}(?:\s+USING\s+(.+?))?\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_DEALLOCATE = re.compile(rf"^\s*DEALLOCATE\s+PREPARE\s+{_NAME}\s*;?\s*$", re.IGNORECASE)


def prepared_statement_of(sql: str) -> tuple[str, str, str | None] | None:
    """``PREPARE name FROM stmt`` -> (``PREPARE``, name, stmt); ``EXECUTE name [USING a, b]`` -> (``EXECUTE``, name,
    the USING list); ``DEALLOCATE PREPARE name`` -> (``DEALLOCATE``, name, None); None for any other statement."""
    for kind, pattern in (("PREPARE", _PREPARE), ("EXECUTE", _EXECUTE), ("DEALLOCATE", _DEALLOCATE)):
        found = pattern.match(sql)
        if found:
            return kind, found.group(1).strip('"'), found.group(2) if found.lastindex and found.lastindex >= 2 else None
    return None


def using_values(text: str | None) -> list[str]:
    """The literals of an ``EXECUTE ... USING`` list, each as SQL text.

    Raises:
        Refusal: the list does not parse as literals.
    """
    if not text:
        return []
    try:
        values = sqlglot.parse_one(f"SELECT {text}", read=READ, error_level=ErrorLevel.RAISE)
    except ParseError as exc:
        raise Refusal(f"EXECUTE ... USING: {_first_line(exc)}", ErrorType.SYNTAX) from exc
    assert isinstance(values, exp.Select)
    return [value.sql(READ) for value in values.expressions]


def bind_text(text: str, parameters: list[str]) -> tuple[exp.Expression, str]:
    """The first statement of ``text`` with its parameters bound (:func:`bind`), and its text as planned: an
    ``UNLOAD``'s (a statement sqlglot keeps as text) with its query's placeholders bound."""
    statement = parse(text)[0]
    if isinstance(statement, exp.Command) and statement.name.upper() == "UNLOAD":
        found = _UNLOAD.match(text)
        if found is not None:  # the query bound, kept with the statement for the plan (_unload)
            statement.meta[_BOUND_QUERY] = bind(parse(found["query"])[0], parameters)
            return statement, text
    return bind(statement, parameters), text


def bind(statement: exp.Expression, parameters: list[str]) -> exp.Expression:
    """``statement`` with its ``?`` placeholders replaced, in order, by ``parameters`` (as ``ExecutionParameters``
    and ``EXECUTE ... USING`` give them): a parameter that is one SQL literal value (``'x'``, ``2``, ``DATE
    '2020-01-01'``, ``CAST('1.5' AS DECIMAL(3,1))``) is that value; any other text is that text as a string, as
    Athena takes awswrangler's ``qmark`` parameters (``["Washington"]`` matches the string Washington in its
    tests against Athena). Never an expression of the query's columns or a subquery.

    Raises:
        Refusal: as many parameters as placeholders are needed.
    """
    # in the order they are written (a breadth-first walk would take a deeper AND's first)
    placeholders = [p for p in statement.find_all(exp.Placeholder, bfs=False) if not p.this]
    if len(placeholders) != len(parameters):
        raise Refusal(f"Incorrect number of parameters: expected {len(placeholders)} but found {len(parameters)}")
    for placeholder, text in zip(placeholders, parameters, strict=True):
        placeholder.replace(_parameter_value(text))
    return statement


_LITERALS = (exp.Literal, exp.Boolean, exp.Null, exp.Cast, exp.Neg, exp.Array)


def _parameter_value(text: str) -> exp.Expression:
    """One parameter's value: the SQL literal ``text`` is, else ``text`` as a string (:func:`bind`)."""
    try:
        selected = sqlglot.parse_one(f"SELECT {text}", read=READ, error_level=ErrorLevel.RAISE)
    except SqlglotError:  # (an unclosed quote is the tokenizer's error, not the parser's)
        return exp.Literal.string(text)
    trino.mark_typed_literals(selected, f"SELECT {text}")
    values = selected.expressions if isinstance(selected, exp.Select) else []
    if len(values) != 1 or not isinstance(values[0], _LITERALS) or selected.args.get("from") is not None:
        return exp.Literal.string(text)
    computed = [node for node in values[0].walk() if isinstance(node, exp.Column | exp.Query | exp.Func)
                and not isinstance(node, exp.Cast | exp.Array)]  # a column, a subquery, a function's call
    return exp.Literal.string(text) if computed else values[0]


@dataclass(frozen=True)
class Catalog:
    """What the translation reads of the catalog: the columns of a table (``columns(database, table)``) and the
    query's database (``QueryExecutionContext.Database``) for the tables named without one."""

    columns: trino.Columns | None = None
    database: str | None = None
    # a table's skip.header.line.count and partition keys ((0, []) for none, or no such table)
    header_lines: Callable[[str, str], tuple[int, list[str]]] | None = None
    table_type: iceberg.TableType | None = None  # a table's table_type: ICEBERG tables are read through Iceberg
    iceberg: bool = False  # whether the engine has Iceberg (else a statement of an Iceberg table is refused)

    def kept(self, query: exp.Expression) -> exp.Expression:
        """``query`` as Spark must run it to answer as Trino does (:mod:`glueball.athena.trino`), its tables read
        as Athena reads them (:meth:`_headers_skipped`, :meth:`routed`)."""
        return self.routed(self._headers_skipped(cast(exp.Expression, trino.keep_semantics(
            trino.annotate(query, self.columns, self.database)))))

    def routed(self, statement: exp.Expression) -> exp.Expression:
        """``statement`` with its Iceberg tables named in Iceberg's catalog (:func:`glueball.athena.iceberg.route`).

        Raises:
            Refusal: it names an Iceberg table and the engine has no Iceberg.
        """
        if iceberg.route(statement, self.table_type, self.database) and not self.iceberg:
            raise Refusal(iceberg.NO_ICEBERG)
        return statement

    def qualified(self, table: exp.Table) -> str:
        """A table's ``database.table`` as the catalog names it: lower case, in the query's database when the
        statement names none."""
        return f"{(table.db or self.database or 'default').lower()}.{table.name.lower()}"

    def is_iceberg(self, table: exp.Expression | None) -> bool:
        """Whether ``table`` (a statement's target) is an Iceberg table of the catalog."""
        if not isinstance(table, exp.Table) or self.table_type is None or not (table.db or self.database):
            return False
        schema, _, name = self.qualified(table).partition(".")
        return self.table_type(schema, name) == "ICEBERG"

    def _headers_skipped(self, query: exp.Expression) -> exp.Expression:
        """``query`` with each text table whose files begin with more than one header line
        (``skip.header.line.count`` N > 1) read without them, as Athena's Hive reader skips them. Spark's CSV
        reader, which the engine reads such a table with (:mod:`glueball.metastore.shapes`), skips the first line
        of each file only; the other N - 1 are the first rows of the file's first split (``file_block_start`` 0),
        numbered in the order the reader gives them (``monotonically_increasing_id`` grows along a split). The
        partition columns are among the window's keys, so filters on them still prune partitions."""
        if self.header_lines is None or self.columns is None:
            return query
        ctes = {cte.alias_or_name.lower() for cte in query.find_all(exp.CTE)}
        for table in list(query.find_all(exp.Table)):
            database = (table.db or self.database or "").lower()
            if not table.name or not database or table.name.lower() in ctes or \
                    not isinstance(table.parent, exp.From | exp.Join):
                continue
            lines, partition_keys = self.header_lines(database, table.name.lower())
            columns = self.columns(database, table.name.lower()) if lines > 1 else None
            if not columns:
                continue
            names = ", ".join(f"`{name}`" for name, _ in columns)
            keys = "".join(f", `{name}`" for name in partition_keys)
            inner = sqlglot.parse_one(
                f"SELECT {names} FROM (SELECT *, row_number() OVER (PARTITION BY _metadata.file_path, "
                f"_metadata.file_block_start{keys} ORDER BY monotonically_increasing_id()) AS `glueball_line`, "
                f"_metadata.file_block_start AS `glueball_block` FROM `{database}`.`{table.name}`) AS `glueball_lines` "
                f"WHERE `glueball_block` > 0 OR `glueball_line` > {lines - 1}", read=WRITE)
            table.replace(exp.Subquery(this=inner, alias=exp.TableAlias(
                this=exp.to_identifier(table.alias_or_name, quoted=True))))
        return query


def plan(statement: exp.Expression, text: str, default_table_location: str | None,
         catalog: Catalog | None = None) -> Plan:
    """What to run for one parsed statement (``text``: as written, for the statements sqlglot keeps as commands).

    Args:
        default_table_location: where a CTAS without ``external_location`` writes (Athena's
            ``<result location>/tables/<query id>/``), None when the query has no result location.
        catalog: the tables' columns, whose types decide some translations (``a / b`` of integers); without it
            only the literals' types are known.

    Raises:
        Refusal: a statement or construct glueball (or Athena) does not run, named.
    """
    catalog = catalog or Catalog()
    _refuse_constructs(statement)
    if isinstance(statement, exp.Query):
        _name_columns(statement)
        tables = tables_of(statement)
        json = trino_types.json_columns(statement)
        zoned = trino_types.zoned_columns(statement)
        precise = trino_types.timestamp_precisions(statement)
        return Plan("rows", [spark_sql(catalog.kept(statement))], StatementType.DML, "SELECT", tables_read=tables,
                    json=json, zoned=zoned, precise=precise)
    if isinstance(statement, exp.Create):
        return _create(statement, default_table_location, catalog)
    if isinstance(statement, exp.Insert):
        if statement.args.get("overwrite"):  # Hive's; Athena's SQL (Trino's) has none
            raise Refusal("NOT_SUPPORTED: INSERT OVERWRITE is not supported: DELETE the rows (an Iceberg table's) or "
                          "write a new table with CTAS", ErrorType.SYNTAX)
        target = statement.find(exp.Table)
        tables = tables_of(statement.expression) if statement.expression else []
        into_iceberg = catalog.is_iceberg(target)
        name = table_name(target) if target is not None else ""
        if into_iceberg and target is not None:  # its name in Iceberg's catalog (glueball.athena.iceberg.spark_name)
            name = catalog.qualified(target)
        if statement.expression is not None:
            statement.set("expression", catalog.kept(statement.expression))
        if target is not None:
            catalog.routed(target)
        return Plan("insert", [spark_sql(statement)], StatementType.DML, "INSERT",
                    table={"Name": name, **({"Iceberg": True} if into_iceberg else {})}, tables_read=tables)
    if isinstance(statement, exp.Describe):
        return Plan("rows", [catalog.routed(statement).sql(WRITE)], StatementType.UTILITY, "DESCRIBE", header=False,
                    extension="txt", hive=True)
    if isinstance(statement, exp.Drop | exp.Alter | exp.Use):
        kind = type(statement).__name__.upper()
        if isinstance(statement, exp.Use):
            raise Refusal("USE is not supported: name the database in QueryExecutionContext.Database")
        what = str(statement.args.get("kind") or "TABLE").upper()
        managed = isinstance(statement, exp.Drop) and catalog.is_iceberg((statement.args.get("tables") or [None])[0])
        _lower_columns(statement)
        if isinstance(statement, exp.Alter) and catalog.is_iceberg(statement.this):
            iceberg.altered(statement)  # Athena's Iceberg table properties, and Iceberg's they stand for
        catalog.routed(statement)
        if managed:  # Athena's Iceberg tables are managed tables: dropping one removes its data
            statement.set("purge", True)
        return Plan("ddl", [statement.sql(WRITE)], StatementType.DDL, f"{kind}_{what}")
    if isinstance(statement, exp.Delete | exp.Update | exp.Merge):
        verb = type(statement).__name__.upper()
        target = statement.this
        if not catalog.is_iceberg(target):
            name = table_name(target) if isinstance(target, exp.Table) else "the table"
            raise Refusal(f"NOT_SUPPORTED: {verb} is only supported for Iceberg tables: {name} is not one (a Hive "
                          "table's rows are not changed in place)")
        assert isinstance(target, exp.Table)
        table = {"Name": catalog.qualified(target), "Verb": verb}
        if isinstance(statement, exp.Update):  # the rows it changes, counted first where its commit does not say
            where = statement.args.get("where")
            counted = exp.select("count(*)").from_(target.copy())
            table["Count"] = spark_sql(catalog.kept(counted.where(where.this.copy()) if where is not None else counted))
        return Plan("dml", [spark_sql(catalog.kept(statement))], StatementType.DML, verb, table=table,
                    tables_read=[t for t in tables_of(statement) if t != table_name(target)])
    if isinstance(statement, exp.Command):
        return _command(statement, text.strip().rstrip(";").strip(), catalog)
    raise Refusal(f"NOT_SUPPORTED: {type(statement).__name__} statements are not supported")


def _name_columns(query: exp.Query) -> None:
    """Athena's names of a result's unnamed columns: ``_col0``, ``_col1`` ... by position (Spark would name them
    by their expression, ``(1 / 0)``); a column reference keeps its column's name."""
    for position, projection in enumerate(query.selects):
        if not isinstance(projection, exp.Alias | exp.Column | exp.Star):
            projection.replace(exp.alias_(projection.copy(), f"_col{position}", quoted=True))


def _refuse_constructs(statement: exp.Expression) -> None:
    for function in statement.find_all(exp.Anonymous):
        name = str(function.name).upper()
        if name in _FORBIDDEN_FUNCTIONS:
            raise Refusal(f"FUNCTION_NOT_FOUND: Function '{name.lower()}' not registered")
    for node, name in ((exp.MatchRecognize, "MATCH_RECOGNIZE"), (exp.Lateral, "LATERAL")):
        if statement.find(node) is not None:
            raise Refusal(f"NOT_SUPPORTED: {name} is not supported by glueball's engine (Spark SQL)")
    for table in statement.find_all(exp.Table):
        if table.catalog and table.catalog.lower() not in ("awsdatacatalog", "hive"):
            raise Refusal(f"CATALOG_NOT_FOUND: Catalog '{table.catalog}' does not exist")


def _lower_columns(statement: exp.Expression) -> None:
    """The columns a table's DDL names (CREATE TABLE's, its partitions', ALTER TABLE's) in lower case, in place: the
    catalog's column names are, as Athena makes them (``(ID bigint)`` is a column ``id``)."""
    for column in statement.find_all(exp.ColumnDef):
        column.set("this", exp.to_identifier(column.name.lower(), quoted=column.this.quoted))
    for partitioned in statement.find_all(exp.PartitionedByProperty):
        for name in partitioned.find_all(exp.Identifier):
            name.set("this", name.name.lower())
        for literal in partitioned.find_all(exp.Literal):  # Hive's "name" in PARTITIONED BY
            if literal.is_string:
                literal.set("this", literal.name.lower())
    for altered in statement.find_all(exp.AlterColumn, exp.RenameColumn):
        for name in altered.find_all(exp.Identifier):
            name.set("this", name.name.lower())


def _create(statement: exp.Create, default_location: str | None, catalog: Catalog) -> Plan:
    kind = str(statement.args.get("kind") or "").upper()
    if kind in ("DATABASE", "SCHEMA"):
        return Plan("ddl", [statement.sql(WRITE)], StatementType.DDL, "CREATE_DATABASE")
    if kind == "VIEW":
        tables = tables_of(statement.expression) if statement.expression else []
        if isinstance(statement.expression, exp.Query):
            _name_columns(statement.expression)  # a view's unnamed columns are _col0 ... as a query's
        if statement.expression is not None:
            statement.set("expression", catalog.kept(statement.expression))
        return Plan("ddl", [spark_sql(statement)], StatementType.DDL, "CREATE_VIEW", tables_read=tables)
    if kind != "TABLE":
        raise Refusal(f"NOT_SUPPORTED: CREATE {kind} is not supported")
    _lower_columns(statement)
    if iceberg.is_iceberg_ddl(statement.args.get("properties")) and statement.expression is None:
        if not catalog.iceberg:
            raise Refusal(iceberg.NO_ICEBERG)
        return Plan("ddl", [iceberg.create_table(statement, catalog.qualified)], StatementType.DDL, "CREATE_TABLE")
    if statement.expression is None:  # Hive DDL: Spark's Hive support runs it as Athena's Hive does
        return hive_ddl(statement)
    return ctas.ctas(statement, default_location, catalog)


_SHOW = re.compile(r"^\s*SHOW\s+(?P<what>DATABASES|SCHEMAS|TABLES|VIEWS|PARTITIONS|COLUMNS|CREATE\s+TABLE|"
                   r"CREATE\s+VIEW|TBLPROPERTIES|FUNCTIONS)\b(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_RENAMES = {"DATABASES": {"namespace": "database_name"}, "SCHEMAS": {"namespace": "database_name"},
            "TABLES": {"tableName": "tab_name"}, "VIEWS": {"viewName": "views"},
            "COLUMNS": {"col_name": "field"}, "CREATE TABLE": {"createtab_stmt": "createtab_stmt"},
            "CREATE VIEW": {"createtab_stmt": "Create View"}}
_KEEP = {"TABLES": ["tab_name"], "VIEWS": ["views"]}  # Athena lists names only (Spark adds namespace, isTemporary)
_HIVE_COLUMN_WIDTH = 20  # Hive's MetaDataFormatUtils' alignment: SHOW COLUMNS' names padded to it
_UNLOAD = re.compile(r"^\s*UNLOAD\s*\((?P<query>.+)\)\s*TO\s*'(?P<to>[^']+)'\s*WITH\s*\((?P<with>.+)\)\s*$",
                     re.IGNORECASE | re.DOTALL)


def _command(statement: exp.Command, text: str, catalog: Catalog) -> Plan:
    first = text.split(None, 1)[0].upper()
    maintained = iceberg.maintenance(text, catalog.table_type, catalog.database)
    if maintained is not None:
        if not catalog.iceberg:
            raise Refusal(iceberg.NO_ICEBERG)
        return Plan("maintenance", [], StatementType.DML if maintained["Verb"] == "OPTIMIZE" else StatementType.UTILITY,
                    maintained["Verb"], table=maintained)
    if first == "MSCK":
        repaired = re.match(r"^\s*MSCK\s+REPAIR\s+TABLE\s+(?P<rest>.*)$", text, re.IGNORECASE | re.DOTALL)
        if repaired is not None and _names_iceberg_table(repaired["rest"], catalog):
            raise Refusal("NOT_SUPPORTED: MSCK REPAIR TABLE is not supported for Iceberg tables: an Iceberg table's "
                          "partitions are its metadata's")
        return Plan("ddl", [text], StatementType.DDL, "MSCK_REPAIR_TABLE")
    if first == "SHOW":
        shown = _SHOW.match(text)
        if shown is None:
            raise Refusal(f"NOT_SUPPORTED: {text[:80]}")
        what = " ".join(shown["what"].upper().split())
        # Trino's quoted names ("db"."t") are Spark's `db`.`t`; a view's statement is Spark's SHOW CREATE TABLE's
        rest = re.sub(r'"((?:[^"]|"")*)"', lambda m: "`" + m[1].replace('""', '"').replace("`", "``") + "`",
                      shown["rest"])
        sql = {"SCHEMAS": "SHOW DATABASES", "CREATE VIEW": "SHOW CREATE TABLE"}.get(
            what, text[:shown.start("rest")]) + rest
        managed = False  # an Iceberg table: its statement and properties are Iceberg's (in Spark's words)
        if what in ("CREATE TABLE", "COLUMNS", "TBLPROPERTIES"):
            rest, sql, managed = _shown_table(what, rest, sql, catalog)
        if what == "PARTITIONS" and _names_iceberg_table(rest, catalog):
            raise Refusal('NOT_SUPPORTED: SHOW PARTITIONS is not supported for Iceberg tables: query the table\'s '
                          '"<table>$partitions" metadata table')
        shown_plan = Plan("rows", [sql], StatementType.UTILITY, f"SHOW_{what.replace(' ', '_')}", header=False,
                          extension="txt", rename=_RENAMES.get(what, {}), keep=_KEEP.get(what, []), hive=True,
                          pad=_HIVE_COLUMN_WIDTH if what == "COLUMNS" else 0)
        if what == "CREATE TABLE" and not managed and not re.search(r"\bAS\s+SERDE\s*$", rest, re.IGNORECASE):
            # Athena prints a Hive-format table's DDL in Hive's words (ROW FORMAT, STORED AS, LOCATION,
            # TBLPROPERTIES); Spark's plain SHOW CREATE TABLE turns it into USING text|csv|parquet. A Spark data
            # source table has no Hive DDL (Spark refuses AS SERDE for it): Spark's statement, as before
            shown_plan.statements, shown_plan.otherwise, shown_plan.as_stored = [f"{sql} AS SERDE"], sql, True
        return shown_plan
    if first == "EXPLAIN":
        inner_text = text[len("EXPLAIN"):]
        inner_plan = plan(parse(inner_text)[0], inner_text, None, catalog)
        return Plan("rows", [f"EXPLAIN {inner_plan.statements[-1]}"], StatementType.UTILITY, "EXPLAIN",
                    header=False, extension="txt", rename={"plan": "Query Plan"})
    if first == "UNLOAD":
        return _unload(text, catalog, statement.meta.get(_BOUND_QUERY))
    raise Refusal(f"NOT_SUPPORTED: {first} statements are not supported")


_SHOWN_TABLE = re.compile(r"^\s*(?P<name>(?:`(?:[^`]|``)*`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)*`|[\w$]+))?)"
                          r"(?P<after>.*)$", re.DOTALL)


def _shown_table(what: str, rest: str, sql: str, catalog: Catalog) -> tuple[str, str, bool]:
    """A SHOW of one table (CREATE TABLE, COLUMNS, TBLPROPERTIES): its text with an Iceberg table named in
    Iceberg's catalog, and whether it was one."""
    after_in = re.match(r"^(?P<lead>\s*(?:IN|FROM)\s+)(?P<rest>.*)$", rest, re.IGNORECASE | re.DOTALL) \
        if what == "COLUMNS" else None
    lead, body = (after_in["lead"], after_in["rest"]) if after_in else ("", rest)
    named = _named_table(body)
    if named is None or not catalog.is_iceberg(named[0]):
        return rest, sql, False
    table, after = named
    catalog.routed(table)
    routed = (lead or " ") + table.sql(WRITE) + after
    return routed, sql[:len(sql) - len(rest)] + routed, True


def _named_table(text: str) -> tuple[exp.Table, str] | None:
    """The table ``text`` begins with (``db.t``, backticks allowed), and the text after it; None when it names none."""
    found = _SHOWN_TABLE.match(text)
    return (exp.to_table(found["name"], dialect=WRITE), found["after"]) if found is not None else None


def _names_iceberg_table(text: str, catalog: Catalog) -> bool:
    named = _named_table(text)
    return named is not None and catalog.is_iceberg(named[0])


def _unload(text: str, catalog: Catalog, bound: exp.Expression | None = None) -> Plan:
    found = _UNLOAD.match(text)
    if found is None:
        raise Refusal("UNLOAD needs the form UNLOAD (SELECT ...) TO 's3://...' WITH (format = '...')",
                      ErrorType.SYNTAX)
    query = bound if bound is not None else parse(found["query"])[0]
    if not isinstance(query, exp.Query):
        raise Refusal("UNLOAD unloads the result of a SELECT")
    properties = parse(f"CREATE TABLE unload_target WITH ({found['with']}) AS SELECT 1")[0]
    options = ctas.properties(properties, tables=False)
    fmt = str(options.get("format", "")).upper()
    if fmt not in ctas.UNLOAD_FORMATS:
        raise Refusal(f"UNLOAD needs format = one of {', '.join(sorted(ctas.UNLOAD_FORMATS))} (got '{fmt}')")
    write_options = ctas.avro_options(options) if fmt == "AVRO" else ctas.write_options(fmt, options)
    _refuse_constructs(query)
    _name_columns(query)  # the files' unnamed columns are _col0 ... as a query's result's
    tables = tables_of(query)
    return Plan("unload", [spark_sql(catalog.kept(query))], StatementType.DML, "UNLOAD",
                table={"Location": found["to"], "Format": ctas.UNLOAD_FORMATS[fmt], "Options": write_options,
                       "PartitionedBy": options.get("partitioned_by") or []},
                tables_read=tables)

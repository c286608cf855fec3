"""Trino's types Spark has not, as Athena's results give them: ``json`` values (their JSON text), ``timestamp with
time zone`` (the time and its zone as Trino prints them), ``time`` (Spark 4.1's ``TIME(p)``), ``timestamp(p)``'s
precision, and ``typeof``'s names. The rewrites :mod:`glueball.athena.trino` applies for them, and the result
columns of each type the planner names (:func:`json_columns`, :func:`zoned_columns`, :func:`timestamp_precisions`).
"""

from __future__ import annotations

from sqlglot import exp

from glueball.athena.rewrites import template, type_of

__all__ = ["DEFAULT_PRECISION", "as_json", "as_time", "is_zoned", "json_columns", "json_extract", "json_format",
           "json_parse", "json_scalar", "precision_of", "timestamp_precisions", "typeof", "zoned_columns",
           "zoned_text"]


# Trino's precision of a timestamp or time without one (``TIME`` is ``time(3)``), and of the Hive connector's
# timestamp columns; a value of a smaller one is printed with 3 digits too, as before (Trino: the digits it has)
DEFAULT_PRECISION = 3
_SPARK_TIME_PRECISION = 6  # Spark's TIME(p) holds microseconds at most


def precision_of(target: exp.DataType) -> int | None:
    """The precision a ``timestamp(p)`` or ``time(p)`` type names, None when it names none."""
    if not target.expressions:
        return None
    param = target.expressions[0]
    value = param.this if isinstance(param, exp.DataTypeParam) else param
    return int(value.name) if isinstance(value, exp.Literal) and value.name.isdigit() else None


def as_time(node: exp.Cast) -> exp.Expr:
    """``TIME '12:34:56'``, ``CAST(x AS time(p))``: Spark's ``TIME(p)`` (sqlglot writes a ``TIMESTAMP``: today at that
    time), of Trino's precision (``time`` is ``time(3)``; the literal's digits, 3 at least). Spark casts a string to a
    time but not a timestamp: a timestamp's time of day is read from its text."""
    precision = min(max(precision_of(node.to) or DEFAULT_PRECISION, DEFAULT_PRECISION), _SPARK_TIME_PRECISION)
    value = node.this.copy()
    source = type_of(node.this)
    if source is not None and source.this in (exp.DType.TIMESTAMP, exp.DType.TIMESTAMPNTZ, exp.DType.DATETIME):
        value = template("DATE_FORMAT(__t, 'HH:mm:ss.SSSSSS')", t=value)
    made = exp.Cast(this=value, to=exp.DataType(this=exp.DType.USERDEFINED, kind=f"TIME({precision})"))
    made.type = exp.DataType.build(f"TIME({precision})")
    return made


def timestamp_precisions(query: exp.Expr) -> dict[str, int]:
    """The result columns of ``query`` that are Trino's ``timestamp(p)`` of more than 3 digits (``TIMESTAMP
    '2024-01-01 12:34:56.123456'``, ``CAST(x AS timestamp(6))``), and p: Spark's timestamps have no precision (they
    hold microseconds), so the result prints them with p digits and ``ColumnInfo`` names p. Only a SELECT's own
    columns, as :func:`zoned_columns`."""
    if not isinstance(query, exp.Select):
        return {}
    found = {}
    for projection in query.selects:
        value = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(value, exp.Cast) and value.to.is_type(exp.DType.TIMESTAMP):
            precision = precision_of(value.to)
            if precision is not None and precision > DEFAULT_PRECISION:
                found[projection.alias_or_name] = precision
    return found


_JSON_KINDS = (exp.JSONExtract, exp.ParseJSON)


def _json_result(node: exp.Expr) -> bool:
    """Whether ``node`` is a value of Trino's ``json`` type as a statement writes it (a result column's type)."""
    return isinstance(node, _JSON_KINDS) or (isinstance(node, exp.Cast) and node.to.is_type(exp.DType.JSON))


def json_columns(query: exp.Expr) -> list[str]:
    """The result columns of ``query`` (named as :func:`glueball.athena.plan` names them) whose type is ``json``:
    its own JSON values, and those a WITH query or a subquery it reads gives it (by name, or all through ``*``)."""
    selects = query.selects if isinstance(query, exp.Query) else []
    inner: list[str] = []
    for source in [*query.find_all(exp.CTE), *query.find_all(exp.Subquery)]:
        if source is not query and isinstance(source.this, exp.Query):
            inner += [name for name in _own_json_columns(source.this) if name not in inner]
    names = []
    for projection in selects:
        value = projection.this if isinstance(projection, exp.Alias) else projection
        if _json_result(value) or (isinstance(value, exp.Column) and value.name in inner):
            names.append(projection.alias_or_name)
        elif isinstance(value, exp.Star) or (isinstance(value, exp.Column) and isinstance(value.this, exp.Star)):
            names += [name for name in inner if name not in names]
    return names


def _own_json_columns(query: exp.Query) -> list[str]:
    return [projection.alias_or_name for projection in query.selects
            if _json_result(projection.this if isinstance(projection, exp.Alias) else projection)]


def _cast_from_json(node: exp.Expr) -> bool:
    """Whether ``node`` (a JSON value) is cast to another type: sqlglot's own translation reads it then
    (``FROM_JSON`` of ``GET_JSON_OBJECT``'s text)."""
    parent = node.parent
    return isinstance(parent, exp.Cast) and not parent.to.is_type(exp.DType.JSON)


def as_json(node: exp.Cast) -> exp.Expr | None:
    """``CAST(x AS JSON)``: x's JSON text (a string is a JSON string, ``"abc"``; a map an object, keys sorted)."""
    if _json_result(node.this):
        return node.this.copy()
    return template("IF(__x IS NULL, NULL, SUBSTRING(TO_JSON(PARSE_JSON(TO_JSON(ARRAY(__x)))), 2, "
                     "LENGTH(TO_JSON(PARSE_JSON(TO_JSON(ARRAY(__x))))) - 2))", x=node.this)


def _json_path(node: exp.JSONExtract | exp.JSONExtractScalar) -> exp.Expr:
    """The JSON path a ``json_extract``/``json_extract_scalar`` takes, as the text Spark's functions read."""
    path = node.expression
    return exp.Literal.string(path.sql("athena").strip("'")) if isinstance(path, exp.JSONPath) else path


def json_extract(node: exp.JSONExtract) -> exp.Expr | None:
    """``json_extract(j, path)``: the JSON text of the value there (Spark's ``get_json_object`` gives a string
    without its quotes)."""
    if _cast_from_json(node):
        return None
    # a string quoted (Spark's get_json_object gives it bare); an object or array as written, keys in their order
    return template("CASE WHEN SCHEMA_OF_VARIANT(TRY_VARIANT_GET(TRY_PARSE_JSON(__j), __p)) = 'STRING' "
                     "THEN TO_JSON(TRY_VARIANT_GET(TRY_PARSE_JSON(__j), __p)) ELSE GET_JSON_OBJECT(__j, __p) END",
                     j=node.this, p=_json_path(node))


def json_parse(node: exp.ParseJSON) -> exp.Expr | None:
    """``json_parse(s)``: s's JSON value (sqlglot leaves the text as it was, unchecked): its canonical text."""
    if _cast_from_json(node):
        return None
    return template("TO_JSON(PARSE_JSON(__s))", s=node.this)


# Trino's values of type timestamp(3) with time zone (Spark's are instants without one, in the session's UTC)
_ZONED = (exp.CurrentTimestamp, exp.UnixToTime, exp.FromISO8601Timestamp, exp.AtTimeZone)
_ZONED_TEXT = "yyyy-MM-dd HH:mm:ss.SSS"


def zoned_columns(query: exp.Expr) -> list[str]:
    """The result columns of ``query`` whose type is Trino's ``timestamp with time zone`` (``current_timestamp``,
    ``now()``, ``from_unixtime``, ``from_iso8601_timestamp``, ``x AT TIME ZONE z``, a cast to the type), each
    made its text as Trino prints it: the time and its zone (``2024-01-01 10:00:00.000 UTC``; ``AT TIME ZONE``'s
    local time and zone). Only a SELECT's own columns (a union's branches would differ in type)."""
    if not isinstance(query, exp.Select):
        return []
    names = []
    for projection in query.selects:
        value = projection.this if isinstance(projection, exp.Alias) else projection
        if not isinstance(projection, exp.Alias):  # (every unnamed column has its _colN alias)
            continue
        text = zoned_text(value)
        if text is not None:
            projection.set("this", text)
            names.append(projection.alias_or_name)
    return names


def is_zoned(value: exp.Expr) -> bool:
    return isinstance(value, _ZONED) or (isinstance(value, exp.Cast) and value.to.is_type(
        exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ))


def zoned_text(value: exp.Expr) -> exp.Expr | None:
    """Trino's text of a zoned timestamp ``value``: its time and zone; None when ``value`` is none (or its zone is
    read from the rows: then Spark prints the instant)."""
    if not is_zoned(value):
        return None
    zone = value.args.get("zone") if isinstance(value, exp.AtTimeZone) else None
    if zone is not None and not (isinstance(zone, exp.Literal) and zone.is_string):
        return None
    return template(f"CONCAT(DATE_FORMAT(__t, '{_ZONED_TEXT}'), ' ', __z)", t=value,
                     z=zone if zone is not None else exp.Literal.string("UTC"))


# Spark's names of its types (typeof) -> Trino's, for the types that have one name in each
_TYPE_NAMES = {"int": "integer", "float": "real", "string": "varchar", "timestamp": "timestamp(3)",
               "timestamp_ntz": "timestamp(3)", "binary": "varbinary", "void": "unknown"}


def typeof(node: exp.Typeof) -> exp.Expr:
    """``typeof(x)``: Trino's name of x's type (``integer``, ``varchar``, ``timestamp(3) with time zone`` for
    :data:`_ZONED` values); Spark's where the two name a type alike (``bigint``, ``double``, ``decimal(p,s)``)."""
    value = node.this
    if is_zoned(value):
        return exp.Literal.string("timestamp(3) with time zone")
    if isinstance(value, exp.Cast) and value.to.is_type(exp.DType.TIMESTAMP):  # its precision, as written
        precision = max(precision_of(value.to) or DEFAULT_PRECISION, DEFAULT_PRECISION)
        return exp.Literal.string(f"timestamp({precision})")
    cases = " ".join(f"WHEN '{spark}' THEN '{trino}'" for spark, trino in _TYPE_NAMES.items())
    return template(f"CASE TYPEOF(__x) {cases} ELSE TYPEOF(__x) END", x=value)


def json_format(node: exp.JSONFormat) -> exp.Expr:
    """``json_format(j)``: j's JSON text, which is what a JSON value is here (Spark's ``to_json`` takes no string)."""
    return node.this.copy()


def json_scalar(node: exp.JSONExtractScalar) -> exp.Expr:
    return template("CASE WHEN SCHEMA_OF_VARIANT(TRY_VARIANT_GET(TRY_PARSE_JSON(__j), __p)) RLIKE '^(OBJECT|ARRAY)' "
                     "THEN NULL ELSE __e END", j=node.this, p=_json_path(node), e=node.copy())

"""Trino's answers where Spark's functions answer otherwise: the parsed statement rewritten before Spark SQL is written.

sqlglot translates Athena's SQL (Trino's) to Spark's function by function, name for name; where the two engines give
the same call different meanings, the translation alone would run and answer wrongly. Each rewrite here keeps
Trino's documented answer (https://trino.io/docs/current/functions.html) with Spark's own functions:

- ``a / b`` of two integers divides as integers (``5 / 2`` is 2, ``-5 / 2`` is -2): sqlglot writes Spark's
  truncating division once it knows both operands' types, so the statement's types are read first (the tables'
  columns from the catalog, :func:`annotate`);
- ``date_add(unit, n, x)`` adds hours, minutes, seconds to a timestamp (Spark's ``DATE_ADD`` adds days to a date):
  ``TIMESTAMPADD``; days, weeks, months to a date stay dates;
- a number with a point (``1.2``) is a ``double``, as Athena parses it (PyAthena's and awswrangler's tests against
  Athena read ``1.2`` and ``VALUES (0.33)`` as floats); ``DECIMAL '12.34'`` is a ``decimal(4,2)``, and ``DECIMAL``
  without precision a ``decimal(38,0)`` (Spark's bare ``DECIMAL`` is ``decimal(10,0)``: the literal would become 12);
- a cast of a real or decimal number to an integer type rounds (half away from zero) where Spark truncates;
- ``CAST(x AS varchar(n))`` keeps n characters and ``char(n)`` pads to n (Spark casts both to plain strings);
- ``day_of_week``/``dow`` and ``extract(dow FROM d)`` are ISO's (Monday 1 ... Sunday 7);
- ``regexp_extract`` without a match is NULL (Spark's is ``''``); ``json_extract_scalar`` of an object or array is
  NULL (Spark's ``get_json_object`` gives its text); ``greatest``/``least`` of a NULL is NULL (Spark skips it);
- ``sha1``/``sha256``/``sha512`` are binary digests (Spark's are hex text: ``to_hex`` would hex the hex);
  ``repeat(x, n)`` is an array of n x; ``substr(s, 0)`` is ``''``; ``split(s, d, limit)`` keeps its limit;
- ``array_agg`` keeps NULLs, is NULL over no rows and follows its ``ORDER BY`` (Spark's ``collect_list`` drops
  NULLs, gives ``[]`` and keeps no order);
- ``UNNEST ... WITH ORDINALITY`` counts from 1, as a ``bigint`` (Spark's ``posexplode`` from 0);
- ``ROW(a, b)``'s fields are ``field0``, ``field1`` (Spark's ``col1``, ``col2``);
- ``TIME '12:34:56'`` and ``CAST(x AS time)`` are Spark's ``TIME(p)`` (sqlglot writes a timestamp of today), a
  ``timestamp(6)`` literal or cast keeps its precision in the result and in ``typeof`` (Spark's have none);
- ``to_unixtime(ts)`` is a ``double`` with the second's fraction (Spark's ``unix_timestamp`` whole seconds);
- ``nan()``, ``infinity()``, ``is_finite``, ``is_infinite`` (Spark has none), ``is_nan(NULL)`` is NULL, and
  ``random(n)``/``random(m, n)`` an integer below n (Spark's ``rand(n)`` is seeded by n);
- ``if(c, x)`` is NULL where ``c`` does not hold, and ``CASE WHEN NULL`` a branch never taken (Spark refuses both);
- the functions that answer ``bigint`` in Trino (``length``, ``strpos``, ``cardinality``, ``year`` ...,
  ``row_number``/``rank``/``dense_rank``) do here too as a result's column (Spark's answer ``int``; inside an
  expression the ``int`` stays, which Spark's functions taking a count or a position need).

Every rewrite is of the parsed statement and keeps the arguments' own expressions; anything it does not know is
left as sqlglot translates it. Those of Trino's types Spark has not (``json``, zoned timestamps, ``time``,
``timestamp(p)``, ``typeof``'s names) are :mod:`glueball.athena.trino_types`'.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from glueball.athena import trino_types
from glueball.athena.rewrites import template, type_of

log = logging.getLogger(__name__)

#: a table's columns and their Hive types (``[("id", "int"), ...]``), or None when the catalog has no such table
Columns = Callable[[str, str], "list[tuple[str, str]] | None"]

_TYPED_DECIMAL = "glueball_decimal"  # a Cast's mark: ``DECIMAL '12.34'`` as written (not CAST(... AS DECIMAL))
_INTEGERS = (exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT)
_BIGINT_FUNCTIONS = (exp.Length, exp.StrPosition, exp.ArraySize, exp.Year, exp.Month, exp.Day, exp.Quarter,
                     exp.DayOfYear, exp.WeekOfYear, exp.Hour, exp.Minute, exp.Second)
_BIGINT_WINDOWS = (exp.RowNumber, exp.Rank, exp.DenseRank)
_DAY_UNITS = ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR")


def mark_typed_literals(tree: exp.Expr, text: str) -> None:
    """Note the ``DECIMAL '...'`` literals of ``tree`` (parsed from ``text``): sqlglot reads them as casts, which
    Trino types otherwise (``decimal(p,s)`` of the literal's digits against ``decimal(38,0)``)."""
    for cast in tree.find_all(exp.Cast):
        literal = cast.this
        start = literal.meta.get("start") if isinstance(literal, exp.Literal) else None
        if isinstance(start, int) and cast.to.is_type(exp.DType.DECIMAL) and \
                text[:start].rstrip().upper().endswith("DECIMAL"):
            cast.meta[_TYPED_DECIMAL] = True


def _typed(tree: exp.Expr) -> bool:
    """Whether a rewrite needs the statement's types (a division, a date_add, a cast to an integer type)."""
    for node in tree.walk():
        if isinstance(node, exp.Div | exp.DateAdd) or (isinstance(node, exp.Unnest) and node.args.get("offset")):
            return True
        if isinstance(node, exp.Cast) and (node.to.this in _INTEGERS or node.to.is_type(exp.DType.TIME)):
            return True
    return False


def annotate(tree: exp.Expr, columns: Columns | None, database: str | None) -> exp.Expr:
    """``tree`` with its expressions' types (sqlglot's annotation), the catalog's tables' columns read through
    ``columns``; as it was when no rewrite needs them. A statement the qualifier cannot follow keeps the types of
    its literals and casts only."""
    if not _typed(tree):
        return tree
    from sqlglot.optimizer.annotate_types import annotate_types
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.schema import MappingSchema

    mapping: dict[str, Any] = {}
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        db = (table.db or database or "").lower()
        name = table.name.lower()
        if not name or not db or name in ctes or name in mapping.get(db, {}) or columns is None:
            continue
        found = columns(db, name)
        if found:
            mapping.setdefault(db, {})[name] = {c.lower(): t for c, t in found}
    try:
        schema = MappingSchema(mapping, dialect="hive")
        written = [_written_name(p) for p in tree.selects] if isinstance(tree, exp.Query) else []
        qualified = qualify(tree.copy(), dialect="athena", schema=schema, db=database, expand_stars=False,
                            quote_identifiers=False, validate_qualify_columns=False, identify=False,
                            expand_alias_refs=False)
        _keep_output_names(qualified, written)
        return annotate_types(qualified, schema=schema, dialect="athena")
    except Exception as exc:  # noqa: BLE001 - sqlglot's qualifier refuses what it cannot follow: literals' types only
        log.debug("types of %s read from its literals only: %s", tree.sql("athena")[:200], exc)
        return annotate_types(tree, dialect="athena")


def _written_name(projection: exp.Expr) -> exp.Identifier | None:
    """The identifier that names a result's column as written: its alias, or the column it is."""
    name = projection.args.get("alias") if isinstance(projection, exp.Alias) else \
        projection.this if isinstance(projection, exp.Column) else None
    return name.copy() if isinstance(name, exp.Identifier) else None


def _keep_output_names(qualified: exp.Expr, written: list[exp.Identifier | None]) -> None:
    """The result's column names as the statement wrote them (the qualifier folds every identifier to lower case)."""
    selects = qualified.selects if isinstance(qualified, exp.Query) else []
    if len(selects) != len(written):
        return
    for projection, name in zip(selects, written, strict=True):
        if isinstance(projection, exp.Alias) and name is not None:
            projection.set("alias", name)


def keep_semantics(tree: exp.Expr) -> exp.Expr:
    """``tree`` rewritten so that Spark answers what Trino answers (the module's list), in place where it can."""
    # children first (a node's descendants follow it in a depth-first walk): a rewrite copies rewritten arguments
    for node in reversed(list(tree.walk(bfs=False))):
        replacement = _rewrite(node)
        if replacement is not None and replacement is not node:
            if node is tree:
                tree = replacement
            else:
                node.replace(replacement)
    return tree


def _rewrite(node: exp.Expr) -> exp.Expr | None:
    for kind, rewrite in _REWRITES:
        if isinstance(node, kind):
            return rewrite(node)
    return None


def _cast(node: exp.Cast) -> exp.Expr | None:
    target = node.to
    if target.is_type(exp.DType.JSON):
        return trino_types.as_json(node)
    if target.is_type(exp.DType.TIME):
        return trino_types.as_time(node)
    if target.is_type(exp.DType.VARCHAR, exp.DType.TEXT) and not target.expressions:  # a zoned time's text
        zoned = trino_types.zoned_text(node.this)
        if zoned is not None:
            return zoned
    if target.is_type(exp.DType.DECIMAL) and not target.expressions:
        literal = node.this
        if node.meta.get(_TYPED_DECIMAL) and isinstance(literal, exp.Literal):
            precision, scale = _decimal_digits(literal.name)
        else:
            precision, scale = 38, 0
        node.set("to", exp.DataType.build(f"DECIMAL({precision}, {scale})"))
        return node
    if target.this in (exp.DType.VARCHAR, exp.DType.CHAR) and target.expressions:
        length = target.expressions[0]
        n = length.this if isinstance(length, exp.DataTypeParam) else length
        text = exp.Cast(this=node.this.copy(), to=exp.DataType.build("STRING"))
        padded = target.this is exp.DType.CHAR  # char(n) pads to n; both keep at most n characters
        return template("RPAD(__text, __n, ' ')" if padded else "SUBSTRING(__text, 1, __n)", text=text, n=n)
    source = type_of(node.this)
    if target.this in _INTEGERS and source is not None and source.this in (
            exp.DType.DOUBLE, exp.DType.FLOAT, exp.DType.DECIMAL):
        node.set("this", exp.Round(this=node.this.copy()))
        return node
    return None


def _number(node: exp.Literal) -> exp.Expr | None:
    """A number written with a point (``1.2``, ``0.33``) is a ``double``, as Athena parses it (Spark's and Trino's
    own default are decimals); ``DECIMAL '1.2'`` and a literal cast to a decimal keep their decimal."""
    text = node.name
    if node.is_string or "." not in text or "e" in text.lower():
        return None
    parent = node.parent
    if isinstance(parent, exp.Cast) and parent.to.is_type(exp.DType.DECIMAL):
        return None
    if node.find_ancestor(exp.TableSample, exp.Property, exp.Properties, exp.DataType) is not None:
        return None  # where Spark's grammar takes a number as written
    made = exp.Cast(this=node.copy(), to=exp.DataType.build("DOUBLE"))
    made.type = exp.DataType.build("DOUBLE")
    return made


_INFINITY = "CAST('Infinity' AS DOUBLE)"
_FUNCTIONS = {  # Trino's functions Spark has under other names or not at all: (arguments, Spark SQL)
    "NAN": (0, "CAST('NaN' AS DOUBLE)"),
    "INFINITY": (0, _INFINITY),
    "IS_FINITE": (1, f"NOT ISNAN(__a) AND ABS(__a) <> {_INFINITY}"),
    "IS_INFINITE": (1, f"ABS(__a) = {_INFINITY}"),
}


def _function(node: exp.Anonymous) -> exp.Expr | None:
    known = _FUNCTIONS.get(str(node.name).upper())
    if known is None or len(node.expressions) != known[0]:
        return None
    return template(known[1], **dict(zip("ab", node.expressions, strict=False)))


def _is_nan(node: exp.IsNan) -> exp.Expr:
    """``is_nan(NULL)`` is NULL (Spark's ``isnan`` is false)."""
    return template("IF(__x IS NULL, NULL, ISNAN(__x))", x=node.this)


def _random(node: exp.Rand) -> exp.Expr | None:
    """``random(n)`` is an integer from 0 up to n (n's type), ``random(m, n)`` one from m up to n; a bound that is
    not above the start fails the query (Spark's ``rand(n)`` takes n as its seed)."""
    if node.this is None:
        return None
    low, high = (node.this, node.args["lower"]) if node.args.get("lower") is not None else (exp.Literal.number(0),
                                                                                         node.this)
    kind = type_of(high)
    typed = kind.sql("spark") if kind is not None and kind.this in _INTEGERS else \
        "INT" if isinstance(high, exp.Literal) and abs(int(high.name)) < 2 ** 31 else "BIGINT"
    return template(f"IF(__high > __low, CAST(__low + FLOOR(RAND() * (__high - __low)) AS {typed}), "
                     "RAISE_ERROR('bound must be greater than the start'))", low=low, high=high)


def _decimal_digits(text: str) -> tuple[int, int]:
    """Trino's type of ``DECIMAL '<text>'``: the digits it holds and how many follow the point."""
    digits = text.strip().lstrip("+-")
    whole, _, fraction = digits.partition(".")
    whole = whole.lstrip("0")
    return max(len(whole) + len(fraction), 1, len(fraction)), len(fraction)


def _date_add(node: exp.DateAdd) -> exp.Expr | None:
    unit = str(node.unit.name if isinstance(node.unit, exp.Expr) else node.unit or "DAY").upper()
    source = type_of(node.this)
    on_date = source is not None and source.this is exp.DType.DATE
    if unit in _DAY_UNITS and (on_date or source is None):
        return None  # sqlglot's DATE_ADD / ADD_MONTHS: a date from a date
    return exp.Anonymous(this="TIMESTAMPADD", expressions=[exp.var(unit), node.expression.copy(), node.this.copy()])


def _iso_weekday(node: exp.Expr, day: exp.Expr) -> exp.Expr:
    """ISO's day of the week of ``day`` (Monday 1 ... Sunday 7) in place of ``node``: a ``bigint`` as a result's
    column, else kept together inside the expression around it."""
    if _projected(node):
        return template("CAST(WEEKDAY(__d) + 1 AS BIGINT)", d=day)
    return template("(WEEKDAY(__d) + 1)", d=day)


def _day_of_week(node: exp.DayOfWeekIso) -> exp.Expr:
    return _iso_weekday(node, node.this)


def _extract(node: exp.Extract) -> exp.Expr | None:
    """``extract(dow FROM d)`` is ISO's day of the week, as ``day_of_week`` (Spark's ``DOW`` counts from Sunday)."""
    if str(node.name).upper() not in ("DOW", "DAY_OF_WEEK"):
        return None
    return _iso_weekday(node, node.expression)


def _regexp_extract(node: exp.RegexpExtract) -> exp.Expr:
    extracted = node.copy()
    return template("CASE WHEN __s RLIKE __p THEN __e END", s=node.this, p=node.expression, e=extracted)


# a JSON value is its JSON text here, as Trino prints it: objects' keys sorted, no spaces (Spark's variant's form)
def _row(node: exp.Struct) -> exp.Expr | None:
    """``ROW(a, b)``'s fields are ``field0``, ``field1`` ... as Athena names them (Spark's ``col1``, ``col2``)."""
    if not node.expressions or any(isinstance(e, exp.Alias | exp.PropertyEQ) for e in node.expressions):
        return None
    node.set("expressions", [exp.alias_(e.copy(), f"field{i}") for i, e in enumerate(node.expressions)])
    return node


def _extreme(node: exp.Greatest | exp.Least) -> exp.Expr:
    values = [node.this, *node.expressions]
    nulls: exp.Expr = exp.Is(this=values[0].copy(), expression=exp.Null())
    for value in values[1:]:
        nulls = exp.or_(nulls, exp.Is(this=value.copy(), expression=exp.Null()))
    return exp.Case(ifs=[exp.If(this=nulls, true=exp.Null())], default=node.copy())


def _sha2(node: exp.SHA2Digest) -> exp.Expr:
    length = node.args.get("length") or exp.Literal.number(256)
    return template("UNHEX(SHA2(__x, __n))", x=node.this, n=length)


def _sha1(node: exp.SHA) -> exp.Expr:
    return template("UNHEX(SHA1(__x))", x=node.this)


def _repeat(node: exp.Repeat) -> exp.Expr:
    return template("ARRAY_REPEAT(__x, __n)", x=node.this, n=node.args["times"])


def _substring(node: exp.Substring) -> exp.Expr | None:
    start = node.args.get("start")
    if start is None or (start.is_int and start.to_py() != 0):
        return None
    return template("CASE WHEN __start = 0 AND __s IS NOT NULL THEN '' ELSE __e END", start=start, s=node.this,
                     e=node.copy())


def _split(node: exp.Split) -> exp.Expr | None:
    limit = node.args.get("limit")
    if limit is None:
        return None
    quoted = exp.Concat(expressions=[exp.Literal.string("\\Q"), node.expression.copy(), exp.Literal.string("\\E")])
    return exp.Anonymous(this="SPLIT", expressions=[node.this.copy(), quoted, limit.copy()])


def _array_agg(node: exp.ArrayAgg) -> exp.Expr | None:
    if isinstance(node.parent, exp.Window | exp.Filter) or node.args.get("distinct"):
        return None
    inner = node.this
    keys: list[exp.Ordered] = []
    if isinstance(inner, exp.Order):
        keys = [k for k in inner.expressions if isinstance(k, exp.Ordered)]
        inner = inner.this
    if isinstance(inner, exp.Distinct):
        return None
    parts: dict[str, exp.Expr] = {"v": inner}
    fields = ["__v AS _v"]
    comparison = "0"
    for position, key in reversed(list(enumerate(keys))):
        parts[f"k{position}"] = key.this
        fields.insert(0, f"__k{position} AS _k{position}")
        left, right = f"l._k{position}", f"r._k{position}"
        first = -1 if key.args.get("nulls_first") else 1
        order = -1 if key.args.get("desc") else 1
        comparison = (f"CASE WHEN {left} IS NULL AND {right} IS NULL THEN {comparison} "
                      f"WHEN {left} IS NULL THEN {first} WHEN {right} IS NULL THEN {-first} "
                      f"WHEN {left} < {right} THEN {-order} WHEN {left} > {right} THEN {order} ELSE {comparison} END")
    collected = f"COLLECT_LIST(STRUCT({', '.join(fields)}))"
    if keys:
        collected = f"ARRAY_SORT({collected}, (l, r) -> {comparison})"
    return template(f"CASE WHEN COUNT(1) = 0 THEN NULL ELSE TRANSFORM({collected}, s -> s._v) END", **parts)


def _unnest(node: exp.Unnest) -> exp.Expr | None:
    offset = node.args.get("offset")
    if not offset or len(node.expressions) != 1:
        return None
    array = node.expressions[0]
    kind = type_of(array)
    if isinstance(array, exp.Map | exp.VarMap) or (kind is not None and kind.this is exp.DType.MAP):
        # a map unnests to its keys and values
        columns = [template("MAP_KEYS(__m)", m=array), template("MAP_VALUES(__m)", m=array)]
    elif kind is None or kind.this is exp.DType.ARRAY:
        columns = [array]
    else:
        return None
    positions = template("CAST(IF(SIZE(__a) > 0, SEQUENCE(1, SIZE(__a)), ARRAY()) AS ARRAY<BIGINT>)", a=columns[0])
    node.set("expressions", [*columns, positions])
    node.set("offset", None)
    alias = node.args.get("alias")
    name = offset if isinstance(offset, exp.Identifier) else exp.to_identifier("ordinality")
    if isinstance(alias, exp.TableAlias):
        columns = [c for c in alias.columns if c.name != name.name]
        alias.set("columns", [*columns, name])
    return node


def _projected(node: exp.Expr) -> bool:
    """Whether ``node`` is a column of a SELECT's result (aliased or not): where its type reaches the client. Inside
    an expression Spark's ``int`` stays, as Spark's functions taking a count or a position (``date_add``,
    ``element_at``, ``array_repeat``) refuse a ``bigint`` under ANSI rules."""
    parent = node.parent
    if isinstance(parent, exp.Alias):
        node, parent = parent, parent.parent
    return isinstance(parent, exp.Select) and node.arg_key == "expressions"


def _bigint(node: exp.Expr) -> exp.Expr | None:
    if isinstance(node, exp.Window) and not isinstance(node.this, _BIGINT_WINDOWS):
        return None
    if not _projected(node):
        return None
    made = exp.Cast(this=node.copy(), to=exp.DataType.build("BIGINT"))
    made.type = exp.DataType.build("BIGINT")  # an enclosing division reads it
    return made


def _division(node: exp.Div) -> exp.Expr | None:
    """Trino's division of two integers: Spark's exact ``DIV`` (sqlglot's own writes it only for literals and
    casts, else through a double, inexact beyond 2^53), an ``integer`` unless a ``bigint`` takes part."""
    left, right = type_of(node.this), type_of(node.expression)
    if not node.args.get("typed") or left is None or right is None or left.this not in _INTEGERS or \
            right.this not in _INTEGERS:
        return None
    divided = exp.IntDiv(this=node.this.copy(), expression=node.expression.copy())
    wide = exp.DType.BIGINT in (left.this, right.this)
    made = divided if wide else exp.Cast(this=divided, to=exp.DataType.build("INT"))
    made.type = exp.DataType.build("BIGINT" if wide else "INT")
    return made


def _if(node: exp.If) -> exp.Expr | None:
    """``if(c, x)`` is ``if(c, x, NULL)`` (Spark's ``IF`` takes three); ``CASE WHEN NULL`` never holds (Spark
    refuses a NULL condition)."""
    if isinstance(node.parent, exp.Case):
        if isinstance(node.this, exp.Null) and node.parent.this is None:  # a searched CASE; not CASE x WHEN NULL
            node.set("this", exp.false())
        return node
    if node.args.get("false") is None:
        node.set("false", exp.Null())
    return node


def _to_unixtime(node: exp.TimeToUnix) -> exp.Expr:
    """``to_unixtime(ts)``: the seconds since the epoch with their fraction, a ``double`` (Spark's
    ``unix_timestamp`` is whole seconds, a ``bigint``)."""
    return template("CAST(UNIX_MICROS(CAST(__t AS TIMESTAMP)) AS DOUBLE) / 1000000.0E0", t=node.this)


_REWRITES: tuple[tuple[Any, Callable[[Any], exp.Expr | None]], ...] = (
    (exp.Div, _division),
    (exp.If, _if),
    (exp.Cast, _cast),
    (exp.DateAdd, _date_add),
    (exp.DayOfWeekIso, _day_of_week),
    (exp.Extract, _extract),
    (exp.RegexpExtract, _regexp_extract),
    (exp.JSONExtractScalar, trino_types.json_scalar),
    (exp.JSONExtract, trino_types.json_extract),
    (exp.ParseJSON, trino_types.json_parse),
    (exp.JSONFormat, trino_types.json_format),
    (exp.Typeof, trino_types.typeof),
    (exp.Struct, _row),
    (exp.Greatest | exp.Least, _extreme),
    (exp.SHA2Digest, _sha2),
    (exp.SHA, _sha1),
    (exp.Repeat, _repeat),
    (exp.Substring, _substring),
    (exp.Split, _split),
    (exp.ArrayAgg, _array_agg),
    (exp.Unnest, _unnest),
    (exp.Window, _bigint),
    (_BIGINT_FUNCTIONS, _bigint),
    (exp.Literal, _number),
    (exp.Anonymous, _function),
    (exp.IsNan, _is_nan),
    (exp.Rand, _random),
    (exp.TimeToUnix, _to_unixtime),
)

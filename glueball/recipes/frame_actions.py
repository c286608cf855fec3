"""Actions that reshape the frame: delete, rename, move and sort columns, change a type, split,
nest and unnest. They take no conditions.

Split columns are named ``<source>_1``, ``<source>_2`` ... and take the source column's place.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, StringType, StructType

from glueball.recipes.recipe_args import ROW, Args, frame, quoted
from glueball.recipes.text_actions import literal
from glueball.recipes.value_actions import converted


def _ordered(a: Args, names: list[str]) -> DataFrame:
    return a.df.select(*[quoted(n) for n in names], ROW)


@frame("DELETE")
def delete(a: Args) -> DataFrame:
    return a.df.drop(*a.columns())


@frame("RENAME")
def rename(a: Args) -> DataFrame:
    return a.df.withColumnRenamed(a.column(), a.target())


def _moved(a: Args, position: int) -> DataFrame:
    source = a.column()
    names = [n for n in a.names if n != source]
    names.insert(position if position >= 0 else len(names), source)
    return _ordered(a, names)


@frame("MOVE_TO_START")
def move_to_start(a: Args) -> DataFrame:
    return _moved(a, 0)


@frame("MOVE_TO_END")
def move_to_end(a: Args) -> DataFrame:
    return _moved(a, -1)


@frame("MOVE_TO_INDEX")
def move_to_index(a: Args) -> DataFrame:
    index = a.integer("targetIndex")
    if index >= len(a.names):
        raise a.fail(f"parameter 'targetIndex' {index} is past the last column (the data has {len(a.names)})")
    return _moved(a, index)


@frame("MOVE_AFTER", "MOVE_BEFORE")
def move_next_to(a: Args) -> DataFrame:
    source, target = a.column(), a.column("targetColumn")
    names = [n for n in a.names if n != source]
    names.insert(names.index(target) + (a.step.spec.operation == "MOVE_AFTER"), source)
    return _ordered(a, names)


_ORDERINGS = ("ASCENDING", "DESCENDING")
_NULLS = ("NULLS_TOP", "NULLS_BOTTOM")


@frame("SORT")
def sort(a: Args) -> DataFrame:
    expressions = a.json("expressions")
    if not isinstance(expressions, list) or not expressions:
        raise a.fail("parameter 'expressions' must be a JSON list of {sourceColumn, ordering, nullsOrdering}")
    keys: list[Column] = []
    for index, expression in enumerate(expressions, start=1):
        where = f"parameter 'expressions' item {index}"
        if not isinstance(expression, dict) or not set(expression) <= {"sourceColumn", "ordering", "nullsOrdering"}:
            raise a.fail(f"{where} must be an object with sourceColumn, ordering and nullsOrdering")
        name = expression.get("sourceColumn")
        if name not in a.names:
            raise a.fail(f"{where} names no column of the data: {name!r}")
        ordering = expression.get("ordering", "ASCENDING")
        nulls = expression.get("nullsOrdering", "NULLS_TOP")
        if ordering not in _ORDERINGS or nulls not in _NULLS:
            raise a.fail(f"{where}: ordering is one of {', '.join(_ORDERINGS)} and nullsOrdering one of "
                         f"{', '.join(_NULLS)}; got {ordering!r}, {nulls!r}")
        column = quoted(name)
        keys.append({("ASCENDING", "NULLS_TOP"): column.asc_nulls_first(),
                     ("ASCENDING", "NULLS_BOTTOM"): column.asc_nulls_last(),
                     ("DESCENDING", "NULLS_TOP"): column.desc_nulls_first(),
                     ("DESCENDING", "NULLS_BOTTOM"): column.desc_nulls_last()}[(ordering, nulls)])
    return a.df.orderBy(*keys, ROW).withColumn(ROW, F.monotonically_increasing_id())


@frame("CHANGE_DATA_TYPE")
def change_data_type(a: Args) -> DataFrame:
    source = a.column()
    kind = a.df.schema[source].dataType
    return a.df.withColumn(source, converted(a.col(), kind, a.text("columnDataType")))


def _replace_with(a: Args, pieces: list[Column]) -> DataFrame:
    """The source column replaced, where it was, by ``<source>_1`` ... ``<source>_n``."""
    source = a.column()
    names = [f"{source}_{i}" for i in range(1, len(pieces) + 1)]
    taken = sorted(set(names) & set(a.names))
    if taken:
        raise a.fail(f"the split's columns would replace existing columns: {', '.join(taken)}")
    out: list[Column] = []
    for name in a.names:
        if name == source:
            out += [piece.alias(new) for piece, new in zip(pieces, names, strict=True)]
        else:
            out.append(quoted(name))
    return a.df.select(*out, ROW)


def _split(a: Args, delimiters: list[tuple[str, bool]], limit: int) -> DataFrame:
    # a delimiter kept in the split (includeInSplit) ends the piece before it: split after it instead
    regex = "|".join(f"(?<={literal(text)})" if keep else literal(text) for text, keep in delimiters)
    parts = F.split(a.col().cast(StringType()), regex, limit + 1)
    return _replace_with(a, [F.try_element_at(parts, F.lit(i)) for i in range(1, limit + 2)])


@frame("SPLIT_COLUMN_SINGLE_DELIMITER")
def split_single_delimiter(a: Args) -> DataFrame:
    if not a.text("pattern"):
        raise a.fail("parameter 'pattern' must not be empty")
    return _split(a, [(a.text("pattern"), a.flag("includeInSplit"))], a.integer("limit"))


@frame("SPLIT_COLUMN_MULTIPLE_DELIMITER")
def split_multiple_delimiter(a: Args) -> DataFrame:
    options = a.json("patternOptions")
    if not isinstance(options, list) or not options or not all(
            isinstance(o, dict) and isinstance(o.get("pattern"), str) and o["pattern"]
            and set(o) <= {"pattern", "includeInSplit"} for o in options):
        raise a.fail("parameter 'patternOptions' must be a JSON list of {\"pattern\": text, \"includeInSplit\": "
                     f"true|false}}, not {a.text('patternOptions')!r}")
    delimiters = [(o["pattern"], o.get("includeInSplit") in (True, "true")) for o in options]
    return _split(a, delimiters, a.integer("limit"))


@frame("SPLIT_COLUMN_FROM_START", "SPLIT_COLUMN_FROM_END")
def split_at_position(a: Args) -> DataFrame:
    text = a.col().cast(StringType())
    length = F.length(text)
    position = F.lit(a.integer("position"))
    if a.step.spec.operation == "SPLIT_COLUMN_FROM_END":
        position = F.greatest(length - position, F.lit(0))
    return _replace_with(a, [text.substr(F.lit(1), position), text.substr(position + 1, length)])


@frame("NEST_TO_ARRAY", "NEST_TO_MAP", "NEST_TO_STRUCT")
def nest(a: Args) -> DataFrame:
    names = a.columns()
    target = a.target()
    columns = [quoted(n) for n in names]
    operation = a.step.spec.operation
    if operation != "NEST_TO_STRUCT" and len({a.df.schema[n].dataType for n in names}) > 1:
        columns = [c.cast(StringType()) for c in columns]  # one element type: the text of each
    if operation == "NEST_TO_ARRAY":
        nested = F.array(*columns)
    elif operation == "NEST_TO_MAP":
        nested = F.create_map(*[part for n, c in zip(names, columns, strict=True) for part in (F.lit(n), c)])
    else:
        nested = F.struct(*[c.alias(n) for n, c in zip(names, columns, strict=True)])
    out = a.df.withColumn(target, nested)
    if a.flag("removeSourceColumns"):
        out = out.drop(*names)
    return out.select(*[quoted(n) for n in out.columns if n != ROW], ROW)


@frame("UNNEST_ARRAY")
def unnest_array(a: Args) -> DataFrame:
    source = a.column()
    if not isinstance(a.df.schema[source].dataType, ArrayType):
        raise a.fail(f"UNNEST_ARRAY needs an array column; {source!r} is "
                     f"{a.df.schema[source].dataType.simpleString()}")
    target = a.text("targetColumn")
    if target != source:
        target = a.target()
    out = a.df.withColumn(target, F.explode_outer(a.col()))
    return out.withColumn(ROW, F.monotonically_increasing_id())


@frame("UNNEST_STRUCT")
def unnest_struct(a: Args) -> DataFrame:
    source = a.column()
    kind = a.df.schema[source].dataType
    if not isinstance(kind, StructType):
        raise a.fail(f"UNNEST_STRUCT needs a struct column; {source!r} is {kind.simpleString()}")
    prefix = a.text("targetColumn")
    fields = [(f.name, f"{prefix}_{f.name}" if prefix else f.name) for f in kind.fields]
    remove = a.flag("removeSourceColumn")
    taken = sorted({new for _, new in fields} & (set(a.names) - ({source} if remove else set())))
    if taken:
        raise a.fail(f"unnesting {source!r} would replace existing columns: {', '.join(taken)}")
    out = a.df.select("*", *[a.col()[name].alias(new) for name, new in fields])
    if remove:
        out = out.drop(source)
    return out.select(*[quoted(n) for n in out.columns if n != ROW], ROW)

